// u64 values: ballot masks and what the language computes from them (DSL.md
// "Types and operators": + - & | ^ ~ << >> == !=, u32 ↔ u64). A uniform one
// lives in an SGPR pair, a varying one (a mask combined with a per-lane u32)
// in a VGPR pair; word 0 is the low half. Shift counts are taken modulo 64,
// as the 64-bit shift instructions do.
#include "lower.h"
#include "lowering_error.h"

namespace k100::dsl {

using as::vcc;

Lowerer::Reg Lowerer::new_reg(bool vector, Scalar type, const char* name) {
  const int n = type == Scalar::U64 ? 2 : 1;
  Reg r;
  r.vector = vector;
  if (vector)
    r.v = k_.vgpr(n, name);
  else
    r.s = k_.sgpr(n, name);
  return r;
}

VGPR Lowerer::vec64(int id) {
  const Reg& r = values_[size_t(id)];
  if (r.vector) return r.v;
  VGPR v = k_.vgpr(2, "u64 operand");
  if (r.constant) {
    k_.v_mov_b32(v[0], *r.constant);
    k_.v_mov_b32(v[1], r.constant_hi);
  } else {
    k_.v_mov_b32(v[0], r.s[0]);
    k_.v_mov_b32(v[1], r.s[1]);
  }
  return v;
}

SGPR Lowerer::sreg64(int id) {
  const Reg& r = values_[size_t(id)];
  if (r.vector) throw LoweringError{val(id).loc, "a per-lane u64 where a uniform one is needed (internal)"};
  if (!r.constant) return r.s;
  SGPR s = k_.sgpr(2, "u64 operand");
  k_.s_mov_b32(s[0], *r.constant);
  k_.s_mov_b32(s[1], r.constant_hi);
  return s;
}

// The lanes, among those active here, where the condition holds. A mask
// from `not` or from a uniform condition also has inactive lanes set.
Lowerer::Reg Lowerer::ballot(const ir::Value& v) {
  Reg r = new_reg(false, Scalar::U64, "ballot");
  k_.s_and_b64(r.s, mask(v.args[0]), exec);
  if (v.varying) {  // the front end keeps a ballot uniform; a copy per lane if ever not
    Reg w = new_reg(true, Scalar::U64, "ballot");
    k_.v_mov_b32(w.v[0], r.s[0]);
    k_.v_mov_b32(w.v[1], r.s[1]);
    return w;
  }
  return r;
}

void Lowerer::copy_wide(const Reg& dst, int value) {
  if (dst.vector) {
    VGPR x = vec64(value);
    k_.v_mov_b32(dst.v[0], x[0]);
    k_.v_mov_b32(dst.v[1], x[1]);
  } else {
    k_.s_mov_b64(dst.s, sreg64(value));
  }
}

Lowerer::Reg Lowerer::wide_unary(const ir::Value& v) {
  Reg r = new_reg(v.varying, Scalar::U64, "u64");
  if (!v.varying) {
    SGPR x = sreg64(v.args[0]);
    if (v.aop == Op::Neg) {
      k_.s_sub_u32(r.s[0], 0, x[0]);
      k_.s_subb_u32(r.s[1], 0, x[1]);
    } else {
      k_.s_not_b64(r.s, x);
    }
    return r;
  }
  VGPR x = vec64(v.args[0]);
  if (v.aop == Op::Neg) {
    k_.v_sub_co_u32(r.v[0], vcc, 0, x[0]);
    k_.v_subb_co_u32(r.v[1], vcc, 0, x[1], vcc);
  } else {
    k_.v_not_b32(r.v[0], x[0]);
    k_.v_not_b32(r.v[1], x[1]);
  }
  return r;
}

Lowerer::Reg Lowerer::wide_binary(const ir::Value& v) {
  const int a = v.args[0], b = v.args[1];
  const bool shift = v.aop == Op::Shl || v.aop == Op::Shr;
  Reg r = new_reg(v.varying, Scalar::U64, "u64");
  if (!v.varying) {
    SGPR x = sreg64(a);
    if (shift) {
      v.aop == Op::Shl ? k_.s_lshl_b64(r.s, x, sop(b)) : k_.s_lshr_b64(r.s, x, sop(b));
      return r;
    }
    SGPR y = sreg64(b);
    switch (v.aop) {
      case Op::Add:
        k_.s_add_u32(r.s[0], x[0], y[0]);
        k_.s_addc_u32(r.s[1], x[1], y[1]);
        break;
      case Op::Sub:
        k_.s_sub_u32(r.s[0], x[0], y[0]);
        k_.s_subb_u32(r.s[1], x[1], y[1]);
        break;
      case Op::BitAnd: k_.s_and_b64(r.s, x, y); break;
      case Op::BitOr: k_.s_or_b64(r.s, x, y); break;
      case Op::BitXor: k_.s_xor_b64(r.s, x, y); break;
      default: throw LoweringError{v.loc, std::string("'") + op_spelling(v.aop) + "' on u64 values"};
    }
    return r;
  }
  VGPR x = vec64(a);
  if (shift) {  // the count is the first operand of the *rev forms
    VGPR n = vec(b);
    v.aop == Op::Shl ? k_.v_lshlrev_b64(r.v, n, x) : k_.v_lshrrev_b64(r.v, n, x);
    return r;
  }
  VGPR y = vec64(b);
  switch (v.aop) {
    case Op::Add:
      k_.v_add_co_u32(r.v[0], vcc, x[0], y[0]);
      k_.v_addc_co_u32(r.v[1], vcc, x[1], y[1], vcc);
      break;
    case Op::Sub:
      k_.v_sub_co_u32(r.v[0], vcc, x[0], y[0]);
      k_.v_subb_co_u32(r.v[1], vcc, x[1], y[1], vcc);
      break;
    case Op::BitAnd:
    case Op::BitOr:
    case Op::BitXor: {
      const char* m = v.aop == Op::BitAnd ? "v_and_b32" : v.aop == Op::BitOr ? "v_or_b32" : "v_xor_b32";
      k_.emit(m, {r.v[0], x[0], y[0]});
      k_.emit(m, {r.v[1], x[1], y[1]});
      break;
    }
    default: throw LoweringError{v.loc, std::string("'") + op_spelling(v.aop) + "' on u64 values"};
  }
  return r;
}

Lowerer::Reg Lowerer::wide_compare(const ir::Value& v) {
  if (v.aop != Op::Eq && v.aop != Op::Ne) throw LoweringError{v.loc, "ordering u64 values"};
  const bool eq = v.aop == Op::Eq;
  if (!v.varying) {
    Reg r = new_sreg("bool");
    eq ? k_.s_cmp_eq_u64(sreg64(v.args[0]), sreg64(v.args[1]))
       : k_.s_cmp_lg_u64(sreg64(v.args[0]), sreg64(v.args[1]));
    k_.s_cselect_b32(r.s, 1, 0);
    return r;
  }
  Reg r;
  r.s = k_.sgpr(2, "lanes");
  eq ? k_.v_cmp_eq_u64(r.s, vec64(v.args[0]), vec64(v.args[1]))
     : k_.v_cmp_ne_u64(r.s, vec64(v.args[0]), vec64(v.args[1]));
  return r;
}

Lowerer::Reg Lowerer::wide_convert(const ir::Value& v, int arg, Scalar from) {
  const Reg& src = values_[size_t(arg)];
  if (from == Scalar::U64 && v.type == Scalar::U64) return src;
  if (from == Scalar::U64) {  // to u32: the low word
    if (!is_int(v.type)) throw LoweringError{v.loc, std::string("a conversion from u64 to ") + scalar_name(v.type)};
    Reg r;
    if (src.constant) {
      r.constant = *src.constant;
    } else if (src.vector) {
      r.vector = true;
      r.v = src.v[0];
    } else {
      r.s = src.s[0];
    }
    return r;
  }
  if (from != Scalar::U32 && from != Scalar::S32)  // u32 zero-extends (typing.h); s32 the same bits
    throw LoweringError{v.loc, std::string("a conversion from ") + scalar_name(from) + " to u64"};
  Reg r;
  if (src.constant) {
    r.constant = *src.constant;
    return r;
  }
  r = new_reg(v.varying, Scalar::U64, "u64");
  if (r.vector) {
    k_.v_mov_b32(r.v[0], vec(arg));
    k_.v_mov_b32(r.v[1], 0);
  } else {
    k_.s_mov_b32(r.s[0], sop(arg));
    k_.s_mov_b32(r.s[1], 0);
  }
  return r;
}

Lowerer::Reg Lowerer::wide_select(const ir::Value& v) {
  Reg r = new_reg(v.varying, Scalar::U64, "select");
  if (v.varying) {
    SGPR m = mask(v.args[0]);
    VGPR t = vec64(v.args[1]), f = vec64(v.args[2]);
    k_.v_cndmask_b32(r.v[0], f[0], t[0], m);
    k_.v_cndmask_b32(r.v[1], f[1], t[1], m);
  } else {
    SGPR t = sreg64(v.args[1]), f = sreg64(v.args[2]);
    scc_from(v.args[0]);
    k_.s_cselect_b64(r.s, t, f);
  }
  return r;
}

}  // namespace k100::dsl
