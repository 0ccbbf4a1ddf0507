// k100lc emu/valu: bit-level floating-point helpers shared by the vector ALU.
//
// The VALU computes f32 and f64 with the host's IEEE arithmetic (the MODE
// register's rounding mode is installed around the lane loop, its denormal
// flushes are done on the bits) and f16 entirely in software: an f16 result
// is computed exactly (or rounded to odd) in double and then rounded to f16
// here with the wave's rounding mode and denormal mode. Everything in this
// header is branch-light so the per-lane loops stay vectorisable.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace k100::emu::valu {

// Rounding modes as encoded in MODE.fp_round (per type group).
enum Round : int { kRoundNearestEven = 0, kRoundPlusInf = 1, kRoundMinusInf = 2, kRoundZero = 3 };

inline float as_f32(uint32_t b) { return std::bit_cast<float>(b); }
inline uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
inline double as_f64(uint64_t b) { return std::bit_cast<double>(b); }
inline uint64_t bits_of(double d) { return std::bit_cast<uint64_t>(d); }

constexpr uint32_t kF32Sign = 0x80000000u, kF32Exp = 0x7f800000u, kF32Mant = 0x007fffffu;
constexpr uint64_t kF64Sign = 0x8000000000000000ull, kF64Exp = 0x7ff0000000000000ull,
                   kF64Mant = 0x000fffffffffffffull;
constexpr uint16_t kF16Sign = 0x8000, kF16Exp = 0x7c00, kF16Mant = 0x03ff;
constexpr uint32_t kF32QNaN = 0x7fc00000u;
constexpr uint64_t kF64QNaN = 0x7ff8000000000000ull;
constexpr uint16_t kF16QNaN = 0x7e00;

// Denormal flushes on the bits: a denormal becomes a zero of the same sign.
inline uint32_t flush_f32(uint32_t b) { return (b & kF32Exp) == 0 ? (b & kF32Sign) : b; }
inline uint64_t flush_f64(uint64_t b) { return (b & kF64Exp) == 0 ? (b & kF64Sign) : b; }
inline uint32_t flush_f16(uint32_t h) { return (h & kF16Exp) == 0 ? (h & kF16Sign) : h; }

inline bool is_nan_f32(uint32_t b) { return (b & 0x7fffffffu) > kF32Exp; }
inline bool is_nan_f64(uint64_t b) { return (b & ~kF64Sign) > kF64Exp; }
inline bool is_nan_f16(uint32_t h) { return (h & 0x7fffu) > kF16Exp; }
inline bool is_snan_f32(uint32_t b) { return is_nan_f32(b) && !(b & 0x00400000u); }
inline bool is_snan_f64(uint64_t b) { return is_nan_f64(b) && !(b & 0x0008000000000000ull); }
inline bool is_snan_f16(uint32_t h) { return is_nan_f16(h) && !(h & 0x0200u); }

// f16 -> f32 is exact: scale the f16 exponent/mantissa field into an f32
// and multiply by 2^112 (exact for normals and denormals alike).
inline float f16_to_f32(uint32_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t em = h & 0x7fffu;
  uint32_t r = bits_of(as_f32(em << 13) * 0x1p112f);
  if (em >= 0x7c00u) r = 0x7f800000u | (em << 13);
  return as_f32(sign | r);
}
inline double f16_to_f64(uint32_t h) { return double(f16_to_f32(h)); }

// Rounds the exact value `x` (a double) to f16 with rounding mode `rm`;
// denormal results become signed zeros when `flush`. NaNs keep their sign
// and the top of their payload and are quieted.
uint16_t f16_from_f64(double x, int rm, bool flush);

// f16_from_f64 for round-to-nearest-even without flushing, branch-free: the
// double is first rounded to odd in f32 (so the second rounding is correct),
// then rounded to f16 with the exponent-rebias trick.
inline uint32_t f16_from_f64_rne(double d) {
  float f = float(d);
  uint32_t b = bits_of(f);
  double back = double(f);
  uint32_t inexact = back != d;
  uint32_t too_big = std::fabs(back) > std::fabs(d);
  b -= inexact & too_big;  // truncate towards zero...
  b |= inexact;            // ...and make the last bit sticky
  uint32_t sign = (b >> 16) & 0x8000u;
  uint32_t a = b & 0x7fffffffu;
  uint32_t special = a > 0x7f800000u ? (0x7e00u | ((a >> 13) & 0x1ffu)) : 0x7c00u;
  uint32_t denorm = bits_of(as_f32(a) + 0.5f) - 0x3f000000u;  // the add rounds at 2^-24
  uint32_t normal = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
  uint32_t h = a >= 0x47800000u ? special : (a < 0x38800000u ? denorm : normal);
  return sign | h;
}

// Round-to-odd of the exact sum hi + lo (|lo| <= ulp(hi)/2, as TwoSum gives):
// the result rounds correctly to any narrower format (p <= 51) in any mode.
inline double round_to_odd(double hi, double lo) {
  if (lo == 0 || !std::isfinite(hi)) return hi;
  if (hi == 0) return lo;
  uint64_t b = bits_of(hi);
  if (b & 1) return hi;
  // hi is even: the odd neighbour towards the exact value is the truncation
  // (or its successor) that has the exact value strictly inside.
  bool toward_zero = (lo < 0) == (hi > 0);
  return as_f64(toward_zero ? b - 1 : b + 1);
}

// Error-free transforms.
inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}

// fma(a, b, c) for operands whose product is exact in double (f16 and f32
// inputs), rounded to odd so that narrowing to f32/f16 is correctly rounded.
inline double fma_to_odd(double a, double b, double c) {
  double p = a * b;  // exact: at most 48 significant bits
  double s, e;
  two_sum(p, c, s, e);
  if (!std::isfinite(s) || !std::isfinite(p)) return p + c;
  return round_to_odd(s, e);
}

// Lossless classification used by v_cmp_class_*: bit index of the class.
// 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal,
// 8 +normal, 9 +inf.
inline int class_f32(uint32_t b) {
  bool neg = b & kF32Sign;
  uint32_t e = b & kF32Exp, m = b & kF32Mant;
  if (e == kF32Exp) return m ? ((m & 0x00400000u) ? 1 : 0) : (neg ? 2 : 9);
  if (e == 0) return m ? (neg ? 4 : 7) : (neg ? 5 : 6);
  return neg ? 3 : 8;
}
inline int class_f64(uint64_t b) {
  bool neg = b & kF64Sign;
  uint64_t e = b & kF64Exp, m = b & kF64Mant;
  if (e == kF64Exp) return m ? ((m & 0x0008000000000000ull) ? 1 : 0) : (neg ? 2 : 9);
  if (e == 0) return m ? (neg ? 4 : 7) : (neg ? 5 : 6);
  return neg ? 3 : 8;
}
inline int class_f16(uint32_t h) {
  bool neg = h & kF16Sign;
  uint32_t e = h & kF16Exp, m = h & kF16Mant;
  if (e == kF16Exp) return m ? ((m & 0x200u) ? 1 : 0) : (neg ? 2 : 9);
  if (e == 0) return m ? (neg ? 4 : 7) : (neg ? 5 : 6);
  return neg ? 3 : 8;
}

// Unbiased exponent fields (the ISA's exponent() in the div_* pseudo-code).
inline int exp_field_f32(uint32_t b) { return int((b >> 23) & 0xff); }
inline int exp_field_f64(uint64_t b) { return int((b >> 52) & 0x7ff); }
inline int exp_field_f16(uint32_t h) { return int((h >> 10) & 0x1f); }

}  // namespace k100::emu::valu
