#include "k100/codegen/address.h"

namespace k100::codegen {

void add64(Kernel& k, SGPR pair, Operand lo, Operand hi) {
  k.s_add_u32(pair[0], pair[0], lo);
  k.s_addc_u32(pair[1], pair[1], hi);
}

void add64_pair(Kernel& k, SGPR pair, SGPR value64) { add64(k, pair, value64[0], value64[1]); }

SGPR widen_shifted(Kernel& k, Operand x, int shift) {
  SGPR v = k.sgpr(2, "wide");
  if (shift == 0) {
    k.s_mov_b32(v[0], x);
    k.s_mov_b32(v[1], 0);
    return v;
  }
  // (x << shift) as 64 bits: the high dword takes the bits shifted out
  k.s_lshl_b32(v[0], x, shift);
  k.s_lshr_b32(v[1], x, 32 - shift);
  return v;
}

SGPR offset_address(Kernel& k, SGPR base, Operand index, int shift) {
  SGPR off = widen_shifted(k, std::move(index), shift);
  k.s_add_u32(off[0], base[0], off[0]);
  k.s_addc_u32(off[1], base[1], off[1]);
  return off;
}

void set_offset_address(Kernel& k, SGPR dst, SGPR base, Operand index, int shift) {
  SGPR off = widen_shifted(k, std::move(index), shift);
  k.s_add_u32(dst[0], base[0], off[0]);
  k.s_addc_u32(dst[1], base[1], off[1]);
}

void set_scaled_address(Kernel& k, SGPR dst, SGPR base, Operand a, Operand b, int shift) {
  SGPR t = k.sgpr(2, "product");
  k.s_mul_i32(t[0], a, b);
  k.s_mul_hi_u32(t[1], a, b);
  if (shift) k.s_lshl_b64(t, t, shift);
  k.s_add_u32(dst[0], base[0], t[0]);
  k.s_addc_u32(dst[1], base[1], t[1]);
}

SGPR element_address(Kernel& k, SGPR base, Operand row, Operand stride, Operand col, int shift) {
  SGPR t = k.sgpr(2, "element offset"), dst = k.sgpr(2, "address");
  k.s_mul_i32(t[0], row, stride);
  k.s_mul_hi_u32(t[1], row, stride);
  k.s_add_u32(t[0], t[0], col);
  k.s_addc_u32(t[1], t[1], 0);
  if (shift) k.s_lshl_b64(t, t, shift);
  k.s_add_u32(dst[0], base[0], t[0]);
  k.s_addc_u32(dst[1], base[1], t[1]);
  return dst;
}

SGPR scaled_address(Kernel& k, SGPR base, Operand a, Operand b, int shift) {
  SGPR dst = k.sgpr(2, "address");
  set_scaled_address(k, dst, base, std::move(a), std::move(b), shift);
  return dst;
}

namespace {
// A scale the VOP3 multiply can take: inline constants as they are, others
// through an SGPR.
Operand mad_scale(Kernel& k, uint32_t scale) {
  if (scale <= 64) return Operand(int(scale));
  SGPR s = k.sgpr(1, "scale");
  k.s_mov_b32(s, scale);
  return s;
}
}  // namespace

void add_lane_offset(Kernel& k, VGPR addr, VGPR index, Operand scale) {
  // the carry out of a 64-bit multiply-add cannot happen for addresses; the
  // encoding still needs an SGPR pair for it
  SGPR carry = k.sgpr(2, "mad carry");
  k.v_mad_u64_u32(addr, carry, index, std::move(scale), addr);
}

void add_lane_offset(Kernel& k, VGPR addr, VGPR index, uint32_t scale) {
  add_lane_offset(k, addr, index, mad_scale(k, scale));
}

void add_lane_bytes(Kernel& k, VGPR addr, Operand bytes) {
  k.v_add_co_u32(addr[0], as::vcc, std::move(bytes), addr[0]);
  k.v_addc_co_u32(addr[1], as::vcc, 0, addr[1], as::vcc);
}

VGPR lane_address(Kernel& k, SGPR base, VGPR index, Operand scale) {
  // the base goes through VGPRs: with an SGPR scale it would be a second
  // scalar operand of one VALU instruction (GFX9 allows one)
  VGPR addr = k.vgpr(2, "lane address");
  k.v_mov_b32(addr[0], base[0]);
  k.v_mov_b32(addr[1], base[1]);
  add_lane_offset(k, addr, index, std::move(scale));
  return addr;
}

VGPR lane_address(Kernel& k, SGPR base, VGPR index, uint32_t scale) {
  return lane_address(k, base, index, mad_scale(k, scale));
}

}  // namespace k100::codegen
