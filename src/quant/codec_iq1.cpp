// IQ1_S and IQ1_M: groups of 8 signed values (-1, 0, 1) from a grid of 2048
// entries by an 11-bit index, shifted by a delta of +-1/8: value
// dl * (grid + delta). IQ1_S: per 32 elements a 3-bit scale dl = d (2 s + 1)
// and one delta sign, d an f16; IQ1_M: per 16 elements a 3-bit scale, per 8
// a delta sign, and the f16 super-scale spread over the top nibbles of the
// four scale words.
#include <algorithm>
#include <cstring>

#include "codec_common.h"
#include "grid_neighbours.h"
#include "k100/quant/codec.h"
#include "k100/quant/iq_tables.h"

namespace k100::quant {
namespace {

using detail::GridNeighbours;
using detail::round_clamp;

constexpr float kDelta = 0.125f;

int8_t grid_value(uint64_t entry, int j) { return int8_t(uint8_t((entry >> (8 * j)) & 0xff)); }

const GridNeighbours& iq1_search() {
  static const GridNeighbours g(iq1s_grid(), true);
  return g;
}

// One group of 8 under scale dl and delta: its entry, squared error and the
// sums of the least-squares refit of dl.
struct GroupFit {
  int index = 0;
  double err = 0.0, xg = 0.0, gg = 0.0;
};

GroupFit fit_group(const float* x, const float* w, float dl, float delta) {
  const GridNeighbours& search = iq1_search();
  float t[8];
  for (int j = 0; j < 8; ++j) t[j] = x[j] / dl - delta;
  GroupFit f;
  f.index = search.nearest(t);
  const auto& g = search.entry(f.index);
  for (int j = 0; j < 8; ++j) {
    const float v = g[size_t(j)] + delta;
    const double r = double(x[j]) - double(dl * v);
    f.err += w[j] * r * r, f.xg += w[j] * double(x[j]) * v, f.gg += w[j] * double(v) * v;
  }
  return f;
}

// Groups [0, n) under one scale; per group the delta of the `deltas` given
// (one for all groups, or the better of +-1/8 for each) that fits best.
double fit_groups(const float* x, const float* w, int n, float dl, const float* deltas, int ndeltas, bool per_group,
                  GroupFit* fits, bool* negative, float* refit) {
  double err = 0.0, xg = 0.0, gg = 0.0;
  if (per_group) {
    for (int i = 0; i < n; ++i) {
      const GroupFit a = fit_group(x + 8 * i, w + 8 * i, dl, kDelta), b = fit_group(x + 8 * i, w + 8 * i, dl, -kDelta);
      negative[i] = b.err < a.err;
      fits[i] = negative[i] ? b : a;
      err += fits[i].err, xg += fits[i].xg, gg += fits[i].gg;
    }
  } else {
    double best = -1.0;
    GroupFit trial[4];
    for (int k = 0; k < ndeltas; ++k) {
      double e = 0.0, sxg = 0.0, sgg = 0.0;
      for (int i = 0; i < n; ++i) {
        trial[i] = fit_group(x + 8 * i, w + 8 * i, dl, deltas[k]);
        e += trial[i].err, sxg += trial[i].xg, sgg += trial[i].gg;
      }
      if (best < 0.0 || e < best) {
        best = e, xg = sxg, gg = sgg;
        std::copy(trial, trial + n, fits);
        std::fill(negative, negative + n, deltas[k] < 0.0f);
      }
    }
    err = best;
  }
  if (refit) *refit = gg > 0.0 ? float(xg / gg) : 0.0f;
  return err;
}

// Runs of `groups` groups under one 3-bit scale (IQ1_S: 4 with one delta,
// IQ1_M: 2 with a delta each): the best free scale of each run, the
// super-scale d that reaches the largest with 2 s + 1 = 15, then per run the
// code of least error among the rounded one and its neighbours (errors
// weighted as for IQ2_XXS: detail::importance). Returns d.
detail::HalfScale fit_block(const float* x, int groups, bool per_group, GroupFit* fits, bool* negative, int* codes) {
  const int runs = kSuperBlock / (8 * groups);
  const float deltas[2] = {kDelta, -kDelta};
  float want[16], w[kSuperBlock];
  detail::importance(x, kSuperBlock, w);
  GroupFit scratch[4];
  bool neg[4];
  for (int r = 0; r < runs; ++r) {
    const float* xr = x + 8 * groups * r;
    want[r] = detail::scan_scale(detail::max_abs(xr, 8 * groups), 24, 0.2f, 1.0f, [&](float dl, float* refit) {
      return fit_groups(xr, w + (xr - x), groups, dl, deltas, 2, per_group, scratch, neg, refit);
    });
  }
  const auto d = detail::half_scale(*std::max_element(want, want + runs) / 15.0f);
  for (int r = 0; r < runs; ++r) {
    const float* xr = x + 8 * groups * r;
    const int s0 = d.value > 0.0f ? round_clamp((want[r] / d.value - 1.0f) * 0.5f, 0, 7) : 0;
    double best = -1.0;
    codes[r] = s0;
    std::fill(fits + groups * r, fits + groups * (r + 1), GroupFit{});
    std::fill(negative + groups * r, negative + groups * (r + 1), false);
    if (!(d.value > 0.0f)) continue;
    for (int s = std::max(0, s0 - 1); s <= std::min(7, s0 + 1); ++s) {
      const double e =
          fit_groups(xr, w + (xr - x), groups, d.value * float(2 * s + 1), deltas, 2, per_group, scratch, neg, nullptr);
      if (best < 0.0 || e < best) {
        best = e, codes[r] = s;
        std::copy(scratch, scratch + groups, fits + groups * r);
        std::copy(neg, neg + groups, negative + groups * r);
      }
    }
  }
  return d;
}

}  // namespace

void dequantize(const BlockIQ1_S* blocks, size_t count, float* y) {
  const auto grid = iq1s_grid();
  for (size_t b = 0; b < count; ++b) {
    const BlockIQ1_S& blk = blocks[b];
    const float d = f16_to_f32(blk.d);
    for (int ib = 0; ib < 8; ++ib) {
      uint16_t qh;
      std::memcpy(&qh, blk.qh + 2 * ib, 2);
      const float dl = d * float(2 * ((qh >> 12) & 7) + 1);
      const float delta = (qh & 0x8000) ? -kDelta : kDelta;
      for (int l = 0; l < 4; ++l, y += 8) {
        const uint64_t g = grid[size_t(blk.qs[4 * ib + l] | (((qh >> (3 * l)) & 7) << 8))];
        for (int j = 0; j < 8; ++j) y[j] = dl * (float(grid_value(g, j)) + delta);
      }
    }
  }
}

void dequantize(const BlockIQ1_M* blocks, size_t count, float* y) {
  const auto grid = iq1s_grid();
  for (size_t b = 0; b < count; ++b) {
    const BlockIQ1_M& blk = blocks[b];
    uint16_t sc[4];
    std::memcpy(sc, blk.scales, 8);
    const uint16_t dbits = uint16_t((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
    const float d = f16_to_f32(dbits);
    for (int ib = 0; ib < 8; ++ib) {
      const float dl[2] = {d * float(2 * ((sc[ib / 2] >> (6 * (ib % 2))) & 7) + 1),
                           d * float(2 * ((sc[ib / 2] >> (6 * (ib % 2) + 3)) & 7) + 1)};
      for (int l = 0; l < 4; ++l, y += 8) {
        const uint8_t h = uint8_t(blk.qh[2 * ib + l / 2] >> (4 * (l % 2)));
        const uint64_t g = grid[size_t(blk.qs[4 * ib + l] | ((h & 7) << 8))];
        const float delta = (h & 8) ? -kDelta : kDelta;
        for (int j = 0; j < 8; ++j) y[j] = dl[l / 2] * (float(grid_value(g, j)) + delta);
      }
    }
  }
}

void quantize(const float* src, size_t count, BlockIQ1_S* blocks) {
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock];
    detail::load_finite(src, kSuperBlock, x);
    GroupFit fits[32];
    bool negative[32];
    int codes[8];
    BlockIQ1_S& blk = blocks[b];
    blk.d = fit_block(x, 4, false, fits, negative, codes).bits;
    for (int ib = 0; ib < 8; ++ib) {
      uint16_t qh = uint16_t(codes[ib] << 12 | (negative[4 * ib] ? 0x8000 : 0));
      for (int l = 0; l < 4; ++l) {
        const int idx = fits[4 * ib + l].index;
        blk.qs[4 * ib + l] = uint8_t(idx & 0xff);
        qh = uint16_t(qh | (idx >> 8) << (3 * l));
      }
      std::memcpy(blk.qh + 2 * ib, &qh, 2);
    }
  }
}

void quantize(const float* src, size_t count, BlockIQ1_M* blocks) {
  for (size_t b = 0; b < count; ++b, src += kSuperBlock) {
    float x[kSuperBlock];
    detail::load_finite(src, kSuperBlock, x);
    GroupFit fits[32];
    bool negative[32];
    int codes[16];
    BlockIQ1_M& blk = blocks[b];
    const uint16_t dbits = fit_block(x, 2, true, fits, negative, codes).bits;
    uint16_t sc[4] = {};
    for (int ib = 0; ib < 8; ++ib)
      sc[ib / 2] = uint16_t(sc[ib / 2] | (codes[2 * ib] | codes[2 * ib + 1] << 3) << (6 * (ib % 2)));
    for (int k = 0; k < 4; ++k) sc[k] = uint16_t(sc[k] | ((dbits >> (4 * k)) & 0x0f) << 12);
    std::memcpy(blk.scales, sc, 8);
    std::memset(blk.qh, 0, sizeof blk.qh);
    for (int i = 0; i < 32; ++i) {
      const int idx = fits[i].index;
      blk.qs[i] = uint8_t(idx & 0xff);
      const int h = (idx >> 8) | (negative[i] ? 8 : 0);
      blk.qh[i / 2] = uint8_t(blk.qh[i / 2] | h << (4 * (i % 2)));
    }
  }
}

}  // namespace k100::quant
