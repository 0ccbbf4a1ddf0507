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
// dst = base + (index << shift) into an existing pair.
void set_offset_address(Kernel& k, SGPR dst, SGPR base, Operand index, int shift);
// base + ((a * b) << shift), a and b unsigned 32-bit (the product taken to 64 bits).
SGPR scaled_address(Kernel& k, SGPR base, Operand a, Operand b, int shift);
// dst = base + ((a * b) << shift) into an existing pair.
void set_scaled_address(Kernel& k, SGPR dst, SGPR base, Operand a, Operand b, int shift);
// The 64-bit value (x << shift) of an unsigned 32-bit x.
SGPR widen_shifted(Kernel& k, Operand x, int shift);
// base + ((row * stride + col) << shift): element (row, col) of a row-major
// matrix with `stride` elements per row (unsigned 32-bit operands, 64-bit sum).
SGPR element_address(Kernel& k, SGPR base, Operand row, Operand stride, Operand col, int shift);

// Per-lane 64-bit addresses (VGPR pairs), for lanes that each read their own
// record (a gather): base + index * scale with the product taken to 64 bits
// (v_mad_u64_u32). `scale` is an SGPR or a constant (one that is not an
// inline constant goes through an SGPR: VOP3 takes no literal on GFX9).
VGPR lane_address(Kernel& k, SGPR base, VGPR index, Operand scale);
VGPR lane_address(Kernel& k, SGPR base, VGPR index, uint32_t scale);
// addr += index * scale, 64-bit (addr a VGPR pair).
void add_lane_offset(Kernel& k, VGPR addr, VGPR index, Operand scale);
void add_lane_offset(Kernel& k, VGPR addr, VGPR index, uint32_t scale);
// addr += bytes (a 32-bit SGPR or constant), 64-bit.
void add_lane_bytes(Kernel& k, VGPR addr, Operand bytes);

// Waits by hand (to pipeline loads): s_waitcnt vmcnt(n) / lgkmcnt(n).
inline as::Symbolic vmcnt(int n) { return as::waitcnt(n > 63 ? 63 : n); }
inline as::Symbolic lgkmcnt(int n) { return as::waitcnt(63, 7, n > 15 ? 15 : n); }

}  // namespace k100::codegen
