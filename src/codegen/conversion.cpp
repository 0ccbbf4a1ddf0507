#include "k100/codegen/conversion.h"

namespace k100::codegen {

using as::sdwa_sel;

void f16_to_f32(Kernel& k, VGPR dst, VGPR packed, int word) {
  if (word == 0) k.v_cvt_f32_f16(dst, packed);
  else k.v_cvt_f32_f16(dst, packed, sdwa_sel("src0_sel", "WORD_1"));
}

void bf16_to_f32(Kernel& k, VGPR dst, VGPR packed, int word) {
  if (word == 0) k.v_lshlrev_b32(dst, 16, packed);
  else k.v_and_b32(dst, 0xffff0000u, packed);
}

void f32_to_bf16(Kernel& k, VGPR dst, VGPR value) {
  // round to nearest even: add 0x7fff + the lowest kept bit, keep the high half;
  // a NaN keeps its high half with the quiet bit set
  VGPR t = k.vgpr(1, "bf16 rounding");
  k.v_bfe_u32(t, value, 16, 1);
  k.v_add_u32(t, 0x7fff, t);  // VOP3 forms take no literal on GFX9
  k.v_add_u32(t, value, t);
  k.v_lshrrev_b32(t, 16, t);
  k.v_or_b32(dst, 0x400000, value);  // the quiet bit
  k.v_lshrrev_b32(dst, 16, dst);
  k.v_cmp_u_f32(as::vcc, value, value);
  k.v_cndmask_b32(dst, t, dst, as::vcc);
}

void f32_to_f16(Kernel& k, VGPR dst, VGPR value) { k.v_cvt_f16_f32(dst, value); }

void i8_to_f32(Kernel& k, VGPR dst, VGPR packed, int byte) {
  static const char* kByte[4] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3"};
  k.v_cvt_f32_i32(dst, sext(packed), sdwa_sel("dst_sel", "DWORD"), sdwa_sel("dst_unused", "UNUSED_PAD"),
                  sdwa_sel("src0_sel", kByte[byte & 3]));
}

void u8_to_f32(Kernel& k, VGPR dst, VGPR packed, int byte) {
  switch (byte & 3) {
    case 0: return k.v_cvt_f32_ubyte0(dst, packed);
    case 1: return k.v_cvt_f32_ubyte1(dst, packed);
    case 2: return k.v_cvt_f32_ubyte2(dst, packed);
    default: return k.v_cvt_f32_ubyte3(dst, packed);
  }
}

void dot4_i8(Kernel& k, VGPR acc, Operand a, Operand b) { k.v_dot4_i32_i8(acc, a, b, acc); }
void dot2_f16(Kernel& k, VGPR acc, Operand a, Operand b) { k.v_dot2_f32_f16(acc, a, b, acc); }

}  // namespace k100::codegen
