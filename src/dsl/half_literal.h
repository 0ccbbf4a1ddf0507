// k100lc dsl: f16 and bf16 constants at compile time. A literal in f16 or
// bf16 context (an integer converted by value) takes the nearest value of
// that type, ties to even, as the conversion at run time would; folding it
// further (into f32) then starts from the rounded value.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace k100::dsl {

// The nearest value of a float format with `digits` significant bits and
// `min_exp` the exponent of its smallest normal (subnormals below), ties to
// even; the format's overflow threshold is the caller's.
inline double round_to_digits(double v, int digits, int min_exp) {
  if (!std::isfinite(v) || v == 0) return v;
  int e = 0;
  std::frexp(std::fabs(v), &e);
  const int lead = std::max(e - 1, min_exp);  // exponent of the leading bit
  return std::ldexp(std::rint(std::ldexp(v, digits - 1 - lead)), lead - (digits - 1));  // rint: ties to even
}

// f16 bits of the nearest f16 (65520 and above: infinity).
inline uint16_t f16_bits(double v) {
  if (std::isnan(v)) return 0x7e00;
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(round_to_digits(v, 11, -14));
  if (a >= 65520.0) return uint16_t(sign | 0x7c00);
  if (a < std::ldexp(1.0, -14)) return uint16_t(sign | uint16_t(std::ldexp(a, 24)));  // subnormal
  int e = 0;
  const double m = std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
  return uint16_t(sign | ((e - 1 + 15) << 10) | (uint16_t(std::ldexp(m, 11)) - 1024));
}

// bf16 bits of the nearest bf16 (the high half of an f32 of 8 significant bits).
inline uint16_t bf16_bits(double v) {
  if (std::isnan(v)) return 0x7fc0;
  const float f = float(round_to_digits(v, 8, -126));  // exact in f32, or beyond its range: infinity
  return uint16_t(std::bit_cast<uint32_t>(f) >> 16);
}

}  // namespace k100::dsl
