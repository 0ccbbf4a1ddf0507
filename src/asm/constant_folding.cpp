// How llvm folds a constant written in the source into an operand: an inline
// constant code when the value is one, a 32-bit literal otherwise. The rules
// depend on the operand's type (see isa::OpType) and were checked against
// llvm-mc-14 for gfx906 by the assembler's differential tests.
#include <cmath>
#include <cstring>

#include "instruction_parser.h"

namespace k100::as {

using isa::Operand;
using isa::OpType;
namespace code = isa::code;

namespace {

uint32_t f32_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

uint64_t f64_bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// IEEE binary16 from double, round to nearest even.
uint16_t f16_bits(double d) {
  uint64_t b = f64_bits(d);
  uint16_t sign = uint16_t((b >> 48) & 0x8000);
  int exp = int((b >> 52) & 0x7ff);
  uint64_t mant = b & 0xfffffffffffffull;
  if (exp == 0x7ff) return uint16_t(sign | 0x7c00 | (mant ? 0x200 : 0));
  int e = exp - 1023 + 15;
  if (e >= 0x1f) return uint16_t(sign | 0x7c00);
  uint64_t full = mant | (1ull << 52);  // 53 significant bits
  int shift;
  uint16_t out_exp;
  if (e <= 0) {
    if (e < -10) return sign;
    shift = 42 + (1 - e);
    out_exp = 0;
  } else {
    shift = 42;
    out_exp = uint16_t(e);
  }
  uint64_t m = full >> shift;
  uint64_t rem = full & ((1ull << shift) - 1);
  uint64_t half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (m & 1))) ++m;
  uint32_t r;
  if (out_exp == 0) {
    r = uint32_t(m);  // may round up into the smallest normal: still correct
  } else {
    if (m >= (1ull << 11)) {
      m >>= 1;
      ++out_exp;
      if (out_exp >= 0x1f) return uint16_t(sign | 0x7c00);
    }
    r = uint32_t(out_exp) << 10 | uint32_t(m & 0x3ff);
  }
  return uint16_t(sign | r);
}

int inline_int_code(int64_t v) {
  if (v >= 0 && v <= 64) return int(code::kZero + v);
  if (v >= -16 && v < 0) return int(code::kIntPosLast - v);
  return -1;
}

int inline_f32_code(uint32_t bits) {
  for (uint16_t c = code::kFloatFirst; c <= code::kInvTwoPi; ++c)
    if (isa::inline_float_bits32(c) == bits) return c;
  return -1;
}

int inline_f16_code(uint16_t bits) {
  for (uint16_t c = code::kFloatFirst; c <= code::kInvTwoPi; ++c)
    if (isa::inline_float_bits16(c) == bits) return c;
  return -1;
}

int inline_f64_code(uint64_t bits) {
  for (uint16_t c = code::kFloatFirst; c <= code::kInvTwoPi; ++c)
    if (isa::inline_float_bits64(c) == bits) return c;
  return -1;
}

bool fits32(int64_t v) { return v >= -2147483648LL && v <= 4294967295LL; }
bool fits16(int64_t v) { return v >= -32768 && v <= 65535; }

// Inline code of a 16-bit pattern, integer or (when allowed) f16.
int inline16(uint16_t x, bool fp) {
  int c = inline_int_code(int16_t(x));
  if (c >= 0) return c;
  return fp ? inline_f16_code(x) : -1;
}

void set(Operand& o, int inline_code) { o = Operand::reg(uint16_t(inline_code)); }

}  // namespace

bool constant_operand(const ConstantValue& v, OpType type, bool vop3, Operand& out) {
  if (!v.is_float) {
    int64_t i = v.i;
    int ic = inline_int_code(i);
    switch (type) {
      case OpType::B32: {
        if (ic >= 0) return set(out, ic), true;
        if (!fits32(i)) return false;
        uint32_t bits = uint32_t(i);
        if (int c = inline_int_code(int32_t(bits)); c >= 0) return set(out, c), true;
        if (int fc = inline_f32_code(bits); fc >= 0) return set(out, fc), true;
        out = Operand::literal(bits);
        return true;
      }
      case OpType::F16: {
        if (ic >= 0) return set(out, ic), true;
        if (!fits16(i)) return false;
        uint16_t b = uint16_t(i);
        if (int c = inline16(b, true); c >= 0) return set(out, c), true;
        out = Operand::literal(b);
        return true;
      }
      case OpType::I16: {
        if (ic >= 0) return set(out, ic), true;
        if (!fits16(i)) return false;
        uint16_t b = uint16_t(i);
        if (!vop3) {
          if (int c = inline16(b, false); c >= 0) return set(out, c), true;
        }
        // llvm's parser takes a pattern of an f16 inline constant (0xc400 =
        // -4.0) as inline and keeps the value unchanged; the encoder, which
        // has no float constants for integer operands, writes it as a literal
        // of the value's low 32 bits (-0x3c00 -> 0xffffc400)
        if (inline_f16_code(b) >= 0) {
          out = Operand::literal(uint32_t(i));
          return true;
        }
        out = Operand::literal(b);
        return true;
      }
      case OpType::F64:
      case OpType::B64: {
        if (ic >= 0) return set(out, ic), true;
        if (int fc = inline_f64_code(uint64_t(i)); fc >= 0) return set(out, fc), true;
        if (!fits32(i)) return false;
        out = Operand::literal(uint32_t(i));
        return true;
      }
      case OpType::V2F16:
      case OpType::V2I16: {
        bool fp = type == OpType::V2F16;
        if (ic >= 0) return set(out, ic), true;
        if (!fits32(i)) return false;
        uint16_t lo = uint16_t(i), hi = uint16_t(uint64_t(i) >> 16);
        int cl = inline16(lo, fp), ch = inline16(hi, fp);
        if (cl >= 0 && ch >= 0 && (lo == hi || lo == 0 || hi == 0)) return set(out, cl), true;
        out = Operand::literal(uint32_t(i));
        return true;
      }
      default:
        return false;
    }
  }
  double f = v.f;
  switch (type) {
    case OpType::B32: {
      if (!std::isfinite(f) || std::fabs(f) > 3.4028234663852886e38) return false;
      uint32_t bits = f32_bits(float(f));
      if (bits == 0) return set(out, code::kZero), true;
      if (int fc = inline_f32_code(bits); fc >= 0) return set(out, fc), true;
      out = Operand::literal(bits);
      return true;
    }
    case OpType::F16:
    case OpType::V2F16: {
      if (!std::isfinite(f) || std::fabs(f) > 65504.0) return false;
      uint16_t b = f16_bits(f);
      if (b == 0) return set(out, code::kZero), true;
      if (int c = inline_f16_code(b); c >= 0) return set(out, c), true;
      out = Operand::literal(b);
      return true;
    }
    case OpType::I16:
    case OpType::V2I16: {
      if (!std::isfinite(f) || std::fabs(f) > 65504.0) return false;
      out = Operand::literal(f16_bits(f));
      return true;
    }
    case OpType::F64: {
      uint64_t bits = f64_bits(f);
      if (bits == 0) return set(out, code::kZero), true;
      if (int fc = inline_f64_code(bits); fc >= 0) return set(out, fc), true;
      out = Operand::literal(uint32_t(bits >> 32));
      return true;
    }
    case OpType::B64: {
      uint64_t bits = f64_bits(f);
      if (bits == 0) return set(out, code::kZero), true;
      if (int fc = inline_f64_code(bits); fc >= 0) return set(out, fc), true;
      return false;
    }
    default:
      return false;
  }
}

}  // namespace k100::as
