// Pieces every block encoder shares: reading a block's inputs safely,
// rounding to a code range, and fitting one scale to a set of levels.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "k100/quant/half.h"

namespace k100::quant::detail {

// Copies n inputs, with every non-finite value replaced by 0 so that the
// encoders never convert a NaN or an infinity to an integer.
inline void load_finite(const float* src, int n, float* dst) {
  for (int i = 0; i < n; ++i) dst[i] = std::isfinite(src[i]) ? src[i] : 0.0f;
}

// round(v) clamped to [lo, hi]; NaN goes to lo.
inline int round_clamp(float v, int lo, int hi) {
  if (!(v >= float(lo))) return lo;
  if (v >= float(hi)) return hi;
  return int(std::nearbyint(v));
}

// The element of largest magnitude, with its sign (the first one on ties).
inline float signed_max(const float* x, int n) {
  float m = 0.0f, a = 0.0f;
  for (int i = 0; i < n; ++i)
    if (std::fabs(x[i]) > a) a = std::fabs(x[i]), m = x[i];
  return m;
}

inline float max_abs(const float* x, int n) {
  float a = 0.0f;
  for (int i = 0; i < n; ++i) a = std::fmax(a, std::fabs(x[i]));
  return a;
}

// The f16 that will be stored for a scale, and the f32 the decoder sees.
struct HalfScale {
  uint16_t bits;
  float value;
};
inline HalfScale half_scale(float d) {
  const uint16_t b = f32_to_f16(d);
  return {b, f16_to_f32(b)};
}

// Index of the level nearest to v (levels sorted ascending, n >= 1).
inline int nearest_level(const float* levels, int n, float v) {
  if (v <= levels[0]) return 0;
  for (int k = 1; k < n; ++k)
    if (v < levels[k]) return (v - levels[k - 1] <= levels[k] - v) ? k - 1 : k;
  return n - 1;
}

// Fits x[0..n) ~ d * levels[code[i]] with one scale d, picking codes by
// nearest level. Tries scales that put the largest-magnitude element on
// either end level, a few steps around them, and a least-squares refit of
// each; keeps the one of smallest squared error. When `round_half` is set
// the candidates are judged with d rounded to f16, as the block stores it.
// Returns the chosen d (exactly as the decoder will see it when round_half).
float fit_scale(const float* x, int n, const float* levels, int nlevels, bool round_half, uint8_t* codes);

}  // namespace k100::quant::detail
