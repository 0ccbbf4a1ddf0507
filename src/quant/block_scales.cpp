// The block-wide scale fields of each block type (block_scales.h).
#include "k100/quant/block_scales.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "k100/base/error.h"
#include "k100/quant/blocks.h"
#include "k100/quant/half.h"

namespace k100::quant {
namespace {

// Byte offsets of the f16 scale and (-1: none) min of the types that store them whole.
struct HalfFields {
  int d, dmin;
};

HalfFields half_fields(TensorType type) {
  switch (type) {
    case TensorType::Q4_0:
    case TensorType::Q5_0:
    case TensorType::Q8_0:
    case TensorType::Q2_0:
    case TensorType::IQ4_NL:
    case TensorType::IQ4_XS:
    case TensorType::IQ2_XXS:
    case TensorType::IQ2_XS:
    case TensorType::IQ2_S:
    case TensorType::IQ3_XXS:
    case TensorType::IQ3_S:
    case TensorType::IQ1_S: return {0, -1};
    case TensorType::Q4_1:
    case TensorType::Q5_1:
    case TensorType::Q4_K:
    case TensorType::Q5_K: return {0, 2};
    case TensorType::Q2_K: return {offsetof(BlockQ2_K, d), offsetof(BlockQ2_K, dmin)};
    case TensorType::Q3_K: return {offsetof(BlockQ3_K, d), -1};
    case TensorType::Q6_K: return {offsetof(BlockQ6_K, d), -1};
    case TensorType::TQ1_0: return {offsetof(BlockTQ1_0, d), -1};
    case TensorType::TQ2_0: return {offsetof(BlockTQ2_0, d), -1};
    default: return {-1, -1};
  }
}

void put_half(uint8_t* at, float v) {
  const uint16_t h = f32_to_f16(v);
  std::memcpy(at, &h, 2);
}

}  // namespace

int block_scale_count(TensorType type) {
  if (type == TensorType::MXFP4 || type == TensorType::IQ1_M) return 1;
  const HalfFields f = half_fields(type);
  return f.d < 0 ? 0 : f.dmin < 0 ? 1 : 2;
}

void set_block_scales(TensorType type, void* block, float d, float dmin) {
  auto* b = static_cast<uint8_t*>(block);
  if (type == TensorType::MXFP4) {
    // value = code * 2^(e - 128)
    const int e = d == 0.0f ? 0 : int(std::lround(std::log2(std::fabs(double(d))))) + 128;
    b[0] = uint8_t(std::clamp(e, 0, 254));
    return;
  }
  if (type == TensorType::IQ1_M) {
    // the f16's four nibbles on top of the four scale words (bytes 49, 51, 53, 55)
    const uint16_t h = f32_to_f16(d);
    for (int k = 0; k < 4; ++k) {
      uint8_t& hi = b[offsetof(BlockIQ1_M, scales) + 2 * size_t(k) + 1];
      hi = uint8_t((hi & 0x0f) | (((h >> (4 * k)) & 0x0f) << 4));
    }
    return;
  }
  const HalfFields f = half_fields(type);
  if (f.d < 0) throw Error("set_block_scales: tensor type " + type_name(type) + " has no block scale");
  put_half(b + f.d, d);
  if (f.dmin >= 0) put_half(b + f.dmin, dmin);
}

}  // namespace k100::quant
