// k100lc codegen: conversions between f32, f16 and bf16, and the packed dot
// products (int8 and f16 pairs) kernels build their inner loops from.
#pragma once

#include "k100/codegen/kernel.h"

namespace k100::codegen {

// f32 from the low (word 0) or high (word 1) f16 of a dword, exact.
void f16_to_f32(Kernel& k, VGPR dst, VGPR packed, int word = 0);
// f32 from the low or high bf16 of a dword (bf16 is the high half of an f32).
void bf16_to_f32(Kernel& k, VGPR dst, VGPR packed, int word = 0);
// bf16 of an f32, rounded to nearest even (NaN stays a quiet NaN), in the low
// 16 bits of dst.
void f32_to_bf16(Kernel& k, VGPR dst, VGPR value);
// f16 of an f32 (the mode register's rounding), in the low 16 bits.
void f32_to_f16(Kernel& k, VGPR dst, VGPR value);
// f32 from byte `byte` (0..3) of a dword, sign-extended (SDWA).
void i8_to_f32(Kernel& k, VGPR dst, VGPR packed, int byte);
// f32 from byte `byte` (0..3) of a dword, unsigned (v_cvt_f32_ubyteN).
void u8_to_f32(Kernel& k, VGPR dst, VGPR packed, int byte);

// acc += sum of the four int8 products of a and b (v_dot4_i32_i8).
void dot4_i8(Kernel& k, VGPR acc, Operand a, Operand b);
// acc += a.lo * b.lo + a.hi * b.hi over packed f16 pairs, in f32 (v_dot2_f32_f16).
void dot2_f16(Kernel& k, VGPR acc, Operand a, Operand b);

}  // namespace k100::codegen
