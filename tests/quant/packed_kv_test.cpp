// The packed KV cache format (quant/packed_kv.h, docs/PACKED_KV.md): the
// rounding rule on ties, the word layout on hand-made values (the worked
// example of docs/PACKED_KV.md), the pitches, and V appends in pieces
// against the tile-wise quantisation of all keys at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "k100/base/error.h"
#include "k100/quant/packed_kv.h"

namespace k100::quant {
namespace {

std::vector<float> normal(size_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

TEST(PackedKvRule, ScaleAndTiesToEven) {
  EXPECT_EQ(packed_kv_scale(127.0f), 1.0f);
  EXPECT_EQ(packed_kv_scale(0.0f), 1.0f);  // an all-zero group
  EXPECT_EQ(packed_kv_scale(2.0f), 2.0f / 127.0f);
  EXPECT_EQ(packed_kv_code(0.5f, 1.0f), 0);
  EXPECT_EQ(packed_kv_code(1.5f, 1.0f), 2);
  EXPECT_EQ(packed_kv_code(2.5f, 1.0f), 2);
  EXPECT_EQ(packed_kv_code(-2.5f, 1.0f), -2);
  EXPECT_EQ(packed_kv_code(-63.5f, 1.0f), -64);
  EXPECT_EQ(packed_kv_code(127.4f, 1.0f), 127);
  EXPECT_EQ(packed_kv_code(-200.0f, 1.0f), -127);  // never -128
  EXPECT_EQ(packed_kv_word(1, -1, 127, -127), 0x817FFF01u);
  EXPECT_EQ(packed_kv_word_code(0x817FFF01u, 3), -127);
  EXPECT_EQ(packed_kv_word_code(0x817FFF01u, 1), -1);
}

// docs/PACKED_KV.md, "Worked example".
TEST(PackedKvFormat, WorkedExample) {
  // Q: T = 1 row of one head, D = 8, G = 4, TP = 2 (row 1 is padding).
  const std::vector<float> x = {0.5f, -1.0f, 2.0f, 127.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  const PackedQuery q = quantize_query(x, 1, 1, 8, 4, 2);
  EXPECT_EQ(q.codes, (std::vector<uint32_t>{0x7F02FF00u, 0u, 0u, 0u}));
  EXPECT_EQ(q.scales, (std::vector<float>{1.0f, 1.0f, 1.0f, 1.0f}));  // [g][TP]: g0 r0, g0 r1, g1 r0, g1 r1

  // K: the same row appended at position 2 of a 64-key cache of 2 heads
  // (head 1 gets -x): word (h, pos, w) at (h*64 + pos)*2 + w, scale (h, g, pos)
  // at (h*2 + g)*64 + pos.
  PackedKvCache c(2, 64, 8, 4);
  std::vector<float> kr = x;
  for (float v : x) kr.push_back(-v);
  c.append_k(kr, 2, 1);
  EXPECT_EQ(c.k_codes[(0 * 64 + 2) * 2 + 0], 0x7F02FF00u);
  EXPECT_EQ(c.k_codes[(1 * 64 + 2) * 2 + 0], 0x81FE0100u);  // -0.5 -> -0 = 0, 1, -2, -127
  EXPECT_EQ(c.k_codes[(1 * 64 + 2) * 2 + 1], 0u);
  EXPECT_EQ(c.k_scales[(0 * 2 + 0) * 64 + 2], 1.0f);
  EXPECT_EQ(c.k_scales[(1 * 2 + 1) * 64 + 2], 1.0f);
  EXPECT_EQ(std::count(c.k_codes.begin(), c.k_codes.end(), 0u), ptrdiff_t(c.k_codes.size() - 2));

  // V: D = 4, one head; three keys, then a fourth that re-quantises the tile.
  PackedKvCache v(1, 128, 4, 4);
  std::vector<float> three = {63.5f, 0, 0, 0, -127.0f, 0, 0, 0, 0.5f, 0, 0, 0};
  v.append_v(three, 0, 3);
  EXPECT_EQ(v.v_scales[0], 1.0f);
  EXPECT_EQ(v.v_codes[0], 0x00008140u);  // keys 0..3 of d = 0: 64, -127, 0, (invalid) 0
  const std::vector<float> fourth = {254.0f, 1.0f, 0, 0};
  v.append_v(fourth, 3, 1);
  EXPECT_EQ(v.v_scales[0], 2.0f);
  EXPECT_EQ(v.v_codes[0], 0x7F00C020u);  // 32, -64, 0, 127
  EXPECT_EQ(v.v_scales[1], 1.0f / 127.0f);
  EXPECT_EQ(v.v_codes[1], 0x7F000000u);  // d = 1: only key 3 is non-zero
  EXPECT_EQ(v.v_stage[3 * 4 + 0], 254.0f);
  EXPECT_EQ(v.v_stage[0 * 4 + 0], 63.5f);
  EXPECT_EQ(v.value(0, 1, 0), -128.0f);
}

TEST(PackedKvFormat, QueryAndKeyRoundTrip) {
  const int64_t T = 5, H = 3, D = 256, G = 128, TP = 64;
  const auto x = normal(size_t(T * H * D), 1);
  PackedQuery q = quantize_query(x, T, H, D, G, TP);
  PackedKvCache c(H, 128, D, G);
  c.append_k(x, 61, T);  // crosses a 64-key tile: K does not care
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t g = 0; g < D / G; ++g) {
        float amax = 0;
        for (int64_t d = g * G; d < (g + 1) * G; ++d) amax = std::max(amax, std::fabs(x[size_t((t * H + h) * D + d)]));
        EXPECT_EQ(q.scale(h, t, g * G), amax / 127.0f);
        EXPECT_EQ(c.key_scale(h, 61 + t, g * G), amax / 127.0f);
        bool hit_max = false;
        for (int64_t d = g * G; d < (g + 1) * G; ++d) {
          const float v = x[size_t((t * H + h) * D + d)], s = amax / 127.0f;
          EXPECT_LE(std::fabs(q.code(h, t, d) * double(s) - v), 0.5001 * s);
          EXPECT_EQ(q.code(h, t, d), c.key_code(h, 61 + t, d));
          hit_max |= std::abs(int(q.code(h, t, d))) == 127;
        }
        EXPECT_TRUE(hit_max);
      }
  // Padding rows and untouched positions.
  for (int64_t h = 0; h < H; ++h)
    for (int64_t d = 0; d < D; ++d) {
      EXPECT_EQ(q.code(h, T, d), 0);
      EXPECT_EQ(q.scale(h, TP - 1, d), 1.0f);
      EXPECT_EQ(c.key_code(h, 60, d), 0);
      EXPECT_EQ(c.key_code(h, 61 + T, d), 0);
    }
}

// Contiguous appends in pieces end in the state of one append of all keys
// (each tile's scale is that of its valid keys either way), and every value
// is within half a step of its tile's scale.
TEST(PackedKvFormat, ValueAppendsSpanningTiles) {
  const int64_t H = 2, D = 8, cap = 256, n = 200;
  const auto vals = normal(size_t(n * H * D), 7);
  PackedKvCache whole(H, cap, D, 8), parts(H, cap, D, 8);
  whole.append_v(vals, 0, n);
  const int64_t cuts[] = {0, 1, 5, 63, 64, 65, 150, 151, 200};
  for (size_t i = 0; i + 1 < std::size(cuts); ++i) {
    const int64_t t0 = cuts[i], T = cuts[i + 1] - t0;
    parts.append_v(std::span<const float>(vals).subspan(size_t(t0 * H * D), size_t(T * H * D)), t0, T);
  }
  EXPECT_EQ(whole.v_codes, parts.v_codes);
  EXPECT_EQ(whole.v_scales, parts.v_scales);
  for (int64_t h = 0; h < H; ++h)
    for (int64_t d = 0; d < D; ++d) {
      for (int64_t p = 192; p < n; ++p) {  // the partial tile's staged keys
        EXPECT_EQ(parts.v_stage[size_t((h * 64 + p % 64) * D + d)], vals[size_t((p * H + h) * D + d)]);
        EXPECT_EQ(whole.v_stage[size_t((h * 64 + p % 64) * D + d)], vals[size_t((p * H + h) * D + d)]);
      }
      for (int64_t b = 0; b < n; b += 64) {
        float amax = 0;
        for (int64_t p = b; p < std::min(b + 64, n); ++p) amax = std::max(amax, std::fabs(vals[size_t((p * H + h) * D + d)]));
        EXPECT_EQ(whole.value_scale(h, b, d), amax / 127.0f);
        for (int64_t p = b; p < std::min(b + 64, n); ++p)
          EXPECT_LE(std::fabs(double(whole.value(h, p, d)) - vals[size_t((p * H + h) * D + d)]), 0.5001 * amax / 127.0);
      }
      for (int64_t p = n; p < cap; ++p) EXPECT_EQ(whole.value_code(h, p, d), 0);
    }
}

TEST(PackedKvFormat, BadShapesNamed) {
  EXPECT_THROW(PackedKvCache(1, 100, 8, 4), Error);  // kv_cap not a multiple of 64
  EXPECT_THROW(PackedKvCache(1, 64, 6, 2), Error);   // dim not a multiple of 4
  EXPECT_THROW(PackedKvCache(1, 64, 8, 3), Error);   // group
  PackedKvCache c(1, 64, 8, 4);
  const std::vector<float> row(16, 1.0f);
  try {
    c.append_v(row, 63, 2);
    FAIL() << "an append past kv_cap was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kv_cap"), std::string::npos);
  }
  EXPECT_THROW(c.append_k(row, 0, 3), Error);  // rows too short
  EXPECT_THROW(quantize_query(row, 3, 1, 8, 4, 2), Error);  // T > TP
}

}  // namespace
}  // namespace k100::quant
