// k100lc codegen: 64-bit scalar address arithmetic (SGPR pairs).
//
// Buffers are 64-bit base addresses in SGPR pairs; rows and elements are
// 32-bit indices. These return new pairs (virtual registers) or add in place,
// with the carry into the high dword.
#pragma once

#include "k100/codegen/kernel.h"

namespace k100::codegen {

// pair += {lo, hi} (lo, hi: SGPRs or constants).
void add64(Kernel& k, SGPR pair, Operand lo, Operand hi = 0);
// pair += value64 (an SGPR pair).
void add64_pair(Kernel& k, SGPR pair, SGPR value64);
// base + (index << shift), index an unsigned 32-bit SGPR.
SGPR offset_address(Kernel& k, SGPR base, Operand index, int shift);
// base + ((a * b) << shift), a and b unsigned 32-bit (the product taken to 64 bits).
SGPR scaled_address(Kernel& k, SGPR base, Operand a, Operand b, int shift);
// dst = base + ((a * b) << shift) into an existing pair.
void set_scaled_address(Kernel& k, SGPR dst, SGPR base, Operand a, Operand b, int shift);
// The 64-bit value (x << shift) of an unsigned 32-bit x.
SGPR widen_shifted(Kernel& k, Operand x, int shift);
// base + ((row * stride + col) << shift): element (row, col) of a row-major
// matrix with `stride` elements per row (unsigned 32-bit operands, 64-bit sum).
SGPR element_address(Kernel& k, SGPR base, Operand row, Operand stride, Operand col, int shift);

// Waits by hand (to pipeline loads): s_waitcnt vmcnt(n) / lgkmcnt(n).
inline as::Symbolic vmcnt(int n) { return as::waitcnt(n > 63 ? 63 : n); }
inline as::Symbolic lgkmcnt(int n) { return as::waitcnt(63, 7, n > 15 ? 15 : n); }

}  // namespace k100::codegen
