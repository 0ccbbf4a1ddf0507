// k100lc model: linear layers y = W x (PYTHON_API.md 7.1, 7.2) for weights
// of any GGUF tensor type, read on the device in their stored format.
//
//   F32Linear    f32 weights: gemv_f32_rows8_k / gemv_f32_warp_k (and their
//                accumulating forms), grouped rows via gemv_grouped_f32_k
//   FloatLinear  f16 or bf16 weights: gemv_grouped_{f16,bf16}_k
//   DotLinear    the eleven GGUF block types: <type>_dot_k decodes the blocks
//                inside the dot product, reduce_blocks_k sums each row
//   GemvLinear   the block types with a fast GEMV (those eleven and Q4_1,
//                Q5_0, Q5_1, MXFP4, Q2_K, Q3_K, IQ1_S, IQ1_M, IQ2_XXS,
//                IQ2_XS, TQ2_0) repacked at load (quant::repack_for_gemv):
//                <type>_gemv_k, one launch for up to four rows, y written
//                directly (the model's decode path)
//
// Every layer runs the rows of a decode step (one at a time, four per
// launch on GemvLinear), takes its output
// pointer from the caller or its workspace, and can accumulate (y += W x:
// the residual stream). Weights are uploaded once (from host bytes), or
// borrowed from a device buffer the caller owns (the model loader's).
// A weight may hold several groups of n rows (MoE experts, [groups][n][k]):
// forward_selected runs the groups a device table of ids selects, so a MoE
// layer never waits for the host to route.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "k100/model/contract_kernel.h"
#include "k100/model/device.h"
#include "k100/model/workspace.h"
#include "k100/quant/tensor_type.h"

namespace k100::model {

// Weights on the device: `ptr` holds `groups` x n rows of k elements of `type`.
struct DeviceWeights {
  quant::TensorType type = quant::TensorType::F32;
  uint64_t ptr = 0;
  int64_t groups = 1;
  bool owned = false;  // the layer frees it
  // The bytes are in the GEMV layout (quant::repack_for_gemv of each group's
  // n x k matrix, the groups one after the other), not the GGUF one.
  bool gemv_layout = false;
};

class Linear {
 public:
  virtual ~Linear();
  Linear(const Linear&) = delete;
  Linear& operator=(const Linear&) = delete;

  int64_t n() const { return n_; }
  int64_t k() const { return k_; }
  const std::string& tag() const { return tag_; }
  quant::TensorType type() const { return w_.type; }
  uint64_t weights() const { return w_.ptr; }
  int64_t groups() const { return w_.groups; }
  Device& device() const { return dev_; }
  Workspace& workspace() const { return *ws_; }

  // y[r] = W x[r] for r < rows (y[r] += W x[r] when accumulate); x is
  // [rows][k] f32, y [rows][n] f32 at `out`, or the layer's "<tag>.out"
  // buffer when out == 0. Enqueues only; returns y.
  uint64_t forward_device(uint64_t x, int64_t rows, uint64_t out = 0, bool accumulate = false);
  // Host convenience: uploads x, runs, syncs, downloads [rows][n].
  std::vector<float> forward(std::span<const float> x, int64_t rows);

  // out[s][0..n) = W_{ids[s]} x_s for s < selected, where ids (device u32)
  // picks groups of the weight and x_s = x (x_per_group false) or x + s k.
  void forward_selected(uint64_t x, uint64_t ids, int64_t selected, bool x_per_group, uint64_t out);

  // Bytes the weights take on the device.
  virtual uint64_t weight_bytes() const;

 protected:
  Linear(Device& dev, int64_t n, int64_t k, DeviceWeights w, Workspace* ws, std::string tag);
  // One row: y = W x (+ y).
  virtual void row(uint64_t x, uint64_t y, bool accumulate) = 0;
  // `rows` rows (forward_device's work): one row() each unless a layer runs several at once.
  virtual void rows(uint64_t x, int64_t rows, uint64_t out, bool accumulate);
  virtual void selected(uint64_t x, uint64_t ids, int64_t count, bool x_per_group, uint64_t out) = 0;
  // Uploads host bytes into a new owned buffer.
  static DeviceWeights upload_weights(Device& dev, quant::TensorType type, std::span<const uint8_t> bytes,
                                      int64_t groups);

  Device& dev_;
  int64_t n_, k_;
  DeviceWeights w_;
  WorkspaceRef ws_;
  std::string tag_;
};

class F32Linear final : public Linear {
 public:
  // weight: f32 [n][k] (or [groups][n][k]), uploaded once.
  F32Linear(Device& dev, int64_t n, int64_t k, std::span<const float> weight, Workspace* ws = nullptr,
            std::string tag = "f32linear", int64_t groups = 1);
  F32Linear(Device& dev, int64_t n, int64_t k, DeviceWeights w, Workspace* ws = nullptr,
            std::string tag = "f32linear");

 private:
  void init();
  void row(uint64_t x, uint64_t y, bool accumulate) override;
  void selected(uint64_t x, uint64_t ids, int64_t count, bool x_per_group, uint64_t out) override;
  ContractKernel plain_, acc_, grouped_;
  bool rows8_ = false;
};

// f16 or bf16 weights (and f32 through the same grouped kernel).
class FloatLinear final : public Linear {
 public:
  FloatLinear(Device& dev, int64_t n, int64_t k, DeviceWeights w, Workspace* ws = nullptr,
              std::string tag = "floatlinear");
  FloatLinear(Device& dev, int64_t n, int64_t k, quant::TensorType type, std::span<const uint8_t> bytes,
              Workspace* ws = nullptr, std::string tag = "floatlinear", int64_t groups = 1);

 private:
  void init();
  void row(uint64_t x, uint64_t y, bool accumulate) override;
  void selected(uint64_t x, uint64_t ids, int64_t count, bool x_per_group, uint64_t out) override;
  ContractKernel grouped_;
};

// The block types the device decodes: the dot kernel, the decoder of whole
// blocks (used for embedding rows), elements and bytes per block, and the
// constant tables the kernels take (names of quant/iq_tables.h, in argument
// order). `kind` is the name of PYTHON_API.md's QUANT_SPECS.
struct QuantSpec {
  quant::TensorType type;
  const char* kind;
  const char* dot_kernel;  // nullptr: no fused dot kernel (DotLinear refuses the type; GemvLinear runs it)
  const char* dequant_kernel;
  bool dequant_takes_group_size;  // (w, y, nblocks, 64) rather than (w, y, nblocks)
  uint32_t elems, bytes;
  std::vector<const char*> tables;
};
// nullptr for a type the device kernels do not decode. The kind is a
// QUANT_SPECS name ("q4k") or a format's ggml name ("q4_K", any case).
const QuantSpec* quant_spec(quant::TensorType type);
const QuantSpec* quant_spec(std::string_view kind);
// The fused dot kernels' types (PYTHON_API QUANT_SPECS); quant_spec also
// finds the block types without one (decoders and fast GEMVs only).
std::span<const QuantSpec> quant_specs();

// Device copies of the constant tables, uploaded on first use and kept
// until the workspace frees them (key "tables.<name>").
uint64_t quant_table(Workspace& ws, const char* name);

class DotLinear final : public Linear {
 public:
  // tables: device pointers in the spec's order; empty: uploaded from quant's tables.
  DotLinear(Device& dev, int64_t n, int64_t k, DeviceWeights w, Workspace* ws = nullptr, std::string tag = "dotlinear",
            std::vector<uint64_t> tables = {});
  DotLinear(Device& dev, int64_t n, int64_t k, quant::TensorType type, std::span<const uint8_t> bytes,
            Workspace* ws = nullptr, std::string tag = "dotlinear", std::vector<uint64_t> tables = {},
            int64_t groups = 1);

  // The MoE form of PYTHON_API.md 7.2: one launch covering all n rows with
  // weight groups of rows_per_w rows at ids (host-visible u32 table on the
  // device), x grouped rows_per_exp rows at a time, then one reduce_blocks_k.
  void forward_experts(uint64_t x, uint64_t ids, uint32_t stride_bytes, int64_t rows_per_exp, int64_t rows_per_w,
                       uint64_t out);

  const QuantSpec& spec() const { return *spec_; }

 private:
  void init(std::vector<uint64_t> tables);
  void row(uint64_t x, uint64_t y, bool accumulate) override;
  void selected(uint64_t x, uint64_t ids, int64_t count, bool x_per_group, uint64_t out) override;
  // dot + reduce over `rows` weight rows (nblocks = rows * nbpr).
  void dot(uint64_t x, uint64_t partial, int64_t rows, int64_t rows_per_exp, uint64_t ids, uint64_t stride,
           int64_t rows_per_w, uint64_t out, bool accumulate);
  const QuantSpec* spec_ = nullptr;
  ContractKernel dot_, reduce_, add_, concat_;  // concat_: one block per row (see dot)
  std::vector<uint64_t> tables_;
  uint64_t ids_ = 0;  // [0 .. n) for dense rows
  int64_t nbpr_ = 0;
};

// The workgroup (threads) and split of a fast GEMV over an n x k matrix: the
// kernel's launch contract's defaults (its benchmark geometry,
// docs/PERFORMANCE.md "GGUF fast GEMVs"), with the split raised (up to 8
// waves per tile) while a matrix has too few 64-row tiles to give the device
// a few hundred waves, and the contract's workgroup for that split.
struct GemvGeometry {
  uint32_t workgroup = 64, split = 1;
  uint32_t tiles_per_workgroup() const { return workgroup / 64 / split; }
};
GemvGeometry gemv_geometry(const kernels::LaunchContract& plain, int64_t n, int64_t k);

// The eleven block types through <type>_gemv_k over weights in the GEMV
// layout (DeviceWeights::gemv_layout). Rows run four at a time (m = 1..4);
// accumulating uses the kernel's accumulating form <type>_gemv_acc_k (or,
// in a package without it, the GEMV and add_inplace_k). Several weight
// groups (MoE experts, each matrix's layout after the previous one):
// forward_selected is one launch with the selection as grid.y, on a Device
// with 2-D launches (Device::launches_2d); rows use group 0.
//
// The fused forms a decode layer folds its neighbours into (one row each;
// docs/KERNEL_CALLING.md "Fused fast GEMVs"), available when the package has
// the type's fused kernels (fused()):
//   accumulate_scaled  y += W x; y_scaled = y * scale when y_scaled != 0; ss =
//                      the sums of y^2 over each 64 rows when ss != 0
//   rms_scaled         y = W x / sqrt(sum(ss) / k + eps), ss the k / 64 partial
//                      sums an accumulate_scaled of n = k rows wrote (ss = 0:
//                      y = W x)
//   swiglu             rows [gate; up] (n = 2F, F a multiple of 64):
//                      y[0..F) = silu(r W_gate x) * (r W_up x), r as above
class GemvLinear final : public Linear {
 public:
  GemvLinear(Device& dev, int64_t n, int64_t k, DeviceWeights w, Workspace* ws = nullptr,
             std::string tag = "gemvlinear");
  // GGUF bytes ([groups][n][k]), repacked on the host and uploaded once.
  GemvLinear(Device& dev, int64_t n, int64_t k, quant::TensorType type, std::span<const uint8_t> bytes,
             Workspace* ws = nullptr, std::string tag = "gemvlinear", int64_t groups = 1);
  ~GemvLinear() override;

  const GemvGeometry& geometry() const { return geo_; }
  // Bytes of one group's matrix in the GEMV layout.
  uint64_t group_bytes() const { return group_bytes_; }

  // The package has the fused kernels of this type (accumulate_scaled, rms_scaled, swiglu).
  bool fused() const { return acc_.valid() && rms_.valid() && swiglu_.valid(); }
  // swiglu() applies: n = 2F with F a multiple of 64, and fused().
  bool swiglu_rows() const { return fused() && n_ % 128 == 0; }
  void accumulate_scaled(uint64_t x, uint64_t y, uint64_t scale, uint64_t y_scaled, uint64_t ss);
  void rms_scaled(uint64_t x, uint64_t ss, float eps, uint64_t y);
  void swiglu(uint64_t x, uint64_t ss, float eps, uint64_t y);

 private:
  void init();
  // The arguments a launch gives (pointers and caller values, by name); the
  // launch contract derives the rest.
  using GivenArgs = std::map<std::string, uint64_t>;
  // One launch of `kernel` per run of tiles (see gemv_linear.cpp); given(w, row0, rows) for each;
  // max_run 0: runs of at least the plain kernel's length, else runs of at most max_run tiles.
  // A kernel whose contract has a workspace `ws` gets the layer's (shared
  // tiles: only a launch of the whole matrix shares them).
  void launch_runs(const KernelRef& kernel, const kernels::LaunchContract& contract, int64_t m,
                   const std::function<GivenArgs(uint64_t w, int64_t row0, int64_t rows)>& given,
                   int64_t max_run = 0, uint32_t split = 0);
  // The contract evaluated for `rows` rows at the layer's split (or `split`); shares only when `share`.
  kernels::Launch evaluate(const kernels::LaunchContract& c, int64_t rows, int64_t m, int64_t groups,
                           bool share, uint32_t split = 0) const;
  void row(uint64_t x, uint64_t y, bool accumulate) override;
  void rows(uint64_t x, int64_t rows, uint64_t out, bool accumulate) override;
  void selected(uint64_t x, uint64_t ids, int64_t count, bool x_per_group, uint64_t out) override;
  // y[j] = W x[j] for j < m (1..4), rows adjacent.
  void gemv(uint64_t x, uint64_t y, int64_t m);
  KernelRef gemv_, add_, acc_, rms_, swiglu_;
  // their launch contracts, from the package (empty for a kernel the package lacks)
  kernels::LaunchContract gemv_lc_, acc_lc_, rms_lc_, swiglu_lc_;
  GemvGeometry geo_;
  uint64_t group_bytes_ = 0;
  // The workspace `ws` of the kernels whose contract has one (shared tiles)
  // for a launch of the whole matrix, its counters zero, owned by the layer
  // (0: none needed).
  uint64_t ws_ptr_ = 0, ws_bytes_ = 0;
};

// Uploads [groups][n][k] GGUF bytes of a block type repacked for the fast
// GEMVs into a new device buffer of `groups` x gemv_layout(type, n, k).bytes()
// (the caller owns it). Empty bytes (a shape-only weight) allocate the
// repacked size and write only the types' decode tables.
uint64_t upload_gemv_weights(Device& dev, quant::TensorType type, int64_t n, int64_t k, int64_t groups,
                             std::span<const uint8_t> bytes, const std::string& what);

// The layer for a weight of any type: F32Linear, FloatLinear, DotLinear or
// (weights in the GEMV layout) GemvLinear.
std::unique_ptr<Linear> make_linear(Device& dev, int64_t n, int64_t k, DeviceWeights w, Workspace* ws,
                                    std::string tag);

// Exact magic multiplier for dividing every i < max_i by d (KERNELS.md 1.5),
// or a k100::Error naming `what` (PYTHON_API.md 4.2 div_magic).
uint32_t div_magic(int64_t d, int64_t max_i, std::string_view what = "div_magic");
// m itself when it is that exact multiplier (a kernel's launch contract derives
// it), else the k100::Error div_magic gives, or one naming m.
uint32_t check_div_magic(uint64_t m, int64_t d, int64_t max_i, std::string_view what);

// y = W x with the f32 dispatcher of PYTHON_API.md 4.2 (rows8 when nrows % 8
// == 0, k % 128 == 0 and k <= 512, else one wave per row).
inline constexpr int64_t kRows8MaxK = 512;
void gemv_f32(Device& dev, uint64_t w, uint64_t x, uint64_t y, int64_t nrows, int64_t k);
void gemv_f32_acc(Device& dev, uint64_t w, uint64_t x, uint64_t y, int64_t nrows, int64_t k);

}  // namespace k100::model
