// What the selection kernels (argmax_*, topk_k, router_top10_k) share in
// their tests: the order they define on floats (NaN ranks as -inf) and
// inputs with ties, -inf and NaN.
#pragma once

#include <cmath>
#include <vector>

#include "k100/kernels/test_support.h"

namespace k100::kernels::selection {

inline float finite_or_neg_inf(float v) { return std::isnan(v) ? -INFINITY : v; }

// Inputs with ties, -inf and NaN: "kind" 0 = N(0, 1); 1 = values rounded to
// tenths (many ties); 2 = like 1 with -inf and NaN entries; 3 = all -inf.
inline std::vector<float> selection_inputs(size_t n, uint32_t seed, int64_t kind) {
  Rng rng(seed);
  auto x = rng.normal(n);
  if (kind >= 1)
    for (auto& v : x) v = std::round(v * 10.f) / 10.f;
  if (kind == 2)
    for (size_t i = 0; i < n; ++i) {
      if (i % 5 == 3) x[i] = -INFINITY;
      if (i % 11 == 7) x[i] = NAN;
    }
  if (kind == 3)
    for (auto& v : x) v = -INFINITY;
  return x;
}

}  // namespace k100::kernels::selection
