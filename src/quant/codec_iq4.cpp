// IQ4_NL and IQ4_XS: 4-bit indices into the 16-level non-linear codebook,
// with one f16 scale per 32 elements (IQ4_NL) or an f16 super-scale and
// 6-bit sub-scales (IQ4_XS).
#include "codec_common.h"
#include "k100/quant/codec.h"
#include "k100/quant/iq_tables.h"

namespace k100::quant {
namespace {

using detail::round_clamp;

struct Codebook {
  float levels[16];
  Codebook() {
    for (int i = 0; i < 16; ++i) levels[i] = float(kvalues_iq4nl()[size_t(i)]);
  }
};
const Codebook& codebook() {
  static const Codebook c;
  return c;
}

void pack_nibbles(const uint8_t* code, uint8_t* qs) {
  for (int j = 0; j < 16; ++j) qs[j] = uint8_t(code[j] | (code[j + 16] << 4));
}

}  // namespace

void dequantize(const BlockIQ4_NL* blocks, size_t count, float* y) {
  const auto kv = kvalues_iq4nl();
  for (size_t b = 0; b < count; ++b, y += 32) {
    const float d = f16_to_f32(blocks[b].d);
    for (int j = 0; j < 16; ++j) {
      y[j] = d * float(kv[blocks[b].qs[j] & 0x0f]);
      y[j + 16] = d * float(kv[blocks[b].qs[j] >> 4]);
    }
  }
}

void dequantize(const BlockIQ4_XS* blocks, size_t count, float* y) {
  const auto kv = kvalues_iq4nl();
  for (size_t b = 0; b < count; ++b) {
    const BlockIQ4_XS& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    for (int ib = 0; ib < 8; ++ib, y += 32) {
      const int ls = ((blk.scales_l[ib / 2] >> (4 * (ib % 2))) & 0x0f) | (((blk.scales_h >> (2 * ib)) & 3) << 4);
      const float dl = d * float(ls - 32);
      const uint8_t* qs = blk.qs + 16 * ib;
      for (int j = 0; j < 16; ++j) {
        y[j] = dl * float(kv[qs[j] & 0x0f]);
        y[j + 16] = dl * float(kv[qs[j] >> 4]);
      }
    }
  }
}

void quantize(const float* src, size_t count, BlockIQ4_NL* blocks) {
  const Codebook& cb = codebook();
  for (size_t b = 0; b < count; ++b, src += 32) {
    float x[32];
    uint8_t code[32];
    detail::load_finite(src, 32, x);
    const float d = detail::fit_scale(x, 32, cb.levels, 16, true, code);
    blocks[b].d = f32_to_f16(d);
    pack_nibbles(code, blocks[b].qs);
  }
}

void quantize(const float* src, size_t count, BlockIQ4_XS* blocks) {
  const Codebook& cb = codebook();
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock];
    detail::load_finite(src, kSuperBlock, x);
    // the best free scale of each sub-block, then a super-scale that puts the
    // largest of them on the end of the 6-bit range (ls - 32 = -32)
    float sub[8];
    uint8_t code[32];
    for (int ib = 0; ib < 8; ++ib) sub[ib] = detail::fit_scale(x + 32 * ib, 32, cb.levels, 16, false, code);
    const auto d = detail::half_scale(detail::signed_max(sub, 8) / -32.0f);
    BlockIQ4_XS& blk = blocks[b];
    blk.d = d.bits;
    blk.scales_h = 0;
    for (int ib = 0; ib < 8; ++ib) {
      const int ls = d.value != 0.0f ? round_clamp(sub[ib] / d.value + 32.0f, 0, 63) : 32;
      const float dl = d.value * float(ls - 32);
      for (int j = 0; j < 32; ++j)
        code[j] = uint8_t(dl != 0.0f ? detail::nearest_level(cb.levels, 16, x[32 * ib + j] / dl)
                                     : detail::nearest_level(cb.levels, 16, 0.0f));
      pack_nibbles(code, blk.qs + 16 * ib);
      if (ib % 2 == 0) blk.scales_l[ib / 2] = uint8_t(ls & 0x0f);
      else blk.scales_l[ib / 2] |= uint8_t((ls & 0x0f) << 4);
      blk.scales_h = uint16_t(blk.scales_h | ((ls >> 4) << (2 * ib)));
    }
  }
}

}  // namespace k100::quant
