// k100lc emu/valu: double-precision kernels behind the f32/f16
// transcendental instructions. Each is accurate to a few double ulps, so
// rounding its result to f32 or f16 lands within 1 ulp of the correctly
// rounded value (almost always on it).
#pragma once

#include <cmath>

namespace k100::emu::valu {

inline double exp2_f64(double x) { return std::exp2(x); }
inline double log2_f64(double x) { return std::log2(x); }

// sin(2*pi*x) for x exactly representable in f32 (or narrower): the
// reduction to [-1/4, 1/4] revolution is exact, so small results keep their
// relative accuracy.
inline double sin_rev_f64(double x) {
  if (!std::isfinite(x)) return NAN;
  double r = x - std::nearbyint(x);  // exact, in [-1/2, 1/2]
  double a = std::fabs(r);
  if (a > 0.25) a = 0.5 - a;  // sin(pi - t) = sin(t)
  double s = std::sin(2.0 * M_PI * a);
  return r < 0 ? -s : s;
}

inline double cos_rev_f64(double x) {
  if (!std::isfinite(x)) return NAN;
  double r = x - std::nearbyint(x);
  return sin_rev_f64(r + 0.25);  // exact: r has few significant bits
}

}  // namespace k100::emu::valu
