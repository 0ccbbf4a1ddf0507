// k100lc codegen: the exponential of a scaled difference, the step softmax,
// attention and the router weights share: exp((a - b) * s) computed as
// v_exp_f32 (2^x) of (a - b) * (s log2 e).
#pragma once

#include "k100/codegen/kernel.h"

namespace k100::codegen {

// log2 e, the factor that turns exp(x) into 2^(x log2 e).
inline constexpr float kLog2E = 1.4426950408889634f;

// The bits of -inf: where a running maximum starts before the first
// exp2_scaled_difference against it.
inline constexpr uint32_t kNegInfBits = 0xff800000u;

// dst = 2^((a - b) * scale): v_sub_f32 (v_subrev_f32 when b is an SGPR, which
// only the first operand may be), v_mul_f32 by scale (kLog2E for exp(a - b),
// or an SGPR / VGPR holding s log2 e), v_exp_f32 (1 ulp). dst may be a or b.
void exp2_scaled_difference(Kernel& k, VGPR dst, Operand a, Operand b, Operand scale);

// dst[c] = 1 / (1 + 2^(scale * x[c])) for the n components c, each step over
// all of them before the next: with scale = -kLog2E the logistic sigmoid of
// x (silu(x) = x sigmoid(x)); an overflowing 2^ gives 1/inf = 0, the right
// limit. dst may be x.
void reciprocal_one_plus_exp2(Kernel& k, VGPR dst, Operand scale, VGPR x, int n = 1);

}  // namespace k100::codegen
