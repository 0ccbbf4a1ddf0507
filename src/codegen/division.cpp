#include "k100/codegen/division.h"

#include <algorithm>

namespace k100::codegen {

using namespace as;

Divider make_divider(Kernel& k, SGPR d) {
  VGPR t = k.vgpr(1, "reciprocal"), u = k.vgpr(1, "reciprocal error");
  SGPR negd = k.sgpr(1, "-d"), z = k.sgpr(1, "z");
  k.v_cvt_f32_u32(t, d);
  k.v_rcp_iflag_f32(t, t);
  k.v_mul_f32(t, 0x4f7ffffe, t);  // 2^32 - 512: the estimate stays below 2^32 / d
  k.v_cvt_u32_f32(t, t);
  k.s_sub_u32(negd, 0, d);
  k.v_mul_lo_u32(u, negd, t);  // (-d * z) mod 2^32: the error of the estimate
  k.v_mul_hi_u32(u, t, u);
  k.v_add_u32(t, t, u);
  k.v_readfirstlane_b32(z, t);
  return Divider{d, z};
}

Quotient divide(Kernel& k, const Divider& div, VGPR x) {
  Quotient out{k.vgpr(1, "quotient"), k.vgpr(1, "remainder")};
  divide_into(k, div, x, out, k.vgpr(1, "correction"));
  return out;
}

void divide_into(Kernel& k, const Divider& div, VGPR x, const Quotient& out, VGPR t) {
  const VGPR q = out.q, r = out.r;
  k.v_mul_hi_u32(q, x, div.z);
  k.v_mul_lo_u32(r, q, div.d);
  k.v_sub_u32(r, x, r);
  for (int step = 0; step < 2; ++step) {
    k.v_cmp_le_u32(vcc, div.d, r);  // remainder still >= d
    k.v_add_u32(t, 1, q);
    k.v_cndmask_b32(q, q, t, vcc);
    k.v_subrev_u32(t, div.d, r);
    k.v_cndmask_b32(r, r, t, vcc);
  }
}

SGPR divide_scalar(Kernel& k, const Divider& div, Operand n) {
  VGPR x = k.vgpr(1, "dividend");
  SGPR q = k.sgpr(1, "scalar quotient");
  k.v_mov_b32(x, n);
  k.v_readfirstlane_b32(q, divide(k, div, x).q);
  return q;
}

std::optional<uint32_t> magic_multiplier(uint32_t d, uint64_t max_i) {
  if (d == 0 || max_i > (uint64_t(1) << 32)) return std::nullopt;
  if (d == 1) return max_i <= 1 ? std::optional<uint32_t>(1) : std::nullopt;  // only i = 0
  const uint64_t m = (uint64_t(1) << 32) / d + 1;
  // i * m / 2^32 = i / d + i * e / (d * 2^32) with e = d - 2^32 mod d: the
  // quotient is exact until the excess reaches the last dividend of a
  // quotient (i % d == d - 1), i.e. while i * e < 2^32 there.
  const uint64_t e = d - (uint64_t(1) << 32) % d;
  if (max_i / d == 0) return uint32_t(m);
  const uint64_t last = (max_i / d) * d - 1;
  if (last * e >= (uint64_t(1) << 32)) return std::nullopt;
  return uint32_t(m);
}

void magic_divide(Kernel& k, SGPR q, Operand i, Operand magic) { k.s_mul_hi_u32(q, i, magic); }
void magic_divide(Kernel& k, VGPR q, Operand i, Operand magic) { k.v_mul_hi_u32(q, i, magic); }

SGPR ceil_shift(Kernel& k, Operand n, int shift) {
  SGPR q = k.sgpr(1, "ceil quotient"), r = k.sgpr(1, "remainder");
  k.s_lshr_b32(q, n, shift);
  k.s_and_b32(r, n, (1u << shift) - 1);
  k.s_cmp_lg_u32(r, 0);
  k.s_addc_u32(q, q, 0);
  return q;
}

}  // namespace k100::codegen
