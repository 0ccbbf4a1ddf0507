// Inputs the codec tests share: random blocks with finite scales, and
// weight-like real-valued rows.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "k100/quant/block_scales.h"
#include "k100/quant/half.h"
#include "k100/quant/tensor_type.h"

namespace k100::test {

// `blocks` blocks of random bytes. With `finite_scales`, every block-wide
// scale (quant/block_scales.h) is a random finite value of moderate size (so the bit-exact
// comparison is not about NaN payloads); without, scales stay random bits.
inline std::vector<uint8_t> random_blocks(quant::TensorType t, size_t blocks, uint32_t seed, bool finite_scales) {
  const auto& tr = quant::traits(t);
  std::mt19937 rng(seed);
  std::vector<uint8_t> b(blocks * tr.block_bytes);
  for (auto& x : b) x = uint8_t(rng());
  if (finite_scales) {
    std::normal_distribution<float> scale(0.0f, 0.05f);
    const int fields = quant::block_scale_count(t);
    for (size_t i = 0; i < blocks; ++i) {
      const float d = scale(rng);
      const float dmin = fields > 1 ? scale(rng) : 0.0f;
      quant::set_block_scales(t, &b[i * tr.block_bytes], d, dmin);
    }
  }
  return b;
}

// rows x n values that look like trained weights: Gaussian with a per-row
// scale and a few outliers; with `special_rows` (and rows >= 6) rows 1..5 are
// all zero, constant, tiny (near the f16 scale's limit), large, and zero but
// for one spike.
inline std::vector<float> weight_like(size_t rows, size_t n, uint32_t seed, bool special_rows = true) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> x(rows * n);
  for (size_t r = 0; r < rows; ++r) {
    const float scale = 0.02f * (1.0f + 4.0f * u(rng));
    for (size_t i = 0; i < n; ++i) {
      float v = g(rng) * scale;
      if (u(rng) < 0.01f) v *= 8.0f;
      x[r * n + i] = v;
    }
  }
  if (special_rows && rows >= 6) {
    for (size_t i = 0; i < n; ++i) {
      x[1 * n + i] = 0.0f;
      x[2 * n + i] = 0.25f;
      x[3 * n + i] *= 1e-4f;
      x[4 * n + i] *= 3e3f;
      x[5 * n + i] = 0.0f;
    }
    x[5 * n + n / 3] = 40.0f;
  }
  return x;
}

}  // namespace k100::test
