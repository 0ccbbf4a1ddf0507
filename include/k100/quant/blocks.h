// k100lc quant: the byte layout of one block of each GGUF block type that the
// host codecs handle (FORMATS.md section 6 and KERNELS.md section 4.1 for the
// eleven the spec names; ggml's ggml-common.h for the others).
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

struct BlockQ4_1 {
  static constexpr TensorType type = TensorType::Q4_1;
  static constexpr int elems = 32;
  uint16_t d;
  uint16_t m;      // value q * d + m
  uint8_t qs[16];  // nibble order as Q4_0
};

struct BlockQ5_0 {
  static constexpr TensorType type = TensorType::Q5_0;
  static constexpr int elems = 32;
  uint16_t d;
  uint8_t qh[4];   // bit j of the little-endian u32: fifth bit of element j
  uint8_t qs[16];  // low 4 bits, nibble order as Q4_0; value (q - 16) * d
};

struct BlockQ5_1 {
  static constexpr TensorType type = TensorType::Q5_1;
  static constexpr int elems = 32;
  uint16_t d;
  uint16_t m;
  uint8_t qh[4];
  uint8_t qs[16];  // as Q5_0; value q * d + m
};

struct BlockMXFP4 {
  static constexpr TensorType type = TensorType::MXFP4;
  static constexpr int elems = 32;
  uint8_t e;       // E8M0 exponent: the scale is 2^(e - 128) (kvalues_mxfp4 are twice the E2M1 values)
  uint8_t qs[16];  // 4-bit codes into kvalues_mxfp4, nibble order as Q4_0
};

struct BlockQ2_K {
  static constexpr TensorType type = TensorType::Q2_K;
  static constexpr int elems = kSuperBlock;
  uint8_t scales[16];  // per 16 elements: 4-bit scale (low), 4-bit min (high)
  uint8_t qs[64];      // 2-bit codes: element 128 h + 32 s + l in bits 2s of byte 32 h + l (l < 32)
  uint16_t d;
  uint16_t dmin;
};

struct BlockQ3_K {
  static constexpr TensorType type = TensorType::Q3_K;
  static constexpr int elems = kSuperBlock;
  uint8_t hmask[32];   // third bits: element 128 h + 32 s + l has bit 4 h + s of hmask[l]
  uint8_t qs[64];      // low 2 bits, as Q2_K
  uint8_t scales[12];  // 16 six-bit scales (stored + 32)
  uint16_t d;
};

struct BlockIQ2_XXS {
  static constexpr TensorType type = TensorType::IQ2_XXS;
  static constexpr int elems = kSuperBlock;
  uint16_t d;
  uint8_t qs[64];  // per 32 elements: 4 grid index bytes, then a u32 of 4 x 7 sign bits and a 4-bit scale on top
};

struct BlockIQ2_XS {
  static constexpr TensorType type = TensorType::IQ2_XS;
  static constexpr int elems = kSuperBlock;
  uint16_t d;
  uint8_t qs[64];     // 32 little-endian u16: 9-bit grid index, 7 sign bits on top
  uint8_t scales[8];  // two 4-bit scales per 32 elements
};

struct BlockIQ1_S {
  static constexpr TensorType type = TensorType::IQ1_S;
  static constexpr int elems = kSuperBlock;
  uint16_t d;
  uint8_t qs[32];   // low 8 bits of the 11-bit grid indices
  uint8_t qh[16];   // 8 little-endian u16: 4 x 3 index bits, a 3-bit scale, the delta's sign
};

struct BlockIQ1_M {
  static constexpr TensorType type = TensorType::IQ1_M;
  static constexpr int elems = kSuperBlock;
  uint8_t qs[32];      // low 8 bits of the 11-bit grid indices
  uint8_t qh[16];      // per index a nibble: 3 index bits, the delta's sign
  uint8_t scales[8];   // 4 little-endian u16: 4 x 3-bit scales, and 4 bits of the f16 super-scale on top
};

struct BlockTQ1_0 {
  static constexpr TensorType type = TensorType::TQ1_0;
  static constexpr int elems = kSuperBlock;
  uint8_t qs[48];  // five base-3 digits per byte (elements 0..239)
  uint8_t qh[4];   // four per byte (elements 240..255)
  uint16_t d;
};

struct BlockTQ2_0 {
  static constexpr TensorType type = TensorType::TQ2_0;
  static constexpr int elems = kSuperBlock;
  uint8_t qs[64];  // 2-bit codes as Q2_K; value (q - 1) * d
  uint16_t d;
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
static_assert(sizeof(BlockQ4_1) == 20 && sizeof(BlockQ5_0) == 22 && sizeof(BlockQ5_1) == 24 && sizeof(BlockMXFP4) == 17);
static_assert(offsetof(BlockQ5_0, qs) == 6 && offsetof(BlockQ5_1, qh) == 4 && offsetof(BlockQ5_1, qs) == 8);
static_assert(sizeof(BlockQ2_K) == 84 && offsetof(BlockQ2_K, d) == 80 && offsetof(BlockQ2_K, dmin) == 82);
static_assert(sizeof(BlockQ3_K) == 110 && offsetof(BlockQ3_K, scales) == 96 && offsetof(BlockQ3_K, d) == 108);
static_assert(sizeof(BlockIQ2_XXS) == 66 && sizeof(BlockIQ2_XS) == 74 && offsetof(BlockIQ2_XS, scales) == 66);
static_assert(sizeof(BlockIQ1_S) == 50 && offsetof(BlockIQ1_S, qh) == 34);
static_assert(sizeof(BlockIQ1_M) == 56 && offsetof(BlockIQ1_M, scales) == 48);
static_assert(sizeof(BlockTQ1_0) == 54 && offsetof(BlockTQ1_0, d) == 52 && sizeof(BlockTQ2_0) == 66);

}  // namespace k100::quant
