// Median, p95 and max of repeated timings (nearest-rank percentiles).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
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

}  // namespace takt::bench
