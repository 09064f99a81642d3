// The task-set generator of paws §5: utilisation windows, T in [100, 150] ms, n_i = x·3m threads.
#include "analysis/generator_methods.hpp"
#include "takt/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace takt::analysis {
namespace {

using std::chrono::nanoseconds;

constexpr double kMinTaskUtilization = 0.1;
constexpr double kMaxTaskUtilization = 0.4;
constexpr std::int64_t kMinPeriod = 100'000'000;  // 100 ms
constexpr std::int64_t kMaxPeriod = 150'000'000;  // 150 ms
constexpr int kMaxRestarts = 100'000;

// One task: sequential part, a parallel region of n threads, sequential part; the
// split of C_i among them is random (paws §5 derives it randomly, bounded by C_i).
model::Task make_task(int index, double u, int cores, Random& random) {
  model::Task t;
  t.name = "t" + std::to_string(index);
  t.period = nanoseconds{std::llround(static_cast<double>(kMinPeriod) +
                                      random.uniform01() * static_cast<double>(kMaxPeriod - kMinPeriod))};
  t.deadline = t.period;
  const std::int64_t work =
      std::max<std::int64_t>(3, std::llround(static_cast<double>(t.period.count()) * u));
  // n_i = x·(m·3), x uniform in (0, 1], rounded up to a whole thread.
  const double x = 1.0 - random.uniform01();
  const int threads = std::max(1, static_cast<int>(std::ceil(x * 3 * cores)));
  const double parallel_fraction = random.uniform01();
  const std::int64_t strand = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(parallel_fraction * static_cast<double>(work) / threads));
  const std::int64_t sequential = work - strand * threads;
  const std::int64_t before = static_cast<std::int64_t>(random.uniform01() * static_cast<double>(sequential));
  const std::int64_t after = sequential - before;
  if (before > 0) t.segments.push_back({nanoseconds{before}, 1, {}});
  t.segments.push_back({nanoseconds{strand}, threads, {}});
  if (after > 0) t.segments.push_back({nanoseconds{after}, 1, {}});
  t.program = std::string(model::kSegmentsProgram);
  return t;
}

}  // namespace

GeneratedSet generate_paws(const GeneratorOptions& options, Random& random) {
  // The window [U − 0.02m, U]. paws §5 (m = 2) lists [0.28, 0.30], [0.58, 0.60],
  // [0.78, 0.80], [0.83, 0.85] (Table 1: "28-30%" to "83-85%"); takt reads them as
  // shares of the capacity m, so the window is 2 % of m wide (0.04 on 2 cores) and the
  // paper's first set is --utilization 30% (Σu in [0.56, 0.60]). The other reading takes
  // them as Σu itself, 0.02 wide whatever m, as §5's condition U_min ≤ Σu_k ≤ U_max reads
  // literally (with §2's U_Π = Σu_i, not a share of m). takt's reading is the
  // one that fits the set-up: with u_max = 0.4 on 2 cores the GFB bound of §2 is
  // m − (m − 1)·u_max = 1.6 = 0.8·m, exactly the top of the window [0.78, 0.80], and
  // [0.83, 0.85] lies just past it; SCHED_DEADLINE misses deadlines only in those two.
  // As Σu, every window would sit below 1 on 2 cores, far from any bound. See
  // docs/analysis.md.
  const double high = options.utilization;
  const double low = high - 0.02 * options.cores;
  if (high < kMinTaskUtilization) {
    // The value in cores as the decimal --utilization takes (6 significant digits, no
    // exponent): 0.0000000001, not 1e-10, which --utilization would refuse.
    const int digits = std::clamp(5 - static_cast<int>(std::floor(std::log10(high))), 0, 330);
    char buffer[400];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, high);
    std::string given = buffer;
    while (given.find('.') != std::string::npos && (given.back() == '0' || given.back() == '.'))
      given.pop_back();
    throw Error("paws tasks have u ≥ 0.1; a total utilization of " + given +
                " is below one task: give --utilization of at least 0.1");
  }
  for (int attempt = 0; attempt < kMaxRestarts; ++attempt) {
    std::vector<double> utilizations;
    double total = 0;
    // A remainder of exactly 0.1 (--utilization 0.1) leaves a draw in [0.1, 0.4) no
    // room, one just above it almost none: after this many overshooting draws in a row,
    // start again (expected draws: 0.3 / (remainder - 0.1)).
    constexpr int kMaxRedraws = 1'000;
    int redraws = 0;
    while (total < low || utilizations.empty()) {
      if (high - total <= kMinTaskUtilization) break;  // no task fits the window: start again
      const double u = random.uniform(kMinTaskUtilization, kMaxTaskUtilization);
      if (total + u > high) {
        if (++redraws == kMaxRedraws) break;
        continue;  // overshoots the window: draw again
      }
      redraws = 0;
      utilizations.push_back(u);
      total += u;
    }
    if (total < low || utilizations.empty()) continue;
    GeneratedSet out;
    out.set.global.policy = model::Policy::gedf_paws;
    for (std::size_t i = 0; i < utilizations.size(); ++i) {
      out.set.tasks.push_back(make_task(static_cast<int>(i + 1), utilizations[i], options.cores, random));
    }
    out.summary = "paws §5: u_i in [0.1, 0.4], T_i in [100, 150] ms, window [" +
                  format_number(std::max(0.0, low), 3) + ", " + format_number(high, 3) + "]\n";
    return out;
  }
  throw Error(
      "paws: no set of tasks with u in [0.1, 0.4] lands in the utilization window; choose another "
      "--utilization");
}

}  // namespace takt::analysis
