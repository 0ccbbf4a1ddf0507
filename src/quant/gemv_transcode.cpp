// The transcoding of one row's block group into the lane dwords of the GEMV
// layout (gemv_layout.h). Each type is one list of fields: a run of bits of
// the G GGUF blocks (bit offsets from the first block, little-endian) and
// where it goes in the lane dwords (bit offsets from dword 0). The lists
// cover every bit exactly once (tests/quant/gemv_layout_test.cpp checks it),
// so encoding and decoding are the same copy in opposite directions.
//
// Shapes the kernels rely on (element e of a slice counts from the slice's
// first element; "pair p" is elements 2p (low half-word) and 2p + 1 (high
// half-word); the kernels turn a pair into two f16 values with one AND, so
// a code in bits 0-9 of a half-word is the f16 denormal code * 2^-24):
//   Q4_0, Q4_K   slice dword t holds elements 8t..8t+7; pairs 4t..4t+3 are
//                bits {0-3,16-19}, {4-7,20-23} (code x16), {8-11,24-27},
//                {12-15,28-31} (code x16).
//   Q2_0         slice dword t holds elements 16t..16t+15; pair 8t+a (a < 4)
//                is bits {2a, 16+2a} (code x4^a), pair 8t+4+a bits {8+2a, 24+2a};
//                a slice is half a block (2 dwords), so one is 512 bytes per
//                wave and the kernel's bytes in flight go in small steps.
//   Q5_K         5-bit codes; pairs 0..14: pair p is dword p/3, bits
//                {5k..5k+4, 16+5k..16+5k+4}, k = p % 3 (x1, x32, x1 after >>10);
//                pair 15: bit b of its codes is bit 15 / 31 of dword b.
//   Q6_K         6-bit codes; per 8 elements (x-step q, pairs 4q..4q+3) three
//                regular pairs R = 3q..3q+2 (dword R/2, bits {0-5,16-21} or
//                {8-13,24-29}) and spare pair q (2-bit pieces t = 0..2 in dword
//                3(q/2)+t, bits {6-7,22-23} for even q, {14-15,30-31} for odd q).
//   IQ4_NL, IQ4_XS  slice dword t, byte j: element 8t+2j (low nibble), 8t+2j+1.
//   Q8_0         the 32 int8 codes in order.
//   Q4_1, MXFP4  as Q4_0 and IQ4_NL (MXFP4: codes in natural order); the
//                header holds Q4_1's (d, m) pairs, MXFP4's exponent bytes.
//   Q5_0, Q5_1   a slice is one block, its 5-bit codes as Q5_K's slices.
//   Q2_K         slice dword t holds the 16-element run 2j + t of slice j,
//                pairs as Q2_0's; the header is (d, dmin), then the 16 scale bytes.
//   TQ2_0        as Q2_K's codes, two blocks a group (whole dwords), the
//                header their two d.
//   Q3_K         3-bit codes (the two low bits and the hmask bit, value
//                code - 4); slice dword t holds pairs 5t..5t+4 of its 32
//                elements in bits {3k..3k+2, 16+3k..16+3k+2}, k = 0..4
//                (x1, x8, x64, then after >>9 x1, x8); pair 15: bit b of
//                its codes is bit 15 / 31 of dword b. The header is the two
//                blocks' d, then their 12 scale bytes each.
//   IQ2_XXS, IQ2_XS  a slice is one 32-element sub-block: IQ2_XXS's 4 index
//                bytes and scale/sign word, IQ2_XS's 4 index/sign u16.
//   IQ1_S, IQ1_M a slice is two 32-element sub-blocks: their index low
//                bytes (a dword each), then their qh (IQ1_S: the two u16;
//                IQ1_M: the four nibble bytes).
//   IQ2_S, IQ3_S, IQ3_XXS  a slice is one 32-element sub-block: the GGUF
//                bytes of its grid indices, then of its signs (IQ3_XXS: its
//                scale/sign word), gathered from the block; one load of
//                512 bytes (IQ2_S) or 768 bytes per wave. The kernels keep
//                one slice in flight per wave: with 4 waves per 64-row tile,
//                larger slices or more of them put more reads in flight
//                than the HBM's open rows hold (docs/PERFORMANCE.md).
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <span>
#include <vector>

#include "gemv_transcode.h"
#include "k100/base/error.h"
#include "k100/quant/gemv_layout.h"
#include "k100/quant/iq_tables.h"

namespace k100::quant {

static_assert(std::endian::native == std::endian::little, "the GEMV layout is built on a little-endian host");

namespace detail {

const GemvGeometry* gemv_geometry(TensorType type) {
  static constexpr GemvGeometry kTable[] = {
      {TensorType::Q4_0, 8, 4, 4, 8},    {TensorType::Q8_0, 8, 4, 8, 8},   {TensorType::Q2_0, 4, 2, 2, 8},
      {TensorType::Q4_K, 1, 4, 4, 8},    {TensorType::Q5_K, 1, 4, 5, 8},   {TensorType::Q6_K, 2, 9, 6, 16},
      {TensorType::IQ4_NL, 8, 4, 4, 8},  {TensorType::IQ4_XS, 1, 2, 4, 8}, {TensorType::IQ2_S, 2, 9, 2, 16},
      {TensorType::IQ3_S, 2, 7, 3, 16},   {TensorType::IQ3_XXS, 2, 1, 3, 16},
      {TensorType::Q4_1, 8, 8, 4, 8},    {TensorType::Q5_0, 8, 4, 5, 8},   {TensorType::Q5_1, 8, 8, 5, 8},
      {TensorType::MXFP4, 8, 2, 4, 8},   {TensorType::Q2_K, 1, 5, 2, 8},   {TensorType::Q3_K, 2, 7, 3, 16},
      {TensorType::IQ2_XXS, 2, 1, 2, 16}, {TensorType::IQ2_XS, 2, 5, 2, 16}, {TensorType::IQ1_S, 2, 1, 3, 8},
      {TensorType::IQ1_M, 1, 2, 3, 4},     {TensorType::TQ2_0, 2, 1, 2, 16}};
  for (const auto& g : kTable)
    if (g.type == type) return &g;
  return nullptr;
}

}  // namespace detail

namespace {

struct Field {
  uint32_t src, dst;  // bit offsets
  uint32_t width;     // 1..32
};

class FieldList {
 public:
  // Adds a field, merged into the previous one when both runs continue it.
  void add(uint32_t src, uint32_t dst, uint32_t width) {
    if (!f_.empty()) {
      Field& p = f_.back();
      if (p.src + p.width == src && p.dst + p.width == dst && p.width + width <= 32) {
        p.width += width;
        return;
      }
    }
    f_.push_back({src, dst, width});
  }
  // Bytes src..src+n copied to lane bytes dst..dst+n.
  void bytes(uint32_t src_byte, uint32_t dst_byte, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) add(8 * (src_byte + i), 8 * (dst_byte + i), 8);
  }
  const std::vector<Field>& fields() const { return f_; }

 private:
  std::vector<Field> f_;
};

constexpr uint32_t kDword = 32;
// Bit of element j (0..7) in a 4-bit code dword of Q4_0 / Q4_K (pairs {0,16}, {4,20}, {8,24}, {12,28}).
constexpr uint32_t kNibblePos[8] = {0, 16, 4, 20, 8, 24, 12, 28};
// Bit of element j (0..15) in a 2-bit code dword of Q2_0.
constexpr uint32_t kCrumbPos[16] = {0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30};

// The f16 scale of block b at byte `at` goes to header half-word b.
void half_scales(FieldList& f, int blocks, uint32_t block_bytes, uint32_t at) {
  for (int b = 0; b < blocks; ++b) f.add(8 * (uint32_t(b) * block_bytes + at), 16 * uint32_t(b), 16);
}

// Element e of a 32-element Q4_0 / IQ4_NL style nibble array (byte e % 16, low nibble for e < 16).
uint32_t split_nibble_bit(uint32_t qs_byte, int e) { return 8 * (qs_byte + uint32_t(e % 16)) + 4 * uint32_t(e / 16); }

// The 4-bit codes of 8 blocks of 32 (nibble order as Q4_0: byte e % 16,
// high nibble for e >= 16) at byte `qs` of each block, one block per slice
// of 4 dwords from lane dword `first` on; `natural`: element 8t + j at bits
// 4j of slice dword t (codebook types), else at kNibblePos.
void nibble_slices(FieldList& f, uint32_t block_bytes, uint32_t qs, uint32_t first, bool natural) {
  for (uint32_t b = 0; b < 8; ++b)
    for (int e = 0; e < 32; ++e) {
      const uint32_t dw = first + 4 * b + uint32_t(e / 8);
      f.add(split_nibble_bit(block_bytes * b + qs, e), kDword * dw + (natural ? 4 * uint32_t(e % 8) : kNibblePos[e % 8]), 4);
    }
}

// 5-bit codes of one 32-element block as a 5-dword slice at lane dword
// `slice` (Q5_K's arrangement, see above): `nib(e)` and `high(e)` are the
// bit offsets of element e's low nibble and fifth bit.
template <class Nibble, class High>
void five_bit_slice(FieldList& f, uint32_t slice, Nibble&& nib, High&& high) {
  for (int e = 0; e < 32; ++e) {
    const int p = e / 2, hi = e % 2;
    if (p < 15) {
      const uint32_t at = kDword * (slice + uint32_t(p / 3)) + (hi ? 16 : 0) + 5 * uint32_t(p % 3);
      f.add(nib(e), at, 4);
      f.add(high(e), at + 4, 1);
    } else {
      for (uint32_t b = 0; b < 4; ++b) f.add(nib(e) + b, kDword * (slice + b) + (hi ? 31 : 15), 1);
      f.add(high(e), kDword * (slice + 4) + (hi ? 31 : 15), 1);
    }
  }
}

FieldList build_q4_0(bool natural) {
  FieldList f;
  half_scales(f, 8, 18, 0);
  nibble_slices(f, 18, 2, 4, natural);
  return f;
}

FieldList build_q8_0() {
  FieldList f;
  half_scales(f, 8, 34, 0);
  for (int b = 0; b < 8; ++b) f.bytes(34 * uint32_t(b) + 2, 4 * (4 + 8 * uint32_t(b)), 32);
  return f;
}

FieldList build_q2_0() {
  FieldList f;
  half_scales(f, 4, 18, 0);
  for (int b = 0; b < 4; ++b)
    for (int e = 0; e < 64; ++e) {
      const uint32_t dw = 2 + 4 * uint32_t(b) + uint32_t(e / 16);
      f.add(8 * (18 * uint32_t(b) + 2 + uint32_t(e / 4)) + 2 * uint32_t(e % 4), kDword * dw + kCrumbPos[e % 16], 2);
    }
  return f;
}

// Q4_K / Q5_K: the nibble of element e (0..255) of the 128 qs bytes at `qs`.
uint32_t kquant_nibble_bit(uint32_t qs, int e) {
  const int c = e / 64, i = e % 64;
  return 8 * (qs + uint32_t(32 * c + i % 32)) + 4 * uint32_t(i / 32);
}

FieldList build_q4_k() {
  FieldList f;
  f.bytes(0, 0, 16);  // d, dmin, scales as stored
  for (int e = 0; e < 256; ++e)
    f.add(kquant_nibble_bit(16, e), kDword * (4 + 4 * uint32_t(e / 32) + uint32_t(e % 32 / 8)) + kNibblePos[e % 8], 4);
  return f;
}

FieldList build_q5_k() {
  FieldList f;
  f.bytes(0, 0, 16);
  for (int sub = 0; sub < 8; ++sub) {
    auto element = [sub](int e) { return 32 * sub + e; };
    five_bit_slice(
        f, 4 + 5 * uint32_t(sub), [&](int e) { return kquant_nibble_bit(48, element(e)); },
        [&](int e) {
          const int c = element(e) / 64, i = element(e) % 64;
          return 8 * (16 + uint32_t(i % 32)) + uint32_t(2 * c + i / 32);
        });
  }
  return f;
}

FieldList build_q6_k() {
  FieldList f;
  half_scales(f, 2, 210, 208);
  for (uint32_t b = 0; b < 2; ++b) f.bytes(210 * b + 192, 4 * (1 + 4 * b), 16);
  for (int b = 0; b < 2; ++b)
    for (int e = 0; e < 256; ++e) {
      const int h = e / 128, l = e % 128, qtr = l / 32, ll = l % 32;
      const uint32_t nib = 8 * (210 * uint32_t(b) + uint32_t(64 * h + ll + 32 * (qtr % 2))) + 4 * uint32_t(qtr / 2);
      const uint32_t high = 8 * (210 * uint32_t(b) + 128 + uint32_t(32 * h + ll)) + 2 * uint32_t(qtr);
      const int j = 8 * b + e / 32, i = e % 32, ep = i / 2, hi = i % 2, q = ep / 4, r = ep % 4;
      const uint32_t slice = 9 + 6 * uint32_t(j);
      if (r < 3) {
        const int R = 3 * q + r;
        const uint32_t at = kDword * (slice + uint32_t(R / 2)) + (hi ? 16 : 0) + (R % 2 ? 8 : 0);
        f.add(nib, at, 4);
        f.add(high, at + 4, 2);
      } else {
        const uint32_t base = kDword * (slice + 3 * uint32_t(q / 2)) + (q % 2 ? 14 : 6) + (hi ? 16 : 0);
        f.add(nib, base, 2);
        f.add(nib + 2, base + kDword, 2);
        f.add(high, base + 2 * kDword, 2);
      }
    }
  return f;
}

FieldList build_iq4_xs() {
  FieldList f;
  f.bytes(0, 0, 8);  // d, scales_h, scales_l
  for (int e = 0; e < 256; ++e) {
    const int s = e / 32, i = e % 32;
    f.add(split_nibble_bit(8 + 16 * uint32_t(s), i), kDword * (2 + 4 * uint32_t(s) + uint32_t(i / 8)) + 4 * uint32_t(i % 8), 4);
  }
  return f;
}

FieldList build_iq2_s() {
  FieldList f;
  half_scales(f, 2, 82, 0);
  for (uint32_t b = 0; b < 2; ++b) {
    f.bytes(82 * b + 74, 4 * (1 + 2 * b), 8);  // scales
    f.bytes(82 * b + 66, 4 * (5 + 2 * b), 8);  // qh
  }
  // Slice j: sub-block j % 8 of block j / 8, its 4 index bytes then its 4 sign bytes.
  for (uint32_t j = 0; j < 16; ++j) {
    const uint32_t b = j / 8, ib = j % 8, slice = 4 * (9 + 2 * j);
    f.bytes(82 * b + 2 + 4 * ib, slice, 4);
    f.bytes(82 * b + 34 + 4 * ib, slice + 4, 4);
  }
  return f;
}

FieldList build_iq3_s() {
  FieldList f;
  half_scales(f, 2, 110, 0);
  for (uint32_t b = 0; b < 2; ++b) {
    f.bytes(110 * b + 106, 4 * (1 + b), 4);    // scales
    f.bytes(110 * b + 66, 4 * (3 + 2 * b), 8);  // qh
  }
  // Slice j: sub-block j % 8 of block j / 8, its 8 index bytes then its 4 sign bytes.
  for (uint32_t j = 0; j < 16; ++j) {
    const uint32_t b = j / 8, ib = j % 8, slice = 4 * (7 + 3 * j);
    f.bytes(110 * b + 2 + 8 * ib, slice, 8);
    f.bytes(110 * b + 74 + 4 * ib, slice + 8, 4);
  }
  return f;
}

FieldList build_iq3_xxs() {
  FieldList f;
  half_scales(f, 2, 98, 0);
  // Slice j: sub-block j % 8 of block j / 8, its 8 index bytes then its scale/sign word.
  for (uint32_t j = 0; j < 16; ++j) {
    const uint32_t b = j / 8, ib = j % 8, slice = 4 * (1 + 3 * j);
    f.bytes(98 * b + 2 + 8 * ib, slice, 8);
    f.bytes(98 * b + 66 + 4 * ib, slice + 8, 4);
  }
  return f;
}

FieldList build_q4_1() {
  FieldList f;
  for (uint32_t b = 0; b < 8; ++b) f.add(8 * 20 * b, kDword * b, 32);  // (d, m) of block b: header dword b
  nibble_slices(f, 20, 4, 8, false);
  return f;
}

FieldList build_mxfp4() {
  FieldList f;
  for (uint32_t b = 0; b < 8; ++b) f.bytes(17 * b, b, 1);  // exponent of block b: header byte b
  nibble_slices(f, 17, 1, 2, true);
  return f;
}

// Q5_0 (block 22 bytes: d, qh @2, qs @6) and Q5_1 (24 bytes: d, m, qh @4, qs @8).
FieldList build_q5(bool with_min) {
  FieldList f;
  const uint32_t bb = with_min ? 24 : 22, qh = with_min ? 4 : 2, qs = qh + 4, header = with_min ? 8 : 4;
  for (uint32_t b = 0; b < 8; ++b) {
    if (with_min) f.add(8 * bb * b, kDword * b, 32);
    else f.add(8 * bb * b, 16 * b, 16);
    five_bit_slice(
        f, header + 5 * b, [&](int e) { return split_nibble_bit(bb * b + qs, e); },
        [&](int e) { return 8 * (bb * b + qh) + uint32_t(e); });
  }
  return f;
}

// Element e of a 256-element Q2_K / Q3_K block: its 2-bit code's bit offset
// in the qs bytes at `qs`.
uint32_t crumb_bit(uint32_t qs, int e) { return 8 * (qs + uint32_t(32 * (e / 128) + e % 32)) + 2 * uint32_t(e % 128 / 32); }

FieldList build_q2_k() {
  FieldList f;
  f.bytes(80, 0, 4);   // d, dmin
  f.bytes(0, 4, 16);   // scales
  for (int e = 0; e < 256; ++e) f.add(crumb_bit(16, e), kDword * (5 + uint32_t(e / 16)) + kCrumbPos[e % 16], 2);
  return f;
}

FieldList build_tq2_0() {
  FieldList f;
  half_scales(f, 2, 66, 64);
  for (uint32_t b = 0; b < 2; ++b)
    for (int e = 0; e < 256; ++e)
      f.add(crumb_bit(66 * b, e), kDword * (1 + 16 * b + uint32_t(e / 16)) + kCrumbPos[e % 16], 2);
  return f;
}

FieldList build_q3_k() {
  FieldList f;
  half_scales(f, 2, 110, 108);
  for (uint32_t b = 0; b < 2; ++b) f.bytes(110 * b + 96, 4 * (1 + 3 * b), 12);
  for (uint32_t j = 0; j < 16; ++j) {
    const uint32_t b = j / 8, slice = 7 + 3 * j;
    for (int i = 0; i < 32; ++i) {
      const int e = 32 * int(j % 8) + i, p = i / 2, hi = i % 2;
      const uint32_t low = crumb_bit(110 * b + 32, e);
      const uint32_t high = 8 * (110 * b + uint32_t(e % 32)) + uint32_t(4 * (e / 128) + e % 128 / 32);
      if (p < 15) {
        const uint32_t at = kDword * (slice + uint32_t(p / 5)) + (hi ? 16 : 0) + 3 * uint32_t(p % 5);
        f.add(low, at, 2);
        f.add(high, at + 2, 1);
      } else {
        for (uint32_t c = 0; c < 2; ++c) f.add(low + c, kDword * (slice + c) + (hi ? 31 : 15), 1);
        f.add(high, kDword * (slice + 2) + (hi ? 31 : 15), 1);
      }
    }
  }
  return f;
}

FieldList build_iq2_xxs() {
  FieldList f;
  half_scales(f, 2, 66, 0);
  // Slice j: sub-block j % 8 of block j / 8, its 4 index bytes and its scale/sign word.
  for (uint32_t j = 0; j < 16; ++j) f.bytes(66 * (j / 8) + 2 + 8 * (j % 8), 4 * (1 + 2 * j), 8);
  return f;
}

FieldList build_iq2_xs() {
  FieldList f;
  half_scales(f, 2, 74, 0);
  for (uint32_t b = 0; b < 2; ++b) f.bytes(74 * b + 66, 4 * (1 + 2 * b), 8);  // scales
  // Slice j: sub-block j % 8 of block j / 8, its 4 u16 (index and signs).
  for (uint32_t j = 0; j < 16; ++j) f.bytes(74 * (j / 8) + 2 + 8 * (j % 8), 4 * (5 + 2 * j), 8);
  return f;
}

FieldList build_iq1_s() {
  FieldList f;
  half_scales(f, 2, 50, 0);
  // Slice j: sub-blocks 2 (j % 4) and 2 (j % 4) + 1 of block j / 4: their index bytes, then their qh.
  for (uint32_t j = 0; j < 8; ++j) {
    const uint32_t b = j / 4, ib = 2 * (j % 4), slice = 4 * (1 + 3 * j);
    f.bytes(50 * b + 2 + 4 * ib, slice, 8);
    f.bytes(50 * b + 34 + 2 * ib, slice + 8, 4);
  }
  return f;
}

FieldList build_iq1_m() {
  FieldList f;
  f.bytes(48, 0, 8);  // scales, with the super-scale's nibbles
  // Slice j: sub-blocks 2j, 2j + 1: their index bytes, then their qh bytes.
  for (uint32_t j = 0; j < 4; ++j) {
    f.bytes(8 * j, 4 * (2 + 3 * j), 8);
    f.bytes(32 + 4 * j, 4 * (4 + 3 * j), 4);
  }
  return f;
}

// The types in the order of the per-type tables below.
constexpr TensorType kOrder[] = {
    TensorType::Q4_0,  TensorType::Q8_0,  TensorType::Q2_0,    TensorType::Q4_K,   TensorType::Q5_K,
    TensorType::Q6_K,  TensorType::IQ4_NL, TensorType::IQ4_XS, TensorType::IQ2_S,  TensorType::IQ3_S,
    TensorType::IQ3_XXS, TensorType::Q4_1, TensorType::Q5_0,   TensorType::Q5_1,   TensorType::MXFP4,
    TensorType::Q2_K,  TensorType::Q3_K,  TensorType::IQ2_XXS, TensorType::IQ2_XS, TensorType::IQ1_S,
    TensorType::IQ1_M, TensorType::TQ2_0};
constexpr size_t kTypes = std::size(kOrder);

int type_index(TensorType type) {
  for (size_t i = 0; i < kTypes; ++i)
    if (kOrder[i] == type) return int(i);
  throw Error("gemv layout: type " + type_name(type) + " has no GEMV layout");
}

const std::vector<Field>& fields_of(TensorType type) {
  static const std::array<std::vector<Field>, kTypes> lists = {
      build_q4_0(false).fields(), build_q8_0().fields(),    build_q2_0().fields(),     build_q4_k().fields(),
      build_q5_k().fields(),      build_q6_k().fields(),    build_q4_0(true).fields(), build_iq4_xs().fields(),
      build_iq2_s().fields(),     build_iq3_s().fields(),   build_iq3_xxs().fields(),  build_q4_1().fields(),
      build_q5(false).fields(),   build_q5(true).fields(),  build_mxfp4().fields(),    build_q2_k().fields(),
      build_q3_k().fields(),      build_iq2_xxs().fields(), build_iq2_xs().fields(),   build_iq1_s().fields(),
      build_iq1_m().fields(),     build_tq2_0().fields()};
  return lists[size_t(type_index(type))];
}

const detail::GemvGeometry& geometry_of(TensorType type) {
  const detail::GemvGeometry* g = detail::gemv_geometry(type);
  if (!g) throw Error("gemv layout: type " + type_name(type) + " has no GEMV layout");
  return *g;
}

}  // namespace

namespace {

// The largest group is two Q6_K blocks (eight Q8_0 blocks are less), the
// largest lane the same 105 dwords.
constexpr size_t kGroupBuffer = detail::kGemvGroupBuffer;

// The field list of a type compiled for one direction: the fields cut at the
// output's dword boundaries and sorted by output dword, so that each output
// dword is assembled in a register from its pieces and stored once (copying
// field by field into memory made each field a read-modify-write of the
// bytes the previous one had just written, a store-forwarding stall).
struct Piece {
  uint32_t byte;   // input byte of the 64-bit load
  uint32_t bit;    // shift right of the loaded word (0..7)
  uint32_t mask;   // width bits
  uint32_t shift;  // position in the output dword
};

struct Program {
  std::vector<Piece> pieces;
  std::vector<uint32_t> first;  // pieces of output dword d: first[d] .. first[d+1]-1
};

Program compile(const std::vector<Field>& fields, bool forward, int out_dwords) {
  std::vector<std::vector<Piece>> by_dword(static_cast<size_t>(out_dwords));
  for (const Field& f : fields) {
    uint32_t in = forward ? f.src : f.dst, out = forward ? f.dst : f.src, left = f.width;
    while (left) {
      const uint32_t n = std::min(left, kDword - out % kDword);
      const uint32_t mask = n == 32 ? ~0u : (1u << n) - 1;
      by_dword.at(out / kDword).push_back({in / 8, in % 8, mask, out % kDword});
      in += n, out += n, left -= n;
    }
  }
  Program p;
  for (const auto& d : by_dword) {
    p.first.push_back(uint32_t(p.pieces.size()));
    p.pieces.insert(p.pieces.end(), d.begin(), d.end());
  }
  p.first.push_back(uint32_t(p.pieces.size()));
  return p;
}

// `in` holds the input plus 8 readable bytes; writes the output's dwords.
void run(const Program& p, const uint8_t* in, uint32_t* out) {
  const Piece* piece = p.pieces.data();
  const size_t dwords = p.first.size() - 1;
  for (size_t d = 0; d < dwords; ++d) {
    uint32_t w = 0;
    for (const Piece* end = p.pieces.data() + p.first[d + 1]; piece != end; ++piece) {
      uint64_t v;
      std::memcpy(&v, in + piece->byte, 8);
      w |= (uint32_t(v >> piece->bit) & piece->mask) << piece->shift;
    }
    out[d] = w;
  }
}

// Encoding (forward) or decoding program of a type, built once.
const Program& program_of(TensorType type, bool forward) {
  static const auto programs = [] {
    std::array<std::array<Program, 2>, kTypes> out;
    for (const TensorType g : kOrder) {
      const detail::GemvGeometry& geo = geometry_of(g);
      const int dwords = geo.header_dwords + geo.slices * geo.slice_dwords;
      const int i = type_index(g);
      out[size_t(i)][0] = compile(fields_of(g), false, dwords);
      out[size_t(i)][1] = compile(fields_of(g), true, dwords);
    }
    return out;
  }();
  return programs[size_t(type_index(type))][forward ? 1 : 0];
}

}  // namespace

namespace detail {

void encode_padded_group(TensorType type, const uint8_t* group, uint32_t* lane) {
  run(program_of(type, true), group, lane);
}

void decode_to_padded_group(TensorType type, const uint8_t* lane, uint8_t* group) {
  // The decoding program writes the group as dwords (a group is a whole number of dwords).
  const Program& p = program_of(type, false);
  uint32_t out[kGroupBuffer / 4];
  run(p, lane, out);
  std::memcpy(group, out, (p.first.size() - 1) * 4);
}

}  // namespace detail

std::vector<GemvByteRun> gemv_byte_runs(TensorType type) {
  std::vector<GemvByteRun> runs;
  for (const Field& f : fields_of(type)) {
    if (f.src % 8 || f.dst % 8 || f.width % 8) return {};
    for (uint32_t done = 0; done < f.width / 8;) {
      const uint32_t at = f.dst / 8 + done, n = std::min(f.width / 8 - done, 4 - at % 4);
      runs.push_back({int(f.src / 8 + done), int(at), int(n)});
      done += n;
    }
  }
  return runs;
}

void encode_gemv_group(TensorType type, const uint8_t* blocks, int present, uint32_t* lane) {
  const detail::GemvGeometry& g = geometry_of(type);
  const size_t block_bytes = traits(type).block_bytes;
  uint8_t group[kGroupBuffer] = {};
  if (present > 0) std::memcpy(group, blocks, size_t(std::min(present, g.blocks_per_group)) * block_bytes);
  detail::encode_padded_group(type, group, lane);
}

void decode_gemv_group(TensorType type, const uint32_t* lane, uint8_t* blocks) {
  const detail::GemvGeometry& g = geometry_of(type);
  uint8_t in[kGroupBuffer] = {}, out[kGroupBuffer];
  std::memcpy(in, lane, size_t(g.header_dwords + g.slices * g.slice_dwords) * 4);
  detail::decode_to_padded_group(type, in, out);
  std::memcpy(blocks, out, size_t(g.blocks_per_group) * traits(type).block_bytes);
}

}  // namespace k100::quant

namespace k100::quant {

namespace {

void append_dword(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

// The sign tables of the grid types: entry c is four bytes, byte j = 0x80
// when bit `first + j` of signs(c) is set (the kernels move two of them
// into the f16 sign bits of a pair with the same v_perm_b32 that places its
// magnitudes).
template <class Signs>
void append_sign_bytes(std::vector<uint8_t>& out, uint32_t entries, int first, Signs&& signs) {
  for (uint32_t c = 0; c < entries; ++c)
    for (int j = 0; j < 4; ++j) out.push_back(uint8_t(((signs(c) >> (first + j)) & 1) << 7));
}

// By the 7-bit sign code of ggml's ksigns: 12 bytes, signs 0-3, signs 4-7
// (the eighth the parity), four zero bytes (a three-dword stride puts the
// entries of a half-wave's codes in distinct banks).
void append_code_signs(std::vector<uint8_t>& out) {
  const auto ks = ksigns_iq2xs();
  for (uint32_t c = 0; c < 128; ++c) {
    for (int j = 0; j < 8; ++j) out.push_back(uint8_t(((ks[c] >> j) & 1) << 7));
    for (int j = 0; j < 4; ++j) out.push_back(0);
  }
}

// A 16-level codebook: entry b = the two values of the nibbles of byte b
// as f16 sign-magnitude denormals (low nibble in the low half).
void append_codebook(std::vector<uint8_t>& out, std::span<const int8_t, 16> kv) {
  auto half = [](int v) { return uint32_t(v < 0 ? 0x8000 | -v : v); };
  for (uint32_t b = 0; b < 256; ++b) append_dword(out, half(kv[b & 15]) | half(kv[b >> 4]) << 16);
}

}  // namespace

std::vector<uint8_t> gemv_table(TensorType type) {
  std::vector<uint8_t> out;
  switch (type) {
    case TensorType::IQ4_NL:
    case TensorType::IQ4_XS: append_codebook(out, kvalues_iq4nl()); break;
    case TensorType::MXFP4: append_codebook(out, kvalues_mxfp4()); break;
    case TensorType::IQ2_XXS:
    case TensorType::IQ2_XS:
      // 12 bytes an entry (the kernels' reads of random entries spread over all banks)
      for (uint64_t e : type == TensorType::IQ2_XXS ? std::span<const uint64_t>(iq2xxs_grid()) : iq2xs_grid())
        append_dword(out, uint32_t(e)), append_dword(out, uint32_t(e >> 32)), append_dword(out, 0);
      append_code_signs(out);
      break;
    case TensorType::IQ1_S:
    case TensorType::IQ1_M:
      // grid value + 1 (0, 1, 2) of element j at bits kCrumbPos[j]: pairs by one AND each, as Q2_0's codes
      for (uint64_t e : iq1s_grid()) {
        uint32_t w = 0;
        for (int j = 0; j < 8; ++j) w |= uint32_t(int8_t(uint8_t(e >> (8 * j))) + 1) << kCrumbPos[j];
        append_dword(out, w);
      }
      break;
    case TensorType::IQ2_S:
    case TensorType::IQ3_S:
      if (type == TensorType::IQ2_S)
        for (uint64_t e : iq2s_grid()) append_dword(out, uint32_t(e)), append_dword(out, uint32_t(e >> 32));
      else
        for (uint32_t e : iq3s_grid()) append_dword(out, e);
      append_sign_bytes(out, 16, 0, [](uint32_t v) { return v; });  // by either nibble of a sign byte
      break;
    case TensorType::IQ3_XXS:
      for (uint32_t e : iq3xxs_grid()) append_dword(out, e);
      append_code_signs(out);
      break;
    default: break;
  }
  return out;
}

int64_t gemv_table_bytes(TensorType type) {
  const int64_t n = int64_t(gemv_table(type).size());
  return (n + 255) / 256 * 256;
}

}  // namespace k100::quant
