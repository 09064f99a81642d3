// Tests of the exact arithmetic helpers: ceilings and fraction sums.
#include "analysis/exact.hpp"

#include <gtest/gtest.h>

using takt::analysis::ceil_div;
using takt::analysis::floor_div;
using takt::analysis::RatioSum;

TEST(Exact, CeilAndFloorOfRatios) {
  EXPECT_EQ(ceil_div(18, 8), 3);
  EXPECT_EQ(ceil_div(16, 8), 2);
  EXPECT_EQ(ceil_div(0, 8), 0);
  EXPECT_EQ(ceil_div(-7, 2), -3);
  EXPECT_EQ(floor_div(7, 2), 3);
  EXPECT_EQ(floor_div(-7, 2), -4);
}

TEST(Exact, RatioSumIsExactAtTies) {
  // 1/3 + 1/3 + 1/3 = 1 exactly, 1/10 · 10 = 1 exactly.
  RatioSum thirds;
  for (int i = 0; i < 3; ++i) thirds.add(1, 3);
  EXPECT_TRUE(thirds.exact());
  EXPECT_EQ(thirds.compare(1, 1), 0);
  RatioSum tenths;
  for (int i = 0; i < 10; ++i) tenths.add(1'000'000, 10'000'000);
  EXPECT_EQ(tenths.compare(1, 1), 0);
  tenths.add(1, 1'000'000'000);
  EXPECT_GT(tenths.compare(1, 1), 0);
  // 0.1 added ten times in double is 0.9999999999999999: the exact sum is not fooled.
  double d = 0;
  for (int i = 0; i < 10; ++i) d += 0.1;
  EXPECT_NE(d, 1.0);
}

TEST(Exact, RatioSumFallsBackToLongDoubleOnOverflow) {
  // Many coprime denominators overflow 128 bits; the comparison still works away from ties.
  RatioSum sum;
  const std::int64_t primes[] = {1000003, 1000033, 1000037, 1000039, 1000081,
                                 1000099, 1000117, 1000121, 1000133};
  for (std::int64_t p : primes) sum.add(p / 10, p);
  EXPECT_FALSE(sum.exact());
  EXPECT_LT(sum.compare(1, 1), 0);  // ≈ 0.9
  EXPECT_GT(sum.compare(8, 10), 0);
}
