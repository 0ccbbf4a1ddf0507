// Host references of decode attention over the packed KV cache (KERNELS.md
// §4.6): single-query attention with split-K partials and their combine, and
// the row-batched causal form. Written from the semantics in f64, not from
// the kernels' schedule: a split's partials are its keys' softmax numerator
// and denominator relative to its own maximum, and the combined output is the
// plain softmax over every key (not the combine of the partials), so a test
// compares the pair of kernels with attention itself.
//
// Operands (head_dim 256, int8 codes 4 per u32 word, the lower index in the
// lower byte):
//   q     codes at q[h q_dw_stride + r q_row_stride + d/4], scale of group
//         g = d / 128 at qsc[h q_sc_stride + g q_sc_row + r q_sc_row_step]
//   K     kc[hkv][kv_cap][64] words, ksc[hkv][2][kv_cap]
//   V     vc[hkv][kv_cap/4][256] words (word = 4 consecutive keys of one d),
//         vsc[hkv][kv_cap/64][256] (per 64-key tile and d)
// Query head h reads kv head h / ratio. The softmax scale is folded into the
// query scales: score_j = sum_g (sum_{d in g} qc[d] kc[j][d]) qs[g] ks[g][j].
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace k100::kernels::flash_decode {

inline constexpr int64_t kHeadDim = 256;
inline constexpr int64_t kTileKeys = 64;     // keys per V tile and per split step
inline constexpr int64_t kScaleGroup = 128;  // dims per q / k scale
inline constexpr int64_t kRowWords = kHeadDim / 4;

// Code i (0..3) of a word, sign-extended.
inline int8_t word_code(uint32_t w, int64_t i) { return int8_t(uint8_t(w >> (8 * i))); }

// The packed cache of kv_heads heads with room for kv_cap keys.
struct PackedCache {
  int64_t kv_heads = 0, kv_cap = 0;
  std::vector<uint32_t> kc, vc;
  std::vector<float> ksc, vsc;
  PackedCache(int64_t kv_heads, int64_t kv_cap);
  int8_t k_code(int64_t g, int64_t j, int64_t d) const { return word_code(kc[std::size_t((g * kv_cap + j) * kRowWords + d / 4)], d % 4); }
  float k_scale(int64_t g, int64_t j, int64_t grp) const { return ksc[std::size_t((g * 2 + grp) * kv_cap + j)]; }
  int8_t v_code(int64_t g, int64_t j, int64_t d) const {
    return word_code(vc[std::size_t((g * (kv_cap / 4) + j / 4) * kHeadDim + d)], j % 4);
  }
  float v_scale(int64_t g, int64_t j, int64_t d) const {
    return vsc[std::size_t((g * (kv_cap / kTileKeys) + j / kTileKeys) * kHeadDim + d)];
  }
};

// Quantised queries with their strides (in u32 words for the codes, floats for the scales).
struct PackedQueries {
  std::vector<uint32_t> q;
  std::vector<float> qsc;
  int64_t dw_stride = 0, sc_stride = 0, sc_row = 0;  // per head; per scale group
  int64_t row_stride = 0, sc_row_step = 0;           // per query row (row-batched form)
  int8_t code(int64_t h, int64_t r, int64_t d) const { return word_code(q[std::size_t(h * dw_stride + r * row_stride + d / 4)], d % 4); }
  float scale(int64_t h, int64_t r, int64_t grp) const { return qsc[std::size_t(h * sc_stride + grp * sc_row + r * sc_row_step)]; }
};

// Split partials: slot = h sc_stride + s (row-batched: + r sc_row_stride);
// pout [slot][256] unnormalised, pmax / psum per slot.
struct SplitPartials {
  std::vector<float> pout, pmax, psum;
};

// The tiles split s of n_split walks over n_kv keys: [s T, min(tiles, s T + T))
// with tiles = ceil(n_kv / 64), T = ceil(tiles / n_split); empty when s T >= tiles.
struct TileRange {
  int64_t begin, end;
};
TileRange split_tiles(int64_t n_kv, int64_t n_split, int64_t s);

// Splits of row-batched decode for a row of n_kv keys: start at 1, double
// while tiles >= 8 splits and splits < max_split; force_split > 0 replaces it.
int64_t row_split_count(int64_t n_kv, int64_t max_split, int64_t force_split);

// The attention score of key j for query head h (row r), in f64.
double attention_score(const PackedQueries& q, const PackedCache& kv, int64_t h, int64_t r, int64_t g, int64_t j);

// Writes the partials of every split s < n_split of every head for query row
// r over keys [0, n_kv) into slots base + h sc_stride + s: m = max score,
// psum = sum exp(score - m), pout[d] = sum exp(score - m) v[j][d]; an empty
// split: m = -inf, psum = 0, pout = 0. `out` must be sized by the caller.
void split_partials_reference(const PackedQueries& q, const PackedCache& kv, int64_t n_heads, int64_t ratio,
                              int64_t n_kv, int64_t r, int64_t n_split, int64_t sc_stride, int64_t base,
                              SplitPartials& out);

// softmax(scores) V over keys [0, n_kv) for every head of query row r: [n_heads][256].
std::vector<float> attention_reference(const PackedQueries& q, const PackedCache& kv, int64_t n_heads,
                                       int64_t ratio, int64_t n_kv, int64_t r);

// The combine of n_split partials per head at slots base + h sc_stride + s:
// M = max pmax, a_s = exp(pmax_s - M), out[h out_stride + t] = sum a_s pout /
// sum a_s psum, written only where the denominator is > 0 (other entries of
// `out` are left as they are).
void combine_reference(const SplitPartials& p, int64_t n_heads, int64_t n_split, int64_t sc_stride, int64_t base,
                       int64_t out_stride, int64_t out_base, std::vector<float>& out);

}  // namespace k100::kernels::flash_decode
