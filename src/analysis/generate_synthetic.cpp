// The synthetic synchronous tasks of rtws §IV.A (types 1, 2, 3), with rtws §VII.A utilizations.
#include "analysis/generator_methods.hpp"
#include "takt/error.hpp"

#include <array>
#include <cmath>

namespace takt::analysis {
namespace {

using std::chrono::nanoseconds;

struct TypeRanges {
  std::int64_t min_strands, max_strands;  // nodes per segment
  std::int64_t min_ns, max_ns;            // execution time per node
};
// rtws §IV.A.
constexpr std::array<TypeRanges, 3> kTypes{{
    {100'000, 200'000, 5, 10},
    {10'000, 20'000, 2'000, 4'500},
    {1'000, 2'000, 20'000, 50'000},
}};
constexpr double kStopBelow = 0.05;

}  // namespace

GeneratedSet generate_synthetic(const GeneratorOptions& options, Random& random) {
  if (options.synthetic_type < 0 || options.synthetic_type > 3) {
    throw Error("synthetic: --type must be 1, 2 or 3 (or 0 for a random type per task)");
  }
  GeneratedSet out;
  out.set.global.policy = model::Policy::federated;
  double total = 0;
  while (options.utilization - total >= kStopBelow) {
    const int type =
        options.synthetic_type != 0 ? options.synthetic_type : static_cast<int>(random.uniform_int(1, 3));
    const TypeRanges& r = kTypes[static_cast<std::size_t>(type - 1)];
    model::Task t;
    t.name = "t" + std::to_string(out.set.tasks.size() + 1) + "-type" + std::to_string(type);
    const auto segments = random.uniform_int(10, 20);
    for (std::int64_t s = 0; s < segments; ++s) {
      const auto strands = random.uniform_int(r.min_strands, r.max_strands);
      const auto length = random.uniform_int(r.min_ns, r.max_ns);
      t.segments.push_back({nanoseconds{length}, static_cast<int>(strands), {}});
    }
    const double u = rtws_task_utilization(options.utilization - total, random);
    // Rounded up, as rtws: C/T ≤ u, so Σu never exceeds the target.
    t.period = nanoseconds{static_cast<std::int64_t>(std::ceil(static_cast<double>(t.work().count()) / u))};
    t.deadline = t.period;
    t.program = std::string(model::kSegmentsProgram);
    total += t.utilization();
    out.set.tasks.push_back(std::move(t));
  }
  if (out.set.tasks.empty())
    throw Error("synthetic: --utilization is too small for one task (at least 0.05)");
  out.summary = "rtws §IV.A synthetic synchronous tasks" +
                (options.synthetic_type ? " of type " + std::to_string(options.synthetic_type)
                                        : std::string(" of types 1-3")) +
                ", utilizations as rtws §VII.A\n";
  return out;
}

}  // namespace takt::analysis
