// Median, p95 and max of repeated timings (nearest-rank percentiles).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace takt::bench {

struct SampleStatistics {
  std::size_t count = 0;
  double min_ms = 0, median_ms = 0, p95_ms = 0, max_ms = 0, mean_ms = 0;
};

/// The p-th percentile (0 < p ≤ 100) of sorted samples by the nearest-rank method: the
/// smallest sample such that at least p % of the samples are ≤ it. For 20 samples the
/// 95th percentile is the 19th smallest; the median of 5 samples is the 3rd.
inline double nearest_rank(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  if (rank < 1) rank = 1;
  return sorted[std::min(rank, sorted.size()) - 1];
}

inline SampleStatistics summarize(std::vector<double> samples_ms) {
  SampleStatistics s;
  if (samples_ms.empty()) return s;
  std::sort(samples_ms.begin(), samples_ms.end());
  s.count = samples_ms.size();
  s.min_ms = samples_ms.front();
  s.max_ms = samples_ms.back();
  s.median_ms = nearest_rank(samples_ms, 50);
  s.p95_ms = nearest_rank(samples_ms, 95);
  s.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / static_cast<double>(s.count);
  return s;
}

/// p95 / median of unsorted samples (0 for none).
inline double tail_ratio(std::vector<double> samples_ms) {
  const SampleStatistics s = summarize(std::move(samples_ms));
  return s.median_ms > 0 ? s.p95_ms / s.median_ms : 0.0;
}

/// A two-sided interval.
struct Interval {
  double low = 0, high = 0;
};

/// How much of a difference in p95/median between two sets of timings is noise: a
/// percentile bootstrap. Each set is resampled with replacement (same size)
/// `resamples` times, and the interval holds the middle `confidence` share of the
/// resampled differences tail_ratio(a*) − tail_ratio(b*). An interval that contains 0
/// says the two tails cannot be told apart from these samples. The generator is
/// seeded, so the same samples give the same interval.
inline Interval bootstrap_tail_ratio_difference(const std::vector<double>& a, const std::vector<double>& b,
                                                int resamples = 2000, double confidence = 0.90,
                                                std::uint64_t seed = 1) {
  if (a.empty() || b.empty() || resamples < 1) return {};
  std::mt19937_64 rng(seed);
  std::vector<double> differences;
  differences.reserve(static_cast<std::size_t>(resamples));
  std::vector<double> ra(a.size()), rb(b.size());
  auto resample = [&rng](const std::vector<double>& from, std::vector<double>& to) {
    std::uniform_int_distribution<std::size_t> pick(0, from.size() - 1);
    for (double& x : to) x = from[pick(rng)];
  };
  for (int i = 0; i < resamples; ++i) {
    resample(a, ra);
    resample(b, rb);
    differences.push_back(tail_ratio(ra) - tail_ratio(rb));
  }
  std::sort(differences.begin(), differences.end());
  const double outside = (1.0 - confidence) / 2.0 * 100.0;
  return {nearest_rank(differences, outside), nearest_rank(differences, 100.0 - outside)};
}

}  // namespace takt::bench
