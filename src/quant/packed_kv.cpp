#include "k100/quant/packed_kv.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "k100/base/error.h"

namespace k100::quant {

namespace {

void check_layout(const char* what, int64_t dim, int64_t group) {
  if (dim <= 0 || dim % kPackedKvCodesPerWord)
    throw Error(std::string(what) + ": dim = " + std::to_string(dim) + " is not a positive multiple of 4");
  if (group <= 0 || group % kPackedKvCodesPerWord || dim % group)
    throw Error(std::string(what) + ": group = " + std::to_string(group) +
                " must be a multiple of 4 that divides dim = " + std::to_string(dim));
}

float group_amax(const float* x, int64_t n) {
  float amax = 0.0f;
  for (int64_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));
  return amax;
}

}  // namespace

float packed_kv_scale(float amax) { return amax == 0.0f ? 1.0f : amax / float(kPackedKvQmax); }

int8_t packed_kv_code(float x, float scale) {
  // nearbyint rounds in the current mode: to nearest, ties to even.
  const float q = std::clamp(std::nearbyint(x / scale), -float(kPackedKvQmax), float(kPackedKvQmax));
  return int8_t(q);
}

int8_t packed_kv_word_code(uint32_t word, int i) { return int8_t(uint8_t(word >> (8 * i))); }

uint32_t packed_kv_word(int8_t c0, int8_t c1, int8_t c2, int8_t c3) {
  return uint32_t(uint8_t(c0)) | uint32_t(uint8_t(c1)) << 8 | uint32_t(uint8_t(c2)) << 16 |
         uint32_t(uint8_t(c3)) << 24;
}

// ---------------------------------------------------------------- queries

int8_t PackedQuery::code(int64_t h, int64_t r, int64_t d) const {
  return packed_kv_word_code(codes[size_t((h * rows + r) * (dim / 4) + d / 4)], int(d % 4));
}

float PackedQuery::scale(int64_t h, int64_t r, int64_t d) const {
  return scales[size_t((h * (dim / group) + d / group) * rows + r)];
}

PackedQuery make_packed_query(int64_t heads, int64_t rows, int64_t dim, int64_t group) {
  check_layout("packed query", dim, group);
  if (heads <= 0 || rows <= 0)
    throw Error("packed query: heads = " + std::to_string(heads) + " and rows = " + std::to_string(rows) +
                " must be positive");
  PackedQuery q;
  q.heads = heads;
  q.rows = rows;
  q.dim = dim;
  q.group = group;
  q.codes.assign(size_t(heads * rows * (dim / 4)), 0u);
  q.scales.assign(size_t(heads * (dim / group) * rows), 1.0f);
  return q;
}

void quantize_query_into(PackedQuery& q, std::span<const float> x, int64_t T) {
  if (T < 0 || T > q.rows)
    throw Error("packed query: T = " + std::to_string(T) + " rows do not fit the " + std::to_string(q.rows) +
                " padded rows (TP)");
  if (uint64_t(T * q.heads * q.dim) > x.size())
    throw Error("packed query: x holds " + std::to_string(x.size()) + " values, not T * H * D = " +
                std::to_string(T * q.heads * q.dim));
  const int64_t G = q.group, words = q.dim / 4;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < q.heads; ++h) {
      const float* row = x.data() + (t * q.heads + h) * q.dim;
      for (int64_t g = 0; g < q.dim / G; ++g) {
        const float s = packed_kv_scale(group_amax(row + g * G, G));
        q.scales[size_t((h * (q.dim / G) + g) * q.rows + t)] = s;
        for (int64_t w = g * G / 4; w < (g + 1) * G / 4; ++w)
          q.codes[size_t((h * q.rows + t) * words + w)] =
              packed_kv_word(packed_kv_code(row[4 * w], s), packed_kv_code(row[4 * w + 1], s),
                             packed_kv_code(row[4 * w + 2], s), packed_kv_code(row[4 * w + 3], s));
      }
    }
}

PackedQuery quantize_query(std::span<const float> x, int64_t T, int64_t H, int64_t D, int64_t G, int64_t TP) {
  PackedQuery q = make_packed_query(H, TP, D, G);
  quantize_query_into(q, x, T);
  return q;
}

// ---------------------------------------------------------------- the cache

PackedKvCache::PackedKvCache(int64_t kv_heads, int64_t capacity, int64_t dim, int64_t group)
    : kv_heads_(kv_heads), capacity_(capacity), dim_(dim), group_(group) {
  check_layout("packed KV cache", dim, group);
  if (kv_heads <= 0) throw Error("packed KV cache: kv_heads = " + std::to_string(kv_heads) + " must be positive");
  if (capacity <= 0 || capacity % kPackedKvTile)
    throw Error("packed KV cache: kv_cap = " + std::to_string(capacity) + " is not a positive multiple of 64");
  k_codes.assign(size_t(kv_heads * capacity * (dim / 4)), 0u);
  k_scales.assign(size_t(kv_heads * (dim / group) * capacity), 0.0f);
  v_codes.assign(size_t(kv_heads * (capacity / 4) * dim), 0u);
  v_scales.assign(size_t(kv_heads * (capacity / kPackedKvTile) * dim), 0.0f);
  v_stage.assign(size_t(kv_heads * kPackedKvTile * dim), 0.0f);
}

void PackedKvCache::check_append(const char* what, std::span<const float> rows, int64_t t0, int64_t T) const {
  if (t0 < 0 || T < 0 || t0 + T > capacity_)
    throw Error(std::string(what) + ": keys [" + std::to_string(t0) + ", " + std::to_string(t0 + T) +
                ") do not fit kv_cap = " + std::to_string(capacity_));
  if (uint64_t(T * kv_heads_ * dim_) > rows.size())
    throw Error(std::string(what) + ": the new rows hold " + std::to_string(rows.size()) +
                " values, not T * H * D = " + std::to_string(T * kv_heads_ * dim_));
}

void PackedKvCache::append_k(std::span<const float> rows, int64_t t0, int64_t T) {
  check_append("append_k", rows, t0, T);
  const int64_t G = group_, words = dim_ / 4;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < kv_heads_; ++h) {
      const float* row = rows.data() + (t * kv_heads_ + h) * dim_;
      const int64_t pos = t0 + t;
      for (int64_t g = 0; g < dim_ / G; ++g) {
        const float s = packed_kv_scale(group_amax(row + g * G, G));
        k_scales[size_t((h * (dim_ / G) + g) * capacity_ + pos)] = s;
        for (int64_t w = g * G / 4; w < (g + 1) * G / 4; ++w)
          k_codes[size_t((h * capacity_ + pos) * words + w)] =
              packed_kv_word(packed_kv_code(row[4 * w], s), packed_kv_code(row[4 * w + 1], s),
                             packed_kv_code(row[4 * w + 2], s), packed_kv_code(row[4 * w + 3], s));
      }
    }
}

void PackedKvCache::append_v(std::span<const float> rows, int64_t t0, int64_t T) {
  check_append("append_v", rows, t0, T);
  if (T == 0) return;
  const int64_t BG = kPackedKvTile, end = t0 + T;
  std::vector<float> tile(static_cast<size_t>(BG));
  for (int64_t h = 0; h < kv_heads_; ++h) {
    float* stage = v_stage.data() + h * BG * dim_;
    for (int64_t b = (t0 / BG) * BG; b < end; b += BG) {
      const int64_t e = std::min(b + BG, end);
      for (int64_t d = 0; d < dim_; ++d) {
        // The tile's valid values: the staged earlier keys, then the new ones.
        for (int64_t p = b; p < e; ++p)
          tile[size_t(p - b)] = p < t0 ? stage[(p - b) * dim_ + d] : rows[size_t(((p - t0) * kv_heads_ + h) * dim_ + d)];
        const float s = packed_kv_scale(group_amax(tile.data(), e - b));
        v_scales[size_t((h * (capacity_ / BG) + b / BG) * dim_ + d)] = s;
        for (int64_t w = 0; w < BG / 4; ++w) {
          int8_t c[4];
          for (int i = 0; i < 4; ++i) {
            const int64_t p = b + 4 * w + i;
            c[i] = p < e ? packed_kv_code(tile[size_t(p - b)], s) : int8_t(0);
          }
          v_codes[size_t((h * (capacity_ / 4) + b / 4 + w) * dim_ + d)] = packed_kv_word(c[0], c[1], c[2], c[3]);
        }
      }
      for (int64_t p = std::max(b, t0); p < e; ++p)
        for (int64_t d = 0; d < dim_; ++d)
          stage[(p % BG) * dim_ + d] = rows[size_t(((p - t0) * kv_heads_ + h) * dim_ + d)];
    }
  }
}

int8_t PackedKvCache::key_code(int64_t h, int64_t pos, int64_t d) const {
  return packed_kv_word_code(k_codes[size_t((h * capacity_ + pos) * (dim_ / 4) + d / 4)], int(d % 4));
}

int8_t PackedKvCache::value_code(int64_t h, int64_t pos, int64_t d) const {
  return packed_kv_word_code(v_codes[size_t((h * (capacity_ / 4) + pos / 4) * dim_ + d)], int(pos % 4));
}

float PackedKvCache::key_scale(int64_t h, int64_t pos, int64_t d) const {
  return k_scales[size_t((h * (dim_ / group_) + d / group_) * capacity_ + pos)];
}

float PackedKvCache::value_scale(int64_t h, int64_t pos, int64_t d) const {
  return v_scales[size_t((h * (capacity_ / kPackedKvTile) + pos / kPackedKvTile) * dim_ + d)];
}

float PackedKvCache::key(int64_t h, int64_t pos, int64_t d) const {
  return float(key_code(h, pos, d)) * key_scale(h, pos, d);
}

float PackedKvCache::value(int64_t h, int64_t pos, int64_t d) const {
  return float(value_code(h, pos, d)) * value_scale(h, pos, d);
}

}  // namespace k100::quant
