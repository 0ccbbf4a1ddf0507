// k100lc quant: the byte layout of one block of each GGUF block type that the
// host codecs handle (FORMATS.md section 6, KERNELS.md section 4.1).
//
// The structs have exactly the on-disk size and field offsets (checked by
// static_assert), so a tensor's bytes can be viewed as an array of them.
// Half-precision fields (`d`, `dmin`) hold raw f16 bits; convert them with
// half.h. Where the format puts a 32-bit word at an offset that is not a
// multiple of 4 (IQ3_XXS), the struct keeps bytes and the codec reads the word
// with memcpy.
#pragma once

#include <cstddef>
#include <cstdint>

#include "k100/quant/tensor_type.h"

namespace k100::quant {

// Elements in one super-block of the K- and I-quants.
inline constexpr int kSuperBlock = 256;

struct BlockQ4_0 {
  static constexpr TensorType type = TensorType::Q4_0;
  static constexpr int elems = 32;
  uint16_t d;
  uint8_t qs[16];  // byte j: low nibble = element j, high nibble = element j + 16
};

struct BlockQ8_0 {
  static constexpr TensorType type = TensorType::Q8_0;
  static constexpr int elems = 32;
  uint16_t d;
  int8_t qs[32];
};

struct BlockQ2_0 {
  static constexpr TensorType type = TensorType::Q2_0;
  static constexpr int elems = 64;
  uint16_t d;
  uint8_t qs[16];  // element 4b + j = (qs[b] >> 2j) & 3, value (code - 1) * d
};

struct BlockIQ4_NL {
  static constexpr TensorType type = TensorType::IQ4_NL;
  static constexpr int elems = 32;
  uint16_t d;
  uint8_t qs[16];  // nibbles index the 16-level codebook, order as Q4_0
};

struct BlockIQ4_XS {
  static constexpr TensorType type = TensorType::IQ4_XS;
  static constexpr int elems = kSuperBlock;
  uint16_t d;
  uint16_t scales_h;   // bits 2ib..2ib+1: high 2 bits of sub-block ib's 6-bit scale
  uint8_t scales_l[4]; // nibble ib%2 of byte ib/2: low 4 bits of that scale
  uint8_t qs[128];     // 16 bytes per 32-element sub-block, nibble order as IQ4_NL
};

struct BlockQ4_K {
  static constexpr TensorType type = TensorType::Q4_K;
  static constexpr int elems = kSuperBlock;
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];  // 8 six-bit (scale, min) pairs
  uint8_t qs[128];
};

struct BlockQ5_K {
  static constexpr TensorType type = TensorType::Q5_K;
  static constexpr int elems = kSuperBlock;
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];
  uint8_t qh[32];  // fifth bits, shared by the whole block
  uint8_t qs[128];
};

struct BlockQ6_K {
  static constexpr TensorType type = TensorType::Q6_K;
  static constexpr int elems = kSuperBlock;
  uint8_t ql[128];
  uint8_t qh[64];
  int8_t scales[16];  // one per 16 consecutive elements
  uint16_t d;
};

struct BlockIQ2_S {
  static constexpr TensorType type = TensorType::IQ2_S;
  static constexpr int elems = kSuperBlock;
  uint16_t d;
  uint8_t qs[64];     // 32 low bytes of 10-bit grid indices, then 32 sign bytes
  uint8_t qh[8];      // high 2 bits of the four indices of each sub-block
  uint8_t scales[8];  // two 4-bit scales per 32-element sub-block
};

struct BlockIQ3_S {
  static constexpr TensorType type = TensorType::IQ3_S;
  static constexpr int elems = kSuperBlock;
  uint16_t d;
  uint8_t qs[64];     // low bytes of 9-bit grid indices
  uint8_t qh[8];      // ninth bits
  uint8_t signs[32];  // one sign bit per element
  uint8_t scales[4];  // two 4-bit scales per 64 elements
};

struct BlockIQ3_XXS {
  static constexpr TensorType type = TensorType::IQ3_XXS;
  static constexpr int elems = kSuperBlock;
  uint16_t d;
  uint8_t qs[64];             // 8-bit grid indices
  uint8_t scales_signs[32];   // 8 little-endian u32: 4 x 7 sign-pattern bits, 4-bit scale on top
};

static_assert(sizeof(BlockQ4_0) == 18 && sizeof(BlockQ8_0) == 34 && sizeof(BlockQ2_0) == 18);
static_assert(sizeof(BlockIQ4_NL) == 18 && sizeof(BlockIQ4_XS) == 136);
static_assert(sizeof(BlockQ4_K) == 144 && sizeof(BlockQ5_K) == 176 && sizeof(BlockQ6_K) == 210);
static_assert(sizeof(BlockIQ2_S) == 82 && sizeof(BlockIQ3_S) == 110 && sizeof(BlockIQ3_XXS) == 98);
static_assert(offsetof(BlockIQ4_XS, qs) == 8 && offsetof(BlockQ4_K, qs) == 16);
static_assert(offsetof(BlockQ5_K, qh) == 16 && offsetof(BlockQ5_K, qs) == 48);
static_assert(offsetof(BlockQ6_K, qh) == 128 && offsetof(BlockQ6_K, scales) == 192 &&
              offsetof(BlockQ6_K, d) == 208);
static_assert(offsetof(BlockIQ2_S, qh) == 66 && offsetof(BlockIQ2_S, scales) == 74);
static_assert(offsetof(BlockIQ3_S, qh) == 66 && offsetof(BlockIQ3_S, signs) == 74 &&
              offsetof(BlockIQ3_S, scales) == 106);
static_assert(offsetof(BlockIQ3_XXS, scales_signs) == 66);

}  // namespace k100::quant
