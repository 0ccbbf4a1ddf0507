// The GGUF kernel generators (C++ on the codegen layer): the block decoders
// of KERNELS.md 3.4 (gguf_decode_kernels.cpp), the fused dot products and
// reduce_blocks_k of 3.3 (gguf_dot_kernels.cpp) and the f16 / bf16 tensor
// converters (gguf_convert_kernels.cpp). Each returns the code object of one
// kernel, built from its signature; gguf_kernels.cpp registers them.
#pragma once

#include "gguf/block_codec.h"
#include "k100/codegen/codegen.h"
#include "k100/codeobj/code_object.h"
#include "k100/isa/codec.h"

namespace k100::kernels::gguf {

// True for the K-quant decoders of the catalog, which take no group_size and
// carry the compact hidden block (q4k_dequant, q5k_dequant, q6k_dequant).
bool dequant_by_global_id(const BlockFormat& f);
// "q4_0_dequant_k", "q4k_dequant", ...
std::string dequant_lookup(const BlockFormat& f);
codegen::Signature dequant_signature(const BlockFormat& f);
codeobj::CodeObject build_dequant(isa::Target target, const BlockFormat& f);

// iq4nl_to_i8_k: IQ4_NL blocks to int8 codebook values plus one f32 scale each.
codegen::Signature iq4nl_to_i8_signature();
codeobj::CodeObject build_iq4nl_to_i8(isa::Target target);

// "<prefix>_dot_k" with the section 3.3 indexing.
std::string dot_lookup(const BlockFormat& f);
codegen::Signature dot_signature(const BlockFormat& f);
codeobj::CodeObject build_dot(isa::Target target, const BlockFormat& f);

// reduce_blocks_k: y[r] = sum of the nbpr partials of row r, in index order.
codegen::Signature reduce_blocks_signature();
codeobj::CodeObject build_reduce_blocks(isa::Target target);

// f16_to_f32_k, bf16_to_f32_k: plain 16-bit tensors widened on the device.
enum class HalfKind { F16, BF16 };
codegen::Signature half_to_f32_signature(HalfKind kind);
codeobj::CodeObject build_half_to_f32(isa::Target target, HalfKind kind);

}  // namespace k100::kernels::gguf
