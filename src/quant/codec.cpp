// The type-generic entry points of the codecs, and the plain f32/f16/bf16
// types.
#include "k100/quant/codec.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "k100/base/error.h"
#include "k100/quant/half.h"

namespace k100::quant {

// Block fields are read and written in host order; GGUF is little-endian.
static_assert(std::endian::native == std::endian::little, "the codecs assume a little-endian host");

namespace {

// Blocks in a file need not sit at the struct's alignment (a GGUF with
// alignment 1 puts tensors at any address), so misaligned runs go through
// an aligned copy.
constexpr size_t kChunk = 64;

template <class Block>
void decode_blocks(const void* src, float* dst, int64_t n) {
  const size_t count = size_t(n / Block::elems);
  if (reinterpret_cast<uintptr_t>(src) % alignof(Block) == 0)
    return dequantize(static_cast<const Block*>(src), count, dst);
  Block tmp[kChunk];
  for (size_t i = 0; i < count; i += kChunk) {
    const size_t k = std::min(kChunk, count - i);
    std::memcpy(tmp, static_cast<const uint8_t*>(src) + i * sizeof(Block), k * sizeof(Block));
    dequantize(tmp, k, dst + i * Block::elems);
  }
}

template <class Block>
void encode_blocks(const float* src, void* dst, int64_t n) {
  const size_t count = size_t(n / Block::elems);
  if (reinterpret_cast<uintptr_t>(dst) % alignof(Block) == 0)
    return quantize(src, count, static_cast<Block*>(dst));
  Block tmp[kChunk];
  for (size_t i = 0; i < count; i += kChunk) {
    const size_t k = std::min(kChunk, count - i);
    quantize(src + i * Block::elems, k, tmp);
    std::memcpy(static_cast<uint8_t*>(dst) + i * sizeof(Block), tmp, k * sizeof(Block));
  }
}

// f16 / bf16 values at any alignment.
void widen_halves(const void* src, float* dst, int64_t n, float (*widen)(uint16_t)) {
  const auto* h = static_cast<const uint8_t*>(src);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t v;
    std::memcpy(&v, h + 2 * i, 2);
    dst[i] = widen(v);
  }
}

void check_count(TensorType type, int64_t n, const char* what) {
  if (n < 0) throw Error(std::string(what) + ": negative element count " + std::to_string(n));
  row_bytes(type, uint64_t(n));  // throws for a partial block
  if (!traits(type).has_host_codec)
    throw Error(std::string(what) + ": no host codec for tensor type " + type_name(type));
}

}  // namespace

void dequantize_row(TensorType type, const void* src, float* dst, int64_t n) {
  check_count(type, n, "dequantize_row");
  if (n == 0) return;  // an empty tensor may have no storage at all
  switch (type) {
    case TensorType::F32: std::memcpy(dst, src, size_t(n) * 4); return;
    case TensorType::F16: return widen_halves(src, dst, n, f16_to_f32);
    case TensorType::BF16: return widen_halves(src, dst, n, bf16_to_f32);
    case TensorType::Q4_0: return decode_blocks<BlockQ4_0>(src, dst, n);
    case TensorType::Q8_0: return decode_blocks<BlockQ8_0>(src, dst, n);
    case TensorType::Q2_0: return decode_blocks<BlockQ2_0>(src, dst, n);
    case TensorType::IQ4_NL: return decode_blocks<BlockIQ4_NL>(src, dst, n);
    case TensorType::IQ4_XS: return decode_blocks<BlockIQ4_XS>(src, dst, n);
    case TensorType::Q4_K: return decode_blocks<BlockQ4_K>(src, dst, n);
    case TensorType::Q5_K: return decode_blocks<BlockQ5_K>(src, dst, n);
    case TensorType::Q6_K: return decode_blocks<BlockQ6_K>(src, dst, n);
    case TensorType::IQ2_S: return decode_blocks<BlockIQ2_S>(src, dst, n);
    case TensorType::IQ3_S: return decode_blocks<BlockIQ3_S>(src, dst, n);
    case TensorType::IQ3_XXS: return decode_blocks<BlockIQ3_XXS>(src, dst, n);
    case TensorType::Q4_1: return decode_blocks<BlockQ4_1>(src, dst, n);
    case TensorType::Q5_0: return decode_blocks<BlockQ5_0>(src, dst, n);
    case TensorType::Q5_1: return decode_blocks<BlockQ5_1>(src, dst, n);
    case TensorType::MXFP4: return decode_blocks<BlockMXFP4>(src, dst, n);
    case TensorType::Q2_K: return decode_blocks<BlockQ2_K>(src, dst, n);
    case TensorType::Q3_K: return decode_blocks<BlockQ3_K>(src, dst, n);
    case TensorType::IQ2_XXS: return decode_blocks<BlockIQ2_XXS>(src, dst, n);
    case TensorType::IQ2_XS: return decode_blocks<BlockIQ2_XS>(src, dst, n);
    case TensorType::IQ1_S: return decode_blocks<BlockIQ1_S>(src, dst, n);
    case TensorType::IQ1_M: return decode_blocks<BlockIQ1_M>(src, dst, n);
    case TensorType::TQ1_0: return decode_blocks<BlockTQ1_0>(src, dst, n);
    case TensorType::TQ2_0: return decode_blocks<BlockTQ2_0>(src, dst, n);
    default: break;
  }
  throw Error("dequantize_row: no host codec for tensor type " + type_name(type));
}

void quantize_row(TensorType type, const float* src, void* dst, int64_t n) {
  check_count(type, n, "quantize_row");
  if (n == 0) return;
  switch (type) {
    case TensorType::F32: std::memcpy(dst, src, size_t(n) * 4); return;
    case TensorType::F16:
    case TensorType::BF16: {
      auto* h = static_cast<uint8_t*>(dst);
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t v = type == TensorType::F16 ? f32_to_f16(src[i]) : f32_to_bf16(src[i]);
        std::memcpy(h + 2 * i, &v, 2);
      }
      return;
    }
    case TensorType::Q4_0: return encode_blocks<BlockQ4_0>(src, dst, n);
    case TensorType::Q8_0: return encode_blocks<BlockQ8_0>(src, dst, n);
    case TensorType::Q2_0: return encode_blocks<BlockQ2_0>(src, dst, n);
    case TensorType::IQ4_NL: return encode_blocks<BlockIQ4_NL>(src, dst, n);
    case TensorType::IQ4_XS: return encode_blocks<BlockIQ4_XS>(src, dst, n);
    case TensorType::Q4_K: return encode_blocks<BlockQ4_K>(src, dst, n);
    case TensorType::Q5_K: return encode_blocks<BlockQ5_K>(src, dst, n);
    case TensorType::Q6_K: return encode_blocks<BlockQ6_K>(src, dst, n);
    case TensorType::IQ2_S: return encode_blocks<BlockIQ2_S>(src, dst, n);
    case TensorType::IQ3_S: return encode_blocks<BlockIQ3_S>(src, dst, n);
    case TensorType::IQ3_XXS: return encode_blocks<BlockIQ3_XXS>(src, dst, n);
    case TensorType::Q4_1: return encode_blocks<BlockQ4_1>(src, dst, n);
    case TensorType::Q5_0: return encode_blocks<BlockQ5_0>(src, dst, n);
    case TensorType::Q5_1: return encode_blocks<BlockQ5_1>(src, dst, n);
    case TensorType::MXFP4: return encode_blocks<BlockMXFP4>(src, dst, n);
    case TensorType::Q2_K: return encode_blocks<BlockQ2_K>(src, dst, n);
    case TensorType::Q3_K: return encode_blocks<BlockQ3_K>(src, dst, n);
    case TensorType::IQ2_XXS: return encode_blocks<BlockIQ2_XXS>(src, dst, n);
    case TensorType::IQ2_XS: return encode_blocks<BlockIQ2_XS>(src, dst, n);
    case TensorType::IQ1_S: return encode_blocks<BlockIQ1_S>(src, dst, n);
    case TensorType::IQ1_M: return encode_blocks<BlockIQ1_M>(src, dst, n);
    case TensorType::TQ1_0: return encode_blocks<BlockTQ1_0>(src, dst, n);
    case TensorType::TQ2_0: return encode_blocks<BlockTQ2_0>(src, dst, n);
    default: break;
  }
  throw Error("quantize_row: no host codec for tensor type " + type_name(type));
}

std::vector<float> dequantize(TensorType type, std::span<const uint8_t> bytes) {
  const TypeTraits& t = traits(type);
  if (bytes.size() % t.block_bytes != 0)
    throw Error("dequantize: " + std::to_string(bytes.size()) + " bytes are not a whole number of " +
                std::to_string(t.block_bytes) + "-byte " + t.name + " blocks");
  std::vector<float> out(bytes.size() / t.block_bytes * t.block_elems);
  dequantize_row(type, bytes.data(), out.data(), int64_t(out.size()));
  return out;
}

std::vector<uint8_t> quantize(TensorType type, std::span<const float> values) {
  std::vector<uint8_t> out(row_bytes(type, values.size()));
  quantize_row(type, values.data(), out.data(), int64_t(values.size()));
  return out;
}

}  // namespace k100::quant
