#include <gtest/gtest.h>

#include "k100/codegen/division.h"

namespace {

using k100::codegen::magic_multiplier;

// Whether (i * m) >> 32 == i / d for every i < max_i, by trying them all.
bool exact_for_all(uint32_t d, uint64_t max_i, uint32_t m) {
  for (uint64_t i = 0; i < max_i; ++i)
    if (((i * m) >> 32) != i / d) return false;
  return true;
}

TEST(MagicMultiplier, IsGivenExactlyWhenItIsExactForEveryDividend) {
  for (uint32_t d : {2u, 3u, 5u, 7u, 64u, 100u, 641u, 6700417u})
    for (uint64_t max_i : {1ull, 2ull, 1000ull, 100000ull, 3000000ull}) {
      auto m = magic_multiplier(d, max_i);
      ASSERT_TRUE(m.has_value()) << d << " " << max_i;  // small bounds always work
      EXPECT_EQ(*m, uint32_t((uint64_t(1) << 32) / d + 1));
      EXPECT_TRUE(exact_for_all(d, max_i, *m)) << d << " " << max_i;
    }
}

TEST(MagicMultiplier, IsRefusedWhereSomeDividendWouldBeWrong) {
  // d = 7: m = 613566757, e = 7 - 2^32 mod 7 = 3; the first wrong dividend is
  // the last of its quotient group with i * 3 >= 2^32
  const uint32_t d = 7;
  const uint64_t first_bad = ((uint64_t(1) << 32) / 3 / d + 1) * d - 1;
  const uint32_t m = uint32_t((uint64_t(1) << 32) / d + 1);
  EXPECT_NE(((first_bad * m) >> 32), first_bad / d);
  EXPECT_EQ(((first_bad - d) * m) >> 32, (first_bad - d) / d);
  EXPECT_TRUE(magic_multiplier(d, first_bad).has_value());
  EXPECT_FALSE(magic_multiplier(d, first_bad + 1).has_value());
  EXPECT_FALSE(magic_multiplier(0, 10).has_value());
  EXPECT_TRUE(magic_multiplier(1, 1).has_value());   // d = 1 works only for i = 0
  EXPECT_FALSE(magic_multiplier(1, 2).has_value());
}

}  // namespace
