// The compressed-tensors INT4 (W4A16) block kernels of KERNELS.md 3.2 and
// 4.3: int4_dequant_k (codes and bf16 group scales to f32) and int4_dot_k
// (the fused decode x f32 activation with the 3.3 block indexing, finished by
// reduce_blocks_k). A block is 128 weights along a row: 16 u32 words (element
// j of a word at bits 4j..4j+3, offset-binary: value = code - 8) and one bf16
// scale in an array of its own, ordered like the blocks.
#pragma once

#include "k100/codegen/codegen.h"
#include "k100/codeobj/code_object.h"
#include "k100/isa/codec.h"

namespace k100::kernels::int4 {

inline constexpr int kBlockElems = 128;  // weights per block (one bf16 scale)
inline constexpr int kBlockBytes = 64;   // their codes

codegen::Signature int4_dequant_signature();
codeobj::CodeObject build_int4_dequant(isa::Target target);

codegen::Signature int4_dot_signature();
codeobj::CodeObject build_int4_dot(isa::Target target);

}  // namespace k100::kernels::int4
