// Exact integer division and remainder. A u32 power-of-two constant is a
// shift or a mask; another constant whose 32-bit multiplier is exact for
// every dividend is a high multiply. A uniform u32 divisor goes through
// the layer's Divider (codegen/division.h), which takes a uniform divisor
// only; a per-lane or s32 one through the sequence here: a refined
// reciprocal of the divisor from the f32 estimate (scaled by 2^32 - 512, one
// Newton-Raphson step in integers), a high multiply, and two corrections of
// the remainder. s32 rounds toward negative infinity as in Python (typing.h).
// A uniform s32 division runs the same sequence and reads the first active
// lane. Division by zero gives an unspecified value (no trap on this target).
#include <bit>
#include <optional>

#include "lower.h"
#include "lowering_error.h"

namespace k100::dsl {

void Lowerer::divide(VGPR q, VGPR r, VGPR x, VGPR d, bool is_signed) {
  VGPR ux = x, ud = d, sx, sd;
  if (is_signed) {  // magnitudes
    sx = k_.vgpr(1, "sign x");
    sd = k_.vgpr(1, "sign d");
    ux = k_.vgpr(1, "|x|");
    ud = k_.vgpr(1, "|d|");
    k_.v_ashrrev_i32(sx, 31, x);
    k_.v_ashrrev_i32(sd, 31, d);
    k_.v_xor_b32(ux, x, sx);
    k_.v_sub_u32(ux, ux, sx);
    k_.v_xor_b32(ud, d, sd);
    k_.v_sub_u32(ud, ud, sd);
  }
  VGPR z = k_.vgpr(1, "reciprocal"), t = k_.vgpr(1, "t"), q1 = k_.vgpr(1, "q+1"), r1 = k_.vgpr(1, "r-d");
  k_.v_cvt_f32_u32(z, ud);
  k_.v_rcp_iflag_f32(z, z);
  k_.v_mul_f32(z, 0x4f7ffffeu, z);  // 2^32 - 512 as f32
  k_.v_cvt_u32_f32(z, z);
  k_.v_sub_u32(t, 0, ud);
  k_.v_mul_lo_u32(t, t, z);  // -d z mod 2^32: the error of z
  k_.v_mul_hi_u32(t, z, t);
  k_.v_add_u32(z, z, t);
  k_.v_mul_hi_u32(q, ux, z);
  k_.v_mul_lo_u32(t, q, ud);
  k_.v_sub_u32(r, ux, t);
  for (int i = 0; i < 2; ++i) {
    SGPR big = k_.sgpr(2, "r >= d");
    k_.v_cmp_ge_u32(big, r, ud);
    k_.v_add_u32(q1, 1, q);
    k_.v_sub_u32(r1, r, ud);
    k_.v_cndmask_b32(q, q, q1, big);
    k_.v_cndmask_b32(r, r, r1, big);
  }
  if (!is_signed) return;
  // truncated quotient and remainder with their signs ...
  VGPR s = k_.vgpr(1, "sign q");
  k_.v_xor_b32(s, sx, sd);
  k_.v_xor_b32(q, q, s);
  k_.v_sub_u32(q, q, s);
  k_.v_xor_b32(r, r, sx);
  k_.v_sub_u32(r, r, sx);
  // ... then floored: a non-zero remainder of the other sign than d moves
  // the quotient down by one and the remainder up by d.
  SGPR nz = k_.sgpr(2, "r != 0"), other = k_.sgpr(2, "sign r != sign d");
  k_.v_cmp_ne_u32(nz, 0, r);
  k_.v_xor_b32(t, r, d);
  k_.v_cmp_gt_i32(other, 0, t);
  k_.s_and_b64(nz, nz, other);
  k_.v_add_u32(q1, -1, q);
  k_.v_add_u32(r1, r, d);
  k_.v_cndmask_b32(q, q, q1, nz);
  k_.v_cndmask_b32(r, r, r1, nz);
}

Lowerer::Reg Lowerer::division(const ir::Value& v) {
  if (v.type != Scalar::U32 && v.type != Scalar::S32)
    throw LoweringError{v.loc, std::string("division of ") + scalar_name(v.type) + " values"};
  const int a = v.args[0], b = v.args[1];
  const std::optional<uint32_t> c = values_[size_t(b)].constant;
  if (v.type == Scalar::U32 && c && *c != 0 && (*c & (*c - 1)) == 0) {  // a power of two: shift or mask
    const int shift = std::countr_zero(*c);
    Reg out;
    if (val(a).varying) {
      out = new_vreg("quotient");
      v.aop == Op::Mod ? k_.v_and_b32(out.v, *c - 1, vec(a)) : k_.v_lshrrev_b32(out.v, shift, vec(a));
    } else {
      out = new_sreg("quotient");
      // a constant dividend goes through an SGPR: a scalar instruction takes one literal (1000 % 128)
      v.aop == Op::Mod ? k_.s_and_b32(out.s, sreg(a), *c - 1) : k_.s_lshr_b32(out.s, sreg(a), shift);
    }
    return out;
  }
  if (v.type == Scalar::U32 && c && *c != 0 && val(a).varying) {
    // A constant divisor whose 32-bit multiplier is exact for every u32:
    // one high multiply (and a multiply-subtract for the remainder).
    if (std::optional<uint32_t> m = codegen::magic_multiplier(*c, uint64_t(1) << 32)) {
      VGPR x = vec(a), q = k_.vgpr(1, "quotient"), magic = k_.vgpr(1, "multiplier");
      k_.v_mov_b32(magic, *m);
      codegen::magic_divide(k_, q, x, magic);
      if (v.aop != Op::Mod) return as_value(q, true);
      VGPR d = k_.vgpr(1, "divisor"), r = k_.vgpr(1, "remainder");
      k_.v_mov_b32(d, *c);
      k_.v_mul_lo_u32(d, q, d);
      k_.v_sub_u32(r, x, d);
      return as_value(r, true);
    }
  }
  if (v.type == Scalar::U32 && !val(b).varying) {
    // A uniform u32 divisor: the layer's Divider (its reciprocal once, then
    // a high multiply and corrections per dividend).
    const codegen::Divider div = codegen::make_divider(k_, sreg(b));
    if (val(a).varying) {
      const codegen::Quotient qr = codegen::divide(k_, div, vec(a));
      return as_value(v.aop == Op::Mod ? qr.r : qr.q, true);
    }
    Reg out;
    out.s = codegen::divide_scalar(k_, div, sop(a));
    if (v.aop == Op::Mod) {
      SGPR prod = k_.sgpr(1, "q d"), rem = k_.sgpr(1, "remainder");
      k_.s_mul_i32(prod, out.s, div.d);
      k_.s_sub_u32(rem, sreg(a), prod);
      out.s = rem;
    }
    return out;
  }
  VGPR q = k_.vgpr(1, "quotient"), r = k_.vgpr(1, "remainder");
  divide(q, r, vec(a), vec(b), v.type == Scalar::S32);
  return as_value(v.aop == Op::Mod ? r : q, v.varying);
}

}  // namespace k100::dsl
