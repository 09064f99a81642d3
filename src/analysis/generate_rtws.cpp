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

nanoseconds span_for_admission(const model::ProgramProfile& p) { return p.burdened_span.value_or(p.span); }

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
  double total = 0;
  std::map<std::string, int> count;
  while (options.utilization - total >= kStopBelow) {
    double u = rtws_task_utilization(options.utilization - total, random);
    // Keep L̂ ≤ D/2: a program can take utilization u only if C/L̂ ≥ 2u.
    std::vector<const model::ProgramProfile*> fitting;
    for (auto* p : pool) {
      if (static_cast<double>(p->work.count()) >=
          2 * u * static_cast<double>(span_for_admission(*p).count())) {
        fitting.push_back(p);
      }
    }
    const model::ProgramProfile* chosen;
    if (fitting.empty()) {
      chosen = *std::max_element(pool.begin(), pool.end(), [](auto* a, auto* b) {
        return static_cast<double>(a->work.count()) / static_cast<double>(span_for_admission(*a).count()) <
               static_cast<double>(b->work.count()) / static_cast<double>(span_for_admission(*b).count());
      });
      u = static_cast<double>(chosen->work.count()) /
          (2.0 * static_cast<double>(span_for_admission(*chosen).count()));
    } else {
      chosen = fitting[static_cast<std::size_t>(
          random.uniform_int(0, static_cast<std::int64_t>(fitting.size()) - 1))];
    }
    const double period = std::round(static_cast<double>(chosen->work.count()) / u);
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
                ", mean utilizations {1, 3, 6, 12, 15}\n";
  return out;
}

}  // namespace takt::analysis
