// Q4_1 and Q5_1: 32 elements with an f16 scale d and an f16 minimum m,
// value q * d + m for 4- or 5-bit codes q.
#include <cmath>
#include <cstring>

#include "codec_common.h"
#include "k100/quant/codec.h"

namespace k100::quant {
namespace {

using detail::round_clamp;

// The fifth bits of Q5_1 (as Q5_0): bit j of qh belongs to element j.
uint32_t high_bits(const uint8_t* qh) {
  uint32_t h;
  std::memcpy(&h, qh, 4);
  return h;
}

// d, m and the codes of 32 elements: the affine fit (any sign of minimum),
// then d and m as the block stores them (f16) and the codes that suit those,
// and the least-squares (d, m) for those codes rounded again; the pair of
// smaller squared error is kept.
void fit_block(const float* src, int qmax, uint16_t* d_bits, uint16_t* m_bits, uint8_t* code) {
  float x[32];
  detail::load_finite(src, 32, x);
  float s, o;
  detail::fit_affine(x, 32, qmax, false, &s, &o);
  // out of f16's range: zeros (the candidates below are not finite)
  *d_bits = *m_bits = 0;
  std::memset(code, 0, 32);
  double best = -1.0;
  auto consider = [&](float d_want, float m_want) {
    const auto d = detail::half_scale(d_want), m = detail::half_scale(m_want);
    if (!std::isfinite(d.value) || !std::isfinite(m.value)) return;
    uint8_t c[32];
    double err = 0.0;
    for (int i = 0; i < 32; ++i) {
      c[i] = uint8_t(d.value > 0.0f ? round_clamp((x[i] - m.value) / d.value, 0, qmax) : 0);
      const double r = double(x[i]) - double(float(c[i]) * d.value + m.value);
      err += r * r;
    }
    if (best < 0.0 || err < best) {
      best = err;
      *d_bits = d.bits;
      *m_bits = m.bits;
      std::memcpy(code, c, 32);
    }
  };
  consider(s, -o);
  // the refit of d and m for the codes the rounded pair chose
  uint8_t c[32];
  std::memcpy(c, code, 32);
  double sq = 0, sqq = 0, sx = 0, sxq = 0;
  for (int i = 0; i < 32; ++i) sq += c[i], sqq += double(c[i]) * c[i], sx += x[i], sxq += double(x[i]) * c[i];
  const double det = 32 * sqq - sq * sq;
  if (det > 0.0) {
    const double d = (32 * sxq - sq * sx) / det, m = (sx - d * sq) / 32;
    if (d > 0.0) consider(float(d), float(m));
  }
}

void pack_codes(const uint8_t* code, uint8_t* qs, uint8_t* qh) {
  uint32_t h = 0;
  for (int j = 0; j < 16; ++j) {
    qs[j] = uint8_t((code[j] & 0x0f) | ((code[j + 16] & 0x0f) << 4));
    h |= uint32_t(code[j] >> 4) << j | uint32_t(code[j + 16] >> 4) << (j + 16);
  }
  if (qh) std::memcpy(qh, &h, 4);
}

}  // namespace

void dequantize(const BlockQ4_1* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b, y += 32) {
    const BlockQ4_1& blk = blocks[b];
    const float d = f16_to_f32(blk.d), m = f16_to_f32(blk.m);
    for (int j = 0; j < 16; ++j) {
      y[j] = float(blk.qs[j] & 0x0f) * d + m;
      y[j + 16] = float(blk.qs[j] >> 4) * d + m;
    }
  }
}

void dequantize(const BlockQ5_1* blocks, size_t count, float* y) {
  for (size_t b = 0; b < count; ++b, y += 32) {
    const BlockQ5_1& blk = blocks[b];
    const float d = f16_to_f32(blk.d), m = f16_to_f32(blk.m);
    const uint32_t qh = high_bits(blk.qh);
    for (int j = 0; j < 16; ++j) {
      const int lo = (blk.qs[j] & 0x0f) | int(((qh >> j) & 1) << 4);
      const int hi = (blk.qs[j] >> 4) | int(((qh >> (j + 16)) & 1) << 4);
      y[j] = float(lo) * d + m;
      y[j + 16] = float(hi) * d + m;
    }
  }
}

void quantize(const float* src, size_t count, BlockQ4_1* blocks) {
  for (size_t b = 0; b < count; ++b, src += 32) {
    uint8_t code[32];
    fit_block(src, 15, &blocks[b].d, &blocks[b].m, code);
    pack_codes(code, blocks[b].qs, nullptr);
  }
}

void quantize(const float* src, size_t count, BlockQ5_1* blocks) {
  for (size_t b = 0; b < count; ++b, src += 32) {
    uint8_t code[32];
    fit_block(src, 31, &blocks[b].d, &blocks[b].m, code);
    pack_codes(code, blocks[b].qs, blocks[b].qh);
  }
}

}  // namespace k100::quant
