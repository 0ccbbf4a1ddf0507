// What the grouped-query decode attention kernels' tests share: the host
// reference of split attention (partials and the attention they combine to,
// in double) and the blocked K layout.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "k100/kernels/registry.h"

namespace k100::kernels {

void add_gqa_one_launch(Registry& reg);  // flash_dec_gqa_k, flash_dec_gqa_f16_k (flash_dec_gqa_fused.cpp)

namespace model_family {

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
