// The shared-tile plan of the fast GEMVs (gemv_tile_shares.h): the busiest
// CU's work under round-robin dealing, counted here by dealing the
// workgroups one by one, the arguments and workspace sizes it implies, and
// its errors.
#include "k100/quant/gemv_tile_shares.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "k100/base/error.h"

namespace {

using k100::quant::GemvTileShares;
using k100::quant::gemv_tile_shares;

// The busiest CU's work in tiles, and the most workgroups a CU holds, with
// the R * P shares dealt first.
struct Load {
  double busiest = 0;
  int64_t most = 0;
};
Load deal(int64_t tiles, int cus, const GemvTileShares& s) {
  std::vector<double> work(size_t(cus), 0.0);
  std::vector<int64_t> count(size_t(cus), 0);
  const int64_t sharing = s.none() ? 0 : int64_t(s.tiles) * s.parts;
  const int64_t total = sharing + (tiles - (s.none() ? 0 : s.tiles));
  for (int64_t w = 0; w < total; ++w) {
    work[size_t(w % cus)] += w < sharing ? 1.0 / s.parts : 1.0;
    ++count[size_t(w % cus)];
  }
  return {*std::max_element(work.begin(), work.end()), *std::max_element(count.begin(), count.end())};
}

TEST(GemvTileShares, EvensOutTheBenchmarkMatrix) {
  // 17408 rows: 272 tiles on the K100_LC's 120 CUs, 32 of them with three
  const GemvTileShares s = gemv_tile_shares(272, 120);
  EXPECT_EQ(s.parts, 3);
  EXPECT_EQ(s.tiles, 32);
  EXPECT_EQ(s.workgroups(272), 336u);
  const Load before = deal(272, 120, {}), after = deal(272, 120, s);
  EXPECT_DOUBLE_EQ(before.busiest, 3.0);
  EXPECT_NEAR(after.busiest, 2.0 + 1.0 / 3, 1e-12);
  EXPECT_LE(after.most, before.most);
}

TEST(GemvTileShares, NoneWhereNothingIsGained) {
  for (int64_t tiles : {1, 64, 119, 120, 240, 360}) EXPECT_TRUE(gemv_tile_shares(tiles, 120).none()) << tiles;
  // 544 tiles: no sharing fits in the five workgroups a CU already holds
  EXPECT_TRUE(gemv_tile_shares(544, 120).none());
}

TEST(GemvTileShares, TheChosenPlanIsTheBestOfAllAllowed) {
  for (int cus : {7, 60, 120})
    for (int64_t tiles = cus + 1; tiles <= 3 * cus + 5; tiles += 3) {
      const GemvTileShares s = gemv_tile_shares(tiles, cus);
      const Load base = deal(tiles, cus, {}), got = deal(tiles, cus, s);
      EXPECT_LE(got.busiest, base.busiest + 1e-12) << tiles << " tiles, " << cus << " CUs";
      EXPECT_LE(got.most, base.most) << tiles << " tiles, " << cus << " CUs";
      for (int p = 2; p <= 4; ++p)
        for (int r = 1; r <= tiles && r <= 2 * cus; ++r) {
          const Load other = deal(tiles, cus, {p, r});
          if (other.most <= base.most) {
            EXPECT_LE(got.busiest, other.busiest + 1e-12) << tiles << " " << p << " " << r;
          }
        }
    }
}

TEST(GemvTileShares, ArgumentsAndWorkspace) {
  const GemvTileShares s{3, 32};
  EXPECT_EQ(s.split_arg(4), 4u | 3u << 8 | 32u << 16);
  EXPECT_EQ(GemvTileShares{}.split_arg(4), 4u);
  EXPECT_EQ(GemvTileShares{}.workgroups(272), 272u);
  // P shares of 4 rows of 64 floats, then the counter's line
  EXPECT_EQ(s.record_bytes(), uint64_t(3 * 4 * 256 + 64));
  EXPECT_EQ(s.workspace_bytes(2), 2 * 32 * s.record_bytes());
  EXPECT_EQ(GemvTileShares{}.workspace_bytes(5), 0u);
}

TEST(GemvTileShares, Errors) {
  EXPECT_THROW(gemv_tile_shares(272, 0), k100::Error);
  EXPECT_THROW(gemv_tile_shares(272, 120, 9), k100::Error);
  EXPECT_THROW(GemvTileShares{}.split_arg(0), k100::Error);
  EXPECT_THROW(GemvTileShares{}.split_arg(256), k100::Error);
  EXPECT_THROW((GemvTileShares{9, 1}.split_arg(4)), k100::Error);
  EXPECT_THROW((GemvTileShares{3, 40}.workgroups(30)), k100::Error);
}

}  // namespace
