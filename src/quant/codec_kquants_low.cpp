// Q2_K and Q3_K: 256-element super-blocks of 2- and 3-bit codes in runs of
// 16 elements. Q2_K: per run a 4-bit scale and a 4-bit min under two f16
// super-scales, value d * sc * q - dmin * m; Q3_K: per run a 6-bit scale
// (stored + 32) under one f16 super-scale, value d * (sc - 32) * (q - 4).
//
// Both put element 128 h + 32 s + l (l < 32) in bits 2s of qs[32 h + l],
// its run being 16 h / 2 + 2 s + l / 16; Q3_K's third bit is bit 4 h + s of
// hmask[l] (set: no -4).
#include <algorithm>
#include <cstring>

#include "codec_common.h"
#include "k100/quant/codec.h"

namespace k100::quant {
namespace {

using detail::round_clamp;

// Element e's byte in qs and its shift.
constexpr int code_byte(int e) { return 32 * (e / 128) + e % 32; }
constexpr int code_shift(int e) { return 2 * (e % 128 / 32); }

// Q3_K's sixteen 6-bit scales from their 12 bytes: low nibbles of bytes 0-7
// (scales 0-7), high nibbles (scales 8-15), the top two bits in bytes 8-11
// (scale i: bits 2 (i / 4) of byte 8 + i % 4).
int q3_scale(const uint8_t* scales, int i) {
  const int low = i < 8 ? scales[i] & 0x0f : scales[i - 8] >> 4;
  return low | (((scales[8 + i % 4] >> (2 * (i / 4))) & 3) << 4);
}

void pack_q3_scales(const int* sc, uint8_t* scales) {
  std::memset(scales, 0, 12);
  for (int i = 0; i < 16; ++i) {
    if (i < 8) scales[i] = uint8_t(scales[i] | (sc[i] & 0x0f));
    else scales[i - 8] = uint8_t(scales[i - 8] | ((sc[i] & 0x0f) << 4));
    scales[8 + i % 4] = uint8_t(scales[8 + i % 4] | ((sc[i] >> 4) << (2 * (i / 4))));
  }
}

// Squared error of the 16 values x under x ~ dl * q - ml, q in [0, qmax]
// (codes into q).
double affine_error(const float* x, float dl, float ml, int qmax, uint8_t* q) {
  double err = 0.0;
  for (int i = 0; i < 16; ++i) {
    q[i] = uint8_t(dl > 0.0f ? round_clamp((x[i] + ml) / dl, 0, qmax) : 0);
    const double r = double(x[i]) - double(dl * float(q[i]) - ml);
    err += r * r;
  }
  return err;
}

// Squared error of x ~ dl * (q - 4), q in [0, 7].
double symmetric_error(const float* x, float dl, uint8_t* q) {
  double err = 0.0;
  for (int i = 0; i < 16; ++i) {
    q[i] = uint8_t((dl != 0.0f ? round_clamp(x[i] / dl, -4, 3) : 0) + 4);
    const double r = double(x[i]) - double(dl * float(int(q[i]) - 4));
    err += r * r;
  }
  return err;
}

}  // namespace

void dequantize(const BlockQ2_K* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b, y += kSuperBlock) {
    const BlockQ2_K& blk = blocks[b];
    const float d = f16_to_f32(blk.d), dmin = f16_to_f32(blk.dmin);
    for (int r = 0; r < 16; ++r) {
      const float dl = d * float(blk.scales[r] & 0x0f), ml = dmin * float(blk.scales[r] >> 4);
      for (int e = 16 * r; e < 16 * r + 16; ++e) {
        const int q = (blk.qs[code_byte(e)] >> code_shift(e)) & 3;
        y[e] = dl * float(q) - ml;
      }
    }
  }
}

void dequantize(const BlockQ3_K* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b, y += kSuperBlock) {
    const BlockQ3_K& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    for (int r = 0; r < 16; ++r) {
      const float dl = d * float(q3_scale(blk.scales, r) - 32);
      for (int e = 16 * r; e < 16 * r + 16; ++e) {
        const int low = (blk.qs[code_byte(e)] >> code_shift(e)) & 3;
        const bool high = (blk.hmask[e % 32] >> (4 * (e / 128) + e % 128 / 32)) & 1;
        y[e] = dl * float(low - (high ? 0 : 4));
      }
    }
  }
}

// Per run an affine fit (q in 0..3, min >= 0), the super-scales that put
// the largest scale and min on 15, then per run the 4-bit pair of least
// squared error among the rounded one and its neighbours.
void quantize(const float* src, size_t count, BlockQ2_K* blocks) {
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock], s[16], o[16];
    detail::load_finite(src, kSuperBlock, x);
    for (int r = 0; r < 16; ++r) detail::fit_affine(x + 16 * r, 16, 3, true, &s[r], &o[r]);
    const auto d = detail::half_scale(*std::max_element(s, s + 16) / 15.0f);
    const auto dmin = detail::half_scale(*std::max_element(o, o + 16) / 15.0f);
    BlockQ2_K& blk = blocks[b];
    blk.d = d.bits;
    blk.dmin = dmin.bits;
    std::memset(blk.qs, 0, sizeof blk.qs);
    for (int r = 0; r < 16; ++r) {
      const int sc0 = d.value > 0.0f ? round_clamp(s[r] / d.value, 0, 15) : 0;
      const int m0 = dmin.value > 0.0f ? round_clamp(o[r] / dmin.value, 0, 15) : 0;
      uint8_t q[16], trial[16];
      double best = -1.0;
      int best_sc = sc0, best_m = m0;
      for (int sc = std::max(0, sc0 - 1); sc <= std::min(15, sc0 + 1); ++sc)
        for (int m = std::max(0, m0 - 1); m <= std::min(15, m0 + 1); ++m) {
          const double e = affine_error(x + 16 * r, d.value * float(sc), dmin.value * float(m), 3, trial);
          if (best < 0.0 || e < best) best = e, best_sc = sc, best_m = m, std::memcpy(q, trial, 16);
        }
      blk.scales[r] = uint8_t(best_sc | (best_m << 4));
      for (int i = 0; i < 16; ++i) {
        const int e = 16 * r + i;
        blk.qs[code_byte(e)] = uint8_t(blk.qs[code_byte(e)] | (q[i] << code_shift(e)));
      }
    }
  }
}

// Per run the best free scale over the levels -4..3, a super-scale that
// puts the largest on the end of the 6-bit range (sc - 32 = -32), then per
// run the scale of least squared error among the rounded one and its
// neighbours.
void quantize(const float* src, size_t count, BlockQ3_K* blocks) {
  static const float kLevels[8] = {-4, -3, -2, -1, 0, 1, 2, 3};
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock], sub[16];
    uint8_t q[16], trial[16];
    detail::load_finite(src, kSuperBlock, x);
    for (int r = 0; r < 16; ++r) sub[r] = detail::fit_scale(x + 16 * r, 16, kLevels, 8, false, q);
    const auto d = detail::half_scale(detail::signed_max(sub, 16) / -32.0f);
    BlockQ3_K& blk = blocks[b];
    blk.d = d.bits;
    std::memset(blk.qs, 0, sizeof blk.qs);
    std::memset(blk.hmask, 0, sizeof blk.hmask);
    int sc[16];
    for (int r = 0; r < 16; ++r) {
      const int sc0 = d.value != 0.0f ? round_clamp(sub[r] / d.value + 32.0f, 0, 63) : 32;
      double best = -1.0;
      sc[r] = sc0;
      for (int c = std::max(0, sc0 - 1); c <= std::min(63, sc0 + 1); ++c) {
        const double e = symmetric_error(x + 16 * r, d.value * float(c - 32), trial);
        if (best < 0.0 || e < best) best = e, sc[r] = c, std::memcpy(q, trial, 16);
      }
      for (int i = 0; i < 16; ++i) {
        const int e = 16 * r + i;
        blk.qs[code_byte(e)] = uint8_t(blk.qs[code_byte(e)] | ((q[i] & 3) << code_shift(e)));
        if (q[i] & 4) blk.hmask[e % 32] = uint8_t(blk.hmask[e % 32] | (1 << (4 * (e / 128) + e % 128 / 32)));
      }
    }
    pack_q3_scales(sc, blk.scales);
  }
}

}  // namespace k100::quant
