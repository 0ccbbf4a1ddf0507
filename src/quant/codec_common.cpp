#include "codec_common.h"

#include <algorithm>

namespace k100::quant::detail {
namespace {

// Codes and squared error of x ~ d * levels[code]. Levels that are
// consecutive integers (Q4_0, Q2_0, Q6_K) are found by rounding.
double assign(const float* x, int n, const float* levels, int nlevels, float d, uint8_t* codes) {
  bool unit_steps = true;
  for (int k = 1; k < nlevels; ++k) unit_steps = unit_steps && levels[k] - levels[k - 1] == 1.0f;
  const int lo = int(levels[0]);
  double err = 0.0;
  for (int i = 0; i < n; ++i) {
    const float v = d != 0.0f ? x[i] / d : 0.0f;
    const int k = unit_steps ? round_clamp(v, lo, lo + nlevels - 1) - lo : nearest_level(levels, nlevels, v);
    codes[i] = uint8_t(k);
    const double e = double(x[i]) - double(d * levels[k]);
    err += e * e;
  }
  return err;
}

}  // namespace

float fit_scale(const float* x, int n, const float* levels, int nlevels, bool round_half, uint8_t* codes) {
  const float m = signed_max(x, n);
  if (m == 0.0f) {
    assign(x, n, levels, nlevels, 0.0f, codes);
    return 0.0f;
  }
  uint8_t trial[256];
  double best = -1.0;
  float best_d = 0.0f;
  auto consider = [&](float d) {
    if (round_half) d = half_scale(d).value;
    if (!std::isfinite(d) || d == 0.0f) return;
    const double err = assign(x, n, levels, nlevels, d, trial);
    if (best < 0.0 || err < best) {
      best = err;
      best_d = d;
      std::memcpy(codes, trial, size_t(n));
    }
  };
  const float ends[2] = {levels[0], levels[nlevels - 1]};
  for (float end : ends) {
    if (end == 0.0f) continue;
    for (int step = -6; step <= 6; ++step) {
      const float d = m / end * (1.0f + 0.025f * float(step));
      consider(d);
      // least-squares scale for the codes this candidate chose
      uint8_t c[256];
      assign(x, n, levels, nlevels, round_half ? half_scale(d).value : d, c);
      double num = 0.0, den = 0.0;
      for (int i = 0; i < n; ++i) {
        num += double(x[i]) * levels[c[i]];
        den += double(levels[c[i]]) * levels[c[i]];
      }
      if (den > 0.0) consider(float(num / den));
    }
  }
  if (best < 0.0) {  // every candidate rounded to zero (tiny inputs)
    assign(x, n, levels, nlevels, 0.0f, codes);
    return 0.0f;
  }
  return best_d;
}

void fit_affine(const float* x, int n, int qmax, bool nonneg_offset, float* s_out, float* o_out) {
  float lo = *std::min_element(x, x + n), hi = *std::max_element(x, x + n);
  if (nonneg_offset) lo = std::min(lo, 0.0f);
  float s = (hi - lo) / float(qmax), o = -lo;
  auto error = [&](float s_, float o_) {
    double e = 0.0;
    for (int i = 0; i < n; ++i) {
      const int q = s_ > 0.0f ? round_clamp((x[i] + o_) / s_, 0, qmax) : 0;
      const double r = double(x[i]) - (double(s_) * q - o_);
      e += r * r;
    }
    return e;
  };
  double best = error(s, o);
  for (int iter = 0; iter < 4 && s > 0.0f; ++iter) {
    double sq = 0, sqq = 0, sx = 0, sxq = 0;
    for (int i = 0; i < n; ++i) {
      const int q = round_clamp((x[i] + o) / s, 0, qmax);
      sq += q, sqq += double(q) * q, sx += x[i], sxq += double(x[i]) * q;
    }
    const double det = n * sqq - sq * sq;
    if (det <= 0.0) break;
    double ns = (n * sxq - sq * sx) / det;
    double no = (ns * sq - sx) / n;
    if (nonneg_offset && no < 0.0) {  // the offset cannot go negative: refit the scale alone
      no = 0.0;
      ns = sqq > 0.0 ? sxq / sqq : 0.0;
    }
    if (!(ns > 0.0)) break;
    const double e = error(float(ns), float(no));
    if (e >= best) break;
    best = e, s = float(ns), o = float(no);
  }
  *s_out = s;
  *o_out = o;
}

}  // namespace k100::quant::detail
