// k100lc quant: IEEE half (f16) and bfloat16 conversions used by the block
// codecs and the f16/bf16 tensor types.
//
// Widening is exact for every number (subnormals and infinities included);
// a NaN keeps its payload and becomes quiet. Narrowing rounds to nearest, ties to even; a NaN stays a quiet
// NaN with the top payload bits kept.
#pragma once

#include <bit>
#include <cstdint>

namespace k100::quant {

inline float f16_to_f32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    // infinity, or a NaN made quiet (as the f16 -> f32 instruction does)
    bits = sign | 0x7f800000u | (mant ? 0x400000u | (mant << 13) : 0u);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    // subnormal half: normalise the mantissa into an f32 normal
    int e = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    bits = sign | (uint32_t(e) << 23) | ((mant & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(bits);
}

inline uint16_t f32_to_f16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return uint16_t(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // NaN
  if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to >= 65520: infinity
  if (abs < 0x38800000u) {
    // result is subnormal or zero: value / 2^-24, rounded to nearest even
    if (abs < 0x33000000u) return sign;  // below half the smallest subnormal
    const uint32_t e = abs >> 23;
    const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14..24 for the exponents that reach here
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
    return uint16_t(sign | q);
  }
  // normal: drop 13 mantissa bits with round to nearest even (a carry may
  // move into the exponent, which is the correct result)
  const uint32_t rebias = abs - (112u << 23);
  const uint32_t q = rebias >> 13;
  const uint32_t rem = rebias & 0x1fffu;
  uint32_t r = q;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1))) ++r;
  return uint16_t(sign | r);
}

inline float bf16_to_f32(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

inline uint16_t f32_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // quiet NaN
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace k100::quant
