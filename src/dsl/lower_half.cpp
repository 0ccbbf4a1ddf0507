// f16 and bf16 values (DSL.md "Half-precision values"). f16 `+ - *`, fma,
// min, max, negation and comparisons use the f16 instructions (one rounding
// to nearest even); f16 `/`, the float built-ins and all bf16 arithmetic
// compute in f32 and round back to nearest even (bf16 min, max and
// comparisons are exact so). Conversions go through f32: widening is exact,
// narrowing rounds to nearest even (a NaN stays a quiet NaN), and an integer
// becomes f32 first (exact below 2^24).
#include <bit>
#include <cmath>

#include "k100/codegen/conversion.h"
#include "lower.h"
#include "lowering_error.h"

namespace k100::dsl {

namespace {

bool is_half(Scalar s) { return s == Scalar::F16 || s == Scalar::BF16; }

float half_value(uint32_t bits) {  // an f16 constant's value (exact)
  const int e = int(bits >> 10) & 31, m = int(bits & 1023);
  const float sign = (bits & 0x8000) ? -1.0f : 1.0f;
  if (e == 0) return sign * std::ldexp(float(m), -24);
  if (e == 31) return m ? NAN : sign * INFINITY;
  return sign * std::ldexp(float(m + 1024), e - 25);
}

}  // namespace

VGPR Lowerer::widen(int id, Scalar from) {
  const Reg& src = values_[size_t(id)];
  if (from == Scalar::F32) return vec(id);
  VGPR r = k_.vgpr(1, "f32");
  if (from == Scalar::F16) {
    codegen::f16_to_f32(k_, r, vec(id));
  } else if (from == Scalar::BF16) {
    codegen::bf16_to_f32(k_, r, vec(id));
  } else if (src.constant) {
    k_.v_mov_b32(r, std::bit_cast<uint32_t>(is_signed(from) ? float(int32_t(*src.constant)) : float(*src.constant)));
  } else {
    Operand x = src.vector ? Operand(src.v) : Operand(src.s);
    is_signed(from) ? k_.v_cvt_f32_i32(r, x) : k_.v_cvt_f32_u32(r, x);
  }
  return r;
}

VGPR Lowerer::narrow(VGPR x, Scalar to) {
  if (to == Scalar::F32) return x;
  VGPR r = k_.vgpr(1, scalar_name(to));
  to == Scalar::F16 ? codegen::f32_to_f16(k_, r, x) : codegen::f32_to_bf16(k_, r, x);
  return r;
}

VGPR Lowerer::float_math(BuiltinId id, VGPR x) {
  VGPR r = k_.vgpr(1, "float math");
  switch (id) {
    case BuiltinId::Exp: {
      VGPR t = k_.vgpr(1, "exp argument");
      k_.v_mul_f32(t, std::bit_cast<uint32_t>(codegen::kLog2E), x);
      k_.v_exp_f32(r, t);
      break;
    }
    case BuiltinId::Sqrt: k_.v_sqrt_f32(r, x); break;
    case BuiltinId::Rsqrt: k_.v_rsq_f32(r, x); break;
    case BuiltinId::Floor: k_.v_floor_f32(r, x); break;
    case BuiltinId::Ceil: k_.v_ceil_f32(r, x); break;
    case BuiltinId::Trunc: k_.v_trunc_f32(r, x); break;
    case BuiltinId::Rint: k_.v_rndne_f32(r, x); break;
    case BuiltinId::Fabs: k_.v_and_b32(r, 0x7fffffffu, x); break;
    case BuiltinId::Fract: {  // x - floor(x) (DSL.md §5)
      VGPR f = k_.vgpr(1, "floor");
      k_.v_floor_f32(f, x);
      k_.v_sub_f32(r, x, f);
      break;
    }
    default: throw LoweringError{SourceLoc{}, "this float built-in (internal)"};
  }
  return r;
}

VGPR Lowerer::float_divide(VGPR a, int b, Scalar type) {
  VGPR q = k_.vgpr(1, "quotient"), inv = k_.vgpr(1, "reciprocal");
  const Reg& rb = values_[size_t(b)];
  if (rb.constant) {  // a literal divisor: the product with its reciprocal
    const float d = type == Scalar::F16    ? half_value(*rb.constant)
                    : type == Scalar::BF16 ? std::bit_cast<float>(*rb.constant << 16)
                                           : std::bit_cast<float>(*rb.constant);
    k_.v_mov_b32(inv, std::bit_cast<uint32_t>(1.0f / d));
  } else {
    k_.v_rcp_f32(inv, widen(b, type));
  }
  k_.v_mul_f32(q, a, inv);
  return q;
}

Lowerer::Reg Lowerer::half_binary(const ir::Value& v) {
  const int a = v.args[0], b = v.args[1];
  Reg r;
  r.vector = true;
  if (v.aop == Op::Div || v.type == Scalar::BF16) {  // in f32, rounded back
    VGPR x = widen(a, v.type);
    if (v.aop == Op::Div) {
      r.v = narrow(float_divide(x, b, v.type), v.type);
      return r;
    }
    VGPR y = widen(b, v.type), q = k_.vgpr(1, "f32");
    switch (v.aop) {
      case Op::Add: k_.v_add_f32(q, x, y); break;
      case Op::Sub: k_.v_sub_f32(q, x, y); break;
      case Op::Mul: k_.v_mul_f32(q, x, y); break;
      default: throw LoweringError{v.loc, std::string("'") + op_spelling(v.aop) + "' on bf16 values"};
    }
    r.v = narrow(q, v.type);
    return r;
  }
  r = new_vreg("f16");
  switch (v.aop) {
    case Op::Add: k_.v_add_f16(r.v, vec(a), vec(b)); break;
    case Op::Sub: k_.v_sub_f16(r.v, vec(a), vec(b)); break;
    case Op::Mul: k_.v_mul_f16(r.v, vec(a), vec(b)); break;
    default: throw LoweringError{v.loc, std::string("'") + op_spelling(v.aop) + "' on f16 values"};
  }
  return r;
}

Lowerer::Reg Lowerer::bf16_call(const ir::Value& v) {
  Reg r;
  r.vector = true;
  VGPR x = widen(v.args[0], Scalar::BF16), y = widen(v.args[1], Scalar::BF16), q = k_.vgpr(1, "f32");
  if (v.builtin == BuiltinId::Fma)
    k_.v_fma_f32(q, x, y, widen(v.args[2], Scalar::BF16));
  else
    v.builtin == BuiltinId::Min ? k_.v_min_f32(q, x, y) : k_.v_max_f32(q, x, y);
  r.v = narrow(q, Scalar::BF16);
  return r;
}

Lowerer::Reg Lowerer::convert_float(const ir::Value& v, int arg, Scalar from) {
  const Scalar to = v.type;
  Reg r;
  r.vector = true;
  if (from == to) return values_[size_t(arg)];
  if (is_int(to)) {  // float → integer: truncating, through f32 (exact for f16/bf16)
    VGPR x = widen(arg, from);
    r.v = k_.vgpr(1, "int");
    to == Scalar::S32 ? k_.v_cvt_i32_f32(r.v, x) : k_.v_cvt_u32_f32(r.v, x);
    return r;
  }
  if (!is_half(to) && !is_half(from))
    throw LoweringError{v.loc, std::string("a conversion from ") + scalar_name(from) + " to " + scalar_name(to)};
  r.v = narrow(widen(arg, from), to);
  return r;
}

}  // namespace k100::dsl
