// Host reference of quant_rows_a8_k (KERNELS.md 3.2, 4.4): 8-bit activation
// codes written as two int4 digits for the W4A4 GEMM, from the formula:
//
//   per row r, group g of G k:  s = max|x| / 119 (1.0 if 0)
//   q8 = clamp(rint(x / s), -128, 119) = 16 h + l,  h, l in [-8, 7]
//   qh, ql: u32 [rows][K/8], nibble j of word w = digit of k = 8 w + j
//   sc[g * rows + r] = s, sc16[g * rows + r] = 16 s   (group-major)
//
// Row r reads x[r * stride + offset + k]. Running the GEMM on (qh, sc16) and
// on (ql, sc) and adding gives the W4A8 product.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace k100::kernels::w4act {

struct DigitActivations {
  std::vector<uint32_t> qh, ql;
  std::vector<float> sc, sc16;
};

// k100::Error when K is not a multiple of G (and of 8) or x is too short.
DigitActivations quantize_digits(std::span<const float> x, int64_t rows, int64_t K, int64_t G, int64_t stride,
                                 int64_t offset);

}  // namespace k100::kernels::w4act
