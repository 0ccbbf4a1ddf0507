// Row-wise vision-tower operators: vit_ln_kernel (LayerNorm per token row)
// and vit_rope_kernel (in-place 2D rotary embedding of the q and k blocks of
// a fused QKV row from caller-supplied cos/sin tables).
#include <cmath>

#include "vision_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;

const Signature kLn("vit_ln_kernel",
                    {out("y", "f32"), in("x", "f32"), in("w", "f32"), in("b", "f32"),
                     value("rows", "i32"), value("D", "i32"), value("eps", "f32")},
                    HiddenArgLayout::Full);
const Signature kRope("vit_rope_kernel",
                      {inout("qkv", "f32"), in("cos", "f32"), in("sin", "f32"),
                       value("rows", "i32"), value("heads", "i32"), value("dim", "i32"),
                       value("stride", "i32")},
                      HiddenArgLayout::Full);

// One wave per row (further waves of the workgroup leave): three walks over
// the row (mean; the mean square of x - mean; the output), each lane taking
// elements lane, lane + 64, ... The variance is the biased one, computed as
// the mean of (x - mean)^2 (equal to E[x^2] - mean^2, without its
// cancellation).
codeobj::CodeObject build_ln(isa::Target target) {
  Kernel k(kLn, target, {.waves_per_simd = 8, .max_workgroup = 1024});
  Label exit = k.exit();
  const SGPR row = k.workgroup_id(), D = k.arg("D"), eps = k.arg("eps");
  exit_unless_first_wave(k, exit);
  k.s_cmp_ge_u32(row, k.arg("rows"));
  k.s_cbranch_scc1(exit);
  k.s_cmp_lt_i32(D, 1);
  k.s_cbranch_scc1(exit);
  const VGPR lane = whole_wave_lane_id(k);  // a workgroup of fewer than 64 still covers the row
  const SGPR xr = scaled_address(k, k.arg("x"), row, D, 2),
             yr = scaled_address(k, k.arg("y"), row, D, 2);
  const SGPR mean = k.sgpr(1, "mean"), var = k.sgpr(1, "variance");
  const VGPR unit = k.vgpr(1, "unit"), off = k.vgpr(1, "offset"), x = k.vgpr(1, "x"),
             acc = k.vgpr(1, "acc"), w = k.vgpr(1, "w"), b = k.vgpr(1, "b"), inv = k.vgpr(1, "1/D"),
             rstd = k.vgpr(1, "rstd");
  auto walk = [&](const std::function<void()>& body) {
    k.v_mov_b32(unit, lane);
    lane_walk(k, unit, D, 64, [&] {
      k.v_lshlrev_b32(off, 2, unit);
      k.global_load_dword(x, off, xr);
      body();
    });
  };
  k.v_cvt_f32_u32(inv, D);
  k.v_rcp_f32(inv, inv);
  // mean
  k.v_mov_b32(acc, 0);
  walk([&] { k.v_add_f32(acc, acc, x); });
  lane_reduce(k, {{ReduceOp::Add, acc}});
  k.v_mul_f32(acc, acc, inv);
  k.v_readlane_b32(mean, acc, 63);
  // biased variance
  k.v_mov_b32(acc, 0);
  walk([&] {
    k.v_subrev_f32(x, mean, x);
    k.v_fmac_f32(acc, x, x);
  });
  lane_reduce(k, {{ReduceOp::Add, acc}});
  k.v_mul_f32(acc, acc, inv);
  k.v_readlane_b32(var, acc, 63);
  k.v_mov_b32(rstd, var);
  k.v_add_f32(rstd, eps, rstd);
  k.v_rsq_f32(rstd, rstd);
  // y = (x - mean) * rstd * w + b
  walk([&] {
    k.global_load_dword(w, off, k.arg("w"));
    k.global_load_dword(b, off, k.arg("b"));
    k.v_subrev_f32(x, mean, x);
    k.v_mul_f32(x, x, rstd);
    k.v_fma_f32(x, x, w, b);
    k.global_store_dword(off, x, yr);
  });
  return k.build();
}

// One workgroup per token row; its threads walk the 2 * heads * dim/2
// rotation pairs of the row: unit u -> block-head g = u / half (q heads
// 0..heads-1, then k heads), d = u % half, pair (g*dim + d, g*dim + d + half).
codeobj::CodeObject build_rope(isa::Target target) {
  Kernel k(kRope, target, {.waves_per_simd = 8, .max_workgroup = 1024});
  Label exit = k.exit();
  const SGPR row = k.workgroup_id(), dim = k.arg("dim"), hid = hidden_block(k);
  const SGPR half = k.sgpr(1, "half"), pairs = k.sgpr(1, "pairs"), threads = k.sgpr(1, "threads");
  k.s_cmp_ge_u32(row, k.arg("rows"));
  k.s_cbranch_scc1(exit);
  k.s_lshr_b32(half, dim, 1);
  k.s_cmp_eq_u32(half, 0);  // dim < 2 (or >= 2^31): nothing to rotate
  k.s_cbranch_scc1(exit);
  k.s_bitcmp1_b32(dim, 31);
  k.s_cbranch_scc1(exit);
  k.s_mul_i32(pairs, k.arg("heads"), half);
  k.s_lshl_b32(pairs, pairs, 1);
  k.s_and_b32(threads, hid[3], 0xffff);  // group_size_x
  const Divider div = make_divider(k, half);
  const SGPR xr = scaled_address(k, k.arg("qkv"), row, k.arg("stride"), 2);
  const SGPR cr = scaled_address(k, k.arg("cos"), row, dim, 2),
             sr = scaled_address(k, k.arg("sin"), row, dim, 2);
  const SGPR half4 = k.sgpr(1, "half bytes");
  k.s_lshl_b32(half4, half, 2);
  const VGPR t = k.vgpr(1, "t"), o0 = k.vgpr(1, "x0 offset"), o1 = k.vgpr(1, "x1 offset"),
             c0 = k.vgpr(1, "c0"), c1 = k.vgpr(1, "c1"), s0 = k.vgpr(1, "s0"), s1 = k.vgpr(1, "s1"),
             x0 = k.vgpr(1, "x0"), x1 = k.vgpr(1, "x1"), r0 = k.vgpr(1, "r0"), r1 = k.vgpr(1, "r1"),
             td = k.vgpr(1, "d offset");
  const Quotient qr{k.vgpr(1, "g"), k.vgpr(1, "d")};
  row_walk(k, pairs, threads, [&](VGPR unit) {
    divide_into(k, div, unit, qr, t);
    k.v_mul_lo_u32(o0, qr.q, dim);
    k.v_add_u32(o0, o0, qr.r);
    k.v_lshlrev_b32(o0, 2, o0);  // (g*dim + d) * 4
    k.v_add_u32(o1, half4, o0);
    k.v_lshlrev_b32(td, 2, qr.r);  // d * 4 in the tables
    k.global_load_dword(x0, o0, xr);
    k.global_load_dword(x1, o1, xr);
    k.global_load_dword(c0, td, cr);
    k.global_load_dword(s0, td, sr);
    k.v_add_u32(td, half4, td);
    k.global_load_dword(c1, td, cr);
    k.global_load_dword(s1, td, sr);
    k.v_mul_f32(r0, x0, c0);
    k.v_fma_f32(r0, neg(x1), s0, r0);  // x0 cos[d] - x1 sin[d]
    k.v_mul_f32(r1, x1, c1);
    k.v_fma_f32(r1, x0, s1, r1);  // x1 cos[d+half] + x0 sin[d+half]
    k.global_store_dword(o0, r0, xr);
    k.global_store_dword(o1, r1, xr);
  });
  return k.build();
}

// ------------------------------------------------------------------ tests

void add_ln(Registry& reg) {
  KernelDef d = generated_kernel("vision", kLn, build_ln);
  d.description =
      "LayerNorm of each token row (the norm1 / norm2 of a ViT block): mean, biased variance, then "
      "(x - mean) / sqrt(var + eps) * w + b. One wave per row, any D (no multiple-of-64 "
      "requirement); the "
      "variance is taken as the mean of (x - mean)^2, which equals the catalog's E[x^2] - mean^2 "
      "without its "
      "cancellation. Waves past the first of a larger workgroup leave; a workgroup of fewer than "
      "64 work-items "
      "still covers the row (all 64 lanes enabled).";
  d.semantics =
      "mean = sum_d x[r][d] / D, var = sum_d (x[r][d] - mean)^2 / D, "
      "y[r][d] = (x[r][d] - mean) / sqrt(var + eps) * w[d] + b[d] for r < rows, d < D";
  d.geometry =
      "grid = rows, wg = 64 (any workgroup size is correct; waves past the first do nothing)";
  d.launch = "sizes rows dim\nworkgroup = 64\ngrid = rows\narg rows = rows\narg D = dim";
  d.limits = "D >= 1 (D < 1 writes nothing); y must not alias w or b";
  d.tolerance = Tolerance{2e-5, 2e-5};
  d.cases = [](bool) {
    return case_table({"rows", "D", "wg"},
                      {{1, 1, 64}, {3, 63, 64}, {2, 200, 256}, {5, 1152, 64}, {2, 80, 32}});
  };
  d.run = [tol = d.tolerance](TestDevice& dev, const Case& c) {
    const size_t rows = size_t(c["rows"]), D = size_t(c["D"]);
    const float eps = 1e-6f;
    Rng rng(c.seed);
    std::vector<float> x = rng.normal(rows * D, 0.5f, 2.f), w = rng.normal(D), b = rng.normal(D),
                       want(rows * D);
    for (size_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (size_t i = 0; i < D; ++i) mean += x[r * D + i];
      mean /= double(D);
      for (size_t i = 0; i < D; ++i) var += (x[r * D + i] - mean) * (x[r * D + i] - mean);
      var /= double(D);
      for (size_t i = 0; i < D; ++i)
        want[r * D + i] = float((x[r * D + i] - mean) / std::sqrt(var + double(eps)) * w[i] + b[i]);
    }
    DeviceBuffer<float> dy(dev, guarded(rows * D)), dx(dev, x), dw(dev, w), db(dev, b);
    launch(dev, kLn, {uint32_t(rows)}, {uint32_t(c["wg"])},
           {dy.addr(), dx.addr(), dw.addr(), db.addr(), rows, D, eps});
    return vision::compare_guarded_output(dy.download(), want, tol);
  };
  d.bench_case = [] {
    return make_case({{"rows", vision::kBenchTokens}, {"D", vision::kBenchHidden}, {"wg", 64}});
  };
  d.ideal_bytes = [](const Case& c) {
    return uint64_t(c["rows"] * c["D"]) * 8 + uint64_t(c["D"]) * 8;
  };
  reg.add(std::move(d));
}

// The table convention of the Qwen2.5-VL / Qwen3-VL vision towers (theta =
// 10000, head dim `dim`, half = dim/2, quarter = half/2 frequencies
// inv_freq[i] = theta^(-2i/half)): token r at patch grid position (h_r, w_r)
// has angles a[j] = h_r * inv_freq[j] for j < quarter and w_r *
// inv_freq[j - quarter] for quarter <= j < half, and cos[r][d] = cos(a[d mod
// half]), sin[r][d] = sin(a[d mod half]) for d < dim.
void rope_tables(const std::vector<int>& hpos, const std::vector<int>& wpos, size_t dim,
                 std::vector<float>& cos, std::vector<float>& sin) {
  const size_t rows = hpos.size(), half = dim / 2, quarter = half / 2;
  cos.assign(rows * dim, 0.f);
  sin.assign(rows * dim, 0.f);
  for (size_t r = 0; r < rows; ++r)
    for (size_t d = 0; d < dim; ++d) {
      const size_t j = d % half;
      const double inv =
          std::pow(10000.0, -2.0 * double(j < quarter ? j : j - quarter) / double(half));
      const double a = (j < quarter ? hpos[r] : wpos[r]) * inv;
      cos[r * dim + d] = float(std::cos(a));
      sin[r * dim + d] = float(std::sin(a));
    }
}

void add_rope(Registry& reg) {
  KernelDef d = generated_kernel("vision", kRope, build_rope);
  d.description =
      "In-place 2D rotary embedding of a fused QKV token row (pitch `stride` floats; q heads at "
      "offset 0, k heads "
      "at heads*dim, v untouched) with caller-supplied tables cos/sin [rows][dim]. Pairs are "
      "rotate-half "
      "(d, d + dim/2) within each head, as the Qwen2.5-VL / Qwen3-VL vision towers apply them "
      "(q*cos + rotate_half(q)*sin); their tables hold, for token r at patch position (h, w), the "
      "angles "
      "h*inv_freq (first dim/4 entries) then w*inv_freq (next dim/4), inv_freq[i] = "
      "10000^(-2i/(dim/2)), the "
      "whole repeated for d in [dim/2, dim). The kernel reads cos/sin at d and at d + dim/2 "
      "separately, so any "
      "table works. One workgroup per row, its threads over the 2*heads*dim/2 pairs.";
  d.semantics =
      "half = dim/2; for r < rows, g < 2*heads, d < half, with x0 = qkv[r*stride + g*dim + d], "
      "x1 = qkv[r*stride + g*dim + d + half]: x0' = x0*cos[r][d] - x1*sin[r][d], "
      "x1' = x1*cos[r][d+half] + x0*sin[r][d+half]";
  d.geometry = "grid = rows, wg = 256 (any workgroup size is correct)";
  d.launch =
      "sizes rows heads dim\nlet dim_even = 1 / (dim % 2 == 0)\nworkgroup = 256\ngrid = rows\n"
      "arg rows = rows\narg heads = heads\narg dim = dim";
  d.limits = "dim even (the contract refuses odd dim); stride >= 2*heads*dim";
  d.tolerance = Tolerance{1e-6, 1e-6};
  d.cases = [](bool) {
    return case_table({"rows", "heads", "dim", "stride", "wg"}, {{1, 1, 2, 6, 256},
                                                                 {5, 2, 72, 3 * 2 * 72, 256},
                                                                 {3, 3, 80, 3 * 3 * 80 + 7, 64},
                                                                 {17, 4, 16, 3 * 4 * 16, 100},
                                                                 {2, 16, 72, 3 * 16 * 72, 256}});
  };
  d.run = [tol = d.tolerance](TestDevice& dev, const Case& c) {
    const size_t rows = size_t(c["rows"]), heads = size_t(c["heads"]), dim = size_t(c["dim"]),
                 stride = size_t(c["stride"]), half = dim / 2;
    Rng rng(c.seed);
    std::vector<float> qkv = rng.normal(rows * stride), cos, sin;
    std::vector<int> hp(rows), wp(rows);
    for (size_t r = 0; r < rows; ++r) {
      hp[r] = int(r / 4);
      wp[r] = int(r % 4 + 3 * (r % 2));
    }
    rope_tables(hp, wp, dim, cos, sin);
    // the kernel reads the two halves of a table row independently: make them differ
    for (size_t r = 0; r < rows; ++r) cos[r * dim + dim - 1] *= 0.5f;
    std::vector<float> want = qkv;
    for (size_t r = 0; r < rows; ++r)
      for (size_t g = 0; g < 2 * heads; ++g)
        for (size_t i = 0; i < half; ++i) {
          const double a = qkv[r * stride + g * dim + i], b = qkv[r * stride + g * dim + i + half];
          want[r * stride + g * dim + i] = float(a * cos[r * dim + i] - b * sin[r * dim + i]);
          want[r * stride + g * dim + i + half] =
              float(b * cos[r * dim + i + half] + a * sin[r * dim + i + half]);
        }
    DeviceBuffer<float> dq(dev, vision::guarded_copy(qkv)), dc(dev, cos), ds(dev, sin);
    launch(dev, kRope, {uint32_t(rows)}, {uint32_t(c["wg"])},
           {dq.addr(), dc.addr(), ds.addr(), rows, heads, dim, stride});
    return vision::compare_guarded_output(dq.download(), want, tol);
  };
  d.bench_case = [] {
    return make_case({{"rows", vision::kBenchTokens},
                      {"heads", vision::kBenchHeads},
                      {"dim", vision::kBenchHeadDim},
                      {"stride", 3 * vision::kBenchHidden},
                      {"wg", 256}});
  };
  d.ideal_bytes = [](const Case& c) {
    return uint64_t(c["rows"]) * (uint64_t(c["heads"] * c["dim"]) * 16 + uint64_t(c["dim"]) * 8);
  };
  reg.add(std::move(d));
}

}  // namespace

void register_vision_row_kernels(Registry& r) {
  add_ln(r);
  add_rope(r);
}

}  // namespace k100::kernels
