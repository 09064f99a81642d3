// The task-set generator of rtws §VII.A: measured programs, mean utilizations {1, 3, 6, 12, 15}.
#include "analysis/generator_methods.hpp"
#include "takt/error.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace takt::analysis {
namespace {

using std::chrono::nanoseconds;

constexpr std::array<double, 5> kMeanUtilizations{1, 3, 6, 12, 15};
constexpr double kStopBelow = 0.05;  // what may stay unfilled of the target

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
  // A program can take utilization u when D = C/u leaves room for its span: L ≤ D
  // (C/L ≥ u; a task needs no less), or with --span-limit half-deadline L̂ ≤ D/2
  // (C/L̂ ≥ 2u). The paper draws u without such a filter; it is not needed for its
  // programs, whose Cilkprof spans left ample parallelism.
  const bool half = options.span_limit == SpanLimit::half_deadline;
  const double factor = half ? 2.0 : 1.0;
  auto limiting_span = [half](const model::ProgramProfile& p) {
    return half ? p.burdened_span.value_or(p.span) : p.span;
  };
  auto parallelism = [&](const model::ProgramProfile* p) {
    return static_cast<double>(p->work.count()) / static_cast<double>(limiting_span(*p).count());
  };
  double total = 0;
  std::map<std::string, int> count;
  while (options.utilization - total >= kStopBelow) {
    double u = rtws_task_utilization(options.utilization - total, random);
    std::vector<const model::ProgramProfile*> fitting;
    for (auto* p : pool) {
      if (parallelism(p) >= factor * u) fitting.push_back(p);
    }
    const model::ProgramProfile* chosen;
    if (fitting.empty()) {
      // No program has that much parallelism: the most parallel one, at the most it
      // can take.
      chosen = *std::max_element(pool.begin(), pool.end(),
                                 [&](auto* a, auto* b) { return parallelism(a) < parallelism(b); });
      u = parallelism(chosen) / factor;
    } else {
      chosen = fitting[static_cast<std::size_t>(
          random.uniform_int(0, static_cast<std::int64_t>(fitting.size()) - 1))];
    }
    // T = C/u, never below the span limit after rounding to whole nanoseconds.
    const double period = std::max(std::round(static_cast<double>(chosen->work.count()) / u),
                                   std::ceil(factor * static_cast<double>(limiting_span(*chosen).count())));
    if (period > 4.0e18) {
      throw Error("rtws: a task of '" + chosen->name +
                  "' would need a period above 146 years; raise --utilization");
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
