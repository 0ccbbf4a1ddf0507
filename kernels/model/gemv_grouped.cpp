// Float-weight GEMVs with weight groups: gemv_grouped_f32_k,
// gemv_grouped_f16_k, gemv_grouped_bf16_k.
//
//   y[r] (+)= sum_c W_r[c] * x_s[c],  r < nrows, s = r / rows_per_w
//
// Without ids (ids = 0) W_r is row r of w [nrows][k] and x_s = x. With ids,
// row r is row r - s * rows_per_w of the group that starts ids[s] * w_stride
// bytes into w, and x_s = x + s * x_stride floats: a MoE layer runs the
// experts a token selected (their ids on the device, written by moe_route_k)
// in one launch, the experts' inputs shared (x_stride = 0: gate and up) or one
// per expert (x_stride = k: down). Weights are f32, f16 or bf16, widened to
// f32 exactly; activations and sums stay f32.
//
// One wave per row (row = workgroup id * waves + wave, any workgroup size).
// Lane l streams 16-byte pieces of the row (4 f32 or 8 halves), so one
// global_load_dwordx4 covers 1 KiB of the row; two such passes are loaded per
// loop trip. Columns past the last whole pass are read one element per lane.
// Four partial sums per lane, DPP reduction into lane 63, lane 0 stores.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "model/model_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;
using as::offset, as::vcc;
using namespace model_family;

enum class WeightType { F32, F16, BF16 };

const char* type_name(WeightType t) { return t == WeightType::F32 ? "f32" : t == WeightType::F16 ? "f16" : "bf16"; }
int element_bytes(WeightType t) { return t == WeightType::F32 ? 4 : 2; }

Signature grouped_signature(WeightType t) {
  return Signature(std::string("gemv_grouped_") + type_name(t) + "_k",
                   {in("w", type_name(t)), in("x", "f32"), inout("y", "f32"), value("nrows", "u32"), value("k", "u32"),
                    value("acc", "u32"), value("rows_per_w", "u32"), in("ids", "u32"), value("w_stride", "u32"),
                    value("x_stride", "u32")},
                   codeobj::HiddenArgLayout::Compact);
}

codeobj::CodeObject build_grouped(isa::Target target, WeightType type) {
  const bool half = type != WeightType::F32;
  const int eshift = half ? 1 : 2;
  const int cols = half ? 512 : 256;          // columns per pass of the wave
  const int x_pass_bytes = cols * 4;          // activation bytes per pass
  const int w_pass_bytes = cols * (half ? 2 : 4);
  Kernel k(grouped_signature(type), target, options(0, half ? 6 : 8));
  const SGPR sN = k.arg("nrows"), sK = k.arg("k"), sRpw = k.arg("rows_per_w"), sIds = k.arg("ids");
  const SGPR sW = k.sgpr(2, "w row"), sX = k.sgpr(2, "x row"), sRow = k.sgpr(1, "row"), sWaves = k.sgpr(1, "waves");
  const SGPR sCnt = k.sgpr(1, "passes"), sRem = k.sgpr(1, "tail columns"), sSteps = k.sgpr(1, "pairs");
  const VGPR vOffW = k.vgpr(1, "w offset"), vOffX = k.vgpr(1, "x offset"),
             vCol = k.vgpr(1, "column"), vT = k.vgpr(1, "t");
  const VGPR vPart = k.vgpr(4, "partial sums");
  VGPR wb[2] = {k.vgpr(4, "w piece"), k.vgpr(4, "w piece")};
  VGPR xb[2] = {k.vgpr(half ? 8 : 4, "x piece"), k.vgpr(half ? 8 : 4, "x piece")};
  const VGPR vWide = half ? k.vgpr(8, "widened w") : VGPR{};

  Label exit = k.exit(), dense = k.label("dense"), have_row = k.label("have_row"), loop = k.label("pair"),
        single = k.label("single"), tail = k.label("tail");

  k.s_lshr_b32(sWaves, group_size_x(k), 6);
  k.s_max_u32(sWaves, sWaves, 1);
  k.s_mul_i32(sRow, k.workgroup_id(), sWaves);
  k.s_add_u32(sRow, sRow, wave_index(k));
  k.s_cmp_ge_u32(sRow, sN);
  k.s_cbranch_scc1(exit);
  const VGPR vLane = whole_wave_lane_id(k);

  // The row's weights and activations.
  k.s_cmp_eq_u64(sIds, 0);
  k.s_cbranch_scc1(dense);
  {
    const Divider div = make_divider(k, sRpw);
    const SGPR sGroup = divide_scalar(k, div, sRow), sLocal = k.sgpr(1, "row in group"),
               sIdOff = k.sgpr(1, "id offset"), sId = k.sgpr(1, "group id");
    k.s_mul_i32(sLocal, sGroup, sRpw);
    k.s_sub_u32(sLocal, sRow, sLocal);
    k.s_lshl_b32(sIdOff, sGroup, 2);
    k.s_load_dword(sId, sIds, sIdOff);
    set_scaled_address(k, sW, k.arg("w"), sId, k.arg("w_stride"), 0);
    // + (row in group) * k * element size, 64-bit
    const SGPR sRowBytes = k.sgpr(2, "row bytes");
    k.s_mul_i32(sRowBytes[0], sLocal, sK);
    k.s_mul_hi_u32(sRowBytes[1], sLocal, sK);
    k.s_lshl_b64(sRowBytes, sRowBytes, eshift);
    add64_pair(k, sW, sRowBytes);
    set_scaled_address(k, sX, k.arg("x"), sGroup, k.arg("x_stride"), 2);
    k.s_branch(have_row);
  }
  k.bind(dense);
  set_scaled_address(k, sW, k.arg("w"), sRow, sK, eshift);
  k.s_mov_b64(sX, k.arg("x"));
  k.bind(have_row);

  for (int c = 0; c < 4; ++c) k.v_mov_b32(vPart[c], 0);
  k.v_lshlrev_b32(vOffW, 4, vLane);
  k.v_lshlrev_b32(vOffX, half ? 5 : 4, vLane);

  auto load_pass = [&](int p) {
    k.global_load_dwordx4(wb[p], vOffW, sW, offset(w_pass_bytes * p));
    k.global_load_dwordx4(xb[p].sub(0, 4), vOffX, sX, offset(x_pass_bytes * p));
    if (half) k.global_load_dwordx4(xb[p].sub(4, 4), vOffX, sX, offset(x_pass_bytes * p + 16));
  };
  // Widens one dword of halves (word 0 and 1) into f32.
  auto widen = [&](VGPR dst, VGPR packed, int word) {
    if (type == WeightType::F16) f16_to_f32(k, dst, packed, word);
    else bf16_to_f32(k, dst, packed, word);
  };
  auto compute_pass = [&](int p) {
    if (!half) {
      for (int c = 0; c < 4; ++c) k.v_fmac_f32(vPart[c], wb[p][c], xb[p][c]);
      return;
    }
    for (int e = 0; e < 8; ++e) widen(vWide[e], wb[p][e / 2], e % 2);
    for (int e = 0; e < 8; ++e) k.v_fmac_f32(vPart[e % 4], vWide[e], xb[p][e]);
  };

  // Pairs of passes, then an odd one.
  k.s_lshr_b32(sCnt, sK, half ? 9 : 8);
  k.s_lshr_b32(sSteps, sCnt, 1);
  k.s_cmp_eq_u32(sSteps, 0);
  k.s_cbranch_scc1(single);
  k.bind(loop);
  load_pass(0);
  load_pass(1);
  add64(k, sW, 2 * w_pass_bytes);
  add64(k, sX, 2 * x_pass_bytes);
  k.s_sub_u32(sSteps, sSteps, 1);
  compute_pass(0);
  compute_pass(1);
  k.s_cmp_lg_u32(sSteps, 0);
  k.s_cbranch_scc1(loop);
  k.bind(single);
  k.s_bitcmp1_b32(sCnt, 0);
  k.s_cbranch_scc0(tail);
  load_pass(0);
  add64(k, sW, w_pass_bytes);
  add64(k, sX, x_pass_bytes);
  compute_pass(0);

  // Columns past the whole passes: lane l takes tail columns l, l + 64, ...
  k.bind(tail);
  k.s_and_b32(sRem, sK, cols - 1);
  k.v_mov_b32(vCol, vLane);
  lane_walk(k, vCol, sRem, 64, [&] {
    k.v_lshlrev_b32(vT, eshift, vCol);
    if (half) k.global_load_ushort(wb[0][0], vT, sW);
    else k.global_load_dword(wb[0][0], vT, sW);
    k.v_lshlrev_b32(vT, 2, vCol);
    k.global_load_dword(xb[0][0], vT, sX);
    if (half) {
      widen(vWide[0], wb[0][0], 0);
      k.v_fmac_f32(vPart[0], vWide[0], xb[0][0]);
    } else {
      k.v_fmac_f32(vPart[0], wb[0][0], xb[0][0]);
    }
  });

  store_wave_sum(k, vPart, k.arg("y"), sRow, false, k.arg("acc"));
  return k.build();
}

// ------------------------------------------------------------------ tests

// Weights of the type, as stored, and their exact f32 values.
struct Weights {
  std::vector<uint8_t> bytes;
  std::vector<float> values;
};
Weights make_weights(WeightType t, Rng& rng, size_t n) {
  Weights w;
  w.values = rng.uniform(n);
  w.bytes.resize(n * size_t(element_bytes(t)));
  for (size_t i = 0; i < n; ++i) {
    if (t == WeightType::F32) {
      std::memcpy(&w.bytes[4 * i], &w.values[i], 4);
      continue;
    }
    uint16_t h = t == WeightType::F16 ? float_to_half(w.values[i]) : float_to_bf16(w.values[i]);
    w.values[i] = t == WeightType::F16 ? half_to_float(h) : bf16_to_float(h);
    std::memcpy(&w.bytes[2 * i], &h, 2);
  }
  return w;
}

// Sums of up to 5000 products of values in [-1, 1], in another order: the
// sweep's largest error is below 1.5e-5.
Tolerance grouped_tolerance() { return Tolerance{5e-5, 2e-5}; }

int64_t dim_or(const Case& c, const std::string& key, int64_t fallback) {
  auto it = c.dims.find(key);
  return it == c.dims.end() ? fallback : it->second;
}

CaseResult run_grouped(TestDevice& dev, const Case& c, WeightType type) {
  const int64_t n = c["n"], k = c["k"], groups = dim_or(c, "groups", 0), slots = dim_or(c, "slots", 8);
  const bool acc = dim_or(c, "acc", 0) != 0, per_group_x = dim_or(c, "xgroups", 0) != 0;
  const uint32_t wg = uint32_t(dim_or(c, "wg", 64));
  Rng rng(c.seed);
  // groups == 0: dense; else `groups` groups of n / groups rows picked from `slots` stored groups.
  const int64_t rpw = groups ? n / groups : n;
  const int64_t stored_rows = groups ? slots * rpw : n;
  Weights w = make_weights(type, rng, size_t(stored_rows * k));
  std::vector<uint32_t> ids;
  for (int64_t g = 0; g < groups; ++g) ids.push_back(uint32_t((g * 5 + 3) % slots));
  const int64_t xrows = per_group_x ? std::max<int64_t>(groups, 1) : 1;
  auto x = rng.uniform(size_t(xrows * k));
  auto y0 = acc ? rng.uniform(size_t(n)) : std::vector<float>(size_t(n), std::nanf(""));
  std::vector<float> want(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) {
    const int64_t g = groups ? r / rpw : 0;
    const int64_t wrow = groups ? int64_t(ids[size_t(g)]) * rpw + (r - g * rpw) : r;
    const int64_t xr = per_group_x ? g : 0;
    double s = acc ? double(y0[size_t(r)]) : 0.0;
    for (int64_t e = 0; e < k; ++e) s += double(w.values[size_t(wrow * k + e)]) * double(x[size_t(xr * k + e)]);
    want[size_t(r)] = float(s);
  }
  DeviceBuffer<uint8_t> dw(dev, w.bytes);
  DeviceBuffer<float> dx(dev, x), dy(dev, y0);
  DeviceBuffer<uint32_t> did(dev, ids.empty() ? std::vector<uint32_t>{0} : ids);
  const uint32_t waves = std::max<uint32_t>(wg / 64, 1);
  launch(dev, grouped_signature(type), {ceil_div(uint64_t(n), waves)}, {wg},
         {dw.addr(), dx.addr(), dy.addr(), n, k, acc ? 1 : 0, rpw, groups ? did.addr() : uint64_t(0),
          uint64_t(rpw * k * element_bytes(type)), per_group_x ? k : 0});
  return compare(dy.download(), want, grouped_tolerance());
}

std::vector<Case> grouped_cases(bool sweep) {
  std::vector<Case> c = {
      make_case({{"n", 1}, {"k", 64}}, 1),
      make_case({{"n", 7}, {"k", 100}, {"acc", 1}}, 2),
      make_case({{"n", 33}, {"k", 1024}, {"wg", 256}}, 3),
      make_case({{"n", 64}, {"k", 1000}, {"wg", 128}, {"acc", 1}}, 4),
      make_case({{"n", 60}, {"k", 520}, {"groups", 3}, {"wg", 256}}, 5),
      make_case({{"n", 48}, {"k", 300}, {"groups", 4}, {"xgroups", 1}, {"acc", 1}}, 6),
      make_case({{"n", 5}, {"k", 0}, {"acc", 1}}, 7),
  };
  if (sweep) {
    uint32_t seed = 20;
    for (int64_t k : {1, 7, 63, 255, 256, 257, 511, 512, 513, 1023, 1536, 2049, 5120})
      for (int64_t wg : {64, 192, 1024}) {
        c.push_back(make_case({{"n", 37}, {"k", k}, {"wg", wg}}, seed++));
        c.push_back(make_case({{"n", 36}, {"k", k}, {"groups", 6}, {"xgroups", k % 2}, {"wg", wg}}, seed++));
      }
  }
  return c;
}

void add_grouped(Registry& reg, WeightType type) {
  const std::string t = type_name(type);
  KernelDef d = generated_kernel("model", grouped_signature(type), [type](isa::Target target) {
    return build_grouped(target, type);
  });
  d.description =
      "GEMV with " + t + " weights and f32 activations (weights widened to f32 exactly, f32 sums), optionally "
      "accumulating into y, over weight groups selected by ids: dense layers pass ids = 0; a MoE layer passes "
      "the ids of the experts a token selected (written on the device), so one launch runs all of them, with "
      "the input shared (x_stride = 0) or one per expert (x_stride = k). One wave per row, any workgroup size "
      "(rows = workgroup id * waves + wave); lanes stream 16-byte pieces of the row (two 1 KiB passes per "
      "trip), the columns past the last whole pass one element per lane; DPP reduction, lane 0 stores.";
  d.semantics = "s = r / rows_per_w; W_r = ids ? row (r - s rows_per_w) of (w + ids[s] w_stride bytes) : row r of "
                "w; y[r] = (acc ? y[r] : 0) + sum_{c<k} W_r[c] x[s x_stride + c]";
  d.geometry = "grid = ceil(nrows / (wg / 64)), wg = 64 (any multiple of 64 up to 1024)";
  d.launch = "sizes nrows\nchoose wg = 64\nworkgroup = wg\ngrid = ceil_div(nrows, wg / 64)";
  d.limits = "ids != 0: rows_per_w >= 1; addresses are 64-bit (ids[s] * w_stride may exceed 4 GiB)";
  d.tolerance = grouped_tolerance();
  d.cases = grouped_cases;
  d.run = [type](TestDevice& dev, const Case& c) { return run_grouped(dev, c, type); };
  d.ideal_bytes = [type](const Case& c) {
    return uint64_t(c["n"] * c["k"] * element_bytes(type) + c["k"] * 4 + c["n"] * 4);
  };
  d.bench_case = [] { return make_case({{"n", 4096}, {"k", 4096}, {"wg", 256}}); };
  reg.add(std::move(d));
}

}  // namespace

void register_model_gemv_kernels(Registry& r) {
  add_grouped(r, WeightType::F32);
  add_grouped(r, WeightType::F16);
  add_grouped(r, WeightType::BF16);
}

}  // namespace k100::kernels
