// Read-modify-write operations shared by scalar, vector memory and LDS atomics.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace k100::emu::detail {

enum class AtomicOp : uint8_t {
  Swap, Cmpswap, Add, Sub, Rsub, Smin, Umin, Smax, Umax, And, Or, Xor, Inc, Dec,
  Mskor, Fadd, Fmin, Fmax, Fcmpswap, Wrap,
};

// Parses the operation part of a mnemonic ("add", "smin", "cmpswap", "min_f32"...).
bool parse_atomic_op(std::string_view name, AtomicOp* op);

inline float as_f32(uint32_t v) { float f; std::memcpy(&f, &v, 4); return f; }
inline uint32_t f32_bits(float f) { uint32_t v; std::memcpy(&v, &f, 4); return v; }
inline double as_f64(uint64_t v) { double f; std::memcpy(&f, &v, 8); return f; }
inline uint64_t f64_bits(double f) { uint64_t v; std::memcpy(&v, &f, 8); return v; }

// The value stored by `op` given the old memory value, the data operand and
// (for compare/mask/wrap forms) the second operand. Values are zero-extended
// to 64 bits; `wide` selects 64-bit arithmetic.
inline uint64_t atomic_apply(AtomicOp op, uint64_t old, uint64_t data, uint64_t data2, bool wide) {
  uint64_t mask = wide ? ~uint64_t(0) : 0xffffffffull;
  auto sext = [&](uint64_t v) { return wide ? int64_t(v) : int64_t(int32_t(uint32_t(v))); };
  auto fval = [&](uint64_t v) { return wide ? as_f64(v) : double(as_f32(uint32_t(v))); };
  auto fbits = [&](double d) { return wide ? f64_bits(d) : uint64_t(f32_bits(float(d))); };
  switch (op) {
    case AtomicOp::Swap: return data;
    case AtomicOp::Cmpswap: return old == data2 ? data : old;  // data = new value, data2 = compare
    case AtomicOp::Add: return (old + data) & mask;
    case AtomicOp::Sub: return (old - data) & mask;
    case AtomicOp::Rsub: return (data - old) & mask;
    case AtomicOp::Smin: return sext(data) < sext(old) ? data : old;
    case AtomicOp::Umin: return data < old ? data : old;
    case AtomicOp::Smax: return sext(data) > sext(old) ? data : old;
    case AtomicOp::Umax: return data > old ? data : old;
    case AtomicOp::And: return old & data;
    case AtomicOp::Or: return old | data;
    case AtomicOp::Xor: return old ^ data;
    case AtomicOp::Inc: return old >= data ? 0 : old + 1;
    case AtomicOp::Dec: return (old == 0 || old > data) ? data : old - 1;
    case AtomicOp::Mskor: return (old & ~data) | data2;
    case AtomicOp::Fadd:
      return wide ? f64_bits(as_f64(old) + as_f64(data))
                  : uint64_t(f32_bits(as_f32(uint32_t(old)) + as_f32(uint32_t(data))));
    case AtomicOp::Fmin: {
      double a = fval(old), b = fval(data);
      if (std::isnan(a)) return data;
      if (std::isnan(b)) return old;
      return b < a ? data : old;
    }
    case AtomicOp::Fmax: {
      double a = fval(old), b = fval(data);
      if (std::isnan(a)) return data;
      if (std::isnan(b)) return old;
      return b > a ? data : old;
    }
    case AtomicOp::Fcmpswap: return fval(old) == fval(data2) ? data : old;
    case AtomicOp::Wrap: return old >= data ? old - data : (old + data2) & mask;
  }
  (void)fbits;
  return old;
}

}  // namespace k100::emu::detail
