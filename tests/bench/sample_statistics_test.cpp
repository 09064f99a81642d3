// The statistics takt bench runtime reports: nearest-rank median and p95, the tail
// ratio p95/median the multiprogrammed targets compare, and the bootstrap interval that
// says whether two tail ratios can be told apart. Expected values are derived by hand
// in the comments.
#include "bench/runtime/sample_statistics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace takt::bench {
namespace {

std::vector<double> repeated(std::size_t n, double value) { return std::vector<double>(n, value); }

std::vector<double> two_values(std::size_t n_low, double low, std::size_t n_high, double high) {
  std::vector<double> v = repeated(n_low, low);
  v.insert(v.end(), n_high, high);
  return v;
}

/// The samples in rounds of `size` consecutive samples.
Rounds in_rounds(const std::vector<double>& samples, std::size_t size) {
  Rounds rounds;
  for (std::size_t i = 0; i < samples.size(); i += size) {
    rounds.emplace_back(samples.begin() + static_cast<std::ptrdiff_t>(i),
                        samples.begin() + static_cast<std::ptrdiff_t>(std::min(i + size, samples.size())));
  }
  return rounds;
}

/// The difference and its 95 % interval, exactly (the cases below are built so that every
/// resampled difference is one of a few values).
void expect_comparison(const TailComparison& c, double difference, double low, double high) {
  EXPECT_DOUBLE_EQ(c.difference, difference);
  EXPECT_DOUBLE_EQ(c.low, low);
  EXPECT_DOUBLE_EQ(c.high, high);
}

TEST(SampleStatistics, NearestRankMedianAndP95) {
  // 20 samples 20, 19, ..., 1 (unsorted on purpose): the median is the ⌈0.5·20⌉ = 10th
  // smallest (10), the p95 the ⌈0.95·20⌉ = 19th (19); mean (1+...+20)/20 = 10.5.
  std::vector<double> v;
  for (int i = 20; i >= 1; --i) v.push_back(i);
  SampleStatistics s = summarize(v);
  EXPECT_EQ(s.count, 20u);
  EXPECT_DOUBLE_EQ(s.min_ms, 1);
  EXPECT_DOUBLE_EQ(s.median_ms, 10);
  EXPECT_DOUBLE_EQ(s.p95_ms, 19);
  EXPECT_DOUBLE_EQ(s.max_ms, 20);
  EXPECT_DOUBLE_EQ(s.mean_ms, 10.5);
  EXPECT_DOUBLE_EQ(tail_ratio(v), 1.9);  // 19 / 10
}

TEST(SampleStatistics, FortySamplesTakeTheThirtyEighthForP95) {
  // uts-t3-style's 40 repetitions: the p95 of 1..40 is the ⌈0.95·40⌉ = 38th smallest, 38,
  // so two samples lie above it; the median is the 20th, 20.
  std::vector<double> v;
  for (int i = 1; i <= 40; ++i) v.push_back(i);
  EXPECT_DOUBLE_EQ(summarize(v).p95_ms, 38);
  EXPECT_DOUBLE_EQ(summarize(v).median_ms, 20);
}

TEST(TailComparison, IdenticalConstantSamplesDifferByNothing) {
  TailComparison c = compare_tail_ratios(in_rounds(repeated(100, 5.0), 5), in_rounds(repeated(100, 5.0), 5));
  expect_comparison(c, 0, 0, 0);
  EXPECT_EQ(c.resamples, 2000);
}

TEST(TailComparison, AnOrderThatResamplingOftenReversesIsWithinTheNoise) {
  // Rounds of one sample. a: 100 samples of 10, p95/median 1 in every resample. b: 50 of
  // 10 and 50 of 20: median 10 (the 50th smallest), p95 20, ratio 2, so the difference
  // is -1. A resample of b keeps ratio 2 only while it holds at least 50 tens (else its
  // median is 20 and its ratio 1): P(Binomial(100, 1/2) >= 50) = 0.540. So about 54 % of
  // the resampled differences are -1 and 46 % are 0, and the 2.5th and 97.5th
  // percentiles are -1 and 0: an interval holding 0.
  TailComparison c =
      compare_tail_ratios(in_rounds(repeated(100, 10.0), 1), in_rounds(two_values(50, 10.0, 50, 20.0), 1));
  expect_comparison(c, -1, -1, 0);
}

TEST(TailComparison, AnOrderThatResamplingKeepsIsBeyondTheNoise) {
  // Rounds of one sample. b: 80 of 10 and 20 of 20, ratio 20/10 = 2. A resample of b has
  // ratio 1 only with at most 5 twenties (p95 10; P(Binomial(100, 0.2) <= 5) = 1.9e-5) or
  // more than 50 (median 20; 5e-12): among 2000 resamples, expected 0.04. So every
  // resampled difference is -1: the interval is [-1, -1], and with the arguments swapped
  // [1, 1].
  const Rounds steady = in_rounds(repeated(100, 10.0), 1);
  const Rounds tailed = in_rounds(two_values(80, 10.0, 20, 20.0), 1);
  TailComparison smaller = compare_tail_ratios(steady, tailed);
  expect_comparison(smaller, -1, -1, -1);
  TailComparison larger = compare_tail_ratios(tailed, steady);
  expect_comparison(larger, 1, 1, 1);
}

TEST(TailComparison, SlowSamplesThatCameInFewRoundsAreWithinTheNoise) {
  // The same b as above, but its 20 twenties fill 4 of 20 rounds of 5 (a slow phase of
  // the machine, not 20 independent slow runs). Resampling 20 rounds draws K slow rounds,
  // K ~ Binomial(20, 0.2), i.e. 5K twenties: the ratio stays 2 for 2 <= K <= 10 and is 1
  // for K <= 1 (at most 5 twenties: p95 10), P(K <= 1) = 0.8^20 + 20 * 0.2 * 0.8^19 =
  // 0.069, more than 2.5 % (K > 10: 0.0006). So the interval is [-1, 0]: these samples
  // cannot say that a's tail is the smaller, where one-sample rounds could.
  TailComparison c =
      compare_tail_ratios(in_rounds(repeated(100, 10.0), 5), in_rounds(two_values(80, 10.0, 20, 20.0), 5));
  expect_comparison(c, -1, -1, 0);
}

TEST(TailComparison, RoundsArePairedSoAPhaseThatSlowsBothCancels) {
  // a and b are slowed alike in the same 4 of 20 rounds (×2 there): both ratios are 2 in
  // the samples and in every resample that draws the same rounds for both, so every
  // resampled difference is 0. Resampling a's and b's rounds independently would not
  // give that.
  const Rounds a = in_rounds(two_values(80, 10.0, 20, 20.0), 5);
  const Rounds b = in_rounds(two_values(80, 30.0, 20, 60.0), 5);
  TailComparison c = compare_tail_ratios(a, b);
  expect_comparison(c, 0, 0, 0);
}

TEST(TailComparison, DifferentNumbersOfRoundsAreAnError) {
  EXPECT_THROW(compare_tail_ratios(in_rounds(repeated(10, 1.0), 5), in_rounds(repeated(10, 1.0), 2)),
               std::invalid_argument);
}

TEST(TailComparison, TheSameSeedGivesTheSameInterval) {
  // Two spread-out sets of 100 samples: any pair whose resamples differ will do.
  std::vector<double> a, b;
  for (int i = 1; i <= 100; ++i) {
    a.push_back(100 + i);
    b.push_back(100 + (i * 37) % 101);
  }
  TailComparison first = compare_tail_ratios(in_rounds(a, 5), in_rounds(b, 5), 500, 7);
  TailComparison again = compare_tail_ratios(in_rounds(a, 5), in_rounds(b, 5), 500, 7);
  EXPECT_EQ(first.low, again.low);
  EXPECT_EQ(first.high, again.high);
  EXPECT_LE(first.low, first.high);
  EXPECT_EQ(again.seed, 7u);
  // The seed is used: some other seed draws other resamples, and another interval (an
  // implementation that ignored it would give the same one for every seed).
  bool differs = false;
  for (std::uint64_t seed = 8; seed < 28 && !differs; ++seed) {
    const TailComparison other = compare_tail_ratios(in_rounds(a, 5), in_rounds(b, 5), 500, seed);
    differs = other.low != first.low || other.high != first.high;
  }
  EXPECT_TRUE(differs) << "20 other seeds all gave the interval of seed 7";
}

}  // namespace
}  // namespace takt::bench
