// k100lc quant: the activation quantisers of the W4 paths and the reference
// GEMVs over quantised activations (FORMATS.md 4 and 5.2-5.3).
//
//   QuantizedActivations a = quantize_activations(kActW4A8, x, m, k);
//   std::vector<float> y = gemv_quantized_reference(weights, a);   // [m][n]
//
// The quantisers are the host references the device quantisers are compared
// with bit for bit (codes, scale bits, group sums); gemv_quantized_reference
// is what a W4A8, W4A4 or NVFP4-activation GEMV (and the W4A4 GEMM) computes:
// per activation group an exact dot of weight codes and activation codes,
// times the weight scale and the activation scale.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "k100/quant/w4_formats.h"

namespace k100::quant {

struct QuantizedActivations {
  const ActivationFormat* format = &kActW4A8;
  int64_t m = 0, k = 0;
  std::vector<int8_t> even, odd;   // Int8EvenOdd: q at even k / odd k, [m][k/2] each
  std::vector<uint8_t> packed;     // Int4Packed: [m][k/2] bytes, even k in the low nibble
  std::vector<float> scale;        // [m][k/group] (RowMajor) or [k/group][m] (GroupMajor)
  std::vector<int32_t> sum;        // group_sums: [m][k/group]

  int64_t groups_per_row() const { return k / int64_t(format->group); }
  int32_t code(int64_t row, int64_t col) const;
  float group_scale(int64_t row, int64_t g) const;
};

// Quantises rows r < m of x, row r read at x[r * stride + offset + c] for
// c < k (stride 0: k, packed rows). k100::Error when k is not a multiple of
// the format's group (and of 2) or x is too short.
QuantizedActivations quantize_activations(const ActivationFormat& f, std::span<const float> x, int64_t m, int64_t k,
                                          int64_t stride = 0, int64_t offset = 0);

// y[r][n] = sum over activation groups g of
//   wscale(n, g) * ascale(r, g) * sum_{k in g} value(w code) * q(r, k)   (/ w.global)
// with the inner sum exact, the rest in double, rounded once to f32.
// The weight's group must be a multiple of the activation group (W4A4
// decode: a 128-weight scale spans four 32-wide activation groups).
// k100::Error naming both for mismatched shapes or groups.
std::vector<float> gemv_quantized_reference(const W4Matrix& w, const QuantizedActivations& a);

}  // namespace k100::quant
