// Q4_0, Q5_0, Q8_0, Q2_0, TQ1_0 and TQ2_0: one f16 scale per block times a
// small integer code.
#include <cstring>

#include "codec_common.h"
#include "k100/quant/codec.h"

namespace k100::quant {

using detail::half_scale;
using detail::load_finite;
using detail::round_clamp;

namespace {

// Q5_0's fifth bits: bit j of qh is element j's (j < 32).
uint32_t q5_high_bits(const uint8_t* qh) {
  uint32_t h;
  std::memcpy(&h, qh, 4);
  return h;
}

// TQ1_0 packs five base-3 digits in a byte, the first the most significant:
// byte = ceil(v * 256 / 243) for v = sum t_n 3^(4 - n), so that digit n is
// ((byte * 3^n mod 256) * 3) >> 8.
constexpr uint8_t kPow3[6] = {1, 3, 9, 27, 81, 243};
int trit(uint8_t byte, int n) { return (int(uint8_t(byte * kPow3[n])) * 3) >> 8; }
uint8_t pack_trits(const uint8_t* t, int digits) {
  int v = 0;
  for (int n = 0; n < digits; ++n) v += t[n] * kPow3[4 - n];
  return uint8_t((v * 256 + 242) / 243);
}

// TQ1_0's element order: byte m < 32 holds elements 32 n + m, byte 32 + m
// (m < 16) elements 160 + 16 n + m, qh byte j elements 240 + 4 n + j.
template <class F>
void for_each_tq1_byte(F&& f) {
  for (int m = 0; m < 32; ++m) f(m, 5, [m](int n) { return 32 * n + m; });
  for (int m = 0; m < 16; ++m) f(32 + m, 5, [m](int n) { return 160 + 16 * n + m; });
  for (int j = 0; j < 4; ++j) f(48 + j, 4, [j](int n) { return 240 + 4 * n + j; });
}

}  // namespace

void dequantize(const BlockQ4_0* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b, y += 32) {
    const BlockQ4_0& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    for (int j = 0; j < 16; ++j) {
      const int lo = (blk.qs[j] & 0x0f) - 8;
      const int hi = (blk.qs[j] >> 4) - 8;
      y[j] = float(lo) * d;
      y[j + 16] = float(hi) * d;
    }
  }
}

void dequantize(const BlockQ8_0* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b, y += 32) {
    const float d = f16_to_f32(blocks[b].d);
    for (int j = 0; j < 32; ++j) y[j] = float(blocks[b].qs[j]) * d;
  }
}

void dequantize(const BlockQ2_0* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b, y += 64) {
    const BlockQ2_0& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 4; ++j) y[4 * i + j] = float(int((blk.qs[i] >> (2 * j)) & 3) - 1) * d;
  }
}

void dequantize(const BlockQ5_0* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b, y += 32) {
    const BlockQ5_0& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    const uint32_t qh = q5_high_bits(blk.qh);
    for (int j = 0; j < 16; ++j) {
      const int lo = ((blk.qs[j] & 0x0f) | int(((qh >> j) & 1) << 4)) - 16;
      const int hi = ((blk.qs[j] >> 4) | int(((qh >> (j + 16)) & 1) << 4)) - 16;
      y[j] = float(lo) * d;
      y[j + 16] = float(hi) * d;
    }
  }
}

void dequantize(const BlockTQ2_0* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b) {
    const BlockTQ2_0& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    for (int e = 0; e < kSuperBlock; ++e) {
      const int q = (blk.qs[32 * (e / 128) + e % 32] >> (2 * (e % 128 / 32))) & 3;
      y[e] = float(q - 1) * d;
    }
    y += kSuperBlock;
  }
}

void dequantize(const BlockTQ1_0* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b, y += kSuperBlock) {
    const BlockTQ1_0& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    const auto* bytes = reinterpret_cast<const uint8_t*>(&blk);  // qs, then qh
    for_each_tq1_byte([&](int at, int digits, auto element) {
      for (int n = 0; n < digits; ++n) y[element(n)] = float(trit(bytes[at], n) - 1) * d;
    });
  }
}

void quantize(const float* src, size_t count, BlockQ4_0* blocks) {
  static const float kLevels[16] = {-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7};
  for (size_t b = 0; b < count; ++b, src += 32) {
    float x[32];
    uint8_t code[32];
    load_finite(src, 32, x);
    const float d = detail::fit_scale(x, 32, kLevels, 16, true, code);
    BlockQ4_0& blk = blocks[b];
    blk.d = f32_to_f16(d);
    for (int j = 0; j < 16; ++j) blk.qs[j] = uint8_t(code[j] | (code[j + 16] << 4));
  }
}

void quantize(const float* src, size_t count, BlockQ8_0* blocks) {
  for (size_t b = 0; b < count; ++b, src += 32) {
    float x[32];
    load_finite(src, 32, x);
    const auto d = half_scale(detail::max_abs(x, 32) / 127.0f);
    BlockQ8_0& blk = blocks[b];
    blk.d = d.bits;
    for (int j = 0; j < 32; ++j) blk.qs[j] = int8_t(d.value != 0.0f ? round_clamp(x[j] / d.value, -128, 127) : 0);
  }
}

void quantize(const float* src, size_t count, BlockQ2_0* blocks) {
  static const float kLevels[4] = {-1, 0, 1, 2};
  for (size_t b = 0; b < count; ++b, src += 64) {
    float x[64];
    uint8_t code[64];
    load_finite(src, 64, x);
    const float d = detail::fit_scale(x, 64, kLevels, 4, true, code);
    BlockQ2_0& blk = blocks[b];
    blk.d = f32_to_f16(d);
    for (int i = 0; i < 16; ++i)
      blk.qs[i] = uint8_t(code[4 * i] | (code[4 * i + 1] << 2) | (code[4 * i + 2] << 4) | (code[4 * i + 3] << 6));
  }
}

void quantize(const float* src, size_t count, BlockQ5_0* blocks) {
  static const float kLevels[32] = {-16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1,
                                    0,   1,   2,   3,   4,   5,   6,   7,  8,  9,  10, 11, 12, 13, 14, 15};
  for (size_t b = 0; b < count; ++b, src += 32) {
    float x[32];
    uint8_t code[32];
    load_finite(src, 32, x);
    const float d = detail::fit_scale(x, 32, kLevels, 32, true, code);
    BlockQ5_0& blk = blocks[b];
    blk.d = f32_to_f16(d);
    uint32_t qh = 0;
    for (int j = 0; j < 16; ++j) {
      blk.qs[j] = uint8_t((code[j] & 0x0f) | ((code[j + 16] & 0x0f) << 4));
      qh |= uint32_t(code[j] >> 4) << j | uint32_t(code[j + 16] >> 4) << (j + 16);
    }
    std::memcpy(blk.qh, &qh, 4);
  }
}

void quantize(const float* src, size_t count, BlockTQ2_0* blocks) {
  static const float kLevels[4] = {-1, 0, 1, 2};
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock];
    uint8_t code[kSuperBlock];
    load_finite(src, kSuperBlock, x);
    const float d = detail::fit_scale(x, kSuperBlock, kLevels, 4, true, code);
    BlockTQ2_0& blk = blocks[b];
    blk.d = f32_to_f16(d);
    std::memset(blk.qs, 0, sizeof blk.qs);
    for (int e = 0; e < kSuperBlock; ++e)
      blk.qs[32 * (e / 128) + e % 32] |= uint8_t(code[e] << (2 * (e % 128 / 32)));
  }
}

void quantize(const float* src, size_t count, BlockTQ1_0* blocks) {
  static const float kLevels[3] = {-1, 0, 1};
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock];
    uint8_t code[kSuperBlock];
    load_finite(src, kSuperBlock, x);
    const float d = detail::fit_scale(x, kSuperBlock, kLevels, 3, true, code);
    BlockTQ1_0& blk = blocks[b];
    blk.d = f32_to_f16(d);
    auto* bytes = reinterpret_cast<uint8_t*>(&blk);  // qs, then qh
    for_each_tq1_byte([&](int at, int digits, auto element) {
      uint8_t t[5];
      for (int n = 0; n < digits; ++n) t[n] = code[element(n)];
      bytes[at] = pack_trits(t, digits);
    });
  }
}

}  // namespace k100::quant
