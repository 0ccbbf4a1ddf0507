// IQ2_XXS and IQ2_XS: groups of 8 magnitudes (8, 25 or 43) from a grid of
// 256 or 512 entries, 7 stored sign bits per group (the eighth makes the
// count of negatives even: ggml's ksigns table), and 4-bit sub-scales
// d * (0.5 + s) / 4 per 32 (IQ2_XXS) or 16 (IQ2_XS) elements under an f16
// super-scale.
#include <algorithm>
#include <bit>
#include <cstring>

#include "codec_common.h"
#include "grid_neighbours.h"
#include "k100/quant/codec.h"
#include "k100/quant/iq_tables.h"

namespace k100::quant {
namespace {

using detail::GridNeighbours;
using detail::round_clamp;

float sign_of(uint8_t signs, int j) { return (signs & kmask_iq2xs()[size_t(j)]) ? -1.0f : 1.0f; }

uint8_t grid_byte(uint64_t entry, int j) { return uint8_t((entry >> (8 * j)) & 0xff); }

const GridNeighbours& iq2xxs_search() {
  static const GridNeighbours g(iq2xxs_grid(), false);
  return g;
}
const GridNeighbours& iq2xs_search() {
  static const GridNeighbours g(iq2xs_grid(), false);
  return g;
}

// One group of 8 under scale db: its entry, its 7 stored sign bits, its
// weighted squared error, and the sums of the weighted least-squares refit
// of db.
struct GroupFit {
  int index = 0;
  uint8_t signs = 0;
  double err = 0.0, xg = 0.0, gg = 0.0;
};

// The nearest entry to |x| / db and the signs of x; with an odd count of
// negatives, the element whose flip costs least (|x| * magnitude) flips.
GroupFit fit_group(const float* x, const float* w, float db, const GridNeighbours& search) {
  float t[8];
  for (int j = 0; j < 8; ++j) t[j] = std::fabs(x[j]) / db;
  GroupFit f;
  f.index = search.nearest(t);
  const auto& g = search.entry(f.index);
  unsigned signs = 0;
  for (int j = 0; j < 8; ++j)
    if (x[j] < 0.0f) signs |= 1u << j;
  if (std::popcount(signs) % 2) {
    int flip = 0;
    for (int j = 1; j < 8; ++j)
      if (std::fabs(x[j]) * g[size_t(j)] < std::fabs(x[flip]) * g[size_t(flip)]) flip = j;
    signs ^= 1u << flip;
  }
  for (int j = 0; j < 8; ++j) {
    const float s = (signs >> j) & 1 ? -1.0f : 1.0f;
    const double r = double(x[j]) - double(db * g[size_t(j)] * s);
    f.err += w[j] * r * r;
    f.xg += w[j] * double(x[j]) * s * g[size_t(j)];
    f.gg += w[j] * double(g[size_t(j)]) * g[size_t(j)];
  }
  f.signs = uint8_t(signs & 127);
  return f;
}

// The groups [0, n) of x under one scale: total squared error, and the
// least-squares scale for the entries chosen.
double fit_groups(const float* x, const float* w, int n, float db, const GridNeighbours& search, GroupFit* out,
                  float* refit) {
  double err = 0.0, xg = 0.0, gg = 0.0;
  for (int i = 0; i < n; ++i) {
    out[i] = fit_group(x + 8 * i, w + 8 * i, db, search);
    err += out[i].err, xg += out[i].xg, gg += out[i].gg;
  }
  if (refit) *refit = gg > 0.0 ? float(xg / gg) : 0.0f;
  return err;
}

// Runs of `groups` groups (IQ2_XXS: 4 per scale, IQ2_XS: 2) of a block:
// the best free scale of each, the super-scale d that reaches the largest
// with s = 15, then per run the code s of least error among the rounded
// one and its neighbours. fits[run * groups + i] and codes[run] are set.
// The errors are weighted by x^2 plus the block's mean square (the
// detail::importance weights), so that a large element is not given up
// for the many small ones the grid cannot make zero.
uint16_t fit_block(const float* x, int groups, const GridNeighbours& search, GroupFit* fits, int* codes) {
  const int runs = kSuperBlock / (8 * groups);
  float want[32], w[kSuperBlock];
  detail::importance(x, kSuperBlock, w);
  GroupFit scratch[4];
  for (int r = 0; r < runs; ++r) {
    const float* xr = x + 8 * groups * r;
    want[r] = detail::scan_scale(detail::max_abs(xr, 8 * groups) / 43.0f, 20, 0.5f, 1.5f, [&](float db, float* refit) {
      return fit_groups(xr, w + (xr - x), groups, db, search, scratch, refit);
    });
  }
  const auto d = detail::half_scale(*std::max_element(want, want + runs) / 3.875f);
  for (int r = 0; r < runs; ++r) {
    const float* xr = x + 8 * groups * r;
    const int s0 = d.value > 0.0f ? round_clamp(4.0f * want[r] / d.value - 0.5f, 0, 15) : 0;
    double best = -1.0;
    codes[r] = s0;
    for (int s = std::max(0, s0 - 1); s <= std::min(15, s0 + 1); ++s) {
      const float db = d.value * (0.5f + float(s)) * 0.25f;
      if (!(db > 0.0f)) {
        if (best < 0.0) std::fill(fits + groups * r, fits + groups * (r + 1), GroupFit{});
        break;
      }
      const double e = fit_groups(xr, w + (xr - x), groups, db, search, scratch, nullptr);
      if (best < 0.0 || e < best) best = e, codes[r] = s, std::copy(scratch, scratch + groups, fits + groups * r);
    }
  }
  return d.bits;
}

}  // namespace

void dequantize(const BlockIQ2_XXS* blocks, size_t count, float* y) {
  const auto grid = iq2xxs_grid();
  const auto ksigns = ksigns_iq2xs();
  for (size_t b = 0; b < count; ++b) {
    const BlockIQ2_XXS& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    for (int ib = 0; ib < 8; ++ib) {
      uint32_t aux;
      std::memcpy(&aux, blk.qs + 8 * ib + 4, 4);
      const float db = d * (0.5f + float(aux >> 28)) * 0.25f;
      for (int l = 0; l < 4; ++l, y += 8) {
        const uint64_t g = grid[blk.qs[8 * ib + l]];
        const uint8_t signs = ksigns[(aux >> (7 * l)) & 127];
        for (int j = 0; j < 8; ++j) y[j] = db * float(grid_byte(g, j)) * sign_of(signs, j);
      }
    }
  }
}

void dequantize(const BlockIQ2_XS* blocks, size_t count, float* y) {
  const auto grid = iq2xs_grid();
  const auto ksigns = ksigns_iq2xs();
  for (size_t b = 0; b < count; ++b) {
    const BlockIQ2_XS& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    for (int ib = 0; ib < 8; ++ib) {
      const float db[2] = {d * (0.5f + float(blk.scales[ib] & 0x0f)) * 0.25f,
                           d * (0.5f + float(blk.scales[ib] >> 4)) * 0.25f};
      for (int l = 0; l < 4; ++l, y += 8) {
        uint16_t q;
        std::memcpy(&q, blk.qs + 2 * (4 * ib + l), 2);
        const uint64_t g = grid[q & 511];
        const uint8_t signs = ksigns[q >> 9];
        for (int j = 0; j < 8; ++j) y[j] = db[l / 2] * float(grid_byte(g, j)) * sign_of(signs, j);
      }
    }
  }
}

void quantize(const float* src, size_t count, BlockIQ2_XXS* blocks) {
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock];
    detail::load_finite(src, kSuperBlock, x);
    GroupFit fits[32];
    int codes[8];
    BlockIQ2_XXS& blk = blocks[b];
    blk.d = fit_block(x, 4, iq2xxs_search(), fits, codes);
    for (int ib = 0; ib < 8; ++ib) {
      uint32_t aux = uint32_t(codes[ib]) << 28;
      for (int l = 0; l < 4; ++l) {
        blk.qs[8 * ib + l] = uint8_t(fits[4 * ib + l].index);
        aux |= uint32_t(fits[4 * ib + l].signs) << (7 * l);
      }
      std::memcpy(blk.qs + 8 * ib + 4, &aux, 4);
    }
  }
}

void quantize(const float* src, size_t count, BlockIQ2_XS* blocks) {
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock];
    detail::load_finite(src, kSuperBlock, x);
    GroupFit fits[32];
    int codes[16];
    BlockIQ2_XS& blk = blocks[b];
    blk.d = fit_block(x, 2, iq2xs_search(), fits, codes);
    for (int ib = 0; ib < 8; ++ib) {
      blk.scales[ib] = uint8_t(codes[2 * ib] | (codes[2 * ib + 1] << 4));
      for (int l = 0; l < 4; ++l) {
        const uint16_t q = uint16_t(fits[4 * ib + l].index | (fits[4 * ib + l].signs << 9));
        std::memcpy(blk.qs + 2 * (4 * ib + l), &q, 2);
      }
    }
  }
}

}  // namespace k100::quant
