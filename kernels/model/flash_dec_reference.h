// What the grouped-query decode attention kernels share: the generator of
// the one-launch kernels (flash_dec_gqa_fused.cpp) and, for the tests, the
// host references of split attention (partials and the attention they
// combine to, in double) and of the attention input (qkv_rope_append.cpp),
// and the blocked K layouts.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "k100/codegen/codegen.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels {

void add_gqa_one_launch(Registry& reg);  // flash_dec_gqa_k, flash_dec_gqa_f16_k (flash_dec_gqa_entries.cpp)
void add_gqa_rope(Registry& reg);        // flash_dec_gqa_rope_k, flash_dec_gqa_rope_f16_k (flash_dec_gqa_rope.cpp)

namespace model_family {

// The one-launch grouped-query attention over the blocked f32 (f16) caches;
// with `rope` it also takes the step's Q|K|V projection and does what
// qkv_rope_append_k does first (flash_dec_gqa_rope_k, _f16_k).
codegen::Signature gqa_signature(bool f16, bool rope);
codeobj::CodeObject build_gqa_attention(isa::Target target, bool f16, bool rope);

// The attention input of one decode step (qkv_rope_append_k), in double:
// bias, per-head RMSNorm, rotation; q into q_out, k and v into the caches at
// row pos in the layout mode selects (bits 1, 2: blocked, f16; with f16 the
// f32 value the half rounds stands in kt / vc at the half's index).
struct RopeCase {
  int64_t n_head, n_kv, dh, n_rot, max_len, pos, mode;
  bool bias, norm;
};
void qkv_rope_reference(const RopeCase& p, const std::vector<float>& qkv, const std::vector<float>& bias,
                        const std::vector<float>& qn, const std::vector<float>& kn, const std::vector<float>& cs,
                        const std::vector<float>& sn, std::vector<float>& q_out, std::vector<float>& kt,
                        std::vector<float>& vc, std::vector<uint16_t>& kt16, std::vector<uint16_t>& vc16, float eps);
// One RMSNorm (1-ulp reciprocal square root) and one rotation in f32.
Tolerance rope_tolerance();
// cos/sin[t][i] = cos/sin(t 10000^(-2i / n_rot)), i < n_rot / 2, t < max_len.
void rope_tables(int64_t n_rot, int64_t max_len, std::vector<float>& cs, std::vector<float>& sn);
// A written half must be the rounding of some f32 within t of the reference
// value want32 (between the roundings of the interval's ends); every other
// half keeps its bits (before). Accepted halves count as the reference's, so
// the exact comparison counts the rest.
CaseResult compare_written_halves(const std::vector<uint16_t>& got, const std::vector<uint16_t>& before,
                                  const std::vector<uint16_t>& want16, const std::vector<float>& want32,
                                  const Tolerance& t);

struct SplitAttentionShape {
  int64_t heads, kv_heads, dh, rows, nsplit, R;  // rows: the cached rows attended to; R rows per split
  float inv;
};
// Element d of row j of KV head g.
using CacheElement = std::function<float(int64_t g, int64_t j, int64_t d)>;

// Query head h reads KV head h / (heads / kv_heads). Split s of head h covers
// rows [s R, min(s R + R, rows)): pm[h S + s] = max t_j, pl = sum p_j,
// po[(h S + s) dh + d] = sum p_j V[j][d] with p_j = exp((t_j - pm) inv)
// (empty split: -inf, 0, 0); out[h][d] = softmax(t inv) V over all rows.
void split_attention_reference(const SplitAttentionShape& s, const std::vector<float>& q, const CacheElement& K,
                               const CacheElement& V, std::vector<float>& po, std::vector<float>& pm,
                               std::vector<float>& pl, std::vector<float>& out);

// Index of K[g][j][d] in the blocked layout (64-row tiles of K^T per KV head).
inline int64_t blocked_k_index(int64_t g, int64_t j, int64_t d, int64_t dh, int64_t max_len) {
  return (g * max_len + (j & ~int64_t(63))) * dh + d * 64 + (j & 63);
}

// Index (in halves) of K[g][j][d] in the blocked f16 layout: the tiles hold
// dword (d >> 1) 64 + (j & 63) with d even in the low half.
inline int64_t blocked_k_f16_index(int64_t g, int64_t j, int64_t d, int64_t dh, int64_t max_len) {
  return (g * max_len + (j & ~int64_t(63))) * dh + ((d >> 1) * 64 + (j & 63)) * 2 + (d & 1);
}

}  // namespace model_family
}  // namespace k100::kernels
