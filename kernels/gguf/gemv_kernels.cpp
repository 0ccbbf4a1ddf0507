// The fast decode GEMVs of the GGUF block types (`*_gemv_k`): registry
// entries with their documentation, test cases and host reference.
//
// The reference is a double-precision dot product over the weights as ggml
// dequantises them (the host codecs are bit-exact with ggml) and the f32
// activations. Weights are random blocks with finite scales, rescaled so
// that a row has RMS 1 / sqrt(k): y then has RMS about that of x (0.58),
// whatever k is, and one tolerance serves every shape.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "gemv_decoder.h"
#include "gemv_reference.h"
#include "k100/base/error.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"
#include "k100/quant/block_scales.h"
#include "k100/quant/codec.h"
#include "k100/quant/gemv_layout.h"
#include "k100/quant/gemv_tile_shares.h"
#include "k100/quant/half.h"

namespace k100::kernels {

namespace {

using quant::TensorType;

// Random blocks for `rows` rows of `cols` elements, every value finite, rows
// scaled to RMS 1 / sqrt(cols) (all scale fields multiplied by one factor).
std::vector<uint8_t> random_matrix(TensorType t, int64_t rows, int64_t cols, Rng& rng) {
  const auto& tr = quant::traits(t);
  const int64_t nblocks = rows * cols / tr.block_elems;
  std::vector<uint8_t> bytes = rng.bytes(size_t(nblocks * tr.block_bytes));
  std::uniform_real_distribution<float> u(0.5f, 1.0f);
  std::vector<float> drawn(size_t(nblocks) * 2);
  for (auto& d : drawn) d = u(rng.engine());
  auto set_scales = [&](float factor) {
    for (int64_t b = 0; b < nblocks; ++b)
      quant::set_block_scales(t, &bytes[size_t(b * tr.block_bytes)], drawn[size_t(2 * b)] * factor,
                              drawn[size_t(2 * b + 1)] * factor);
  };
  set_scales(1.0f);
  std::vector<float> v(size_t(rows * cols));
  quant::dequantize_row(t, bytes.data(), v.data(), rows * cols);
  double ss = 0;
  for (float f : v) ss += double(f) * f;
  const double rms = std::sqrt(ss / double(v.size()));
  const float factor = rms > 0 ? float(1.0 / std::sqrt(double(cols)) / rms) : 1.0f;
  set_scales(factor);
  return bytes;
}

// The tolerance of every fast GEMV: y has RMS ~0.6 at any k (see above); the
// kernels sum in f32 in another order than the double reference, with the
// offsets of Q4_0 / Q2_0 / Q6_K and the mins of Q4_K / Q5_K taken off per block.
Tolerance gemv_tolerance() { return Tolerance{2e-5, 2e-5}; }

// The sizes of a case (the launch contract's), and what the test does around the launch.
struct Geometry {
  int64_t n, k, m, groups, experts;
  bool moe, shared_x;
  int64_t launches = 1;  // launched that many times on one workspace
};

Geometry geometry_of(const Case& c) {
  Geometry g;
  g.n = c["n"];
  g.k = c["k"];
  g.m = c["m"];
  g.groups = dim(c, "groups", 1);
  g.moe = dim(c, "moe", 0) != 0;
  g.experts = g.moe ? g.groups + 1 : g.groups;
  g.shared_x = dim(c, "shared_x", 0) != 0;
  g.launches = dim(c, "launches", 1);
  return g;
}

// The fast GEMVs' per-type launch defaults (workgroup threads, split waves
// per tile): the benchmark geometry at 17408 x 5120 (docs/PERFORMANCE.md),
// which the model starts from. Read only by gemv_launch below.
struct LaunchDefaults {
  TensorType type;
  int wg, split;
};
constexpr LaunchDefaults kLaunchDefaults[] = {
    {TensorType::Q4_0, 256, 1},    {TensorType::Q8_0, 256, 1},    {TensorType::Q2_0, 256, 4},
    {TensorType::Q4_K, 256, 1},    {TensorType::Q5_K, 256, 2},    {TensorType::Q6_K, 256, 1},
    {TensorType::IQ4_NL, 512, 2},  {TensorType::IQ4_XS, 512, 2},  {TensorType::IQ2_S, 256, 4},
    {TensorType::IQ3_S, 256, 4},   {TensorType::IQ3_XXS, 256, 4}, {TensorType::Q4_1, 256, 1},
    {TensorType::Q5_0, 256, 1},    {TensorType::Q5_1, 256, 1},    {TensorType::MXFP4, 512, 2},
    {TensorType::Q2_K, 256, 4},    {TensorType::Q3_K, 256, 2},    {TensorType::IQ2_XXS, 256, 4},
    {TensorType::IQ2_XS, 256, 4},  {TensorType::IQ1_S, 256, 4},   {TensorType::IQ1_M, 256, 4},
    {TensorType::TQ2_0, 256, 4},
};

// The launch contract of a type's plain kernel or fused form: W = wg / 64
// waves, `split` of them per 64-row tile, W / split tiles per workgroup
// (SwiGlu: 2 split waves per tile); the kernels that share tiles
// (gemv_shares_tiles, the one place that says so) plan the shares for one
// tile per workgroup and take their workspace `ws`.
std::string gemv_launch(TensorType t, std::optional<gguf_gemv::GemvFusion> f) {
  const LaunchDefaults* d = nullptr;
  for (const LaunchDefaults& x : kLaunchDefaults)
    if (x.type == t) d = &x;
  if (!d) throw Error("gemv: no launch defaults for " + quant::type_name(t));
  std::string s = "sizes n k m groups\nchoose wg = " + std::to_string(d->wg) + "\nchoose split = " +
                  std::to_string(d->split) + "\nlet tiles = ceil_div(n, 64)\n";
  if (f == gguf_gemv::GemvFusion::SwiGlu) {
    // the plain kernel's workgroup, its split halved where the workgroup cannot hold 2 split waves per tile
    s += "let plain = max(wg, 64 * split)\nlet halves = max(1, min(split, plain / 128))\n"
         "workgroup = max(plain, 128 * halves)\nlet per = max(1, workgroup / 64 / (2 * halves))\n"
         "grid = ceil_div(tiles, per), groups\narg split = halves\n";
  } else {
    s += "workgroup = max(wg, 64 * split)\nlet per = max(1, workgroup / 64 / split)\n";
    if (gguf_gemv::gemv_shares_tiles(t, f))
      s += "choose parts = select(per == 1, tile_share_parts(tiles), 1)\n"
           "choose shared = select(parts > 1, tile_share_tiles(tiles), 0)\n"
           "grid = ceil_div(tiles, per) + select(per == 1, shared * (parts - 1), 0), groups\n"
           "arg split = split + select(parts > 1, 256 * parts + 65536 * shared, 0)\n"
           "workspace ws = select(parts > 1, groups * shared * (parts * 1024 + 64), 0)\n";
    else
      s += "grid = ceil_div(tiles, per), groups\narg split = split\n";
  }
  return s + "arg n = n\narg k = k\narg m = m";
}

// A case's launch by the device's contract of `lookup`: the sizes, and the
// geometry the case names (wg; split 1 unless named; shares "shares" = P,
// "shared" = R, none unless named); a case naming no wg, or wg = 0 (the
// benchmark's, whose --dims may name another geometry), takes the contract's
// defaults.
Launch case_launch(TestDevice& dev, const std::string& lookup, const Case& c, LaunchContract* contract = nullptr) {
  const LaunchContract lc = dev.launch_contract(lookup);
  const Geometry g = geometry_of(c);
  std::map<std::string, int64_t> choices;
  if (dim(c, "wg", 0) > 0) {
    choices = {{"wg", c["wg"]}, {"split", std::max<int64_t>(1, dim(c, "split", 1))}};
    if (lc.has_choice("parts")) {
      choices["parts"] = dim(c, "shares", 1);
      choices["shared"] = dim(c, "shared", 0);
    }
  }
  Launch l = lc.evaluate({{"n", g.n}, {"k", g.k}, {"m", g.m}, {"groups", g.groups}}, choices);
  if (contract) *contract = lc;
  return l;
}

// Whether a launch shares tiles (its shared tiles' counters must be zero after it).
bool shares_whole(const Launch& l) {
  return l.values.count("parts") && l.values.at("parts") > 1 && l.values.at("shared") > 0 && l.values.at("per") == 1;
}

// A failed result when a shared tile's counter is not back at zero after the launches.
std::optional<CaseResult> counters_left(const DeviceBuffer<uint8_t>& ws, const Launch& l, const Geometry& g) {
  const std::vector<uint8_t> bytes = ws.download();
  const quant::GemvTileShares shares{int(l.values.at("parts")), int(l.values.at("shared"))};
  const uint64_t rb = shares.record_bytes();
  for (int64_t r = 0; r < g.groups * shares.tiles; ++r) {
    uint32_t count;
    std::memcpy(&count, bytes.data() + r * rb + rb - 64, 4);
    if (count) {
      CaseResult bad;
      bad.note = "shared tile record " + std::to_string(r) + ": counter " + std::to_string(count) +
                 " after the launches, not 0";
      return bad;
    }
  }
  return std::nullopt;
}

// The benchmark case at 17408 x 5120, m = 1, at the contract's default
// geometry (wg = 0; `k100-bench kernels --dims wg=256,split=4` names another,
// as the model chooses per shape: src/model/gemv_linear.cpp).
Case bench_case() { return make_case({{"n", 17408}, {"k", 5120}, {"m", 1}, {"wg", 0}, {"split", 0}}); }

// The documentation of a kernel that shares tiles: the plain one's, or a fused form's.
void document_shares(KernelDef& d) {
  d.description +=
      " Shared tiles (k100/quant/gemv_tile_shares.h): the last R tiles of the matrix each split into P row shares "
      "taken by workgroups of their own, which meet in ws (partials, then a counter; the last share adds them in "
      "share order and goes on to the end), so that no CU holds a whole tile more than the others.";
  d.semantics += "; ws: the shared tiles' workspace (counters zero before a launch, zero again after it)";
  d.geometry =
      "split = S | P << 8 | R << 16 (P, R = 0: no shared tiles). Without shared tiles: " + d.geometry +
      ". With them (P = 2..8, 0 < R <= ceil(n/64), W = S: one tile per workgroup): grid = (ceil(n/64) + R (P - "
      "1), groups); workgroup P r + q < R P takes share q of tile ceil(n/64) - R + r (the row's ceil(units / P) "
      "units from q ceil(units / P) on, units = blocks), the others tile x - R P whole";
  d.limits += "; with shared tiles ws must hold groups x R records of P x 1024 + 64 bytes, its counters zero "
              "(a null ws faults)";
}

}  // namespace

CaseResult gguf_gemv::run_gemv_case(TestDevice& dev, const Case& c, TensorType t, const RowDequantizer& dequantize) {
  const Geometry g = geometry_of(c);
  Rng rng(c.seed);
  const quant::GemvLayout l = quant::gemv_layout(t, g.n, g.k);
  const int64_t row_bytes = l.blocks_per_row * l.block_bytes;
  // Experts: random matrices, repacked one after the other.
  std::vector<std::vector<uint8_t>> mats;
  std::vector<uint8_t> packed(size_t(g.experts * l.bytes()));
  for (int64_t e = 0; e < g.experts; ++e) {
    mats.push_back(random_matrix(t, g.n, g.k, rng));
    quant::repack_for_gemv(l, mats.back().data(), packed.data() + e * l.bytes());
  }
  // Group s uses expert ids[s] (MoE: a permutation that skips one expert) or s.
  std::vector<uint32_t> ids(size_t(g.groups));
  for (int64_t s = 0; s < g.groups; ++s) ids[size_t(s)] = uint32_t(g.moe ? g.experts - 1 - s : s);
  const int64_t xrows = g.shared_x ? g.m : g.groups * g.m;
  const std::vector<float> x = rng.uniform(size_t(xrows * g.k));
  DeviceBuffer<uint8_t> dw(dev, packed);
  DeviceBuffer<float> dx(dev, x);
  DeviceBuffer<uint32_t> dids(dev, ids);
  DeviceBuffer<float> dy(dev, std::vector<float>(size_t(g.groups * g.m * g.n), std::numeric_limits<float>::quiet_NaN()));
  // Geometry, derived arguments and the workspace from the launch contract.
  // Shared tiles (kernels that share them): the workspace zero once; every
  // launch after the first finds the counters back at zero. With several
  // tiles per workgroup every tile is taken whole (the shares are ignored).
  LaunchContract lc;
  const std::string lookup = gguf_gemv::gemv_signature(t).kernel();
  const Launch lh = case_launch(dev, lookup, c, &lc);
  const uint64_t ws_bytes = lh.workspace("ws");
  DeviceBuffer<uint8_t> dws(dev, std::vector<uint8_t>(std::max<uint64_t>(64, ws_bytes), 0));
  const uint64_t idp = g.moe ? dids.addr() : uint64_t(0), xstride = uint64_t(g.shared_x ? 0 : g.m * g.k);
  std::map<std::string, uint64_t> given = {{"w", dw.addr()}, {"x", dx.addr()}, {"y", dy.addr()}, {"ids", idp},
                                           {"x_stride", xstride}};
  if (lc.has_workspace("ws")) given["ws"] = ws_bytes ? dws.addr() : 0;
  const std::vector<uint64_t> argv = lc.argv(lh, given);
  for (int64_t l = 0; l < g.launches; ++l) {
    if (l) dy.upload(std::vector<float>(size_t(g.groups * g.m * g.n), std::numeric_limits<float>::quiet_NaN()));
    launch(dev, lookup, lh, argv);
  }
  if (shares_whole(lh))
    if (std::optional<CaseResult> bad = counters_left(dws, lh, g)) return *bad;
  // Reference: double dot over the dequantised weights.
  std::vector<float> want(size_t(g.groups * g.m * g.n));
  std::vector<float> w(size_t(g.k));
  for (int64_t s = 0; s < g.groups; ++s) {
    const auto& mat = mats[size_t(ids[size_t(s)])];
    for (int64_t r = 0; r < g.n; ++r) {
      dequantize(mat.data() + r * row_bytes, w.data(), g.k);
      for (int64_t m = 0; m < g.m; ++m) {
        const float* xr = x.data() + ((g.shared_x ? 0 : s * g.m) + m) * g.k;
        double acc = 0;
        for (int64_t i = 0; i < g.k; ++i) acc += double(w[size_t(i)]) * double(xr[i]);
        want[size_t((s * g.m + m) * g.n + r)] = float(acc);
      }
    }
  }
  return compare(dy.download(), want, gemv_tolerance());
}

std::vector<Case> gguf_gemv::gemv_cases(TensorType t, bool sweep) {
  const int64_t be = quant::traits(t).block_elems, ge = be * gguf_gemv::group_shape(t).blocks_per_group;
  std::vector<Case> c;
  uint32_t seed = 1;
  auto add = [&](std::map<std::string, int64_t> d) { c.push_back(make_case(std::move(d), seed++)); };
  // Tails: rows not a multiple of 64, a partial last group, one to four rows
  // of x; workgroups of 1 to 8 waves, as tiles side by side or splitting a row.
  add({{"n", 64}, {"k", ge}, {"m", 1}, {"wg", 64}});
  add({{"n", 70}, {"k", 3 * ge + be}, {"m", 2}, {"wg", 128}, {"split", 2}});
  add({{"n", 33}, {"k", 2 * ge}, {"m", 3}, {"wg", 256}});
  add({{"n", 130}, {"k", 5 * ge - be}, {"m", 4}, {"wg", 256}, {"split", 2}});
  add({{"n", 20}, {"k", be}, {"m", 1}, {"wg", 512}, {"split", 8}});  // fewer groups than waves
  add({{"n", 200}, {"k", 2 * ge + 2 * be}, {"m", 2}, {"wg", 512}, {"split", 4}});
  // One block per wave: with shares by blocks, a share inside one group that starts at its second block.
  add({{"n", 70}, {"k", 3 * be}, {"m", 1}, {"wg", 256}, {"split", 4}});
  // MoE: groups on a permutation of the experts, with shared and per-group x.
  add({{"n", 65}, {"k", 2 * ge + be}, {"m", 1}, {"wg", 128}, {"groups", 2}, {"moe", 1}, {"shared_x", 1}});
  add({{"n", 40}, {"k", ge}, {"m", 2}, {"wg", 64}, {"groups", 3}, {"moe", 1}});
  // Shared tiles, in the kernels that share them: P workgroups on each of
  // the last R tiles, launched twice on one workspace (the counters come back
  // to zero); a row of fewer units than shares x waves, a partial last tile,
  // 1..4 rows, MoE groups, the most shares, and shares ignored with two tiles
  // per workgroup.
  if (gguf_gemv::gemv_shares_tiles(t)) {
    add({{"n", 200}, {"k", 5 * ge + be}, {"m", 1}, {"wg", 256}, {"split", 4}, {"shares", 3}, {"shared", 2}, {"launches", 2}});
    add({{"n", 130}, {"k", 2 * ge}, {"m", 4}, {"wg", 128}, {"split", 2}, {"shares", 2}, {"shared", 3}});
    add({{"n", 100}, {"k", 3 * be}, {"m", 3}, {"wg", 256}, {"split", 4}, {"shares", 4}, {"shared", 1}});
    add({{"n", 70}, {"k", 4 * ge - be}, {"m", 2}, {"wg", 64}, {"shares", 8}, {"shared", 2}, {"launches", 2}});
    add({{"n", 65}, {"k", 2 * ge + be}, {"m", 1}, {"wg", 128}, {"split", 2}, {"groups", 2}, {"moe", 1}, {"shares", 3}, {"shared", 1}});
    add({{"n", 200}, {"k", 2 * ge}, {"m", 2}, {"wg", 256}, {"split", 2}, {"shares", 2}, {"shared", 1}});
  }
  if (sweep) {
    for (int64_t n : {1, 63, 64, 129})
      for (int64_t kk : {be, ge - be, ge, ge + be, 4 * ge + 3 * be})
        for (int64_t m : {1, 2, 3, 4})
          for (auto [wg, split] : std::vector<std::pair<int64_t, int64_t>>{{64, 1}, {256, 1}, {256, 4}})
            if (kk > 0) add({{"n", n}, {"k", kk}, {"m", m}, {"wg", wg}, {"split", split}});
    add({{"n", 100}, {"k", 3 * ge}, {"m", 4}, {"wg", 192}, {"split", 3}});  // 3 waves, split 3: 2 and 2 are used
  }
  return c;
}

namespace {

using gguf_gemv::GemvFusion;

// The fused variants' cases: the plain kernel's (tails, 1..4 rows, split
// rows, MoE groups), SwiGlu's with at least two waves (S on each matrix);
// odd seeds use the optional part (Accumulate: y_scaled; the others: s),
// even ones leave it off (pointer 0).
std::vector<Case> fused_cases(TensorType t, GemvFusion f) {
  std::vector<Case> c = gguf_gemv::gemv_cases(t, false);
  // SwiGlu takes every tile whole: the plain kernel's shared-tile cases are not its
  if (!gguf_gemv::gemv_shares_tiles(t, f)) std::erase_if(c, [](const Case& x) { return x.dims.count("shares") != 0; });
  // One row (the ends that read their inputs early), both parities of the
  // seed, with tiles of the last workgroup past the matrix.
  const int64_t be = quant::traits(t).block_elems, ge = be * gguf_gemv::group_shape(t).blocks_per_group;
  const uint32_t seed = uint32_t(c.size()) + 1;
  c.push_back(make_case({{"n", 70}, {"k", 3 * ge + be}, {"m", 1}, {"wg", 256}}, seed));
  c.push_back(make_case({{"n", 130}, {"k", 2 * ge}, {"m", 1}, {"wg", 512}, {"split", 2}}, seed + 1));
  if (f == GemvFusion::SwiGlu)
    for (Case& x : c) {
      const int64_t wg = std::max<int64_t>(128, dim(x, "wg", 64));
      x.dims["wg"] = wg;
      x.dims["split"] = std::min(dim(x, "split", 1), wg / 128);
    }
  return c;
}

double silu(double g) { return g / (1.0 + std::exp(-g)); }

// Random matrices (one per expert, two for SwiGlu), one launch, and the
// result against double-precision references written from the semantics.
CaseResult run_fused_case(TestDevice& dev, const Case& c, TensorType t, GemvFusion f) {
  const Geometry g = geometry_of(c);
  const bool optional = c.seed % 2 == 1;
  Rng rng(c.seed);
  const quant::GemvLayout l = quant::gemv_layout(t, g.n, g.k);
  const int64_t row_bytes = l.blocks_per_row * l.block_bytes;
  const int nmats = f == GemvFusion::SwiGlu ? 2 : 1;
  std::vector<std::vector<uint8_t>> mats[2];
  std::vector<uint8_t> packed[2];
  for (int h = 0; h < nmats; ++h) {
    packed[h].resize(size_t(g.experts * l.bytes()));
    for (int64_t e = 0; e < g.experts; ++e) {
      mats[h].push_back(random_matrix(t, g.n, g.k, rng));
      quant::repack_for_gemv(l, mats[h].back().data(), packed[h].data() + e * l.bytes());
    }
  }
  std::vector<uint32_t> ids(size_t(g.groups));
  for (int64_t s = 0; s < g.groups; ++s) ids[size_t(s)] = uint32_t(g.moe ? g.experts - 1 - s : s);
  const int64_t xrows = g.shared_x ? g.m : g.groups * g.m, ny = g.groups * g.m * g.n;
  const std::vector<float> x = rng.uniform(size_t(xrows * g.k));
  const std::vector<float> srows = rng.uniform(size_t(xrows * g.k), -2.0f, 2.0f);
  const std::vector<float> y0 = rng.uniform(size_t(ny)), scale = rng.uniform(size_t(g.n), 0.5f, 1.5f);
  const float eps = 1e-5f;
  DeviceBuffer<uint8_t> dw(dev, packed[0]), dup(dev, nmats == 2 ? packed[1] : std::vector<uint8_t>(1));
  DeviceBuffer<float> dx(dev, x), dscale(dev, scale);
  DeviceBuffer<uint32_t> dids(dev, ids);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  DeviceBuffer<float> dy(dev, f == GemvFusion::Accumulate ? y0 : std::vector<float>(size_t(ny), nan));
  DeviceBuffer<float> dz(dev, std::vector<float>(size_t(ny), nan));
  // partial sums of squares: the RMS forms read those of s (64 elements each,
  // per x row); Accumulate writes those of its new y (per 64-row tile)
  const int64_t pk = (g.k + 63) / 64, tiles = (g.n + 63) / 64;
  std::vector<float> ss(size_t(xrows * pk), 0.0f);
  for (int64_t r = 0; r < xrows; ++r)
    for (int64_t i = 0; i < g.k; ++i) ss[size_t(r * pk + i / 64)] += srows[size_t(r * g.k + i)] * srows[size_t(r * g.k + i)];
  DeviceBuffer<float> dss(dev, f == GemvFusion::Accumulate ? std::vector<float>(size_t(g.groups * g.m * tiles), nan) : ss);
  const uint64_t ids_arg = g.moe ? dids.addr() : uint64_t(0), xs = g.shared_x ? 0 : uint64_t(g.m * g.k);
  // shared tiles (Accumulate and RmsScale of the types that share them), as for the plain kernel
  LaunchContract lc;
  const std::string lookup = gguf_gemv::gemv_fused_name(t, f);
  const Launch lh = case_launch(dev, lookup, c, &lc);
  const uint64_t ws_bytes = lh.workspace("ws");
  DeviceBuffer<uint8_t> dws(dev, std::vector<uint8_t>(std::max<uint64_t>(64, ws_bytes), 0));
  std::map<std::string, uint64_t> given = {{"w", dw.addr()}, {"x", dx.addr()}, {"y", dy.addr()}, {"ids", ids_arg},
                                           {"x_stride", xs}};
  if (lc.has_workspace("ws")) given["ws"] = ws_bytes ? dws.addr() : 0;
  switch (f) {
    case GemvFusion::Accumulate:
      given["scale"] = dscale.addr();
      given["y_scaled"] = optional ? dz.addr() : uint64_t(0);
      given["ss"] = optional ? dss.addr() : uint64_t(0);
      break;
    case GemvFusion::SwiGlu:
      given["up"] = dup.addr();
      [[fallthrough]];
    case GemvFusion::RmsScale:
      given["ss"] = optional ? dss.addr() : uint64_t(0);
      given["eps"] = f32(eps);
      break;
  }
  launch(dev, lookup, lh, lc.argv(lh, given));
  if (shares_whole(lh))
    if (std::optional<CaseResult> bad = counters_left(dws, lh, g)) return *bad;
  // Reference: double dots over the dequantised rows.
  std::vector<float> want(static_cast<size_t>(ny)), want_z(static_cast<size_t>(ny));
  std::vector<float> w(size_t(g.k));
  for (int64_t s = 0; s < g.groups; ++s)
    for (int64_t j = 0; j < g.m; ++j) {
      const int64_t xrow = ((g.shared_x ? 0 : s * g.m) + j) * g.k;
      double r = 1.0;
      if (f != GemvFusion::Accumulate && optional) {
        double ss = 0;
        for (int64_t i = 0; i < g.k; ++i) ss += double(srows[size_t(xrow + i)]) * srows[size_t(xrow + i)];
        r = 1.0 / std::sqrt(ss / double(g.k) + double(eps));
      }
      for (int64_t n = 0; n < g.n; ++n) {
        double dot[2] = {0, 0};
        for (int h = 0; h < nmats; ++h) {
          quant::dequantize_row(t, mats[h][size_t(ids[size_t(s)])].data() + n * row_bytes, w.data(), g.k);
          for (int64_t i = 0; i < g.k; ++i) dot[h] += double(w[size_t(i)]) * double(x[size_t(xrow + i)]);
        }
        const size_t at = size_t((s * g.m + j) * g.n + n);
        double y = 0;
        switch (f) {
          case GemvFusion::Accumulate: y = double(y0[at]) + dot[0]; break;
          case GemvFusion::RmsScale: y = r * dot[0]; break;
          case GemvFusion::SwiGlu: y = silu(r * dot[0]) * (r * dot[1]); break;
        }
        want[at] = float(y);
        want_z[at] = float(y * double(scale[size_t(n)]));
      }
    }
  std::vector<float> got = dy.download();
  if (f == GemvFusion::Accumulate && optional) {
    const std::vector<float> z = dz.download(), zs = dss.download();
    std::vector<double> sq(size_t(g.groups * g.m * tiles), 0.0);
    for (int64_t r = 0; r < g.groups * g.m; ++r)
      for (int64_t n = 0; n < g.n; ++n) sq[size_t(r * tiles + n / 64)] += double(want[size_t(r * g.n + n)]) * want[size_t(r * g.n + n)];
    got.insert(got.end(), z.begin(), z.end());
    got.insert(got.end(), zs.begin(), zs.end());
    want.insert(want.end(), want_z.begin(), want_z.end());
    for (double v : sq) want.push_back(float(v));
  }
  return compare(got, want, gemv_tolerance());
}

const char* fusion_doc(GemvFusion f) {
  switch (f) {
    case GemvFusion::Accumulate:
      return "Accumulating form: y += W x (each lane reads its row of y once; for m = 1 it reads y and its row's "
             "scale right after its first loads of weights, so their round trip overlaps the sum); when y_scaled is "
             "not 0 also y_scaled = y * scale[row], and when ss is not 0 the sums of the squares of the new y over "
             "each 64-row tile (the residual add, the next RMSNorm's weight on the new residual and the partial "
             "sums its RMS needs, so the next GEMV can take the normalisation itself).";
    case GemvFusion::RmsScale:
      return "RMS-scaled form: y = r W x with r = 1 / sqrt(sum(ss row) / k + eps), ss holding ceil(k / 64) "
             "partial sums of squares per x row (r = 1 when ss is 0): with x = norm weight * s and ss the partial "
             "sums of s^2 (the accumulating form writes both) this is the GEMV of RMSNorm(s) without the norm's "
             "launch. For m = 1 every wave reads the partials (one dword per lane, two rounds of 64 in flight) right "
             "after its first loads of weights and keeps r, so the round trip overlaps the sum; for more rows the "
             "storing wave of each tile reads them (eight rounds in flight) after its sums. A wave keeps half the "
             "plain kernel's weight bytes in flight (1 KiB against 2 KiB, at least one slice), so a launch holds "
             "about twice the tiles before its reads outgrow the open DRAM rows.";
    case GemvFusion::SwiGlu:
      return "SwiGLU form: y = silu(r W_gate x) * (r W_up x), r as in the RMS-scaled form (1 when s is 0): a tile "
             "has 2 split waves, split on the gate rows at w and split on the up rows at `up`, and the storing "
             "wave gathers both sums through LDS and applies silu(g) = g / (1 + 2^(-g log2 e)) (v_exp_f32, "
             "v_rcp_f32); r and the bytes in flight as in the RMS-scaled form.";
  }
  return "";
}

struct TypeDoc {
  TensorType type;
  const char* decode;  // how the decoder turns codes into products
};

const TypeDoc kDocs[] = {
    {TensorType::Q4_0, "4-bit codes become f16 denormals by one AND per pair; d * (code - 8) with the block's sum of x"},
    {TensorType::Q8_0, "int8 codes converted to f32 (SDWA) and multiplied with v_fmac_f32; d per block"},
    {TensorType::Q2_0, "2-bit codes become f16 denormals by one AND per pair (four scale classes); d * (code - 1) with the block's sum of x"},
    {TensorType::Q4_K, "4-bit codes become f16 denormals by one AND per pair; the 6-bit scales and mins unpacked once per block; d * sc * code - dmin * m with each sub-block's sum of x"},
    {TensorType::Q5_K, "5-bit codes become f16 denormals by one AND (and a shift) per pair, the sixteenth pair gathered from bits 15 / 31; the 6-bit scales and mins unpacked once per block; d * sc * code - dmin * m with each sub-block's sum of x"},
    {TensorType::Q6_K, "6-bit codes become f16 denormals by one AND (and a shift) per pair, every fourth pair gathered from three 2-bit pieces; d * sc * (code - 32) with each 16-element run's sum of x"},
    {TensorType::IQ4_NL, "each code byte becomes two signed f16 half-words by one LDS read of a 256-entry codebook table"},
    {TensorType::IQ4_XS, "each code byte becomes two signed f16 half-words by one LDS read of a 256-entry codebook table; the 6-bit sub-block scales unpacked once per block"},
    {TensorType::IQ2_S, "per 8 elements one LDS read of the grid entry and two of 16-entry sign-nibble tables (four 0x00 / 0x80 bytes each); one v_perm_b32 per pair makes two signed f16 denormals; (2s + 1) / 8 * d per 16-element run"},
    {TensorType::IQ3_S, "per 8 elements two LDS reads of grid entries (index with its ninth bit) and two of 16-entry sign-nibble tables (four 0x00 / 0x80 bytes each); one v_perm_b32 per pair makes two signed f16 denormals; (2s + 1) * d per sub-block"},
    {TensorType::IQ3_XXS, "per 8 elements two LDS reads of grid entries and one ds_read2_b32 of both sign halves from a 128-entry table by the 7-bit code (ggml's ksigns with its parity bit; 12-byte entries); one v_perm_b32 per pair makes two signed f16 denormals; (2s + 1) / 4 * d per sub-block"},
    {TensorType::Q4_1, "4-bit codes become f16 denormals by one AND per pair; d * code + m with the block's sum of x"},
    {TensorType::Q5_0, "5-bit codes become f16 denormals by one AND (and a shift) per pair, the sixteenth pair gathered from bits 15 / 31; d * (code - 16) with the block's sum of x"},
    {TensorType::Q5_1, "5-bit codes become f16 denormals by one AND (and a shift) per pair, the sixteenth pair gathered from bits 15 / 31; d * code + m with the block's sum of x"},
    {TensorType::MXFP4, "each code byte becomes two signed f16 half-words by one LDS read of a 256-entry table of the doubled E2M1 values; the block's sum scaled by v_ldexp_f32 with e - 128"},
    {TensorType::Q2_K, "2-bit codes become f16 denormals by one AND per pair (four scale classes); d * sc * code - dmin * m per 16-element run with its sum of x"},
    {TensorType::Q3_K, "3-bit codes (the hmask bit over the two low bits) become f16 denormals by one AND (and a shift) per pair at three scale classes, the sixteenth pair gathered from bits 15 / 31; d * (sc - 32) * (code - 4) per 16-element run with its sum of x"},
    {TensorType::IQ2_XXS, "per 8 elements one LDS read of the u64 grid entry and one ds_read2_b32 of both sign halves by the 7-bit code (ggml's ksigns with its parity bit); one v_perm_b32 per pair makes two signed f16 denormals; (2s + 1) / 8 * d per sub-block"},
    {TensorType::IQ2_XS, "per 8 elements one LDS read of the u64 grid entry by its 9-bit index and one ds_read2_b32 of both sign halves by the 7-bit code; one v_perm_b32 per pair makes two signed f16 denormals; (2s + 1) / 8 * d per 16-element run"},
    {TensorType::IQ1_S, "per 8 elements one LDS read of the grid entry (g + 1 of 8 elements as 2-bit fields) by its 11-bit index, four ANDs make the pairs at four scale classes; d * (2s + 1) * (g + delta) per sub-block with its sum of x"},
    {TensorType::IQ1_M, "per 8 elements one LDS read of the grid entry (g + 1 of 8 elements as 2-bit fields) by its 11-bit index, four ANDs make the pairs at four scale classes; d * (2s + 1) * (g + delta) per 16 elements, delta per 8 with its sum of x"},
    {TensorType::TQ2_0, "2-bit codes become f16 denormals by one AND per pair (four scale classes, folded once per block); d * (code - 1) with the block's sum of x"},
};

// A fused variant of the type's GEMV: the plain kernel's documentation with its form added.
void register_fused(Registry& r, const TypeDoc& td, GemvFusion f) {
  const TensorType t = td.type;
  KernelDef d = generated_kernel("gguf", gguf_gemv::gemv_fused_signature(t, f),
                                 [t, f](isa::Target target) { return gguf_gemv::build_gemv_fused(target, t, f); });
  const std::string type = quant::type_name(t), plain = gguf_gemv::gemv_signature(t).kernel();
  d.description = std::string(fusion_doc(f)) + " Otherwise " + plain + " (" + type + " weights in the GEMV layout, " +
                  td.decode + ").";
  const std::string dot = "sum_k W_e[n][k] * x[g][j][k]";
  switch (f) {
    case GemvFusion::Accumulate:
      d.semantics = "y[g][j][n] += " + dot + "; if y_scaled: y_scaled[g][j][n] = y[g][j][n] * scale[n]; if ss: "
                    "ss[(g * m + j) * ceil(n/64) + t] = sum over n in [64t, 64t + 64) of y[g][j][n]^2";
      break;
    case GemvFusion::RmsScale:
      d.semantics = "y[g][j][n] = r[g][j] * " + dot + ", r[g][j] = ss ? 1 / sqrt(sum_p<P ss[R * P + p] / k + eps) : "
                    "1, P = ceil(k/64), R = x_stride ? g * m + j : j";
      break;
    case GemvFusion::SwiGlu:
      d.semantics = "y[g][j][n] = silu(r G) * (r U), G = sum_k Wg_e[n][k] x[g][j][k] (Wg_e at w + e * bytes), U the "
                    "same over Wu_e at up + e * bytes, r[g][j] as in the RMS-scaled form (ss partials), silu(v) = v / "
                    "(1 + exp(-v))";
      break;
  }
  d.semantics += "; for j < m (1..4), e = ids ? ids[g] : g; x row (g, j) at (g * x_stride + j * k) * 4, y "
                 "(and y_scaled) row (g, j) at ((g * m + j) * n) * 4; bytes = gemv_layout(" + type + ", n, k).bytes()";
  d.geometry = f == GemvFusion::SwiGlu
                   ? "grid = (ceil(ceil(n/64) / (W / (2 split))), groups), wg = 64 W, W = 2, 4 or 8 waves: W / (2 "
                     "split) tiles per workgroup, split waves on each matrix of a tile (split <= W / 2)"
                   : "as " + plain + ": grid = (ceil(ceil(n/64) / (W / split)), groups), wg = 64 W, W = 1, 2, 4 or 8";
  d.limits = "k a multiple of the block size (" + std::to_string(quant::traits(t).block_elems) +
             "), k < 2^24, n >= 1, m = 1..4 (other m write nothing)" +
             std::string(f == GemvFusion::SwiGlu ? "; W >= 2 (one wave writes nothing); the up matrices' leading "
                                                   "table bytes are not read (the table comes from w)"
                                                 : "") +
             "; x, s and y may not overlap";
  if (gguf_gemv::gemv_shares_tiles(t, f)) document_shares(d);
  d.tolerance = gemv_tolerance();
  d.cases = [t, f](bool) { return fused_cases(t, f); };
  d.run = [t, f](TestDevice& dev, const Case& c) { return run_fused_case(dev, c, t, f); };
  d.ideal_bytes = [t, f](const Case& c) {
    const Geometry g = geometry_of(c);
    const auto& tr = quant::traits(t);
    const int64_t xrows = g.shared_x ? g.m : g.groups * g.m, mats = f == GemvFusion::SwiGlu ? 2 : 1;
    const int64_t extra = f == GemvFusion::Accumulate ? 2 * g.groups * g.m * g.n : xrows * ((g.k + 63) / 64);
    return uint64_t(mats * g.groups * g.n * (g.k / tr.block_elems) * tr.block_bytes +
                    4 * (xrows * g.k + g.groups * g.m * g.n + extra));
  };
  d.launch = gemv_launch(t, f);
  d.bench_case = bench_case;
  r.add(std::move(d));
}

}  // namespace

void register_gguf_gemv_kernels(Registry& r) {
  for (const TypeDoc& td : kDocs) {
    const TensorType t = td.type;
    KernelDef d = generated_kernel("gguf", gguf_gemv::gemv_signature(t),
                                   [t](isa::Target target) { return gguf_gemv::build_gemv(target, t); });
    const std::string type = quant::type_name(t);
    d.description =
        "Fast decode GEMV over " + type +
        " weights in the GEMV layout (k100/quant/gemv_layout.h: 64-row tiles, a row's block groups transcoded, "
        "pieces interleaved by row so each wave load reads whole lines): lane l of a 64-row tile owns row l, x is "
        "lane-uniform and read into SGPRs (s_load), " + std::string(td.decode) +
        "; the tile's S waves split the row and wave 0 adds their sums through LDS and writes y (no partials). "
        "For MoE, group g of grid.y uses expert ids[g] (the experts' repacked matrices one after the other).";
    d.semantics =
        "y[g][j][n] = sum_k W_e[n][k] * x[g][j][k] for j < m (1..4), e = ids ? ids[g] : g; x row (g, j) at x + (g * "
        "x_stride + j * k) * 4, y row (g, j) at y + ((g * m + j) * n) * 4; W_e at w + e * gemv_layout(" + type +
        ", n, k).bytes()";
    d.geometry =
        "grid = (ceil(ceil(n/64) / (W / split)), groups), wg = 64 W, W = 1, 2, 4 or 8 waves: W / split tiles of 64 rows "
        "per workgroup, split waves per tile (split <= W; other values: the power of two below)";
    d.limits = "k a multiple of the block size (" + std::to_string(quant::traits(t).block_elems) +
               "), k < 2^24, n >= 1, m = 1..4 (other m write nothing); ids (u32 per group) may be 0 for expert = g";
    if (gguf_gemv::gemv_shares_tiles(t)) document_shares(d);
    d.tolerance = gemv_tolerance();
    d.cases = [t](bool sweep) { return gguf_gemv::gemv_cases(t, sweep); };
    d.run = [t](TestDevice& dev, const Case& c) {
      return gguf_gemv::run_gemv_case(dev, c, t, [t](const uint8_t* row, float* out, int64_t n) {
        quant::dequantize_row(t, row, out, n);
      });
    };
    d.ideal_bytes = [t](const Case& c) {
      const Geometry g = geometry_of(c);
      const auto& tr = quant::traits(t);
      const int64_t xrows = g.shared_x ? g.m : g.groups * g.m;
      return uint64_t(g.groups * g.n * (g.k / tr.block_elems) * tr.block_bytes + 4 * (xrows * g.k + g.groups * g.m * g.n));
    };
    d.launch = gemv_launch(t, std::nullopt);
    d.bench_case = bench_case;
    r.add(std::move(d));
    for (GemvFusion f : {GemvFusion::Accumulate, GemvFusion::RmsScale, GemvFusion::SwiGlu})
      register_fused(r, td, f);
  }
  gguf_gemv::register_gguf_gemv_repack_kernels(r);
}

}  // namespace k100::kernels
