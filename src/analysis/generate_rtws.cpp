// The task-set generator of rtws §VII.A: measured programs, mean utilizations {1, 3, 6, 12, 15}.
#include "analysis/exact.hpp"
#include "analysis/generator_methods.hpp"
#include "takt/error.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>

namespace takt::analysis {
namespace {

using std::chrono::nanoseconds;

constexpr std::array<double, 5> kMeanUtilizations{1, 3, 6, 12, 15};
constexpr double kStopBelow = 0.05;  // what may stay unfilled of the target
constexpr i128 kMaxPeriod = 4'000'000'000'000'000'000;  // ns

}  // namespace

double rtws_task_utilization(double remaining, Random& random) {
  double mean = 0;
  for (double candidate : kMeanUtilizations) {
    if (candidate <= remaining) mean = candidate;
  }
  if (mean == 0) return remaining;  // less than 1 left: the last task takes it
  return std::min(random.uniform(mean / 2, 3 * mean / 2), remaining);
}

GeneratedSet generate_rtws(const GeneratorOptions& options, Random& random) {
  std::vector<const model::ProgramProfile*> pool;
  for (const model::ProgramProfile& p : options.programs) {
    if (options.program.empty() || p.program == options.program) pool.push_back(&p);
  }
  if (pool.empty()) {
    std::string known;
    for (const model::ProgramProfile& p : options.programs) {
      if (known.find(p.program) == std::string::npos) known += (known.empty() ? "" : ", ") + p.program;
    }
    throw Error("rtws: no measured program " +
                (options.program.empty() ? std::string() : "'" + options.program + "' ") + "in the profiles" +
                (known.empty() ? "" : " (they have: " + known + ")"));
  }
  GeneratedSet out;
  const bool burdened =
      std::all_of(pool.begin(), pool.end(), [](auto* p) { return p->burdened_span.has_value(); });
  out.set.global.policy = model::Policy::federated;
  if (burdened) out.set.global.delta = model::Decimal{15, 10};
  // A program can take utilization u when D = C/u leaves room for its span, strictly
  // where the core count needs it (see docs/analysis.md):
  //  - default, no δ: L < D (C/L > u): the classic count ⌈(C − L)/(D − L)⌉ needs D > L;
  //  - default, δ set (every profile has a burdened span): δ·L̂ < D (C/(δ·L̂) > u):
  //    rtws eq. 3 deems a task with D ≤ δ·L̂ unschedulable;
  //  - --span-limit half-deadline: L̂ ≤ D/2 (C/L̂ ≥ 2u), the capacity-augmentation
  //    condition, which implies both of the above (δ = 1.5 < 2).
  // The paper draws u without such a filter; it is not needed for its programs, whose
  // Cilkprof spans left ample parallelism.
  const bool half = options.span_limit == SpanLimit::half_deadline;
  const std::optional<model::Decimal> delta = out.set.global.delta;
  // The limit as an exact fraction of nanoseconds: D must exceed (or, half-deadline,
  // reach) limit_num/limit_den.
  auto limit_num = [&](const model::ProgramProfile& p) -> i128 {
    if (half) return 2 * wide(p.burdened_span.value_or(p.span));
    if (delta) return static_cast<i128>(delta->numerator) * wide(*p.burdened_span);
    return wide(p.span);
  };
  const i128 limit_den = !half && delta ? static_cast<i128>(delta->denominator) : 1;
  // The smallest whole-nanosecond deadline within the limit.
  auto min_deadline = [&](const model::ProgramProfile& p) -> i128 {
    return half ? ceil_div(limit_num(p), limit_den) : floor_div(limit_num(p), limit_den) + 1;
  };
  auto parallelism = [&](const model::ProgramProfile* p) {  // C/limit: the largest u it takes
    return static_cast<double>(p->work.count()) * static_cast<double>(limit_den) /
           static_cast<double>(limit_num(*p));
  };
  // Fallback (no program can take u), default limit: the smallest deadline at which the
  // task alone needs at most m cores, and at least the smallest one within the limit:
  //   classic:  ⌈(C − L)/(D − L)⌉ ≤ m   ⇔  D ≥ L + ⌈(C − L)/m⌉;
  //   eq. 3 with δ = p/q: ⌈(q(C + D) − p·L̂)/(qD − p·L̂)⌉ = 1 + ⌈qC/(qD − p·L̂)⌉ ≤ m
  //     ⇔  D ≥ (p·L̂·(m − 1) + q·C)/(q·(m − 1))  (m ≥ 2),
  //   or D = C (u = 1: a low task, run sequentially on one core) when that is smaller.
  auto fallback_deadline = [&](const model::ProgramProfile& p) -> i128 {
    const i128 m = options.cores, c = wide(p.work);
    i128 d;
    if (!delta) {
      d = wide(p.span) + ceil_div(c - wide(p.span), m);
    } else {
      d = c;
      if (m >= 2) {
        const i128 num = static_cast<i128>(delta->numerator), den = static_cast<i128>(delta->denominator);
        d = std::min(d, ceil_div(num * wide(*p.burdened_span) * (m - 1) + den * c, den * (m - 1)));
      }
    }
    return std::max(d, min_deadline(p));
  };
  double total = 0;
  std::map<std::string, int> count;
  while (options.utilization - total >= kStopBelow) {
    double u = rtws_task_utilization(options.utilization - total, random);
    std::vector<const model::ProgramProfile*> fitting;
    for (auto* p : pool) {
      if (half ? parallelism(p) >= u : parallelism(p) > u) fitting.push_back(p);
    }
    const model::ProgramProfile* chosen;
    i128 period;  // T = D, in nanoseconds
    if (fitting.empty()) {
      // No program has that much parallelism: the most parallel one, at a u it can take
      // (half-deadline: exactly at its limit, D = 2·L̂; otherwise the largest u at which
      // it fits on the m cores alone, strictly below its limit).
      chosen = *std::max_element(pool.begin(), pool.end(),
                                 [&](auto* a, auto* b) { return parallelism(a) < parallelism(b); });
      period = half ? min_deadline(*chosen) : fallback_deadline(*chosen);
    } else {
      chosen = fitting[static_cast<std::size_t>(
          random.uniform_int(0, static_cast<std::int64_t>(fitting.size()) - 1))];
      // T = C/u, never outside the span limit after rounding to whole nanoseconds, and
      // rounded up: a rounded-down T gave C/T a little above u, and the last task (whose u
      // is what is left of the target) a Σu above the target (8 cores at 50 %: Σu =
      // 4.000000000000133 > m/2, so the capacity bound the set was made for failed).
      const double rounded = std::ceil(static_cast<double>(chosen->work.count()) / u);
      period =
          std::max(rounded > 4.0e18 ? kMaxPeriod + 1 : static_cast<i128>(rounded), min_deadline(*chosen));
    }
    if (period > kMaxPeriod) {
      throw Error("rtws: a task of '" + chosen->name +
                  "' would need a period above 4·10^18 ns (about 126 years), the generator's limit; raise "
                  "--utilization");
    }
    model::Task t;
    t.name = chosen->name + "-" + std::to_string(++count[chosen->name]);
    t.period = nanoseconds{static_cast<std::int64_t>(period)};
    t.deadline = t.period;
    t.program = chosen->program;
    t.args = chosen->args;
    t.measured_work = chosen->work;
    t.measured_span = chosen->span;
    t.burdened_span = chosen->burdened_span;
    total += t.utilization();
    out.set.tasks.push_back(std::move(t));
  }
  if (out.set.tasks.empty()) throw Error("rtws: --utilization is too small for one task (at least 0.05)");
  out.summary = "rtws §VII.A: " + std::to_string(pool.size()) + " measured program(s)" +
                (options.program.empty() ? " (mixed)" : " ('" + options.program + "')") +
                ", mean utilizations {1, 3, 6, 12, 15}" +
                (half ? ", programs with L̂ ≤ D/2 (--span-limit half-deadline)" : "") + "\n";
  return out;
}

}  // namespace takt::analysis
