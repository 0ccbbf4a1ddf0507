// Q4_K, Q5_K and Q6_K: 256-element super-blocks with an f16 super-scale and
// 6-bit (Q4_K, Q5_K: scale and min per 32 elements) or 8-bit (Q6_K: signed
// scale per 16 elements) sub-scales.
#include <algorithm>

#include "codec_common.h"
#include "k100/quant/codec.h"

namespace k100::quant {
namespace {

using detail::round_clamp;

// The six-bit (scale, min) pair j of a Q4_K / Q5_K block.
void scale_min(const uint8_t* scales, int j, int* sc, int* m) {
  if (j < 4) {
    *sc = scales[j] & 63;
    *m = scales[j + 4] & 63;
  } else {
    *sc = (scales[j + 4] & 0x0f) | ((scales[j - 4] >> 6) << 4);
    *m = (scales[j + 4] >> 4) | ((scales[j] >> 6) << 4);
  }
}

void pack_scale_min(const int* sc, const int* m, uint8_t* scales) {
  for (int k = 0; k < 4; ++k) {
    scales[k] = uint8_t(sc[k] | ((sc[k + 4] >> 4) << 6));
    scales[k + 4] = uint8_t(m[k] | ((m[k + 4] >> 4) << 6));
    scales[k + 8] = uint8_t((sc[k + 4] & 0x0f) | ((m[k + 4] & 0x0f) << 4));
  }
}

// Shared by Q4_K and Q5_K: super-scales, 6-bit pairs and the codes (0..qmax)
// of the 256 elements.
void quantize_affine_superblock(const float* src, int qmax, uint16_t* d_bits, uint16_t* dmin_bits,
                                uint8_t* scales, uint8_t* q) {
  float x[kSuperBlock];
  detail::load_finite(src, kSuperBlock, x);
  float s[8], o[8];
  for (int j = 0; j < 8; ++j) detail::fit_affine(x + 32 * j, 32, qmax, true, &s[j], &o[j]);
  const auto d = detail::half_scale(*std::max_element(s, s + 8) / 63.0f);
  const auto dmin = detail::half_scale(*std::max_element(o, o + 8) / 63.0f);
  int sc[8], m[8];
  for (int j = 0; j < 8; ++j) {
    sc[j] = d.value > 0.0f ? round_clamp(s[j] / d.value, 0, 63) : 0;
    m[j] = dmin.value > 0.0f ? round_clamp(o[j] / dmin.value, 0, 63) : 0;
    const float d1 = d.value * float(sc[j]);
    const float m1 = dmin.value * float(m[j]);
    for (int i = 0; i < 32; ++i)
      q[32 * j + i] = uint8_t(d1 > 0.0f ? round_clamp((x[32 * j + i] + m1) / d1, 0, qmax) : 0);
  }
  *d_bits = d.bits;
  *dmin_bits = dmin.bits;
  pack_scale_min(sc, m, scales);
}

// Q4_K and Q5_K decode alike but for the fifth bit (qh is null for Q4_K):
// chunk s of 64 elements takes the low nibbles of qs[32s..] with pair 2s and
// the high nibbles with pair 2s + 1.
void dequantize_affine_superblock(uint16_t d_bits, uint16_t dmin_bits, const uint8_t* scales, const uint8_t* qs,
                                  const uint8_t* qh, float* y) {
  const float d = f16_to_f32(d_bits), dmin = f16_to_f32(dmin_bits);
  for (int s = 0; s < 4; ++s, y += 64) {
    int sc0, m0, sc1, m1;
    scale_min(scales, 2 * s, &sc0, &m0);
    scale_min(scales, 2 * s + 1, &sc1, &m1);
    const float d0 = d * float(sc0), o0 = dmin * float(m0);
    const float d1 = d * float(sc1), o1 = dmin * float(m1);
    const uint8_t* q = qs + 32 * s;
    for (int i = 0; i < 32; ++i) {
      const int lo = (q[i] & 0x0f) + (qh ? ((qh[i] >> (2 * s)) & 1) * 16 : 0);
      const int hi = (q[i] >> 4) + (qh ? ((qh[i] >> (2 * s + 1)) & 1) * 16 : 0);
      y[i] = d0 * float(lo) - o0;
      y[i + 32] = d1 * float(hi) - o1;
    }
  }
}

}  // namespace

void dequantize(const BlockQ4_K* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b, y += kSuperBlock)
    dequantize_affine_superblock(blocks[b].d, blocks[b].dmin, blocks[b].scales, blocks[b].qs, nullptr, y);
}

void dequantize(const BlockQ5_K* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b, y += kSuperBlock)
    dequantize_affine_superblock(blocks[b].d, blocks[b].dmin, blocks[b].scales, blocks[b].qs, blocks[b].qh, y);
}

void dequantize(const BlockQ6_K* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b) {
    const BlockQ6_K& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    for (int h = 0; h < 2; ++h, y += 128) {
      const uint8_t* ql = blk.ql + 64 * h;
      const uint8_t* qh = blk.qh + 32 * h;
      const int8_t* sc = blk.scales + 8 * h;
      for (int l = 0; l < 32; ++l) {
        const int t = l / 16;
        const int q1 = ((ql[l] & 0x0f) | ((qh[l] & 3) << 4)) - 32;
        const int q2 = ((ql[l + 32] & 0x0f) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        y[l] = d * float(sc[t]) * float(q1);
        y[l + 32] = d * float(sc[t + 2]) * float(q2);
        y[l + 64] = d * float(sc[t + 4]) * float(q3);
        y[l + 96] = d * float(sc[t + 6]) * float(q4);
      }
    }
  }
}

void quantize(const float* src, size_t count, BlockQ4_K* blocks) {
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    BlockQ4_K& blk = blocks[b];
    uint8_t q[kSuperBlock];
    quantize_affine_superblock(src, 15, &blk.d, &blk.dmin, blk.scales, q);
    for (int s = 0; s < 4; ++s)
      for (int i = 0; i < 32; ++i) blk.qs[32 * s + i] = uint8_t(q[64 * s + i] | (q[64 * s + 32 + i] << 4));
  }
}

void quantize(const float* src, size_t count, BlockQ5_K* blocks) {
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    BlockQ5_K& blk = blocks[b];
    uint8_t q[kSuperBlock];
    quantize_affine_superblock(src, 31, &blk.d, &blk.dmin, blk.scales, q);
    std::fill(std::begin(blk.qh), std::end(blk.qh), uint8_t(0));
    for (int s = 0; s < 4; ++s)
      for (int i = 0; i < 32; ++i) {
        const int lo = q[64 * s + i], hi = q[64 * s + 32 + i];
        blk.qs[32 * s + i] = uint8_t((lo & 0x0f) | ((hi & 0x0f) << 4));
        blk.qh[i] = uint8_t(blk.qh[i] | ((lo >> 4) << (2 * s)) | ((hi >> 4) << (2 * s + 1)));
      }
  }
}

void quantize(const float* src, size_t count, BlockQ6_K* blocks) {
  static const float kLevels[64] = {
      -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17,
      -16, -15, -14, -13, -12, -11, -10, -9,  -8,  -7,  -6,  -5,  -4,  -3,  -2,  -1,
      0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,  11,  12,  13,  14,  15,
      16,  17,  18,  19,  20,  21,  22,  23,  24,  25,  26,  27,  28,  29,  30,  31};
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock];
    detail::load_finite(src, kSuperBlock, x);
    float sub[16];
    uint8_t code[16];
    for (int t = 0; t < 16; ++t) sub[t] = detail::fit_scale(x + 16 * t, 16, kLevels, 64, false, code);
    const auto d = detail::half_scale(detail::max_abs(sub, 16) / 127.0f);
    BlockQ6_K& blk = blocks[b];
    blk.d = d.bits;
    uint8_t q[kSuperBlock];  // codes + 32
    for (int t = 0; t < 16; ++t) {
      const int sc = d.value != 0.0f ? round_clamp(sub[t] / d.value, -128, 127) : 0;
      blk.scales[t] = int8_t(sc);
      const float dl = d.value * float(sc);
      for (int i = 0; i < 16; ++i)
        q[16 * t + i] = uint8_t((dl != 0.0f ? round_clamp(x[16 * t + i] / dl, -32, 31) : 0) + 32);
    }
    for (int h = 0; h < 2; ++h) {
      const uint8_t* qq = q + 128 * h;
      for (int l = 0; l < 32; ++l) {
        const int q1 = qq[l], q2 = qq[l + 32], q3 = qq[l + 64], q4 = qq[l + 96];
        blk.ql[64 * h + l] = uint8_t((q1 & 0x0f) | ((q3 & 0x0f) << 4));
        blk.ql[64 * h + l + 32] = uint8_t((q2 & 0x0f) | ((q4 & 0x0f) << 4));
        blk.qh[32 * h + l] = uint8_t((q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6));
      }
    }
  }
}

}  // namespace k100::quant
