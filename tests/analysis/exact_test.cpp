// Tests of the exact arithmetic helpers: ceilings and fraction sums.
#include "analysis/exact.hpp"

#include <gtest/gtest.h>
// GCC 12 at -O2 warns that a temporary of Boost's rational constructor "may be used
// uninitialized" depending on what else the file inlines: a false positive in Boost's code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/multiprecision/cpp_int.hpp>
#pragma GCC diagnostic pop

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
  // 0.326 + 0.28 + 0.277 + 0.117 = 1 is 1.0000000000000002 when added in double, and above
  // 1 in long double too: the exact sum is 1, and at most 1.
  RatioSum above_in_floating_point;
  above_in_floating_point.add(326, 1000);
  above_in_floating_point.add(560, 2000);
  above_in_floating_point.add(277, 1000);
  above_in_floating_point.add(117, 1000);
  EXPECT_TRUE(above_in_floating_point.exact());
  EXPECT_EQ(above_in_floating_point.compare(1, 1), 0);
  EXPECT_TRUE(above_in_floating_point.at_most(1, 1));
}

TEST(Exact, RatioSumUpperBoundHoldsBeforeAndAfterTheFractionOverflows) {
  // While exact, the bound is derived from the fraction when asked (rounding up after
  // every add made the exact RBF* terms 4 times slower): 1/3 · 3 = 1 exactly, its bound
  // at least 1 and within 3 ulps of it.
  RatioSum thirds;
  for (int i = 0; i < 3; ++i) thirds.add(1, 3);
  const long double one = 1.0L, inf = std::numeric_limits<long double>::infinity();
  EXPECT_GE(thirds.upper_bound(), one);
  EXPECT_LE(thirds.upper_bound(), std::nextafter(std::nextafter(std::nextafter(one, inf), inf), inf));
  // Where the fraction overflows, the terms before carry over into the running bound,
  // and the bound stays above the exact sum (Boost's rationals): also when an exact sum
  // is added to an overflowed one, and an overflowed one to an exact one.
  using boost::multiprecision::cpp_rational;
  const std::int64_t primes[] = {1000003, 1000033, 1000037, 1000039, 1000081,
                                 1000099, 1000117, 1000121, 1000133, 1000151};
  RatioSum sum;
  cpp_rational exact = 0;
  for (std::int64_t p : primes) {
    sum.add(p / 10 + 1, p);
    exact += cpp_rational(p / 10 + 1, p);
    EXPECT_GE(static_cast<cpp_rational>(sum.upper_bound()), exact) << "after " << p;
  }
  ASSERT_FALSE(sum.exact());
  RatioSum exact_part;
  exact_part.add(1, 7);
  RatioSum into_overflowed = sum;
  into_overflowed.add(exact_part);
  EXPECT_GE(static_cast<cpp_rational>(into_overflowed.upper_bound()), exact + cpp_rational(1, 7));
  RatioSum overflowed_into_exact = exact_part;
  overflowed_into_exact.add(sum);
  EXPECT_FALSE(overflowed_into_exact.exact());
  EXPECT_GE(static_cast<cpp_rational>(overflowed_into_exact.upper_bound()), exact + cpp_rational(1, 7));
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

TEST(Exact, RatioSumRoundsTowardsRejectionAfterAnOverflow) {
  // Nine densities (p/10)/p with distinct primes p overflow the exact fraction. A last term
  // a/b is then chosen so that the exact sum exceeds 1 by less than the rounding of the
  // long double sum; the old comparison on that rounded sum admitted such a total density
  // above 1. at_most(1, 1) must say no whenever the exact sum (checked with Boost's
  // arbitrary-precision rationals) is above 1.
  using boost::multiprecision::cpp_rational;
  const std::int64_t primes[] = {1000003, 1000033, 1000037, 1000039, 1000081,
                                 1000099, 1000117, 1000121, 1000133};
  RatioSum head;
  cpp_rational exact_head = 0;
  for (std::int64_t p : primes) {
    head.add(p / 10, p);
    exact_head += cpp_rational(p / 10, p);
  }
  ASSERT_FALSE(head.exact());
  const cpp_rational gap = 1 - exact_head;  // about 0.1
  int above_one_yet_rounded_to_at_most_one = 0;
  for (std::int64_t b = 1'000'000'000'000'000'000; b < 1'000'000'000'000'002'000; ++b) {
    // a/b: the smallest numerator with exact_head + a/b > 1.
    const cpp_rational scaled = gap * b;
    const std::int64_t a = static_cast<std::int64_t>(numerator(scaled) / denominator(scaled)) + 1;
    RatioSum sum = head;
    sum.add(a, b);
    const cpp_rational exact = exact_head + cpp_rational(a, b);
    ASSERT_GT(exact, 1);
    if (sum.value() <= 1.0L) ++above_one_yet_rounded_to_at_most_one;
    EXPECT_FALSE(sum.at_most(1, 1)) << "b = " << b;
  }
  // The search did meet the case the old comparison got wrong.
  EXPECT_GT(above_one_yet_rounded_to_at_most_one, 0);
  // Away from the bound the answer is still yes: ≈ 0.9 ≤ 1.
  EXPECT_TRUE(head.at_most(1, 1));
  EXPECT_FALSE(head.at_most(8, 10));
  // Exact sums decide exact ties: 1/3 + 1/3 + 1/3 ≤ 1.
  RatioSum thirds;
  for (int i = 0; i < 3; ++i) thirds.add(1, 3);
  EXPECT_TRUE(thirds.at_most(1, 1));
  EXPECT_FALSE(thirds.at_most(999, 1000));
}
