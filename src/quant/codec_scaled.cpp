// Q4_0, Q8_0 and Q2_0: one f16 scale per block times a small integer code.
#include "codec_common.h"
#include "k100/quant/codec.h"

namespace k100::quant {

using detail::half_scale;
using detail::load_finite;
using detail::round_clamp;

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

}  // namespace k100::quant
