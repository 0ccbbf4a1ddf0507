// IR values → instructions: arithmetic, comparisons, conversions, the
// built-ins and memory. Varying operations take every operand in a VGPR
// (vec() copies a uniform value or a constant into one), so no instruction
// depends on which encodings accept a scalar or literal operand.
#include <bit>
#include <cmath>

#include "lower.h"
#include "lowering_error.h"

namespace k100::dsl {

using ir::Opcode;

Lowerer::Reg Lowerer::new_vreg(const char* name) {
  Reg r;
  r.vector = true;
  r.v = k_.vgpr(1, name);
  return r;
}

Lowerer::Reg Lowerer::new_sreg(const char* name) {
  Reg r;
  r.s = k_.sgpr(1, name);
  return r;
}

Lowerer::Reg Lowerer::as_value(VGPR x, bool varying) {
  Reg r;
  if (varying) {
    r.vector = true;
    r.v = x;
  } else {
    r.s = k_.sgpr(1, "wave value");
    k_.v_readfirstlane_b32(r.s, x);
  }
  return r;
}

VGPR Lowerer::vec(int id) {
  const Reg& r = values_[size_t(id)];
  if (r.vector) return r.v;
  VGPR v = k_.vgpr(1, "operand");
  if (r.constant)
    k_.v_mov_b32(v, *r.constant);
  else
    k_.v_mov_b32(v, r.s);
  return v;
}

Operand Lowerer::sop(int id) {
  const Reg& r = values_[size_t(id)];
  if (r.constant) return Operand(*r.constant);
  if (r.vector) throw LoweringError{val(id).loc, "a per-lane value where a uniform one is needed (internal)"};
  return r.s;
}

std::pair<Operand, Operand> Lowerer::sops(int a, int b) {
  // A scalar instruction takes one literal: with two constants the first
  // goes through an SGPR (the front end folds most such expressions).
  if (values_[size_t(a)].constant && values_[size_t(b)].constant) return {sreg(a), sop(b)};
  return {sop(a), sop(b)};
}

SGPR Lowerer::sreg(int id) {
  const Reg& r = values_[size_t(id)];
  if (!r.constant && !r.vector) return r.s;
  SGPR s = k_.sgpr(1, "operand");
  k_.s_mov_b32(s, sop(id));
  return s;
}

void Lowerer::scc_from(int id) {
  const Reg& r = values_[size_t(id)];
  if (r.constant)
    k_.s_cmp_lg_u32(*r.constant, 0);
  else
    k_.s_cmp_lg_u32(r.s, 0);
}

SGPR Lowerer::mask(int id) {
  if (val(id).varying) return values_[size_t(id)].s;
  SGPR m = k_.sgpr(2, "lanes");
  scc_from(id);
  k_.s_cselect_b64(m, -1, 0);
  return m;
}

namespace {

uint32_t f32_bits(float x) { return std::bit_cast<uint32_t>(x); }

const char* cmp_name(Op op) {
  switch (op) {
    case Op::Eq: return "eq";
    case Op::Ne: return "ne";
    case Op::Lt: return "lt";
    case Op::Le: return "le";
    case Op::Gt: return "gt";
    default: return "ge";
  }
}

}  // namespace

void Lowerer::compute(int id) {
  const ir::Value& v = val(id);
  Reg r;
  switch (v.op) {
    case Opcode::Const:
      r.constant = uint32_t(v.bits);
      r.constant_hi = uint32_t(v.bits >> 32);
      break;
    case Opcode::ReadVar: {
      if (v.type == Scalar::U64) {
        const Reg& var = vars_[size_t(v.var)];
        r = new_reg(var.vector || v.varying, Scalar::U64, "value");
        if (r.vector && !var.vector) {
          k_.v_mov_b32(r.v[0], var.s[0]);
          k_.v_mov_b32(r.v[1], var.s[1]);
        } else if (r.vector) {
          k_.v_mov_b32(r.v[0], var.v[0]);
          k_.v_mov_b32(r.v[1], var.v[1]);
        } else {
          k_.s_mov_b64(r.s, var.s);
        }
        break;
      }
      // A copy: the variable may be written again while this value is live.
      const Reg& var = vars_[size_t(v.var)];
      if (var.vector || v.varying) {
        r = new_vreg("value");
        if (var.vector)
          k_.v_mov_b32(r.v, var.v);
        else
          k_.v_mov_b32(r.v, var.s);
      } else {
        r = new_sreg("value");
        k_.s_mov_b32(r.s, var.s);
      }
      break;
    }
    case Opcode::Unary: r = unary(v); break;
    case Opcode::Binary: r = binary(v); break;
    case Opcode::Compare: r = compare(v); break;
    case Opcode::Convert: r = convert(v, v.args[0], v.operand); break;
    case Opcode::Select: {
      if (v.type == Scalar::U64) {
        r = wide_select(v);
        break;
      }
      if (v.type == Scalar::Bool) throw LoweringError{v.loc, "a conditional expression of comparisons"};
      if (v.varying) {
        r = new_vreg("select");
        SGPR m = mask(v.args[0]);
        k_.v_cndmask_b32(r.v, vec(v.args[2]), vec(v.args[1]), m);
      } else {
        r = new_sreg("select");
        auto [t, f] = sops(v.args[1], v.args[2]);
        scc_from(v.args[0]);
        k_.s_cselect_b32(r.s, t, f);
      }
      break;
    }
    case Opcode::Call: r = call(v); break;
    case Opcode::Load:
    case Opcode::Load16: r = load(v); break;
    case Opcode::Atomic: r = atomic(v); break;
  }
  values_[size_t(id)] = r;
}

Lowerer::Reg Lowerer::unary(const ir::Value& v) {
  const int a = v.args[0];
  Reg r;
  if (v.aop == Op::Not) {
    if (v.varying) {
      r.s = k_.sgpr(2, "not");
      k_.s_not_b64(r.s, mask(a));
    } else {
      r = new_sreg("not");
      k_.s_xor_b32(r.s, sop(a), 1);
    }
    return r;
  }
  if (v.type == Scalar::U64) return wide_unary(v);
  if (!v.varying) {
    r = new_sreg("unary");
    if (v.aop == Op::Neg)
      k_.s_sub_u32(r.s, 0, sop(a));
    else
      k_.s_not_b32(r.s, sop(a));
    return r;
  }
  r = new_vreg("unary");
  if (v.aop == Op::Neg && v.type == Scalar::F32)
    k_.v_xor_b32(r.v, 0x80000000u, vec(a));  // exact, -0.0 included
  else if (v.aop == Op::Neg && (v.type == Scalar::F16 || v.type == Scalar::BF16))
    k_.v_xor_b32(r.v, 0x8000u, vec(a));
  else if (v.aop == Op::Neg)
    k_.v_sub_u32(r.v, 0, vec(a));
  else
    k_.v_not_b32(r.v, vec(a));
  return r;
}

Lowerer::Reg Lowerer::binary(const ir::Value& v) {
  const int a = v.args[0], b = v.args[1];
  Reg r;
  if (v.aop == Op::And || v.aop == Op::Or) {
    if (v.varying) {
      r.s = k_.sgpr(2, "lanes");
      SGPR ma = mask(a), mb = mask(b);
      v.aop == Op::And ? k_.s_and_b64(r.s, ma, mb) : k_.s_or_b64(r.s, ma, mb);
    } else {
      r = new_sreg("bool");
      auto [x, y] = sops(a, b);
      v.aop == Op::And ? k_.s_and_b32(r.s, x, y) : k_.s_or_b32(r.s, x, y);
    }
    return r;
  }
  if (v.type == Scalar::U64) return wide_binary(v);
  if (v.type == Scalar::F16 || v.type == Scalar::BF16) return half_binary(v);
  if (v.aop == Op::Div || v.aop == Op::FloorDiv || v.aop == Op::Mod) {
    if (v.type != Scalar::F32) return division(v);
    if (v.aop == Op::Mod) throw LoweringError{v.loc, "'%' on f32 values"};
    r.vector = true;
    r.v = float_divide(vec(a), b, Scalar::F32);
    if (v.aop == Op::FloorDiv) k_.v_floor_f32(r.v, r.v);
    return r;
  }
  if (v.type == Scalar::F32) {
    r = new_vreg("f32");
    VGPR x = vec(a), y = vec(b);
    switch (v.aop) {
      case Op::Add: k_.v_add_f32(r.v, x, y); break;
      case Op::Sub: k_.v_sub_f32(r.v, x, y); break;
      case Op::Mul: k_.v_mul_f32(r.v, x, y); break;
      default: throw LoweringError{v.loc, std::string("'") + op_spelling(v.aop) + "' on f32 values"};
    }
    return r;
  }
  const bool sgn = v.type == Scalar::S32;
  if (!v.varying) {
    r = new_sreg("int");
    auto [x, y] = sops(a, b);
    switch (v.aop) {
      case Op::Add: k_.s_add_u32(r.s, x, y); break;
      case Op::Sub: k_.s_sub_u32(r.s, x, y); break;
      case Op::Mul: k_.s_mul_i32(r.s, x, y); break;
      case Op::BitAnd: k_.s_and_b32(r.s, x, y); break;
      case Op::BitOr: k_.s_or_b32(r.s, x, y); break;
      case Op::BitXor: k_.s_xor_b32(r.s, x, y); break;
      case Op::Shl: k_.s_lshl_b32(r.s, x, y); break;
      case Op::Shr: sgn ? k_.s_ashr_i32(r.s, x, y) : k_.s_lshr_b32(r.s, x, y); break;
      default: throw LoweringError{v.loc, std::string("'") + op_spelling(v.aop) + "' on integers"};
    }
    return r;
  }
  r = new_vreg("int");
  VGPR x = vec(a), y = vec(b);
  switch (v.aop) {
    case Op::Add: k_.v_add_u32(r.v, x, y); break;
    case Op::Sub: k_.v_sub_u32(r.v, x, y); break;
    case Op::Mul: k_.v_mul_lo_u32(r.v, x, y); break;
    case Op::BitAnd: k_.v_and_b32(r.v, x, y); break;
    case Op::BitOr: k_.v_or_b32(r.v, x, y); break;
    case Op::BitXor: k_.v_xor_b32(r.v, x, y); break;
    // the shift count is the first operand of the *rev forms
    case Op::Shl: k_.v_lshlrev_b32(r.v, y, x); break;
    case Op::Shr: sgn ? k_.v_ashrrev_i32(r.v, y, x) : k_.v_lshrrev_b32(r.v, y, x); break;
    default: throw LoweringError{v.loc, std::string("'") + op_spelling(v.aop) + "' on integers"};
  }
  return r;
}

Lowerer::Reg Lowerer::compare(const ir::Value& v) {
  const int a = v.args[0], b = v.args[1];
  const Scalar t = v.operand;
  if (t == Scalar::Bool) throw LoweringError{v.loc, "comparing two comparisons"};
  if (t == Scalar::U64) return wide_compare(v);
  Reg r;
  if (!v.varying) {
    if (is_float(t)) throw LoweringError{v.loc, "a uniform float comparison (internal)"};
    const bool sgn = t == Scalar::S32 && v.aop != Op::Eq && v.aop != Op::Ne;
    const std::string name =
        std::string("s_cmp_") + (v.aop == Op::Ne ? "lg" : cmp_name(v.aop)) + (sgn ? "_i32" : "_u32");
    auto [x, y] = sops(a, b);
    k_.emit(name, {x, y});
    r = new_sreg("bool");
    k_.s_cselect_b32(r.s, 1, 0);
    return r;
  }
  if (t == Scalar::BF16) {  // exact in f32
    r.s = k_.sgpr(2, "lanes");
    k_.emit(std::string("v_cmp_") + (v.aop == Op::Ne ? "neq" : cmp_name(v.aop)) + "_f32",
            {r.s, widen(a, t), widen(b, t)});
    return r;
  }
  std::string name = std::string("v_cmp_");
  if (t == Scalar::F32 || t == Scalar::F16)  // != is true for NaN, as in Python
    name += std::string(v.aop == Op::Ne ? "neq" : cmp_name(v.aop)) + (t == Scalar::F32 ? "_f32" : "_f16");
  else
    name += std::string(cmp_name(v.aop)) + (t == Scalar::S32 ? "_i32" : "_u32");
  r.s = k_.sgpr(2, "lanes");
  k_.emit(name, {r.s, vec(a), vec(b)});
  return r;
}

Lowerer::Reg Lowerer::convert(const ir::Value& v, int arg, Scalar from) {
  const Scalar to = v.type;
  const Reg& src = values_[size_t(arg)];
  Reg r;
  if (from == Scalar::Bool) {
    if (!val(arg).varying && is_int(to)) return src;  // 0 or 1 already
    r = new_vreg("bool value");
    const uint32_t one = to == Scalar::F32    ? f32_bits(1.0f)
                         : to == Scalar::F16  ? 0x3c00u
                         : to == Scalar::BF16 ? 0x3f80u
                                              : 1u;
    k_.v_cndmask_b32(r.v, 0, one, mask(arg));
    return r;
  }
  if (to == Scalar::U64 || from == Scalar::U64) return wide_convert(v, arg, from);
  if (is_int(from) && is_int(to)) return src;  // same bits
  if (from == Scalar::F16 || from == Scalar::BF16 || to == Scalar::F16 || to == Scalar::BF16)
    return convert_float(v, arg, from);
  if (is_int(from) && to == Scalar::F32) {
    const bool sgn = is_signed(from);
    if (src.constant) {
      r.constant = f32_bits(sgn ? float(int32_t(*src.constant)) : float(*src.constant));
      return r;
    }
    r = new_vreg("f32");
    Operand x = src.vector ? Operand(src.v) : Operand(src.s);
    sgn ? k_.v_cvt_f32_i32(r.v, x) : k_.v_cvt_f32_u32(r.v, x);
    return r;
  }
  if (from == Scalar::F32 && is_int(to)) {
    // u32(1.5) of a literal is a uniform integer: the converted lane goes to an SGPR.
    VGPR x = k_.vgpr(1, "int");
    to == Scalar::S32 ? k_.v_cvt_i32_f32(x, vec(arg)) : k_.v_cvt_u32_f32(x, vec(arg));
    return as_value(x, v.varying);
  }
  if (from == to) return src;
  throw LoweringError{v.loc, std::string("a conversion from ") + scalar_name(from) + " to " + scalar_name(to)};
}

SGPR Lowerer::group_size(int dim) {
  // Recomputed at each use (the layer loads the dword once, at entry): a
  // cached register defined inside a skipped branch would be undefined.
  const uint32_t h = k_.signature().layout().hidden_start;
  SGPR g = k_.sgpr(1, "group size");
  if (dim == 1)
    k_.s_lshr_b32(g, k_.kernarg(h + 12, 1), 16);
  else
    k_.s_and_b32(g, 0xffffu, k_.kernarg(dim == 0 ? h + 12 : h + 16, 1));
  return g;
}

Lowerer::Reg Lowerer::call(const ir::Value& v) {
  Reg r;
  const int dim = int(v.bits);
  auto one = [&](const char* mnemonic) {
    r = new_vreg(mnemonic);
    k_.emit(mnemonic, {r.v, vec(v.args[0])});
  };
  switch (v.builtin) {
    case BuiltinId::Gid: {
      SGPR first = k_.sgpr(1, "group start");
      k_.s_mul_i32(first, k_.workgroup_id(dim), group_size(dim));
      r = new_vreg("gid");
      k_.v_add_u32(r.v, first, k_.local_id(dim));
      return r;
    }
    case BuiltinId::Bid:
      r = new_sreg("bid");
      k_.s_mov_b32(r.s, k_.workgroup_id(dim));
      return r;
    case BuiltinId::Lid:
    case BuiltinId::Tid:
      r = new_vreg("lid");
      k_.v_mov_b32(r.v, k_.local_id(v.builtin == BuiltinId::Tid ? 0 : dim));
      return r;
    case BuiltinId::Lane:  // the lane's index in its wave, whatever the workgroup's shape
      r = new_vreg("lane");
      k_.v_mbcnt_lo_u32_b32(r.v, -1, 0);
      k_.v_mbcnt_hi_u32_b32(r.v, -1, r.v);
      return r;
    case BuiltinId::Exp:
    case BuiltinId::Sqrt:
    case BuiltinId::Rsqrt:
    case BuiltinId::Floor:
    case BuiltinId::Ceil:
    case BuiltinId::Trunc:
    case BuiltinId::Rint:
    case BuiltinId::Fabs:
    case BuiltinId::Fract:  // f16: computed in f32, rounded back
      r.vector = true;
      r.v = narrow(float_math(v.builtin, widen(v.args[0], v.type)), v.type);
      return r;
    case BuiltinId::Ubyte: one("v_cvt_f32_ubyte0"); return r;
    case BuiltinId::F16ToF32: one("v_cvt_f32_f16"); return r;
    case BuiltinId::Fma:
      if (v.type == Scalar::BF16) return bf16_call(v);
      r = new_vreg("fma");  // f16: one rounding, the high half zeroed (the legacy form)
      k_.emit(v.type == Scalar::F16 ? "v_fma_legacy_f16" : "v_fma_f32",
              {r.v, vec(v.args[0]), vec(v.args[1]), vec(v.args[2])});
      return r;
    case BuiltinId::Min:
    case BuiltinId::Max: {
      if (v.type == Scalar::BF16) return bf16_call(v);
      const bool mn = v.builtin == BuiltinId::Min;
      const char* sfx = v.type == Scalar::F32   ? "_f32"
                        : v.type == Scalar::F16 ? "_f16"
                        : v.type == Scalar::S32 ? "_i32"
                                                : "_u32";
      if (!v.varying && !is_float(v.type)) {
        r = new_sreg("minmax");
        auto [x, y] = sops(v.args[0], v.args[1]);
        k_.emit(std::string(mn ? "s_min" : "s_max") + sfx, {r.s, x, y});
      } else {
        r = new_vreg("minmax");
        k_.emit(std::string(mn ? "v_min" : "v_max") + sfx, {r.v, vec(v.args[0]), vec(v.args[1])});
      }
      return r;
    }
    case BuiltinId::Ballot: return ballot(v);
    case BuiltinId::Shuffle:
    case BuiltinId::Broadcast:
    case BuiltinId::WaveSum:
    case BuiltinId::WaveMax:
    case BuiltinId::WaveMin: return cross_lane(v);
    case BuiltinId::Dot2:  // acc + a.lo b.lo + a.hi b.hi over f16 pairs, in f32
    case BuiltinId::Dot4:  // acc + the four s8 products
    case BuiltinId::Dot8:  // acc + the eight s4 products
      r = new_vreg("dot");
      k_.emit(v.builtin == BuiltinId::Dot2   ? "v_dot2_f32_f16"
              : v.builtin == BuiltinId::Dot4 ? "v_dot4_i32_i8"
                                             : "v_dot8_i32_i4",
              {r.v, vec(v.args[0]), vec(v.args[1]), vec(v.args[2])});
      return r;
    case BuiltinId::PackF16:  // the low halves of both, the first in bits 0-15
      r = new_vreg("f16 pair");
      k_.v_pack_b32_f16(r.v, vec(v.args[0]), vec(v.args[1]));
      return r;
    case BuiltinId::ToF32:
    case BuiltinId::ToU32:
    case BuiltinId::ToS32: return convert(v, v.args[0], v.operand);
    case BuiltinId::S8:
      if (!v.varying) {
        r = new_sreg("s8");
        k_.s_sext_i32_i8(r.s, sop(v.args[0]));
      } else {
        r = new_vreg("s8");
        k_.v_bfe_i32(r.v, vec(v.args[0]), 0, 8);
      }
      return r;
    default: break;
  }
  throw LoweringError{v.loc, "this built-in"};
}

VGPR Lowerer::global_address(int ptr_var, int index, uint32_t scale) {
  const Variable& p = f_.kernel->vars[size_t(ptr_var)];
  VGPR idx = vec(index);
  VGPR addr = codegen::lane_address(k_, k_.arg(p.name), idx, scale);
  if (val(index).type == Scalar::S32) {
    // lane_address scales the index as unsigned: a negative one is 2^32 too
    // far, taken back from the high dword.
    VGPR t = k_.vgpr(1, "sign");
    k_.v_ashrrev_i32(t, 31, idx);
    k_.v_and_b32(t, scale, t);
    k_.v_sub_u32(addr[1], addr[1], t);
  }
  return addr;
}

Lowerer::Reg Lowerer::load(const ir::Value& v) {
  const Variable& m = f_.kernel->vars[size_t(v.var)];
  Reg r = new_vreg("loaded");
  if (v.op == Opcode::Load16) {
    k_.global_load_ushort(r.v, global_address(v.var, v.args[0], 1), off);
    return r;
  }
  if (m.type.kind == Type::Kind::Lds) {
    VGPR a = k_.vgpr(1, "lds address");
    k_.v_lshlrev_b32(a, 2, vec(v.args[0]));
    k_.ds_read_b32(r.v, a, as::offset(int(m.lds_offset)));
    return r;
  }
  VGPR a = global_address(v.var, v.args[0], element_bytes(m.type.scalar));
  switch (m.type.scalar) {
    case Scalar::U8: k_.global_load_ubyte(r.v, a, off); break;
    case Scalar::S8: k_.global_load_sbyte(r.v, a, off); break;
    case Scalar::U16:
    case Scalar::F16:
    case Scalar::BF16: k_.global_load_ushort(r.v, a, off); break;
    case Scalar::S16: k_.global_load_sshort(r.v, a, off); break;
    default: k_.global_load_dword(r.v, a, off); break;
  }
  return r;
}

void Lowerer::store(const ir::Node& n) {
  const Variable& m = f_.kernel->vars[size_t(n.var)];
  if (m.type.kind == Type::Kind::Lds) {
    VGPR a = k_.vgpr(1, "lds address");
    k_.v_lshlrev_b32(a, 2, vec(n.index));
    k_.ds_write_b32(a, vec(n.value), as::offset(int(m.lds_offset)));
    return;
  }
  VGPR a = global_address(n.var, n.index, element_bytes(m.type.scalar));
  VGPR x = vec(n.value);
  switch (element_bytes(m.type.scalar)) {
    case 1: k_.global_store_byte(a, x, off); break;
    case 2: k_.global_store_short(a, x, off); break;
    case 4: k_.global_store_dword(a, x, off); break;
    default: throw LoweringError{n.loc, "stores of 64-bit elements"};
  }
}

}  // namespace k100::dsl
