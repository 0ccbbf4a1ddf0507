#include "w4act/digit_split_reference.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "k100/base/error.h"

namespace k100::kernels::w4act {

DigitActivations quantize_digits(std::span<const float> x, int64_t rows, int64_t K, int64_t G, int64_t stride,
                                 int64_t offset) {
  if (G <= 0 || G % 8 || K % G)
    throw Error("int8 digit activations: K = " + std::to_string(K) + " is not a multiple of the group " +
                std::to_string(G) + " (a multiple of 8)");
  if (rows > 0 && uint64_t((rows - 1) * stride + offset + K) > x.size())
    throw Error("int8 digit activations: " + std::to_string(x.size()) + " values cannot hold " +
                std::to_string(rows) + " rows of " + std::to_string(K));
  DigitActivations a;
  const int64_t groups = K / G;
  a.qh.assign(size_t(rows * K / 8), 0);
  a.ql.assign(size_t(rows * K / 8), 0);
  a.sc.assign(size_t(rows * groups), 0.0f);
  a.sc16.assign(size_t(rows * groups), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x.data() + r * stride + offset;
    for (int64_t g = 0; g < groups; ++g) {
      float amax = 0.0f;
      for (int64_t c = g * G; c < (g + 1) * G; ++c) amax = std::max(amax, std::fabs(row[c]));
      const float s = amax == 0.0f ? 1.0f : amax / 119.0f;
      for (int64_t c = g * G; c < (g + 1) * G; ++c) {
        const int32_t q8 = int32_t(std::clamp(std::nearbyint(row[c] / s), -128.0f, 119.0f));
        const int32_t h = (q8 + 8) >> 4, l = q8 - 16 * h;  // floor division: l in [-8, 7]
        const size_t w = size_t((r * K + c) / 8);
        const int shift = int(c % 8) * 4;
        a.qh[w] |= (uint32_t(h) & 15u) << shift;
        a.ql[w] |= (uint32_t(l) & 15u) << shift;
      }
      a.sc[size_t(g * rows + r)] = s;
      a.sc16[size_t(g * rows + r)] = 16.0f * s;
    }
  }
  return a;
}

}  // namespace k100::kernels::w4act
