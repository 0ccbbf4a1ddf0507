// The division helpers run as the compiler uses them (LLVM's f32 and f64
// fdiv expansions: div_scale, rcp, FMA refinement, div_fmas, div_fixup) must
// give the correctly rounded quotient; plus direct cases of div_fixup,
// div_scale and v_trig_preop_f64.
#include <cmath>

#include "harness.h"

namespace k100::emu::valu_test {
namespace {

// Runs LLVM's f32 division sequence on the wave: v1 = a / v2 into v10.
void fdiv32(WaveState& w) {
  isa::Modifiers neg0;
  neg0.neg = 1;
  // v3 = denominator scaled, v4 = numerator scaled (vcc set when needed)
  run(w, make("v_div_scale_f32", Encoding::Native, {V(3), S(20, 2), V(2), V(2), V(1)}));
  run(w, make("v_div_scale_f32", Encoding::Native, {V(4), VCC(), V(1), V(2), V(1)}));
  run(w, make("v_rcp_f32", Encoding::Native, {V(5), V(3)}));
  run(w, make("v_fma_f32", Encoding::Native, {V(6), V(3), V(5), FConst(242)}, neg0));   // 1 - d*r
  run(w, make("v_fma_f32", Encoding::Native, {V(5), V(6), V(5), V(5)}));               // r += r*e
  run(w, make("v_mul_f32", Encoding::Native, {V(6), V(4), V(5)}));                     // q = n*r
  run(w, make("v_fma_f32", Encoding::Native, {V(7), V(3), V(6), V(4)}, neg0));          // n - d*q
  run(w, make("v_fma_f32", Encoding::Native, {V(6), V(7), V(5), V(6)}));               // q += r*rem
  run(w, make("v_fma_f32", Encoding::Native, {V(7), V(3), V(6), V(4)}, neg0));          // n - d*q
  run(w, make("v_div_fmas_f32", Encoding::Native, {V(6), V(7), V(5), V(6)}));
  run(w, make("v_div_fixup_f32", Encoding::Native, {V(10), V(6), V(2), V(1)}));
}

void fdiv64(WaveState& w) {
  isa::Modifiers neg0;
  neg0.neg = 1;
  auto v = [](unsigned n) { return V(n, 2); };
  run(w, make("v_div_scale_f64", Encoding::Native, {v(20), S(20, 2), v(4), v(4), v(2)}));  // den scaled
  run(w, make("v_rcp_f64", Encoding::Native, {v(22), v(20)}));
  run(w, make("v_fma_f64", Encoding::Native, {v(24), v(20), v(22), FConst(242)}, neg0));
  run(w, make("v_fma_f64", Encoding::Native, {v(22), v(22), v(24), v(22)}));
  run(w, make("v_fma_f64", Encoding::Native, {v(24), v(20), v(22), FConst(242)}, neg0));
  run(w, make("v_div_scale_f64", Encoding::Native, {v(26), VCC(), v(2), v(4), v(2)}));     // num scaled
  run(w, make("v_fma_f64", Encoding::Native, {v(22), v(22), v(24), v(22)}));
  run(w, make("v_mul_f64", Encoding::Native, {v(28), v(26), v(22)}));
  run(w, make("v_fma_f64", Encoding::Native, {v(30), v(20), v(28), v(26)}, neg0));
  run(w, make("v_div_fmas_f64", Encoding::Native, {v(30), v(30), v(22), v(28)}));
  run(w, make("v_div_fixup_f64", Encoding::Native, {v(10), v(30), v(4), v(2)}));
}

uint32_t wide_f32(std::mt19937& rng) {
  switch (rng() % 6) {
    case 0: return pick_f32(rng);
    case 1: return rng() & 0x807fffffu;                           // denormal
    case 2: return (rng() & 0x80000000u) | (0x7e000000u + rng() % 0x1800000u);  // huge
    default: return rng();
  }
}

ROW_CHECK(fdiv32_seq, "v_div_scale_f32", "v_div_fmas_f32", "v_div_fixup_f32") {
  std::mt19937 rng(83);
  int failures = 0;
  for (int round = 0; round < 300 && failures < 5; ++round) {
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l) {
      w.vgpr[1][l] = wide_f32(rng);
      w.vgpr[2][l] = wide_f32(rng);
    }
    WaveState o = w;
    fdiv32(w);
    for (int l = 0; l < 64; ++l) {
      float a = fval(o.vgpr[1][l]), b = fval(o.vgpr[2][l]);
      uint32_t want = fbits(a / b), got = w.vgpr[10][l];
      if (got != want && !(std::isnan(fval(got)) && std::isnan(a / b))) {
        ADD_FAILURE() << row << ": " << std::hexfloat << a << " / " << b << " = " << fval(got) << ", want " << a / b;
        ++failures;
      }
    }
  }
}

uint64_t wide_f64(std::mt19937& rng) {
  uint64_t r = (uint64_t(rng()) << 32) | rng();
  switch (rng() % 6) {
    case 0: return pick_f64(rng);
    case 1: return r & 0x800fffffffffffffull;
    case 2: return (r & 0x800fffffffffffffull) | (uint64_t(0x7c0 + rng() % 0x3f) << 52);
    default: return r;
  }
}

ROW_CHECK(fdiv64_seq, "v_div_scale_f64", "v_div_fmas_f64", "v_div_fixup_f64") {
  std::mt19937 rng(89);
  int failures = 0;
  for (int round = 0; round < 200 && failures < 5; ++round) {
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l) {
      set64(w, 2, l, wide_f64(rng));
      set64(w, 4, l, wide_f64(rng));
    }
    WaveState o = w;
    fdiv64(w);
    for (int l = 0; l < 64; ++l) {
      double a = dval(get64(o, 2, l)), b = dval(get64(o, 4, l));
      uint64_t want = dbits(a / b), got = get64(w, 10, l);
      if (got != want && !(std::isnan(dval(got)) && std::isnan(a / b))) {
        ADD_FAILURE() << row << ": " << std::hexfloat << a << " / " << b << " = " << dval(got) << ", want " << a / b;
        ++failures;
      }
    }
  }
}

ROW_CHECK(fixup_cases, "v_div_fixup_f32", "v_div_fixup_f64", "v_div_fixup_f16", "v_div_fixup_legacy_f16") {
  // (quotient, denominator, numerator) -> expected, as doubles; NaN expected means any NaN.
  struct Case {
    double q, den, num, want;
  };
  const double inf = INFINITY, nan = NAN;
  const Case cases[] = {
      {0.5, 2.0, 1.0, 0.5},     {0.5, -2.0, 1.0, -0.5},  {-0.5, -2.0, -1.0, 0.5}, {7.0, 0.0, 1.0, inf},
      {7.0, -0.0, 1.0, -inf},   {7.0, 0.0, 0.0, nan},    {7.0, inf, inf, nan},    {7.0, 2.0, inf, inf},
      {7.0, -2.0, inf, -inf},   {7.0, inf, 3.0, 0.0},    {7.0, -inf, 3.0, -0.0},  {7.0, 3.0, 0.0, 0.0},
      {7.0, -3.0, 0.0, -0.0},   {7.0, nan, 1.0, nan},    {7.0, 1.0, nan, nan},
  };
  bool is64 = row == "v_div_fixup_f64", is16 = row.find("f16") != std::string::npos;
  WaveState w = fresh_wave();
  int n = int(sizeof cases / sizeof cases[0]);
  for (int l = 0; l < 64; ++l) {
    const Case& c = cases[l % n];
    if (is64) {
      set64(w, 2, l, dbits(c.q));
      set64(w, 4, l, dbits(c.den));
      set64(w, 6, l, dbits(c.num));
    } else if (is16) {
      w.vgpr[2][l] = f16_round(c.q);
      w.vgpr[4][l] = f16_round(c.den);
      w.vgpr[6][l] = f16_round(c.num);
    } else {
      w.vgpr[2][l] = fbits(float(c.q));
      w.vgpr[4][l] = fbits(float(c.den));
      w.vgpr[6][l] = fbits(float(c.num));
    }
  }
  uint8_t wd = is64 ? 2 : 1;
  run(w, make(row, Encoding::Native, {V(10, wd), V(2, wd), V(4, wd), V(6, wd)}));
  for (int l = 0; l < 64; ++l) {
    const Case& c = cases[l % n];
    double got = is64 ? dval(get64(w, 10, l)) : is16 ? double(f16_value(uint16_t(w.vgpr[10][l]))) : double(fval(w.vgpr[10][l]));
    if (std::isnan(c.want)) {
      EXPECT_TRUE(std::isnan(got)) << row << " case " << l % n;
    } else {
      EXPECT_EQ(got, c.want) << row << " case " << l % n;
      EXPECT_EQ(std::signbit(got), std::signbit(c.want)) << row << " sign, case " << l % n;
    }
  }
}

ROW_CHECK(scale_flags, "v_div_scale_f32") {
  // Quotient near overflow: the denominator is scaled up and VCC set; an
  // ordinary quotient leaves both unchanged.
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    w.vgpr[1][l] = fbits(l == 0 ? 0x1p100f : 3.0f);  // numerator
    w.vgpr[2][l] = fbits(l == 0 ? 0x1p-30f : 2.0f);  // denominator
  }
  run(w, make(row, Encoding::Native, {V(3), VCC(), V(2), V(2), V(1)}));
  EXPECT_EQ(fval(w.vgpr[3][0]), 0x1p34f);
  EXPECT_EQ(fval(w.vgpr[3][1]), 2.0f);
  EXPECT_EQ(w.vcc(), 1ull);
}

ROW_CHECK(trig_preop, "v_trig_preop_f64") {
  WaveState w = fresh_wave();
  for (int l = 0; l < 64; ++l) {
    set64(w, 2, l, dbits(l < 32 ? 1.0 : std::ldexp(1.0, 55 + (l - 32) % 8)));
    w.vgpr[4][l] = uint32_t(l % 32 < 4 ? l % 32 : (l % 8));
  }
  run(w, make(row, Encoding::Native, {V(10, 2), V(2, 2), V(4)}));
  // Segment 0 of 2/pi for small inputs: the first 53 fraction bits, truncated.
  EXPECT_EQ(get64(w, 10, 0), 0x3fe45f306dc9c882ull);
  // The segments of 1.0 add up to 2/pi (to the precision of long double).
  long double sum = 0;
  for (int k = 0; k < 4; ++k) sum += dval(get64(w, 10, k));
  long double two_over_pi = 0.636619772367581343075535053490057448L;
  EXPECT_LT(std::fabs(sum - two_over_pi), 1e-19L);
  for (int k = 1; k < 4; ++k) EXPECT_LT(dval(get64(w, 10, k)), std::ldexp(1.0, -53 * k + 1));
  // For a large x = 2^(55+j) (exponent 1078+j), segment 0 starts j+1 bits
  // further in: it equals the bits of frac(2^(j+1) * 2/pi) scaled by 2^-(j+1).
  for (int l = 32; l < 40; ++l) {
    int shift = 55 + (l - 32) - 54;  // exponent - 1077
    int seg = int(w.vgpr[4][l]);
    if (seg != 0) continue;
    long double scaled = two_over_pi * std::ldexp(1.0L, shift);
    long double frac = scaled - std::floor(scaled);
    long double got = std::ldexp((long double)dval(get64(w, 10, l)), shift);
    EXPECT_LT(std::fabs(got - frac), std::ldexp(1.0L, -52)) << "lane " << l;
  }
}

}  // namespace
}  // namespace k100::emu::valu_test
