// k100lc quant: host reference codecs of the GGUF block types.
//
// `dequantize_row` decodes a run of blocks to f32 exactly as ggml does (the
// tests compare bit patterns with ggml's own dequantisers); `quantize_row`
// encodes f32 values into blocks with a plain round-to-nearest search (the
// result is a valid block of the type, decoded identically by ggml, but not
// necessarily the same bytes ggml's quantiser would choose). They cover the
// block types Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_0, Q2_K, Q3_K, Q4_K, Q5_K,
// Q6_K, IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ4_NL, IQ4_XS,
// MXFP4, TQ1_0, TQ2_0 and the plain F32, F16, BF16 types (host_codec_types());
// any other type is a k100::Error naming it. These are what the device kernels' host references,
// the model loader and the tools decode with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "k100/quant/blocks.h"
#include "k100/quant/tensor_type.h"

namespace k100::quant {

// Decodes n elements (a multiple of the type's block size) from `src`, which
// holds row_bytes(type, n) bytes at any alignment, into dst[0..n).
void dequantize_row(TensorType type, const void* src, float* dst, int64_t n);

// Encodes n elements (a multiple of the block size) into `dst`, which has room
// for row_bytes(type, n) bytes. Non-finite inputs are encoded as 0.
void quantize_row(TensorType type, const float* src, void* dst, int64_t n);

// Checked conveniences over spans: sizes must match the type's geometry.
std::vector<float> dequantize(TensorType type, std::span<const uint8_t> bytes);
std::vector<uint8_t> quantize(TensorType type, std::span<const float> values);

// Typed forms for callers that hold blocks (one overload per block struct,
// naturally aligned): decode `count` consecutive blocks into
// count * Block::elems floats.
void dequantize(const BlockQ4_0* blocks, size_t count, float* dst);
void dequantize(const BlockQ8_0* blocks, size_t count, float* dst);
void dequantize(const BlockQ2_0* blocks, size_t count, float* dst);
void dequantize(const BlockIQ4_NL* blocks, size_t count, float* dst);
void dequantize(const BlockIQ4_XS* blocks, size_t count, float* dst);
void dequantize(const BlockQ4_K* blocks, size_t count, float* dst);
void dequantize(const BlockQ5_K* blocks, size_t count, float* dst);
void dequantize(const BlockQ6_K* blocks, size_t count, float* dst);
void dequantize(const BlockIQ2_S* blocks, size_t count, float* dst);
void dequantize(const BlockIQ3_S* blocks, size_t count, float* dst);
void dequantize(const BlockIQ3_XXS* blocks, size_t count, float* dst);
void dequantize(const BlockQ4_1* blocks, size_t count, float* dst);
void dequantize(const BlockQ5_0* blocks, size_t count, float* dst);
void dequantize(const BlockQ5_1* blocks, size_t count, float* dst);
void dequantize(const BlockMXFP4* blocks, size_t count, float* dst);
void dequantize(const BlockQ2_K* blocks, size_t count, float* dst);
void dequantize(const BlockQ3_K* blocks, size_t count, float* dst);
void dequantize(const BlockIQ2_XXS* blocks, size_t count, float* dst);
void dequantize(const BlockIQ2_XS* blocks, size_t count, float* dst);
void dequantize(const BlockIQ1_S* blocks, size_t count, float* dst);
void dequantize(const BlockIQ1_M* blocks, size_t count, float* dst);
void dequantize(const BlockTQ1_0* blocks, size_t count, float* dst);
void dequantize(const BlockTQ2_0* blocks, size_t count, float* dst);

// And the encoders: `count` blocks from count * Block::elems floats.
void quantize(const float* src, size_t count, BlockQ4_0* blocks);
void quantize(const float* src, size_t count, BlockQ8_0* blocks);
void quantize(const float* src, size_t count, BlockQ2_0* blocks);
void quantize(const float* src, size_t count, BlockIQ4_NL* blocks);
void quantize(const float* src, size_t count, BlockIQ4_XS* blocks);
void quantize(const float* src, size_t count, BlockQ4_K* blocks);
void quantize(const float* src, size_t count, BlockQ5_K* blocks);
void quantize(const float* src, size_t count, BlockQ6_K* blocks);
void quantize(const float* src, size_t count, BlockIQ2_S* blocks);
void quantize(const float* src, size_t count, BlockIQ3_S* blocks);
void quantize(const float* src, size_t count, BlockIQ3_XXS* blocks);
void quantize(const float* src, size_t count, BlockQ4_1* blocks);
void quantize(const float* src, size_t count, BlockQ5_0* blocks);
void quantize(const float* src, size_t count, BlockQ5_1* blocks);
void quantize(const float* src, size_t count, BlockMXFP4* blocks);
void quantize(const float* src, size_t count, BlockQ2_K* blocks);
void quantize(const float* src, size_t count, BlockQ3_K* blocks);
void quantize(const float* src, size_t count, BlockIQ2_XXS* blocks);
void quantize(const float* src, size_t count, BlockIQ2_XS* blocks);
void quantize(const float* src, size_t count, BlockIQ1_S* blocks);
void quantize(const float* src, size_t count, BlockIQ1_M* blocks);
void quantize(const float* src, size_t count, BlockTQ1_0* blocks);
void quantize(const float* src, size_t count, BlockTQ2_0* blocks);

}  // namespace k100::quant
