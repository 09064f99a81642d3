#include "bench/runtime/sample_statistics.hpp"

#include "analysis/random.hpp"
#include "platform/percentile.hpp"

#include <algorithm>
#include <numeric>
#include <span>
#include <stdexcept>

namespace takt::bench {
namespace {

double rank(const std::vector<double>& sorted, double p) {
  return platform::nearest_rank(std::span<const double>(sorted), p);
}

double sorted_tail_ratio(const std::vector<double>& sorted) {
  if (sorted.empty()) return 0.0;
  const double median = rank(sorted, 50);
  return median > 0 ? rank(sorted, 95) / median : 0.0;
}

/// All samples of `rounds`, or of the rounds numbered in `pick`, sorted.
std::vector<double> flatten(const Rounds& rounds, const std::vector<std::size_t>* pick = nullptr) {
  std::vector<double> out;
  if (pick == nullptr) {
    for (const auto& r : rounds) out.insert(out.end(), r.begin(), r.end());
  } else {
    for (std::size_t i : *pick) out.insert(out.end(), rounds[i].begin(), rounds[i].end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

SampleStatistics summarize(std::vector<double> samples_ms) {
  SampleStatistics s;
  if (samples_ms.empty()) return s;
  std::sort(samples_ms.begin(), samples_ms.end());
  s.count = samples_ms.size();
  s.min_ms = samples_ms.front();
  s.max_ms = samples_ms.back();
  s.median_ms = rank(samples_ms, 50);
  s.p95_ms = rank(samples_ms, 95);
  s.mean_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) / static_cast<double>(s.count);
  return s;
}

double tail_ratio(std::vector<double> samples_ms) {
  std::sort(samples_ms.begin(), samples_ms.end());
  return sorted_tail_ratio(samples_ms);
}

TailComparison compare_tail_ratios(const Rounds& a, const Rounds& b, int resamples, std::uint64_t seed) {
  if (a.size() != b.size()) {
    throw std::invalid_argument("compare_tail_ratios: the two runtimes have different numbers of rounds");
  }
  TailComparison c;
  c.rounds = a.size();
  c.resamples = resamples;
  c.seed = seed;
  c.difference = sorted_tail_ratio(flatten(a)) - sorted_tail_ratio(flatten(b));
  if (a.size() < 2 || resamples <= 0) {
    c.low = c.high = c.difference;
    return c;
  }
  analysis::Random random(seed);
  std::vector<double> differences(static_cast<std::size_t>(resamples));
  std::vector<std::size_t> pick(a.size());
  const auto last = static_cast<std::int64_t>(a.size()) - 1;
  for (double& d : differences) {
    for (std::size_t& i : pick) i = static_cast<std::size_t>(random.uniform_int(0, last));
    d = sorted_tail_ratio(flatten(a, &pick)) - sorted_tail_ratio(flatten(b, &pick));
  }
  std::sort(differences.begin(), differences.end());
  c.low = rank(differences, 2.5);
  c.high = rank(differences, 97.5);
  return c;
}

}  // namespace takt::bench
