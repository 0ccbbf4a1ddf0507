// The quantisation step of the packed KV format (docs/PACKED_KV.md) on the
// device: scale = amax / 127 (1.0 for an all-zero group), code =
// clamp(rint(x / scale), -127, 127) with both divisions correctly rounded,
// codes packed four to a word (the lowest index in the lowest byte). It is
// the W4 activation quantisers' step (w4act::GroupQuantiser, one lane per
// group) with the symmetric int8 range, so the host reference
// (quant::packed_kv_scale / packed_kv_code) matches it bit for bit.
#pragma once

#include "w4act/activation_quantiser.h"

namespace k100::kernels::attention {

inline constexpr w4act::CodeRange kPackedKvCodes{-127, 127};

// word = (c[0] & 255) | (c[1] & 255) << 8 | (c[2] & 255) << 16 | c[3] << 24
// for four int32 codes c = codes.sub(first, 4).
void pack_code_bytes(codegen::Kernel& k, codegen::VGPR word, codegen::VGPR codes, int first);

// One row group per lane: `group` f32 (an SGPR, a multiple of 8) read from
// the 64-bit lane address `src`, its scale returned, its group/4 words
// written from the 64-bit lane address `dst` on. src and dst are advanced
// (they are the caller's scratch afterwards).
codegen::VGPR quantise_group_words(codegen::Kernel& k, const w4act::GroupQuantiser& q, codegen::VGPR src,
                                   codegen::SGPR group, codegen::VGPR dst);

}  // namespace k100::kernels::attention
