// k100lc model: linear layers over 4-bit weights (docs/SAFETENSORS.md), the
// three kinds a Hugging Face directory brings:
//
//   compressed-tensors INT4 group 128 (weight_packed / weight_scale / weight_shape)
//   NVFP4 (weight_packed / weight_scale / weight_global_scale)
//   RT4 i4 tensors (an .rt4 file and its .rt4.json manifest)
//
// and the activation path each runs (W4Activations, `--act`):
//
//   INT4 a16 (the INT4 default)  f32 activations: int4_gemv_k (m = 1..4 rows
//                                 in one launch), or int4_dot_k +
//                                 reduce_blocks_k in a package without it
//   INT4 a8, RT4 a8 (RT4's default)  per row quant_act (int8 per 128, even/odd
//                                 streams, group sums), then gemv_w4a8_fast_k (any
//                                 m in one launch) or, without it, gemv_w4a8<M,false,R>
//   INT4 a4, RT4 a4               per row quant_act4 (int4 per 32), then
//                                 gemv_w4a4_fast_k or gemv_w4a4<M>
//   NVFP4 a8 (its only path)      per row nvfp4_quant_act (int8 per 16), then
//                                 nvfp4_gemv_fast_k (any m) or nvfp4_gemv<M,1>,
//                                 with 1 / weight_global_scale
//
// INT4 weights on the a8/a4 paths are converted once at load to RT4 (two's
// complement nibbles, f16 scales), as `k100-rt4 convert` writes them. A
// combination a format does not have is refused naming both. Every kernel is
// launched from its launch contract (ContractKernel).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "k100/model/linear.h"
#include "k100/model/w4_weight.h"

namespace k100::model {

// y = W x over the rows of one or more W4Weights of one kind stacked (Q|K|V,
// gate|up), all with the same k (NVFP4: the same global scale).
class W4Linear final : public Linear {
 public:
  W4Linear(Device& dev, std::span<const W4Weight* const> parts, W4Activations act, Workspace* ws,
           std::string tag);
  ~W4Linear() override;

  W4Kind kind() const { return kind_; }
  W4Activations activations() const { return act_; }
  uint64_t weight_bytes() const override;  // codes and scales

 private:
  void row(uint64_t x, uint64_t y, bool accumulate) override;
  void rows(uint64_t x, int64_t rows, uint64_t out, bool accumulate) override;
  void selected(uint64_t x, uint64_t ids, int64_t count, bool x_per_group, uint64_t out) override;
  void upload(std::span<const W4Weight* const> parts);
  // y[j] = W x[j] for j < m (1..4), rows adjacent.
  void gemv(uint64_t x, uint64_t y, int64_t m);
  void quantize_rows(uint64_t x, int64_t m);

  W4Kind kind_;
  W4Activations act_;
  float gscale_ = 1.0f;         // NVFP4: 1 / weight_global_scale
  uint64_t codes_ = 0, scales_ = 0;
  // the activation quantiser (a8, a4, NVFP4), the dot path of a16 without int4_gemv_k
  ContractKernel quant_, dot_, reduce_, add_;
  // gemv_[0]: one kernel for every m (int4_gemv_k, gemv_w4a{8,4}_fast_k, nvfp4_gemv_fast_k), else gemv_[m]
  ContractKernel gemv_[5];
  uint64_t ids_ = 0;  // dot path: 0..n-1
};

}  // namespace k100::model
