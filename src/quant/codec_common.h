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

// Fits x[0..n) ~ s * q - o with codes q in [0, qmax] and s >= 0 (and o >= 0
// with `nonneg_offset`, the formats that store a minimum as an unsigned
// code): from the range, then alternating code assignment and a
// least-squares refit of (s, o) while the squared error falls.
void fit_affine(const float* x, int n, int qmax, bool nonneg_offset, float* s_out, float* o_out);

// Weights of the squared errors of n elements for the quantisers that
// trade small elements against large ones: x^2 plus 4 times the mean square
// of x (every weight positive and most near equal, but a lone large element
// outweighs many small ones).
inline void importance(const float* x, int n, float* w) {
  double ms = 0.0;
  for (int i = 0; i < n; ++i) ms += double(x[i]) * x[i];
  ms = 4.0 * ms / n;
  for (int i = 0; i < n; ++i) w[i] = float(double(x[i]) * x[i] + ms) + 1e-30f;
}

// The scale of least error(scale) among `steps` + 1 evenly spaced
// multiples of `base`, from lo * base to hi * base, each also refitted:
// error(scale, &refit) returns the squared error and may set `refit` to the
// least-squares scale for the codes it chose, which is then tried too. 0
// when base is 0.
template <class Error>
float scan_scale(float base, int steps, float lo, float hi, Error&& error) {
  if (!(base > 0.0f)) return 0.0f;
  double best = -1.0;
  float best_scale = base;
  auto consider = [&](float s) {
    if (!(s > 0.0f) || !std::isfinite(s)) return 0.0f;
    float refit = 0.0f;
    const double e = error(s, &refit);
    if (best < 0.0 || e < best) best = e, best_scale = s;
    return refit;
  };
  for (int k = 0; k <= steps; ++k) {
    const float refit = consider(base * (lo + (hi - lo) * float(k) / float(steps)));
    if (refit > 0.0f) consider(refit);
  }
  return best_scale;
}

}  // namespace k100::quant::detail
