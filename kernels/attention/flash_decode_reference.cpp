#include "attention/flash_decode_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace k100::kernels::flash_decode {

PackedCache::PackedCache(int64_t heads, int64_t cap)
    : kv_heads(heads),
      kv_cap(cap),
      kc(size_t(heads * cap * kRowWords)),
      vc(size_t(heads * cap / 4 * kHeadDim)),
      ksc(size_t(heads * 2 * cap), 1.f),
      vsc(size_t(heads * cap / kTileKeys * kHeadDim), 1.f) {}

TileRange split_tiles(int64_t n_kv, int64_t n_split, int64_t s) {
  const int64_t tiles = (n_kv + kTileKeys - 1) / kTileKeys, per = (tiles + n_split - 1) / n_split;
  const int64_t b = std::min(tiles, s * per);
  return {b, std::min(tiles, b + per)};
}

int64_t row_split_count(int64_t n_kv, int64_t max_split, int64_t force_split) {
  if (force_split > 0) return force_split;
  const int64_t tiles = (n_kv + kTileKeys - 1) / kTileKeys;
  int64_t ns = 1;
  while (tiles >= 8 * ns && ns < max_split) ns *= 2;
  return ns;
}

double attention_score(const PackedQueries& q, const PackedCache& kv, int64_t h, int64_t r, int64_t g, int64_t j) {
  double s = 0;
  for (int64_t grp = 0; grp < kHeadDim / kScaleGroup; ++grp) {
    int64_t dot = 0;
    for (int64_t d = grp * kScaleGroup; d < (grp + 1) * kScaleGroup; ++d)
      dot += int64_t(q.code(h, r, d)) * int64_t(kv.k_code(g, j, d));
    s += double(dot) * double(q.scale(h, r, grp)) * double(kv.k_scale(g, j, grp));
  }
  return s;
}

namespace {

// m, sum exp(s - m) and sum exp(s - m) v over keys [j0, j1) of head h.
struct Softmaxed {
  double m = -INFINITY, l = 0;
  std::vector<double> o = std::vector<double>(size_t(kHeadDim), 0.0);
};

Softmaxed attend(const PackedQueries& q, const PackedCache& kv, int64_t h, int64_t g, int64_t r, int64_t j0,
                 int64_t j1) {
  Softmaxed a;
  std::vector<double> sc;
  for (int64_t j = j0; j < j1; ++j) sc.push_back(attention_score(q, kv, h, r, g, j));
  for (double s : sc) a.m = std::max(a.m, s);
  for (int64_t j = j0; j < j1; ++j) {
    const double p = std::exp(sc[size_t(j - j0)] - a.m);
    a.l += p;
    for (int64_t d = 0; d < kHeadDim; ++d) a.o[size_t(d)] += p * double(kv.v_code(g, j, d)) * double(kv.v_scale(g, j, d));
  }
  return a;
}

}  // namespace

void split_partials_reference(const PackedQueries& q, const PackedCache& kv, int64_t n_heads, int64_t ratio,
                              int64_t n_kv, int64_t r, int64_t n_split, int64_t sc_stride, int64_t base,
                              SplitPartials& out) {
  for (int64_t h = 0; h < n_heads; ++h)
    for (int64_t s = 0; s < n_split; ++s) {
      const int64_t slot = base + h * sc_stride + s;
      const TileRange t = split_tiles(n_kv, n_split, s);
      const Softmaxed a = attend(q, kv, h, h / ratio, r, t.begin * kTileKeys, std::min(n_kv, t.end * kTileKeys));
      out.pmax[size_t(slot)] = float(a.m);
      out.psum[size_t(slot)] = float(a.l);
      for (int64_t d = 0; d < kHeadDim; ++d) out.pout[size_t(slot * kHeadDim + d)] = float(a.o[size_t(d)]);
    }
}

std::vector<float> attention_reference(const PackedQueries& q, const PackedCache& kv, int64_t n_heads,
                                       int64_t ratio, int64_t n_kv, int64_t r) {
  std::vector<float> out(size_t(n_heads * kHeadDim));
  for (int64_t h = 0; h < n_heads; ++h) {
    const Softmaxed a = attend(q, kv, h, h / ratio, r, 0, n_kv);
    for (int64_t d = 0; d < kHeadDim; ++d) out[size_t(h * kHeadDim + d)] = float(a.o[size_t(d)] / a.l);
  }
  return out;
}

void combine_reference(const SplitPartials& p, int64_t n_heads, int64_t n_split, int64_t sc_stride, int64_t base,
                       int64_t out_stride, int64_t out_base, std::vector<float>& out) {
  for (int64_t h = 0; h < n_heads; ++h) {
    const int64_t s0 = base + h * sc_stride;
    double M = -INFINITY;
    for (int64_t s = 0; s < n_split; ++s) M = std::max(M, double(p.pmax[size_t(s0 + s)]));
    if (M == -INFINITY) continue;
    double den = 0;
    std::vector<double> num(size_t(kHeadDim), 0.0);
    for (int64_t s = 0; s < n_split; ++s) {
      const double a = std::exp(double(p.pmax[size_t(s0 + s)]) - M);
      den += a * double(p.psum[size_t(s0 + s)]);
      for (int64_t t = 0; t < kHeadDim; ++t) num[size_t(t)] += a * double(p.pout[size_t((s0 + s) * kHeadDim + t)]);
    }
    if (!(den > 0)) continue;
    for (int64_t t = 0; t < kHeadDim; ++t) out[size_t(out_base + h * out_stride + t)] = float(num[size_t(t)] / den);
  }
}

}  // namespace k100::kernels::flash_decode
