// Median, p95 and max of repeated timings (nearest-rank percentiles), and how sure a
// comparison of two runtimes' tails is (a bootstrap interval).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace takt::bench {

struct SampleStatistics {
  std::size_t count = 0;
  double min_ms = 0, median_ms = 0, p95_ms = 0, max_ms = 0, mean_ms = 0;
};

/// Min, nearest-rank median and p95 (platform::nearest_rank: for 20 samples the p95 is
/// the 19th smallest, for 5 the median is the 3rd), max and mean.
SampleStatistics summarize(std::vector<double> samples_ms);

/// p95 / median of samples (nearest rank); 0 when empty or the median is not positive.
double tail_ratio(std::vector<double> samples_ms);

/// The difference p95/median(a) − p95/median(b) and a 95 % bootstrap interval for it.
/// The samples come in rounds: round i of a and round i of b were taken one right after
/// the other, so they share the machine's phase of that moment (another tenant's load,
/// the host's frequency), and the samples of one round share it with each other. So
/// the bootstrap resamples rounds, not samples, and pairs them: `resamples` times, draw
/// as many round numbers as there are rounds, with replacement; take those rounds of a
/// and of b; compute the difference. The interval is the nearest-rank 2.5th and 97.5th
/// percentile of those differences. Draws come from analysis::Random(seed): the same
/// interval for the same samples on every platform. An interval that holds 0 says the
/// samples cannot tell the two tails apart: phases like the measured ones, differently
/// spread over the rounds, would order them either way. `a` and `b` need the same number
/// of rounds (std::invalid_argument otherwise). With fewer than 2 rounds there is no
/// interval: low and high are the difference, and `rounds` says why.
struct TailComparison {
  double difference = 0;
  double low = 0, high = 0;  ///< the 95 % interval
  std::size_t rounds = 0;
  int resamples = 0;
  std::uint64_t seed = 0;
};
using Rounds = std::vector<std::vector<double>>;
TailComparison compare_tail_ratios(const Rounds& a, const Rounds& b, int resamples = 2000,
                                   std::uint64_t seed = 1);

}  // namespace takt::bench
