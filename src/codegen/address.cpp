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

}  // namespace k100::codegen
