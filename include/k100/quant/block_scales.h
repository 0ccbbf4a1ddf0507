// k100lc quant: the scales a block stores, set to chosen values.
//
// Tests and benchmarks make blocks of random codes whose scales must be
// finite and of a chosen size (random scale bits would give infinities and
// NaNs); the scale fields differ by type: an f16 super-scale at the front
// or the back of the block, a second f16 for a min or offset (Q4_1, Q5_1,
// Q2_K, Q4_K, Q5_K), an E8M0 exponent (MXFP4), or an f16 spread over the
// top nibbles of four scale words (IQ1_M). Sub-scales inside the block are
// left as they are.
#pragma once

#include <cstdint>

#include "k100/quant/tensor_type.h"

namespace k100::quant {

// How many block-wide scales the type stores: 2 (a scale and a min or
// offset), 1, or 0 (plain f32 / f16 / bf16 and types without host codecs).
int block_scale_count(TensorType type);

// Sets the block's scale to d and, for types with two, its min or offset to
// dmin, rounded to what the block stores (f16; MXFP4: the power of two
// nearest |d|, exponents 0..254). `block` points at one block of the type.
void set_block_scales(TensorType type, void* block, float d, float dmin = 0.0f);

}  // namespace k100::quant
