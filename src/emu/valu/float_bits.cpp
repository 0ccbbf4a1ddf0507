// Software rounding of exact double values to f16.
#include "float_bits.h"

#include <bit>

namespace k100::emu::valu {

uint16_t f16_from_f64(double x, int rm, bool flush) {
  uint64_t b = bits_of(x);
  uint16_t sign = uint16_t((b >> 48) & 0x8000u);
  uint32_t e = uint32_t((b >> 52) & 0x7ff);
  uint64_t m = b & kF64Mant;
  if (e == 0x7ff) {
    if (m == 0) return uint16_t(sign | 0x7c00u);
    return uint16_t(sign | 0x7e00u | uint16_t((m >> 42) & 0x1ffu));
  }
  if (e == 0 && m == 0) return sign;
  int exp2;  // value = m * 2^exp2 with m an integer
  if (e == 0) {
    exp2 = -1074;
  } else {
    m |= 1ull << 52;
    exp2 = int(e) - 1075;
  }
  int top = 63 - std::countl_zero(m);  // value in [2^(exp2+top), 2^(exp2+top+1))
  int lg = exp2 + top;
  // Quantum of the result: 2^(lg-10) for normals, 2^-24 for denormals.
  int q = lg - 10 < -24 ? -24 : lg - 10;
  int sh = q - exp2;  // right shift of m that leaves the integer significand
  uint64_t r;
  bool inexact_up = false;
  if (sh <= 0) {
    r = m << -sh;  // exact (only happens for values with few significant bits)
  } else {
    if (sh >= 64) {
      // The value is far below half a quantum: only directed rounding moves it.
      r = 0;
      inexact_up = (rm == kRoundPlusInf && !sign) || (rm == kRoundMinusInf && sign);
    } else {
      r = m >> sh;
      uint64_t rem = m & ((1ull << sh) - 1);
      uint64_t half = 1ull << (sh - 1);
      if (rem) {
        switch (rm) {
          case kRoundNearestEven: inexact_up = rem > half || (rem == half && (r & 1)); break;
          case kRoundPlusInf: inexact_up = !sign; break;
          case kRoundMinusInf: inexact_up = sign; break;
          default: break;
        }
      }
    }
  }
  if (inexact_up) ++r;
  if (r >= 2048) {  // carried into the next binade
    r >>= 1;
    ++q;
  }
  if (r == 0) return sign;
  if (r < 1024) {  // denormal (q == -24)
    if (flush) return sign;
    return uint16_t(sign | r);
  }
  int biased = q + 25;  // exponent of the leading bit is q + 10; bias 15
  if (biased > 30) {
    bool to_inf = rm == kRoundNearestEven || (rm == kRoundPlusInf && !sign) || (rm == kRoundMinusInf && sign);
    return uint16_t(sign | (to_inf ? 0x7c00u : 0x7bffu));
  }
  return uint16_t(sign | uint16_t(biased << 10) | uint16_t(r - 1024));
}

}  // namespace k100::emu::valu
