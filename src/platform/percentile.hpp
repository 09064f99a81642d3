// Order statistics used by every report: nearest-rank percentiles and duration summaries.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace takt::platform {

/// The nearest-rank p-th percentile (0 < p ≤ 100) of `sorted` (ascending, not empty):
/// the smallest value such that at least p % of the values are ≤ it, i.e. the value of
/// rank ⌈p/100 · n⌉. Example: for 1..8, p50 is 4 and p99 is 8.
template <class T>
T nearest_rank(std::span<const T> sorted, double p) {
  const std::size_t n = sorted.size();
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(n) - 1e-9));
  rank = std::clamp<std::size_t>(rank, 1, n);
  return sorted[rank - 1];
}

/// Count, min, mean, p50, p99 and max of a set of durations (all zero when empty).
struct DurationStats {
  std::size_t count = 0;
  std::chrono::nanoseconds min{}, mean{}, p50{}, p99{}, max{};
};

/// Sorts `values` and summarises them.
inline DurationStats summarize(std::vector<std::chrono::nanoseconds> values) {
  DurationStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = values.size();
  s.min = values.front();
  s.max = values.back();
  // Mean in long double: ns sums of long runs stay exact enough.
  long double sum = 0;
  for (auto v : values) sum += static_cast<long double>(v.count());
  s.mean = std::chrono::nanoseconds(
      static_cast<std::int64_t>(std::llround(sum / static_cast<long double>(values.size()))));
  std::span<const std::chrono::nanoseconds> view(values);
  s.p50 = nearest_rank(view, 50);
  s.p99 = nearest_rank(view, 99);
  return s;
}

}  // namespace takt::platform
