// GemvLinear: the block types through the fast decode GEMVs (<type>_gemv_k,
// docs/GGUF.md "Fast GEMVs") over weights repacked once at load.
#include <algorithm>
#include <cstring>

#include "k100/base/error.h"
#include "k100/model/linear.h"
#include "k100/quant/gemv_layout.h"

namespace k100::model {

using quant::TensorType;

namespace {

// A type's fast GEMV: "<QUANT_SPECS name>_gemv_k" (q4k_gemv_k) for the types with a GEMV layout.
std::string gemv_name(TensorType t) {
  const QuantSpec* spec = quant_spec(t);
  if (!spec || !quant::has_gemv_layout(t)) return {};
  return std::string(spec->kind) + "_gemv_k";
}

// The benchmark matrix has 272 tiles: one wave per tile and split kept the
// device busy there; a matrix with fewer tiles splits its rows further, to
// the fewest waves of at least 240 (MODELED, an 8B-class down projection of
// 64 tiles: split 4, 256 waves, 49.4 us; split 8 put 1175 KiB in flight,
// more than the open DRAM rows hold, 55.4 us).
constexpr int64_t kBusyWaves = 240;
constexpr uint32_t kMaxWaves = 8;

// Tiles per launch: under the timing model a GEMV over many more tiles than
// the benchmark's keeps more reads in flight than the open DRAM rows hold
// (a 151936-row head: 49 % of the HBM time opening rows), so a matrix of
// 2c or more such runs goes as c consecutive launches of equal runs (448
// tiles in one launch were faster than as 272 + 176, 544 as 2 x 272 faster
// than in one).
constexpr int64_t kLaunchTiles = 272;

// The RMS-scaled kernel's longest run (half the bytes in flight per wave):
// MODELED, a q4_K head of 594 tiles per launch kept DRAM busy without row
// misses, one of 668 spent 9 % of its DRAM time opening rows.
constexpr int64_t kRmsRunTiles = 600;

// The RMS-scaled kernel keeps half the bytes in flight per wave, so a matrix
// of one wave per tile whose runs hold fewer than this many tiles takes two
// (MODELED, q4_K 16480 x 5120, a Gated DeltaNet layer's in-projection: split
// 1 69.88 us, split 2 66.99 us; 14336 x 5120 already at split 2, 448 waves:
// 58.80 us, at split 4 83.79 us).
constexpr int64_t kRmsBusyWaves = 448;

// m = 1..4 rows per launch.
constexpr int64_t kMaxRows = 4;

}  // namespace

GemvGeometry gemv_geometry(const kernels::LaunchContract& plain, int64_t n, int64_t k) {
  const std::map<std::string, int64_t> sizes = {{"n", n}, {"k", k}, {"m", 1}, {"groups", 1}};
  int64_t split = plain.default_choice("split", sizes);
  const int64_t tiles = (n + quant::kGemvTileRows - 1) / quant::kGemvTileRows;
  while (split < kMaxWaves && tiles * split < kBusyWaves) split *= 2;
  const kernels::Launch l = plain.evaluate(sizes, {{"split", split}});
  return GemvGeometry{l.workgroup, uint32_t(split)};
}

uint64_t upload_gemv_weights(Device& dev, TensorType type, int64_t n, int64_t k, int64_t groups,
                             std::span<const uint8_t> bytes, const std::string& what) {
  const quant::GemvLayout layout = quant::gemv_layout(type, n, k);
  const uint64_t group_gguf = quant::row_bytes(type, uint64_t(k)) * uint64_t(n);
  if (!bytes.empty() && bytes.size() != group_gguf * uint64_t(groups))
    throw Error(what + ": " + std::to_string(bytes.size()) + " weight bytes, expected " +
                std::to_string(group_gguf * uint64_t(groups)) + " for " + std::to_string(groups) + " x " +
                std::to_string(n) + " x " + std::to_string(k) + " " + quant::type_name(type));
  const uint64_t group_bytes = uint64_t(layout.bytes());
  const uint64_t p = dev.alloc(group_bytes * uint64_t(groups));
  try {
    if (bytes.empty()) {
      // shape only: the values are never read for their meaning, but the tables are the kernels' to copy
      const std::vector<uint8_t> table = quant::gemv_table(type);
      if (!table.empty())
        for (int64_t g = 0; g < groups; ++g) dev.upload(p + uint64_t(g) * group_bytes, table.data(), table.size());
    } else {
      std::vector<uint8_t> packed(group_bytes);
      for (int64_t g = 0; g < groups; ++g) {
        quant::repack_for_gemv(layout, bytes.data() + uint64_t(g) * group_gguf, packed.data());
        dev.upload(p + uint64_t(g) * group_bytes, packed.data(), packed.size());
      }
    }
  } catch (...) {
    dev.free(p);
    throw;
  }
  return p;
}

GemvLinear::GemvLinear(Device& dev, int64_t n, int64_t k, DeviceWeights w, Workspace* ws, std::string tag)
    : Linear(dev, n, k, w, ws, std::move(tag)) {
  if (!w.gemv_layout)
    throw Error(tag_ + ": GemvLinear needs weights in the GEMV layout (quant::repack_for_gemv)");
  init();
}

GemvLinear::GemvLinear(Device& dev, int64_t n, int64_t k, TensorType type, std::span<const uint8_t> bytes,
                       Workspace* ws, std::string tag, int64_t groups)
    : Linear(dev, n, k, DeviceWeights{type, 0, groups, false, true}, ws, std::move(tag)) {
  if (gemv_name(type).empty()) throw Error(tag_ + ": no fast GEMV for " + quant::type_name(type));
  if (bytes.empty()) throw Error(tag_ + ": no weight bytes");
  w_.ptr = upload_gemv_weights(dev, type, n, k, groups, bytes, tag_);
  w_.owned = true;
  init();
}

void GemvLinear::init() {
  const std::string name = gemv_name(w_.type);
  if (name.empty()) throw Error(tag_ + ": no fast GEMV for " + quant::type_name(w_.type));
  const int64_t block = quant::traits(w_.type).block_elems;
  if (k_ % block)
    throw Error(tag_ + ": k = " + std::to_string(k_) + " is not a multiple of the " + quant::type_name(w_.type) +
                " block (" + std::to_string(block) + ")");
  if (k_ >= (int64_t(1) << 24)) throw Error(tag_ + ": k = " + std::to_string(k_) + " exceeds the GEMV's 2^24 - 1");
  group_bytes_ = uint64_t(quant::gemv_layout(w_.type, n_, k_).bytes());
  gemv_ = dev_.kernel(name, tag_);
  gemv_lc_ = dev_.contract(gemv_);
  geo_ = gemv_geometry(gemv_lc_, n_, k_);
  add_ = dev_.kernel("add_inplace_k", tag_);
  // the fused forms: "<type>_gemv_k" -> "<type>_gemv_acc_k", ...
  const std::string stem = name.substr(0, name.size() - 1);
  auto optional = [&](const char* form, kernels::LaunchContract& contract) {
    const std::string fused = stem + form + "_k";
    if (!dev_.has(fused)) return KernelRef{};
    KernelRef k = dev_.kernel(fused, tag_);
    contract = dev_.contract(k);
    return k;
  };
  acc_ = optional("acc", acc_lc_);
  rms_ = optional("rms", rms_lc_);
  swiglu_ = optional("swiglu", swiglu_lc_);
  // The workspace of the kernels whose contract has one (shared tiles), for
  // a launch of the whole matrix (launch_runs), its counters zero (last, so
  // that nothing after the allocation can throw).
  if (gemv_lc_.has_workspace("ws")) ws_bytes_ = evaluate(gemv_lc_, n_, 1, 1, true).workspace("ws");
  if (ws_bytes_) {
    ws_ptr_ = dev_.alloc(size_t(ws_bytes_));
    try {
      dev_.memset(ws_ptr_, 0, size_t(ws_bytes_));
    } catch (...) {
      dev_.free(ws_ptr_);
      throw;
    }
  }
}

GemvLinear::~GemvLinear() {
  if (ws_ptr_) dev_.free(ws_ptr_);
}

kernels::Launch GemvLinear::evaluate(const kernels::LaunchContract& c, int64_t rows, int64_t m, int64_t groups,
                                     bool share, uint32_t split) const {
  std::map<std::string, int64_t> choices = {{"split", split ? split : geo_.split}};
  if (!share && c.has_choice("parts")) {
    choices["parts"] = 1;
    choices["shared"] = 0;
  }
  return c.evaluate({{"n", rows}, {"k", k_}, {"m", m}, {"groups", groups}}, choices);
}

void GemvLinear::gemv(uint64_t x, uint64_t y, int64_t m) {
  // one group (grid.y = 1, ids = 0: matrix 0); x rows adjacent, so x_stride is unused; y rows of n
  launch_runs(gemv_, gemv_lc_, m, [&](uint64_t w, int64_t row0, int64_t) {
    return GivenArgs{{"w", w}, {"x", x}, {"y", y + uint64_t(row0) * 4}, {"ids", 0}, {"x_stride", 0}};
  });
}

void GemvLinear::accumulate_scaled(uint64_t x, uint64_t y, uint64_t scale, uint64_t y_scaled, uint64_t ss) {
  if (!acc_.valid()) throw Error(tag_ + ": the package has no accumulating fast GEMV for " + quant::type_name(w_.type));
  launch_runs(acc_, acc_lc_, 1, [&](uint64_t w, int64_t row0, int64_t) {
    const uint64_t at = uint64_t(row0) * 4;
    return GivenArgs{{"w", w},
                     {"x", x},
                     {"y", y + at},
                     {"ids", 0},
                     {"x_stride", 0},
                     {"scale", scale ? scale + at : 0},
                     {"y_scaled", y_scaled ? y_scaled + at : 0},
                     {"ss", ss ? ss + uint64_t(row0 / quant::kGemvTileRows) * 4 : 0}};
  });
}

void GemvLinear::rms_scaled(uint64_t x, uint64_t ss, float eps, uint64_t y) {
  if (!rms_.valid()) throw Error(tag_ + ": the package has no RMS-scaled fast GEMV for " + quant::type_name(w_.type));
  // the RMS-scaled kernel keeps half the plain kernel's bytes in flight per
  // wave: runs of about twice the tiles, at most kRmsRunTiles (a 151936-row
  // head as 4 launches, not 8)
  const int64_t tiles = (n_ + quant::kGemvTileRows - 1) / quant::kGemvTileRows;
  const int64_t launches = (tiles + kRmsRunTiles - 1) / kRmsRunTiles, run = (tiles + launches - 1) / launches;
  const uint32_t split = geo_.split == 1 && run < kRmsBusyWaves ? 2 : geo_.split;
  launch_runs(
      rms_, rms_lc_, 1,
      [&](uint64_t w, int64_t row0, int64_t) {
        return GivenArgs{{"w", w},         {"x", x},   {"y", y + uint64_t(row0) * 4}, {"ids", 0},
                         {"x_stride", 0}, {"ss", ss}, {"eps", f32_bits(eps)}};
      },
      kRmsRunTiles, split);
}

void GemvLinear::swiglu(uint64_t x, uint64_t ss, float eps, uint64_t y) {
  if (!swiglu_rows())
    throw Error(tag_ + ": swiglu needs the fused kernels and n = 2F with F a multiple of 64 (n = " +
                std::to_string(n_) + ")");
  // The gate rows are tiles [0, F/64), the up rows the next F/64: `up` is
  // placed so that its table offset lands on the first up tile (the kernel
  // reads the table at w only). Workgroup and split from its contract at the
  // plain kernel's split (2 split waves per tile: the contract halves the
  // split where the plain kernel's workgroup cannot hold them; MODELED at
  // 17408 x 5120, IQ3_S at 256 / 2 115.4 us, at 512 / 4 171.9 us; Q2_0 at
  // 256 / 2 73.6 us, at 512 / 4 158 us: the busiest CUs held twice the
  // waves). Like gemv(), runs of about kLaunchTiles tiles (gate and up
  // together) go as launches of their own; a type with a table keeps one.
  const int64_t f = n_ / 2, tiles = n_ / quant::kGemvTileRows, ftiles = f / quant::kGemvTileRows;
  const uint64_t tile_bytes = (group_bytes_ - uint64_t(quant::gemv_table_bytes(w_.type))) / uint64_t(tiles);
  const uint64_t up = w_.ptr + uint64_t(ftiles) * tile_bytes;
  // The swiglu kernel keeps half the plain kernel's bytes in flight per
  // wave, so a launch holds twice the tiles before the reads in flight
  // outgrow the open DRAM rows (27B-class FFN: 544 tiles in one launch
  // 128 us MODELED, as two launches 141 us).
  const int64_t launches =
      quant::gemv_table_bytes(w_.type) ? 1 : std::max<int64_t>(1, (tiles + 2 * kLaunchTiles - 1) / (2 * kLaunchTiles));
  const int64_t chunk = (ftiles + launches - 1) / launches;
  for (int64_t t = 0; t < ftiles; t += chunk) {
    const int64_t run = std::min(chunk, ftiles - t);
    const uint64_t at = uint64_t(t) * tile_bytes;
    const kernels::Launch l = evaluate(swiglu_lc_, run * quant::kGemvTileRows, 1, 1, false);
    const GivenArgs given = {{"w", w_.ptr + at}, {"up", up + at},   {"x", x},           {"y", y + uint64_t(t * quant::kGemvTileRows) * 4},
                             {"ids", 0},         {"x_stride", 0},   {"ss", ss},         {"eps", f32_bits(eps)}};
    dev_.launch(swiglu_, l.grid[0], l.workgroup, swiglu_lc_.argv(l, given));
  }
}

void GemvLinear::launch_runs(const KernelRef& kernel, const kernels::LaunchContract& contract, int64_t m,
                             const std::function<GivenArgs(uint64_t, int64_t, int64_t)>& given, int64_t max_run,
                             uint32_t split) {
  // Equal runs of at least kLaunchTiles tiles (or of at most max_run), one launch each (the tiles of the
  // layout are contiguous, so rows [64a, 64b) are a matrix of their own);
  // a type with a decode table keeps one launch (its table leads the
  // buffer), and so do m > 1 rows (the kernel's y rows are n apart).
  const int64_t tiles = (n_ + quant::kGemvTileRows - 1) / quant::kGemvTileRows;
  const int64_t launches = quant::gemv_table_bytes(w_.type) || m > 1 ? 1
                           : max_run > 0                              ? (tiles + max_run - 1) / max_run
                                                                      : std::max<int64_t>(1, tiles / kLaunchTiles);
  const int64_t chunk = (tiles + launches - 1) / launches;
  const uint64_t tile_bytes = group_bytes_ / uint64_t(tiles);
  for (int64_t t = 0; t < tiles; t += chunk) {
    const int64_t run = std::min(chunk, tiles - t), row0 = t * quant::kGemvTileRows;
    const int64_t rows = std::min<int64_t>(n_ - row0, run * quant::kGemvTileRows);
    // only a launch of the whole matrix shares tiles: the plan and the workspace are its (init)
    const kernels::Launch l = evaluate(contract, rows, m, 1, run == tiles, split);
    GivenArgs a = given(w_.ptr + uint64_t(t) * tile_bytes, row0, rows);
    if (contract.has_workspace("ws")) {
      const uint64_t bytes = l.workspace("ws");
      if (bytes > ws_bytes_)
        throw Error(tag_ + ": " + kernel.name + " asks for a workspace of " + std::to_string(bytes) + " bytes, the layer has " +
                    std::to_string(ws_bytes_));
      a["ws"] = bytes ? ws_ptr_ : 0;
    }
    dev_.launch(kernel, l.grid[0], l.workgroup, contract.argv(l, a));
  }
}

void GemvLinear::row(uint64_t x, uint64_t y, bool accumulate) { rows(x, 1, y, accumulate); }

void GemvLinear::rows(uint64_t x, int64_t rows, uint64_t out, bool accumulate) {
  if (accumulate && acc_.valid()) {
    for (int64_t r = 0; r < rows; r += kMaxRows) {
      const int64_t m = std::min(kMaxRows, rows - r);
      const uint64_t xr = x + uint64_t(r * k_) * 4, outr = out + uint64_t(r * n_) * 4;
      launch_runs(acc_, acc_lc_, m, [&](uint64_t w, int64_t row0, int64_t) {
        return GivenArgs{{"w", w},         {"x", xr},     {"y", outr + uint64_t(row0) * 4}, {"ids", 0},
                         {"x_stride", 0}, {"scale", 0}, {"y_scaled", 0},                   {"ss", 0}};
      });
    }
    return;
  }
  // without the accumulating kernel: the GEMV into a scratch buffer, then add_inplace_k
  const uint64_t y = accumulate ? ws_->buffer(tag_ + ".acc", size_t(std::min(rows, kMaxRows) * n_) * 4) : 0;
  for (int64_t r = 0; r < rows; r += kMaxRows) {
    const int64_t m = std::min(kMaxRows, rows - r);
    const uint64_t xr = x + uint64_t(r * k_) * 4, outr = out + uint64_t(r * n_) * 4;
    gemv(xr, accumulate ? y : outr, m);
    if (accumulate) {
      ContractKernel(dev_, add_).launch(dev_, {{"n", m * n_}}, {{"y", outr}, {"x", y}, {"n", uint64_t(m * n_)}});
    }
  }
}

void GemvLinear::selected(uint64_t x, uint64_t ids, int64_t count, bool x_per_group, uint64_t out) {
  if (w_.groups > 1) {
    // Experts: one launch, grid.y = the selection, group s on matrix ids[s]
    // (the groups' layouts one after the other), y rows n apart.
    if (!dev_.launches_2d())
      throw Error(tag_ + ": " + std::to_string(w_.groups) + " expert matrices need a device with 2-D launches");
    const kernels::Launch l = evaluate(gemv_lc_, n_, 1, count, false);  // the experts' tiles taken whole
    GivenArgs given = {{"w", w_.ptr}, {"x", x}, {"y", out}, {"ids", ids}, {"x_stride", x_per_group ? uint64_t(k_) : 0}};
    if (gemv_lc_.has_workspace("ws")) given["ws"] = 0;
    dev_.launch_2d(gemv_, l.grid[0], l.grid[1], l.workgroup, gemv_lc_.argv(l, given));
    return;
  }
  // One group: every id selects it, so the selection is `count` rows of the
  // one matrix, over x_s = x + s k or the same x for every s.
  if (x_per_group) {
    rows(x, count, out, false);
  } else {
    for (int64_t s = 0; s < count; ++s) gemv(x, out + uint64_t(s * n_) * 4, 1);
  }
}

}  // namespace k100::model
