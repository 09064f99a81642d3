// The statistics of `takt bench runtime`: nearest-rank p95/median and the bootstrap interval of a difference in tails.
#include "bench/runtime/sample_statistics.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace takt::bench {
namespace {

// 1..100 ms: median = 50th value = 50, p95 = 95th value = 95, so p95/median = 1.9.
std::vector<double> one_to_hundred() {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  return v;
}

TEST(BenchStatistics, TailRatioIsP95OverMedianByNearestRank) {
  EXPECT_DOUBLE_EQ(tail_ratio(one_to_hundred()), 95.0 / 50.0);
  // 20 samples: p95 is the 19th smallest, the median the 10th: 19/10.
  std::vector<double> twenty;
  for (int i = 20; i >= 1; --i) twenty.push_back(i);
  EXPECT_DOUBLE_EQ(tail_ratio(twenty), 1.9);
  EXPECT_EQ(tail_ratio({}), 0.0);
}

TEST(BenchStatistics, IdenticalSamplesGiveAnIntervalAroundZero) {
  const std::vector<double> a = one_to_hundred();
  const Interval i = bootstrap_tail_ratio_difference(a, a);
  EXPECT_LT(i.low, 0.0);
  EXPECT_GT(i.high, 0.0);
  EXPECT_LE(i.low, i.high);
}

TEST(BenchStatistics, AClearlyLongerTailLiesOutsideTheNoise) {
  // a: 90 runs of 10 ms and 10 of 20 ms, p95/median = 2; b: all 10 ms, ratio 1.
  // Resampling b always gives 1; resampling a gives 2 unless fewer than 6 of the 100
  // draws hit a 20 ms run (binomial(100, 0.1): about 6 % of the resamples), so the
  // 5th percentile of the differences is 1 only just, or 0; the 95th is 1.
  std::vector<double> a(90, 10.0), b(100, 10.0);
  a.insert(a.end(), 10, 20.0);
  const Interval longer = bootstrap_tail_ratio_difference(a, b, 2000, 0.80);
  EXPECT_DOUBLE_EQ(longer.high, 1.0);
  EXPECT_DOUBLE_EQ(longer.low, 1.0);  // 80 %: the 10th percentile, above the ~6 %
  const Interval shorter = bootstrap_tail_ratio_difference(b, a, 2000, 0.80);
  EXPECT_DOUBLE_EQ(shorter.low, -1.0);
  EXPECT_DOUBLE_EQ(shorter.high, -1.0);
}

TEST(BenchStatistics, TheSameSamplesGiveTheSameInterval) {
  std::vector<double> a = one_to_hundred(), b(100, 50.0);
  const Interval x = bootstrap_tail_ratio_difference(a, b);
  const Interval y = bootstrap_tail_ratio_difference(a, b);
  EXPECT_EQ(x.low, y.low);
  EXPECT_EQ(x.high, y.high);
}

}  // namespace
}  // namespace takt::bench
