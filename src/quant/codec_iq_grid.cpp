// IQ2_S, IQ3_S and IQ3_XXS: groups of 4 or 8 magnitudes taken from a grid,
// with separate sign bits and 4-bit sub-scales under an f16 super-scale.
#include <bit>

#include "codec_common.h"
#include "grid_search.h"
#include "k100/quant/codec.h"
#include "k100/quant/iq_tables.h"

namespace k100::quant {
namespace {

using detail::round_clamp;

uint8_t grid_byte(uint64_t entry, int j) { return uint8_t((entry >> (8 * j)) & 0xff); }

float sign_of(uint8_t signs, int j) { return (signs & kmask_iq2xs()[size_t(j)]) ? -1.0f : 1.0f; }

uint8_t sign_bits(const float* x, int n) {
  uint8_t s = 0;
  for (int j = 0; j < n; ++j)
    if (x[j] < 0.0f) s = uint8_t(s | (1u << j));
  return s;
}

// Magnitudes of x[0..n) in units of db (0 when db is 0).
void magnitudes(const float* x, int n, float db, float* t) {
  for (int j = 0; j < n; ++j) t[j] = db > 0.0f ? std::fabs(x[j]) / db : 0.0f;
}

// The first step of every grid encoder: finite inputs, the scale each group
// of `group` elements wants (its largest magnitude on the grid's top level),
// and the f16 super-scale that reaches the largest of them with the largest
// sub-scale factor.
detail::HalfScale group_scales(const float* src, int group, float top_level, float max_factor, float* x,
                               float* want) {
  detail::load_finite(src, kSuperBlock, x);
  float top = 0.0f;
  for (int k = 0; k < kSuperBlock / group; ++k)
    top = std::fmax(top, want[k] = detail::max_abs(x + group * k, group) / top_level);
  return detail::half_scale(top / max_factor);
}

const detail::GridSearch<8>& iq2s_search() {
  static const detail::GridSearch<8> g{std::span<const uint64_t>(iq2s_grid())};
  return g;
}
const detail::GridSearch<4>& iq3s_search() {
  static const detail::GridSearch<4> g{std::span<const uint32_t>(iq3s_grid())};
  return g;
}
const detail::GridSearch<4>& iq3xxs_search() {
  static const detail::GridSearch<4> g{std::span<const uint32_t>(iq3xxs_grid())};
  return g;
}

}  // namespace

void dequantize(const BlockIQ2_S* blocks, size_t count, float* y) {
  const auto grid = iq2s_grid();
  for (size_t b = 0; b < count; ++b) {
    const BlockIQ2_S& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    for (int ib = 0; ib < 8; ++ib) {
      const float db[2] = {d * (0.5f + float(blk.scales[ib] & 0x0f)) * 0.25f,
                           d * (0.5f + float(blk.scales[ib] >> 4)) * 0.25f};
      for (int l = 0; l < 4; ++l, y += 8) {
        const int idx = blk.qs[4 * ib + l] | ((blk.qh[ib] << (8 - 2 * l)) & 0x300);
        const uint8_t signs = blk.qs[32 + 4 * ib + l];
        for (int j = 0; j < 8; ++j) y[j] = db[l / 2] * float(grid_byte(grid[size_t(idx)], j)) * sign_of(signs, j);
      }
    }
  }
}

void dequantize(const BlockIQ3_S* blocks, size_t count, float* y) {
  const auto grid = iq3s_grid();
  for (size_t b = 0; b < count; ++b) {
    const BlockIQ3_S& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    for (int ib = 0; ib < 8; ++ib) {  // 32-element halves: pair ib / 2, half ib % 2
      const int nib = (blk.scales[ib / 2] >> (4 * (ib % 2))) & 0x0f;
      const float db = d * float(1 + 2 * nib);
      const uint8_t* qs = blk.qs + 8 * ib;
      const int qh = blk.qh[ib];
      for (int l = 0; l < 4; ++l, y += 8) {
        const int i1 = qs[2 * l] | ((qh << (8 - 2 * l)) & 256);
        const int i2 = qs[2 * l + 1] | ((qh << (7 - 2 * l)) & 256);
        const uint8_t signs = blk.signs[4 * ib + l];
        for (int j = 0; j < 4; ++j) {
          y[j] = db * float(grid_byte(grid[size_t(i1)], j)) * sign_of(signs, j);
          y[j + 4] = db * float(grid_byte(grid[size_t(i2)], j)) * sign_of(signs, j + 4);
        }
      }
    }
  }
}

void dequantize(const BlockIQ3_XXS* blocks, size_t count, float* y) {
  const auto grid = iq3xxs_grid();
  const auto ksigns = ksigns_iq2xs();
  for (size_t b = 0; b < count; ++b) {
    const BlockIQ3_XXS& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    for (int ib = 0; ib < 8; ++ib) {
      uint32_t aux;
      std::memcpy(&aux, blk.scales_signs + 4 * ib, 4);
      const float db = d * (0.5f + float(aux >> 28)) * 0.5f;
      for (int l = 0; l < 4; ++l, y += 8) {
        const uint8_t signs = ksigns[(aux >> (7 * l)) & 127];
        const uint32_t g1 = grid[blk.qs[8 * ib + 2 * l]];
        const uint32_t g2 = grid[blk.qs[8 * ib + 2 * l + 1]];
        for (int j = 0; j < 4; ++j) {
          y[j] = db * float(grid_byte(g1, j)) * sign_of(signs, j);
          y[j + 4] = db * float(grid_byte(g2, j)) * sign_of(signs, j + 4);
        }
      }
    }
  }
}

void quantize(const float* src, size_t count, BlockIQ2_S* blocks) {
  const auto& search = iq2s_search();
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock], want[16];  // one scale per 16 elements; top level 43, factors up to (0.5 + 15) / 4
    const auto d = group_scales(src, 16, 43.0f, 3.875f, x, want);
    BlockIQ2_S& blk = blocks[b];
    blk = BlockIQ2_S{};
    blk.d = d.bits;
    for (int ib = 0; ib < 8; ++ib) {
      int nib[2];
      for (int k = 0; k < 2; ++k)
        nib[k] = d.value > 0.0f ? round_clamp(4.0f * want[2 * ib + k] / d.value - 0.5f, 0, 15) : 0;
      blk.scales[ib] = uint8_t(nib[0] | (nib[1] << 4));
      for (int l = 0; l < 4; ++l) {
        const float* xs = x + 32 * ib + 8 * l;
        const float db = d.value * (0.5f + float(nib[l / 2])) * 0.25f;
        float t[8];
        magnitudes(xs, 8, db, t);
        const int idx = search.nearest(t);
        blk.qs[4 * ib + l] = uint8_t(idx & 0xff);
        blk.qh[ib] = uint8_t(blk.qh[ib] | ((idx >> 8) << (2 * l)));
        blk.qs[32 + 4 * ib + l] = sign_bits(xs, 8);
      }
    }
  }
}

void quantize(const float* src, size_t count, BlockIQ3_S* blocks) {
  const auto& search = iq3s_search();
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock], want[8];  // one scale per 32 elements; top level 15, factors up to 1 + 2 * 15
    const auto d = group_scales(src, 32, 15.0f, 31.0f, x, want);
    BlockIQ3_S& blk = blocks[b];
    blk = BlockIQ3_S{};
    blk.d = d.bits;
    for (int ib = 0; ib < 8; ++ib) {
      const int nib = d.value > 0.0f ? round_clamp((want[ib] / d.value - 1.0f) * 0.5f, 0, 15) : 0;
      blk.scales[ib / 2] = uint8_t(blk.scales[ib / 2] | (nib << (4 * (ib % 2))));
      const float db = d.value * float(1 + 2 * nib);
      for (int l = 0; l < 4; ++l) {
        const float* xs = x + 32 * ib + 8 * l;
        float t[8];
        magnitudes(xs, 8, db, t);
        const int i1 = search.nearest(t), i2 = search.nearest(t + 4);
        blk.qs[8 * ib + 2 * l] = uint8_t(i1 & 0xff);
        blk.qs[8 * ib + 2 * l + 1] = uint8_t(i2 & 0xff);
        blk.qh[ib] = uint8_t(blk.qh[ib] | ((i1 >> 8) << (2 * l)) | ((i2 >> 8) << (2 * l + 1)));
        blk.signs[4 * ib + l] = sign_bits(xs, 8);
      }
    }
  }
}

void quantize(const float* src, size_t count, BlockIQ3_XXS* blocks) {
  const auto& search = iq3xxs_search();
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock], want[8];  // one scale per 32 elements; top level 62, factors up to (0.5 + 15) / 2
    const auto d = group_scales(src, 32, 62.0f, 7.75f, x, want);
    BlockIQ3_XXS& blk = blocks[b];
    blk = BlockIQ3_XXS{};
    blk.d = d.bits;
    for (int ib = 0; ib < 8; ++ib) {
      const int s = d.value > 0.0f ? round_clamp(2.0f * want[ib] / d.value - 0.5f, 0, 15) : 0;
      const float db = d.value * (0.5f + float(s)) * 0.5f;
      uint32_t aux = uint32_t(s) << 28;
      for (int l = 0; l < 4; ++l) {
        const float* xs = x + 32 * ib + 8 * l;
        float t[8];
        magnitudes(xs, 8, db, t);
        const int i1 = search.nearest(t), i2 = search.nearest(t + 4);
        blk.qs[8 * ib + 2 * l] = uint8_t(i1);
        blk.qs[8 * ib + 2 * l + 1] = uint8_t(i2);
        // Only even counts of negative signs can be stored: when the count is
        // odd, flip the element whose flip costs least (|x| * magnitude).
        uint8_t signs = sign_bits(xs, 8);
        if (std::popcount(unsigned(signs)) % 2) {
          int flip = 0;
          float cost = -1.0f;
          for (int j = 0; j < 8; ++j) {
            const float g = float(j < 4 ? search.entry(i1)[size_t(j)] : search.entry(i2)[size_t(j - 4)]);
            const float c = std::fabs(xs[j]) * g;
            if (cost < 0.0f || c < cost) cost = c, flip = j;
          }
          signs = uint8_t(signs ^ (1u << flip));
        }
        aux |= uint32_t(signs & 127) << (7 * l);
      }
      std::memcpy(blk.scales_signs + 4 * ib, &aux, 4);
    }
  }
}

}  // namespace k100::quant
