// Products of 2-bit codes with x, shared by the decoders whose codes come
// as Q2_0's pairs: Q2_0 and Q2_K (the slice's codes) and IQ1_S / IQ1_M (the
// grid entries read from LDS, g + 1 per element). A unit of 8 elements
// holds pair a (elements 2a, 2a + 1) in bits {2a, 16 + 2a}: one AND gives
// two f16 denormals at scale class 4^a, which go to an accumulator of their
// own, folded with factors 1/4, 1/16, 1/64 at the end of a run.
#pragma once

#include <vector>

#include "gemv_decoder.h"

namespace k100::kernels::gguf_gemv {

// The bits of unit u (8 elements) of a slice of such codes: half u % 2 of
// dword u / 2, its high half moved down by 8 into `shifted` for odd u.
VGPR crumb_unit_bits(Kernel& k, VGPR data, int u, VGPR shifted);

// The unit's four pairs into pairs[0..3], then for every row m its 8
// products into acc[m][a] (x elements first_elem .. first_elem + 7 of the
// step); `first`: the accumulators start with this unit.
void crumb_unit(GemvEmitter& e, VGPR pairs, VGPR src, const std::vector<VGPR>& acc, int first_elem, bool first);

// a[0] += a[1] / 4 + a[2] / 16 + a[3] / 64: a run's classes as one sum.
void fold_crumb_classes(Kernel& k, VGPR a);

}  // namespace k100::kernels::gguf_gemv
