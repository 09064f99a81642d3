// The task-set generator of rt-openmp §VI.A: periods 2^i, span 8–20 % of the period, log-normal segments.
#include "analysis/generator_methods.hpp"
#include "model/duration.hpp"
#include "takt/error.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace takt::analysis {
namespace {

using std::chrono::nanoseconds;

constexpr double kUnitsPerTimescale = 2048;  // the minimum period is 2^11 units
constexpr double kMinSegment = 100;          // units
constexpr double kMeanSegment = 400;         // units
constexpr double kMeanStrands = 4;
constexpr double kSigma = 1.0;  // σ of the log-normal draws (not given by the paper)
constexpr int kMaxDraws = 1'000'000;
// The longest period, 2^16 units = 32·timescale, must stay within model::kMaxDuration (2^62 ns).
constexpr nanoseconds kMaxTimescale = model::kMaxDuration / 32;

// Span as a fraction of the period: 8/10/14/20 % with probability .4/.3/.2/.1.
/// The span as a percentage of the period: 8, 10, 14 or 20 with probabilities .4, .3, .2, .1.
int span_percent(Random& random) {
  const double x = random.uniform01();
  if (x < 0.4) return 8;
  if (x < 0.7) return 10;
  if (x < 0.9) return 14;
  return 20;
}

model::Task make_task(double unit_ns, Random& random) {
  model::Task t;
  const int exponent = static_cast<int>(random.uniform_int(11, 16));
  // 2^k units of timescale/2^11 ns: exact in integers.
  t.period = nanoseconds{std::llround(unit_ns * std::ldexp(1.0, exponent))};
  t.deadline = t.period;
  // Rounded down, exactly: the 20 % tests are generated with P <= D/5 (§VI.A), which a
  // span rounded to nearest broke at periods not divisible by 5 ns.
  const auto span = static_cast<std::int64_t>(static_cast<__int128>(t.period.count()) * span_percent(random) / 100);
  const std::int64_t min_length = std::max<std::int64_t>(1, std::llround(kMinSegment * unit_ns));
  std::int64_t sum = 0;
  while (sum < span) {
    // A draw longer than the span is cut to it below; cutting it first keeps a far tail
    // draw at a large timescale within what llround can return.
    std::int64_t length = std::max<std::int64_t>(
        1, std::llround(std::min(
               (kMinSegment + random.lognormal_with_mean(kMeanSegment - kMinSegment, kSigma)) * unit_ns,
               static_cast<double>(span))));
    const int strands = static_cast<int>(
        std::max<long long>(1, std::llround(1 + random.lognormal_with_mean(kMeanStrands - 1, kSigma))));
    if (sum + length >= span) {
      length = span - sum;
      // A last piece shorter than the minimum joins the previous segment.
      if (length < min_length && !t.segments.empty()) {
        t.segments.back().length += nanoseconds{length};
        sum = span;
        break;
      }
    }
    t.segments.push_back({nanoseconds{length}, strands, {}});
    sum += length;
  }
  t.program = std::string(model::kSegmentsProgram);
  return t;
}

// Whether the work Σ m·e of `t` passes model::kMaxDuration, the most a task may have
// (possible near the largest timescale, where a period is close to it).
bool work_too_large(const model::Task& t) {
  __int128 work = 0;
  for (const model::Segment& s : t.segments) work += static_cast<__int128>(s.length.count()) * s.strands;
  return work > model::kMaxDuration.count();
}

}  // namespace

GeneratedSet generate_rt_openmp(const GeneratorOptions& options, Random& random) {
  if (options.timescale < kMinTimescale) {  // checked on the command line too
    throw Error("--timescale " + model::format_duration(options.timescale) +
                " is too small: the minimum period is 2^11 = 2048 time units, and a unit is at least 1 ns; "
                "use at least --timescale " +
                model::format_duration(kMinTimescale));
  }
  if (options.timescale > kMaxTimescale) {
    throw Error("--timescale " + model::format_duration(options.timescale) +
                " is too large: the longest period, 2^16 units = 32 timescales, must stay within 2^62 ns; "
                "use at most --timescale " +
                model::format_duration(kMaxTimescale));
  }
  const double unit_ns = static_cast<double>(options.timescale.count()) / kUnitsPerTimescale;
  const double high = options.utilization;
  // No task is smaller (its span alone is 8 % of its period or more): said at once, not
  // after a million draws (1.4 s) with the advice of more cores, which cannot help.
  if (high < 0.08) {
    throw Error(
        "rt-openmp: --utilization is too small for one task (at least 0.08: a task's span alone is 8 % "
        "of its period or more)");
  }
  const double low = high - 0.02 * options.cores;
  // Draw tasks; one that would overshoot U is dropped and another drawn; start over
  // when what is left is smaller than any task can be.
  int draws = 0;
  while (draws < kMaxDraws) {
    std::vector<model::Task> tasks;
    double total = 0;
    int rejected = 0;
    while ((total < low || tasks.empty()) && draws < kMaxDraws && rejected < 1000) {
      ++draws;
      model::Task t = make_task(unit_ns, random);
      if (work_too_large(t)) {  // not a valid task: draw another, as for one that overshoots
        ++rejected;
        continue;
      }
      const double u = t.utilization();
      if (total + u > high) {
        // Every task has u ≥ 0.08 (its span is at least 8 % of its period).
        if (high - total < 0.08) break;
        ++rejected;
        continue;
      }
      rejected = 0;
      total += u;
      t.name = "t" + std::to_string(tasks.size() + 1);
      tasks.push_back(std::move(t));
    }
    if (total < low || tasks.empty()) continue;
    GeneratedSet out;
    out.set.tasks = std::move(tasks);
    out.set.global.policy = model::Policy::partitioned_dm;
    out.set.global.fit = model::Fit::worst_fit;
    out.summary = "rt-openmp §VI.A: timescale " + model::format_duration(options.timescale) +
                  " (periods 2^11..2^16 units of " + format_number(unit_ns, 3) + " ns), window [" +
                  format_number(std::max(0.0, low), 3) + ", " + format_number(high, 3) + "]\n";
    return out;
  }
  throw Error("rt-openmp: no task set landed in the utilization window [U − 0.02m, U] after " +
              std::to_string(kMaxDraws) + " draws; choose another --utilization or more --cores");
}

}  // namespace takt::analysis
