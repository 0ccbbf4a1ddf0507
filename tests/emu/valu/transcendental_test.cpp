// Accuracy of the transcendental rows: sweeps of many inputs (exhaustive for
// f16), maximum error <= 1 ulp against correctly rounded long double
// references; rcp and sqrt are correctly rounded.
#include <cmath>
#include <cstdio>

#include "harness.h"

namespace k100::emu::valu_test {
namespace {

long double ref_f(const std::string& op, long double x) {
  if (op == "exp" || op == "exp_legacy") return std::exp2(x);
  if (op == "log" || op == "log_legacy") return std::log2(x);
  if (op == "rcp" || op == "rcp_iflag") return 1.0L / x;
  if (op == "rsq") return 1.0L / std::sqrt(x);
  if (op == "sqrt") return std::sqrt(x);
  // sin/cos of x revolutions: exact reduction to [-1/4, 1/4] of a turn by
  // symmetry, so zeros of the result are exact.
  if (!std::isfinite(x)) return NAN;
  const long double two_pi = 6.28318530717958647692528676655900577L;
  long double r = x - std::nearbyint(x);  // [-1/2, 1/2]
  if (op == "cos") r = r + 0.25L;         // cos(2 pi r) = sin(2 pi (r + 1/4)); exact
  if (r > 0.5L) r -= 1.0L;
  long double a = std::fabs(r);
  if (a > 0.25L) a = 0.5L - a;
  long double s = std::sin(two_pi * a);
  return r < 0 ? -s : s;
}

std::string op_of(const std::string& row) {
  std::string s = row.substr(2);  // drop v_
  return s.substr(0, s.rfind('_'));
}

// Inputs of an f32 sweep: log-spaced magnitudes of both signs plus specials.
uint32_t sweep_f32(const std::string& op, std::mt19937& rng, int i) {
  static const uint32_t special[] = {0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x3f800000,
                                     0x00000001, 0x00800000, 0x7f7fffff, 0x3f000000, 0xbf000000, 0x43800000};
  if (i < 12) return special[i];
  uint32_t b = rng();
  if (op == "sin" || op == "cos") {
    // mostly |x| < 300 revolutions, with fine structure near multiples of 1/4
    std::uniform_real_distribution<float> d(-300.0f, 300.0f);
    if (rng() % 3 == 0) return fbits(float(int(rng() % 2000) - 1000) / 4.0f + fval(b & 0x3f7fffffu) * 1e-3f);
    return fbits(d(rng));
  }
  if (op == "exp" || op == "exp_legacy") {
    std::uniform_real_distribution<float> d(-160.0f, 130.0f);
    return fbits(d(rng));
  }
  return b;  // any bit pattern: denormals, normals, both signs
}

void check_f32(const std::string& row) {
  std::string op = op_of(row);
  bool exact = op == "rcp" || op == "rcp_iflag" || op == "sqrt";
  std::mt19937 rng(uint32_t(std::hash<std::string>{}(row)));
  int64_t worst = 0;
  uint32_t worst_x = 0;
  for (int round = 0; round < 200; ++round) {
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l) w.vgpr[1][l] = sweep_f32(op, rng, round * 64 + l);
    WaveState o = w;
    run(w, make(row, Encoding::Native, {V(10), V(1)}));
    for (int l = 0; l < 64; ++l) {
      long double x = fval(o.vgpr[1][l]);
      long double r = ref_f(op, x);
      uint32_t want = fbits(float(r));
      uint32_t got = w.vgpr[10][l];
      int64_t d = ulp_diff_f32(got, want);
      if (std::isinf(r) || want == 0 || got == 0) d = got == want ? 0 : d;
      if (d > worst) {
        worst = d;
        worst_x = o.vgpr[1][l];
      }
    }
  }
  std::printf("%s: max error %lld ulp (at 0x%08x)\n", row.c_str(), (long long)worst, worst_x);
  EXPECT_LE(worst, exact ? 0 : 1) << row << " worst input 0x" << std::hex << worst_x;
}
ROW_CHECK(tr32, "v_exp_f32", "v_log_f32", "v_rcp_f32", "v_rcp_iflag_f32", "v_rsq_f32", "v_sqrt_f32", "v_sin_f32",
          "v_cos_f32", "v_exp_legacy_f32", "v_log_legacy_f32") {
  check_f32(row);
}

void check_f16(const std::string& row) {
  std::string op = op_of(row);
  bool exact = op == "rcp" || op == "sqrt";
  int64_t worst = 0;
  uint32_t worst_x = 0;
  for (uint32_t base = 0; base < 0x10000; base += 64) {
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l) w.vgpr[1][l] = base + l;
    run(w, make(row, Encoding::Native, {V(10), V(1)}));
    for (int l = 0; l < 64; ++l) {
      uint16_t h = uint16_t(base + l);
      long double r = ref_f(op, f16_value(h));
      uint16_t want = f16_round(r);
      uint16_t got = uint16_t(w.vgpr[10][l]);
      EXPECT_EQ(w.vgpr[10][l] >> 16, 0u) << row << " high half zeroed";
      int64_t d = ulp_diff_f16(got, want);
      if (d > worst) {
        worst = d;
        worst_x = h;
      }
    }
  }
  std::printf("%s: max error %lld ulp over all 65536 inputs (at 0x%04x)\n", row.c_str(), (long long)worst, worst_x);
  EXPECT_LE(worst, exact ? 0 : 1) << row << " worst input 0x" << std::hex << worst_x;
}
ROW_CHECK(tr16, "v_exp_f16", "v_log_f16", "v_rcp_f16", "v_rsq_f16", "v_sqrt_f16", "v_sin_f16", "v_cos_f16") {
  check_f16(row);
}

ROW_CHECK(tr64, "v_rcp_f64", "v_rsq_f64", "v_sqrt_f64") {
  std::string op = op_of(row);
  std::mt19937 rng(79);
  int64_t worst = 0;
  for (int round = 0; round < 100; ++round) {
    WaveState w = fresh_wave();
    for (int l = 0; l < 64; ++l) set64(w, 2, l, round == 0 ? pick_f64(rng) : (uint64_t(rng()) << 32) | rng());
    WaveState o = w;
    run(w, make(row, Encoding::Native, {V(10, 2), V(2, 2)}));
    for (int l = 0; l < 64; ++l) {
      double x = dval(get64(o, 2, l));
      uint64_t got = get64(w, 10, l);
      uint64_t want;
      if (op == "rcp") want = dbits(1.0 / x);
      else if (op == "sqrt") want = dbits(std::sqrt(x));
      else want = dbits(double(1.0L / std::sqrt((long double)x)));
      worst = std::max(worst, ulp_diff_f64(got, want));
    }
  }
  std::printf("%s: max error %lld ulp\n", row.c_str(), (long long)worst);
  EXPECT_LE(worst, op == "rsq" ? 1 : 0) << row;
}

}  // namespace
}  // namespace k100::emu::valu_test
