// Elementwise vision-tower operators: vit_bias_kernel (column bias in place),
// vit_bias_s_kernel (the same over rows with a pitch) and vit_gelu_kernel
// (GELU, exact erf form or tanh approximation by its 4th argument).
//
// All three are written grid-stride over the elements (unit I + lane in trip
// t, I = the wave's first global thread + t * the grid's threads, from the
// full hidden block), so the catalog's one-element-per-work-item grid
// ceil(count / wg) and any smaller grid, of any workgroup size, give the whole
// result. The bias kernels split an element index into (row, column) with the
// exact per-lane division of codegen/division.h.
#include <cmath>
#include <numbers>

#include "vision_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;

const Signature kBias("vit_bias_kernel",
                      {inout("y", "f32"), in("b", "f32"), value("rows", "i32"), value("N", "i32")},
                      HiddenArgLayout::Full);
const Signature kBiasS("vit_bias_s_kernel",
                       {inout("y", "f32"), in("b", "f32"), value("rows", "i32"), value("N", "i32"),
                        value("stride", "i32")},
                       HiddenArgLayout::Full);
const Signature kGelu("vit_gelu_kernel",
                      {out("y", "f32"), in("x", "f32"), value("n", "i64"), value("exact", "i32")},
                      HiddenArgLayout::Full);

codeobj::CodeObject build_bias(isa::Target target, bool strided) {
  Kernel k(strided ? kBiasS : kBias, target, {.waves_per_simd = 8, .max_workgroup = 1024});
  Label exit = k.exit();
  const SGPR rows = k.arg("rows"), n = k.arg("N"), hid = hidden_block(k);
  const SGPR count = k.sgpr(1, "elements"), pitch = strided ? k.arg("stride") : n;
  // rows < 1 or N < 1 (also values >= 2^31 read as negative): nothing to do
  k.s_cmp_lt_i32(rows, 1);
  k.s_cbranch_scc1(exit);
  k.s_cmp_lt_i32(n, 1);
  k.s_cbranch_scc1(exit);
  k.s_mul_i32(count, rows, n);
  const Grid g = grid_geometry(k, hid);
  const Divider div = make_divider(k, n);
  const VGPR e = k.vgpr(1, "element"), t = k.vgpr(1, "t"), yv = k.vgpr(1, "y"), bv = k.vgpr(1, "b");
  const Quotient qr{k.vgpr(1, "row"), k.vgpr(1, "column")};
  stride_loop(
      k, count, g,
      [&](SGPR first) {
        k.v_add_u32(e, first, g.lane);
        divide_into(k, div, e, qr, t);
        k.v_mul_lo_u32(t, qr.q, pitch);  // row * pitch + column
        k.v_add_u32(t, t, qr.r);
        const VGPR ya = lane_address(k, k.arg("y"), t, 4u),
                   ba = lane_address(k, k.arg("b"), qr.r, 4u);
        k.global_load_dword(yv, ya, off);
        k.global_load_dword(bv, ba, off);
        k.v_add_f32(yv, yv, bv);
        k.global_store_dword(ya, yv, off);
      },
      [] {});
  return k.build();
}

// gelu_erf(x) = 0.5 x (1 + erf(x / sqrt 2)) = x (1 - h) for x >= 0 and x h
// for x < 0, with h = erfc(|x| / sqrt 2) / 2. erfc(z) for z >= 0 is the
// Chebyshev fit erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z/2), whose
// relative error is below 1.2e-7 everywhere (Numerical Recipes, "erfcc");
// in f32 the whole stays within a few 1e-7 relative.
const float kErfcFit[10] = {-1.26551223f, 1.00002368f,  0.37409196f, 0.09678418f,  -0.18628806f,
                            0.27886807f,  -1.13520398f, 1.48851587f, -0.82215223f, 0.17087277f};

void emit_gelu_erf(Kernel& k, VGPR y, VGPR x, VGPR z, VGPR t, VGPR p) {
  k.v_and_b32(z, 0x7fffffffu, x);
  k.v_mul_f32(z, float(1.0 / std::numbers::sqrt2), z);  // z = |x| / sqrt 2
  k.v_mul_f32(t, 0.5f, z);
  k.v_add_f32(t, 1.0f, t);
  k.v_rcp_f32(t, t);  // t = 1 / (1 + z/2)
  k.v_mov_b32(p, kErfcFit[9]);
  for (int i = 8; i >= 0; --i) {  // P(t) by Horner (VOP2: the coefficient as a literal)
    k.v_mul_f32(p, p, t);
    k.v_add_f32(p, kErfcFit[i], p);
  }
  k.v_fma_f32(p, neg(z), z, p);  // -z^2 + P(t)
  k.v_mul_f32(p, kLog2E, p);
  k.v_exp_f32(p, p);
  k.v_mul_f32(p, p, t);       // erfc(z)
  k.v_mul_f32(p, 0.5f, p);    // h
  k.v_sub_f32(t, 1.0f, p);    // 1 - h
  k.v_cmp_gt_f32(vcc, 0, x);  // x < 0: h, else 1 - h
  k.v_cndmask_b32(t, t, p, vcc);
  k.v_mul_f32(y, x, t);
}

// gelu_tanh(x) = 0.5 x (1 + tanh(u)) = x / (1 + e^(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3).
void emit_gelu_tanh(Kernel& k, VGPR y, VGPR x, VGPR t) {
  const double c =
      -2.0 * std::sqrt(2.0 / std::numbers::pi) * 1.4426950408889634;  // -2 sqrt(2/pi) log2 e
  k.v_mul_f32(t, x, x);
  k.v_mul_f32(t, float(c * 0.044715), t);
  k.v_add_f32(t, float(c), t);           // c (1 + 0.044715 x^2)
  reciprocal_one_plus_exp2(k, t, x, t);  // 1 / (1 + 2^(c (x + 0.044715 x^3)))
  k.v_mul_f32(y, x, t);
}

codeobj::CodeObject build_gelu(isa::Target target) {
  Kernel k(kGelu, target, {.waves_per_simd = 8, .max_workgroup = 1024});
  Label exit = k.exit();
  const SGPR n = k.arg("n"), exact = k.arg("exact"), hid = hidden_block(k);
  k.s_cmp_lg_u32(n[1], 0);  // n >= 2^32 or negative: refused by the contract, nothing written
  k.s_cbranch_scc1(exit);
  const Grid g = grid_geometry(k, hid);
  const VGPR e = k.vgpr(1, "element"), x = k.vgpr(1, "x"), y = k.vgpr(1, "y"), z = k.vgpr(1, "z"),
             t = k.vgpr(1, "t"), p = k.vgpr(1, "p");
  stride_loop(
      k, n[0], g,
      [&](SGPR first) {
        k.v_add_u32(e, first, g.lane);
        const VGPR xa = lane_address(k, k.arg("x"), e, 4u), ya = lane_address(k, k.arg("y"), e, 4u);
        k.global_load_dword(x, xa, off);
        k.s_cmp_lg_u32(exact, 0);
        k.if_(
            Cond::Scc1, [&] { emit_gelu_erf(k, y, x, z, t, p); },
            [&] { emit_gelu_tanh(k, y, x, t); });
        k.global_store_dword(ya, y, off);
      },
      [] {});
  return k.build();
}

// ------------------------------------------------------------------ tests

// Cases over (rows, N, stride, workgroup, grid): grid 0 = the catalog's
// ceil(rows * N / wg); a smaller grid exercises the stride loop.
std::vector<Case> bias_cases(bool strided) {
  if (!strided)
    return case_table(
        {"rows", "N", "wg", "grid"},
        {{1, 1, 64, 0}, {3, 65, 64, 0}, {7, 200, 256, 0}, {5, 33, 128, 2}, {2, 1000, 100, 0}});
  return case_table({"rows", "N", "stride", "wg", "grid"}, {{1, 1, 1, 256, 0},
                                                            {3, 65, 65, 256, 0},
                                                            {4, 8, 16, 256, 0},
                                                            {7, 200, 333, 256, 0},
                                                            {5, 72, 216, 64, 3},
                                                            {9, 31, 40, 100, 0}});
}

void add_bias(Registry& reg, bool strided) {
  KernelDef d = generated_kernel("vision", strided ? kBiasS : kBias,
                                 [strided](isa::Target t) { return build_bias(t, strided); });
  if (!strided) {
    d.description =
        "Adds a column bias in place to a packed [rows][N] f32 matrix (the bias of a linear layer "
        "whose output "
        "has no pitch). Grid-stride over the rows*N elements, so the catalog's "
        "one-element-per-work-item grid "
        "ceil(rows*N/wg) and any smaller grid of any workgroup size give the whole result; the "
        "column is the "
        "element index modulo N (exact per-lane division). One f32 addition per element: "
        "bit-exact.";
    d.semantics = "y[i] += b[i % N] for i < rows*N";
    d.geometry =
        "grid = ceil(rows*N/wg), wg = 64...256 (any grid and workgroup size is correct; the "
        "contract caps the grid at 1920 workgroups: fewer workgroups read the arguments)";
    d.launch =
        "sizes rows n\nlet elements_below_2_31 = 1 / (rows * n < 2147483648)\nworkgroup = 256\n"
        "grid = min(ceil_div(rows * n, 256), 1920)\narg rows = rows\narg N = n";
    d.limits = "rows*N < 2^31; rows < 1 or N < 1 writes nothing";
  } else {
    d.description =
        "Strided column bias: the catalog's row-pitch reading of the 5th argument. Element i < "
        "rows*N of the "
        "logical [rows][N] matrix lives at y[(i / N) * stride + i % N]; the columns N..stride-1 of "
        "each row are "
        "not touched (the bias of the q/k/v blocks of a wider row, for instance). stride = N is "
        "the packed case. "
        "Grid-stride as vit_bias_kernel; one f32 addition per element: bit-exact.";
    d.semantics = "y[(i / N) * stride + i % N] += b[i % N] for i < rows*N";
    d.geometry =
        "grid = ceil(rows*N/wg), wg = 256 (any grid and workgroup size is correct; the contract "
        "caps the grid at 1920 workgroups: fewer workgroups read the arguments)";
    d.launch =
        "sizes rows n stride\nlet stride_at_least_n = 1 / (stride >= n)\n"
        "let elements_below_2_31 = 1 / (rows * stride < 2147483648)\nworkgroup = 256\n"
        "grid = min(ceil_div(rows * n, 256), 1920)\narg rows = rows\narg N = n\narg stride = "
        "stride";
    d.limits = "stride >= N (the contract refuses less: rows would overlap); rows*stride < 2^31";
  }
  d.cases = [strided](bool) { return bias_cases(strided); };
  d.run = [strided](TestDevice& dev, const Case& c) {
    const size_t rows = size_t(c["rows"]), n = size_t(c["N"]),
                 stride = strided ? size_t(c["stride"]) : n;
    const uint32_t wg = uint32_t(c["wg"]);
    Rng rng(c.seed);
    std::vector<float> y = rng.normal(rows * stride), b = rng.normal(n), want = y;
    for (size_t r = 0; r < rows; ++r)
      for (size_t j = 0; j < n; ++j) want[r * stride + j] = y[r * stride + j] + b[j];
    DeviceBuffer<float> dy(dev, vision::guarded_copy(y)), db(dev, b);
    const uint32_t grid = c["grid"] ? uint32_t(c["grid"]) : uint32_t((rows * n + wg - 1) / wg);
    if (strided)
      launch(dev, kBiasS, {grid}, {wg}, {dy.addr(), db.addr(), rows, n, stride});
    else
      launch(dev, kBias, {grid}, {wg}, {dy.addr(), db.addr(), rows, n});
    return vision::compare_guarded_output(dy.download(), want, Tolerance{});
  };
  // The bias of the fused QKV projection of a vision block (1024 tokens x 3456) at the
  // contract's grid.
  d.bench_case = [strided] {
    const int64_t n = 3 * vision::kBenchHidden;
    if (strided)
      return make_case(
          {{"rows", vision::kBenchTokens}, {"N", n}, {"stride", n}, {"wg", 256}, {"grid", 1920}});
    return make_case({{"rows", vision::kBenchTokens}, {"N", n}, {"wg", 256}, {"grid", 1920}});
  };
  d.ideal_bytes = [](const Case& c) {
    return uint64_t(c["rows"] * c["N"]) * 8 + uint64_t(c["N"]) * 4;
  };
  reg.add(std::move(d));
}

double gelu_erf_ref(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
}
double gelu_tanh_ref(double x) {
  return 0.5 * x *
         (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
}

void add_gelu(Registry& reg) {
  KernelDef d = generated_kernel("vision", kGelu, build_gelu);
  d.description =
      "GELU of a float vector. The 4th argument is the form switch (not a workgroup size): nonzero "
      "selects the "
      "exact erf form, 0 the tanh approximation (Hugging Face `gelu_pytorch_tanh`, the activation "
      "of the Qwen3-VL "
      "/ Qwen3.5 vision MLP). erf form: x(1 - h) for x >= 0 and x h for x < 0 with h = "
      "erfc(|x|/sqrt 2)/2 from a "
      "Chebyshev fit of erfc (relative error < 1.2e-7) and v_exp_f32; tanh form: x / (1 + 2^(-2u "
      "log2 e)). "
      "Grid-stride, so the catalog grid ceil(n/wg) and any smaller grid give the whole result.";
  d.semantics =
      "y[i] = exact != 0 ? 0.5 x (1 + erf(x/sqrt 2)) : 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 "
      "x^3))), "
      "x = x[i], for i < n";
  d.geometry =
      "grid = ceil(n/64), wg = 64 (any grid and workgroup size is correct; the contract launches "
      "wg = 256 and caps the grid at 1920 workgroups: fewer workgroups read the arguments)";
  d.launch =
      "sizes n\nlet n_below_2_32 = 1 / (n < 4294967296)\nworkgroup = 256\n"
      "grid = min(ceil_div(n, 256), 1920)\narg n = n";
  d.limits = "n < 2^32 (the contract refuses more; the kernel writes nothing then)";
  d.tolerance = Tolerance{1e-6, 2e-6};
  d.cases = [](bool) {
    return case_table({"n", "exact", "wg", "grid"}, {{1, 1, 64, 0},
                                                     {1000, 1, 64, 0},
                                                     {4099, 1, 256, 3},
                                                     {1000, 0, 64, 0},
                                                     {771, 0, 100, 2},
                                                     {333, 64, 64, 0}});
  };
  d.run = [tol = d.tolerance](TestDevice& dev, const Case& c) {
    const size_t n = size_t(c["n"]);
    const uint32_t wg = uint32_t(c["wg"]);
    Rng rng(c.seed);
    std::vector<float> x = rng.normal(n, 0.f, 3.f), want(n);
    const float extremes[] = {-40.f, -12.f, -5.f, -1e-3f, 0.f, -0.f, 1e-3f, 5.f, 12.f, 40.f};
    for (size_t i = 0; i < n; i += 29) x[i] = extremes[(i / 29) % 10];
    for (size_t i = 0; i < n; ++i)
      want[i] = float(c["exact"] ? gelu_erf_ref(x[i]) : gelu_tanh_ref(x[i]));
    DeviceBuffer<float> dx(dev, x), dy(dev, guarded(n));
    const uint32_t grid = c["grid"] ? uint32_t(c["grid"]) : uint32_t((n + wg - 1) / wg);
    launch(dev, kGelu, {grid}, {wg}, {dy.addr(), dx.addr(), n, int(c["exact"])});
    return vision::compare_guarded_output(dy.download(), want, tol);
  };
  // The MLP activation of a vision block (1024 tokens x 4304) at the contract's grid.
  d.bench_case = [] {
    return make_case({{"n", vision::kBenchTokens * vision::kBenchMlp},
                      {"exact", 0},
                      {"wg", 256},
                      {"grid", 1920}});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 8; };
  reg.add(std::move(d));
}

}  // namespace

void register_vision_elementwise_kernels(Registry& r) {
  add_bias(r, false);
  add_bias(r, true);
  add_gelu(r);
}

}  // namespace k100::kernels
