// k100lc emu/valu: the DCU's floating-point min/max/med3 rules on raw bits.
//
// min/max return the other operand when one is a quiet NaN; in IEEE mode a
// signalling NaN input is returned quieted instead. -0 orders below +0.
// med3 with any NaN input is min3 of the inputs; otherwise it is the middle
// value. One template serves f16 (low half of a 32-bit lane), f32 and f64.
#pragma once

#include <cstdint>

#include "float_bits.h"

namespace k100::emu::valu {

struct F16Bits {
  using U = uint32_t;
  static constexpr U kSign = 0x8000u, kQuiet = 0x0200u;
  static bool nan(U x) { return is_nan_f16(x); }
  static bool snan(U x) { return is_snan_f16(x); }
  static float val(U x) { return f16_to_f32(x); }
};
struct F32Bits {
  using U = uint32_t;
  static constexpr U kSign = kF32Sign, kQuiet = 0x00400000u;
  static bool nan(U x) { return is_nan_f32(x); }
  static bool snan(U x) { return is_snan_f32(x); }
  static float val(U x) { return as_f32(x); }
};
struct F64Bits {
  using U = uint64_t;
  static constexpr U kSign = kF64Sign, kQuiet = 0x0008000000000000ull;
  static bool nan(U x) { return is_nan_f64(x); }
  static bool snan(U x) { return is_snan_f64(x); }
  static double val(U x) { return as_f64(x); }
};

template <class T>
inline typename T::U fmin_bits(typename T::U a, typename T::U b, bool ieee) {
  if (ieee && T::snan(a)) return a | T::kQuiet;
  if (ieee && T::snan(b)) return b | T::kQuiet;
  if (T::nan(a)) return b;
  if (T::nan(b)) return a;
  auto x = T::val(a), y = T::val(b);
  if (x < y) return a;
  if (y < x) return b;
  return (a & T::kSign) ? a : b;
}

template <class T>
inline typename T::U fmax_bits(typename T::U a, typename T::U b, bool ieee) {
  if (ieee && T::snan(a)) return a | T::kQuiet;
  if (ieee && T::snan(b)) return b | T::kQuiet;
  if (T::nan(a)) return b;
  if (T::nan(b)) return a;
  auto x = T::val(a), y = T::val(b);
  if (x > y) return a;
  if (y > x) return b;
  return (a & T::kSign) ? b : a;
}

template <class T>
inline typename T::U fmin3_bits(typename T::U a, typename T::U b, typename T::U c, bool ieee) {
  return fmin_bits<T>(fmin_bits<T>(a, b, ieee), c, ieee);
}
template <class T>
inline typename T::U fmax3_bits(typename T::U a, typename T::U b, typename T::U c, bool ieee) {
  return fmax_bits<T>(fmax_bits<T>(a, b, ieee), c, ieee);
}
template <class T>
inline typename T::U fmed3_bits(typename T::U a, typename T::U b, typename T::U c, bool ieee) {
  if (T::nan(a) || T::nan(b) || T::nan(c)) return fmin3_bits<T>(a, b, c, ieee);
  typename T::U m = fmax3_bits<T>(a, b, c, ieee);
  if (m == a) return fmax_bits<T>(b, c, ieee);
  if (m == b) return fmax_bits<T>(a, c, ieee);
  return fmax_bits<T>(a, b, ieee);
}

}  // namespace k100::emu::valu
