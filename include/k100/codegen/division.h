// k100lc codegen: exact unsigned 32-bit division by a runtime divisor.
//
// Two ways, both exact for every u32 dividend:
//   - in the kernel (Divider): the divisor d >= 1 is an SGPR known only at run
//     time; a refined reciprocal z is computed once (f32 estimate scaled by
//     2^32 - 512, one Newton-Raphson step in integers), then each division is
//     a high multiply and two remainder corrections;
//   - from the host (magic multiplier, KERNELS.md section 1.5): the caller
//     passes M = floor(2^32 / d) + 1 with (i * M) >> 32 == i / d verified for
//     every dividend below a bound, and the kernel does one high multiply.
#pragma once

#include <cstdint>
#include <optional>

#include "k100/codegen/kernel.h"

namespace k100::codegen {

struct Divider {
  SGPR d, z;  // divisor and its refined reciprocal
};
// VALU work with v_readfirstlane: at least one lane must be active.
Divider make_divider(Kernel& k, SGPR d);

struct Quotient {
  VGPR q, r;  // x / d and x % d per lane
};
Quotient divide(Kernel& k, const Divider& div, VGPR x);
// The same into given registers (q, r and a temporary t): a division repeated
// in a loop body then reuses one set of registers.
void divide_into(Kernel& k, const Divider& div, VGPR x, const Quotient& out, VGPR t);
// q = n / d for a scalar numerator (through the VALU).
SGPR divide_scalar(Kernel& k, const Divider& div, Operand n);

// ceil(n / 2^shift) for an unsigned 32-bit n, without overflow.
SGPR ceil_shift(Kernel& k, Operand n, int shift);

// Host side: the magic multiplier of d for dividends i < max_i, or nothing
// when (i * M) >> 32 differs from i / d for some such i.
std::optional<uint32_t> magic_multiplier(uint32_t d, uint64_t max_i);
// Device side: q = (i * magic) >> 32 (SGPRs: s_mul_hi_u32; VGPRs: v_mul_hi_u32).
void magic_divide(Kernel& k, SGPR q, Operand i, Operand magic);
void magic_divide(Kernel& k, VGPR q, Operand i, Operand magic);

}  // namespace k100::codegen
