// k100lc emu/valu: double-precision kernels behind the f32/f16
// transcendental instructions.
//
// Each kernel is accurate to about 1e-12 relative (far below an f32 ulp), so
// rounding its result to f32 or f16 lands within 1 ulp of the correctly
// rounded value and almost always on it. They are written without branches
// (selects and bit operations only) so a loop over 64 lanes vectorises;
// the inputs are exact f32/f16 values converted to double. Coefficients are
// written as hex literals: the sources build with -frounding-math, under
// which the compiler would not fold 1.0 / 120.0 and friends.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace k100::emu::valu {

// 2^x.
inline double exp2_f64(double x) {
  // Clamp to a range that covers every f32 result (and keeps 2^n finite).
  double xc = x > 200.0 ? 200.0 : (x < -200.0 ? -200.0 : x);
  // n = round(x) by the 1.5 * 2^52 trick; f in [-1/2, 1/2].
  const double shifter = 0x1.8p52;
  double t = xc + shifter;
  double n = t - shifter;
  double f = xc - n;
  // e^(f ln 2) by its Taylor series to degree 11 (|f ln2| <= 0.35).
  double y = f * 0.6931471805599453094172321;
  double p = 0x1.ae64567f544e4p-26;
  p = p * y + 0x1.27e4fb7789f5cp-22;
  p = p * y + 0x1.71de3a556c734p-19;
  p = p * y + 0x1.a01a01a01a01ap-16;
  p = p * y + 0x1.a01a01a01a01ap-13;
  p = p * y + 0x1.6c16c16c16c17p-10;
  p = p * y + 0x1.1111111111111p-7;
  p = p * y + 0x1.5555555555555p-5;
  p = p * y + 0x1.5555555555555p-3;
  p = p * y + 0.5;
  p = p * y + 1.0;
  p = p * y + 1.0;
  // 2^n from the exponent bits (n is an integer in [-200, 200]).
  int64_t ni = std::bit_cast<int64_t>(t) - std::bit_cast<int64_t>(shifter);
  double scale = std::bit_cast<double>(uint64_t(ni + 1023) << 52);
  double r = p * scale;
  r = x > 200.0 ? INFINITY : r;
  r = x < -200.0 ? 0.0 : r;
  return x != x ? x : r;
}

// log2(x).
inline double log2_f64(double x) {
  uint64_t b = std::bit_cast<uint64_t>(x);
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); inputs are normal doubles.
  // The biased exponent becomes a double through the 2^52 trick (integer
  // to double conversions of 64-bit values do not vectorise on x86-64).
  double ebias = std::bit_cast<double>(((b >> 52) & 0x7ff) | 0x4330000000000000ull) - 0x1p52;
  uint64_t mb = (b & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
  double m = std::bit_cast<double>(mb);
  bool big = m > 0x1.6a09e667f3bcdp+0;  // sqrt(2)
  m = big ? m * 0.5 : m;
  double ef = ebias - 1023.0 + (big ? 1.0 : 0.0);
  // ln(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.172.
  double s = (m - 1.0) / (m + 1.0);
  double s2 = s * s;
  double p = 0x1.e1e1e1e1e1e1ep-5;
  p = p * s2 + 0x1.1111111111111p-4;
  p = p * s2 + 0x1.3b13b13b13b14p-4;
  p = p * s2 + 0x1.745d1745d1746p-4;
  p = p * s2 + 0x1.c71c71c71c71cp-4;
  p = p * s2 + 0x1.2492492492492p-3;
  p = p * s2 + 0x1.999999999999ap-3;
  p = p * s2 + 0x1.5555555555555p-2;
  p = p * s2 + 1.0;
  double ln_m = 2.0 * s * p;
  double r = ef + ln_m * 1.4426950408889634073599247;
  // Special cases: zero, negatives, infinity, NaN. (Denormal doubles never
  // come from f32/f16 inputs.)
  r = x == 0.0 ? -INFINITY : r;
  r = x < 0.0 ? NAN : r;
  r = x == INFINITY ? INFINITY : r;
  return x != x ? x : r;
}

// sin(2 pi x) for x exactly representable in f32 (or narrower): the
// reduction to a quarter turn is exact, so zeros of the result are exact
// and small results keep their relative accuracy.
inline double sin_rev_f64(double x) {
  const double shifter = 0x1.8p52;
  double n = (x + shifter) - shifter;  // round to nearest integer (|x| < 2^51)
  double r = x - n;                    // exact, in [-1/2, 1/2]
  r = std::fabs(x) >= 0x1p51 ? 0.0 : r;
  double a = std::fabs(r);
  a = a > 0.25 ? 0.5 - a : a;  // sin(pi - t) = sin(t)
  double t = a * 6.283185307179586476925287;
  double t2 = t * t;
  // Taylor series of sin to degree 17 (|t| <= pi/2).
  double p = -0x1.952c77030ad4ap-49;
  p = p * t2 + 0x1.ae7f3e733b81fp-41;
  p = p * t2 - 0x1.6124613a86d09p-33;
  p = p * t2 + 0x1.ae64567f544e4p-26;
  p = p * t2 - 0x1.71de3a556c734p-19;
  p = p * t2 + 0x1.a01a01a01a01ap-13;
  p = p * t2 - 0x1.1111111111111p-7;
  p = p * t2 + 0x1.5555555555555p-3;
  double s = t - t * t2 * p;
  s = r < 0 ? -s : s;
  return (x - x) != 0.0 ? NAN : s;  // inf and NaN give NaN
}

inline double cos_rev_f64(double x) {
  if ((x - x) != 0.0) return NAN;  // inf and NaN
  const double shifter = 0x1.8p52;
  double n = (x + shifter) - shifter;
  double r = x - n;
  r = std::fabs(x) >= 0x1p51 ? 0.0 : r;
  return sin_rev_f64(r + 0.25);  // exact: r has few significant bits
}

}  // namespace k100::emu::valu
