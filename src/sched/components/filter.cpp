// Filter: forwards only the tasks that satisfy a predicate (CoBaS's absolute decisions).
#include "sched/component_registry.hpp"
#include "sched/components/keyed_forward.hpp"
#include "takt/error.hpp"

#include <algorithm>
#include <atomic>
#include <limits>

namespace takt::sched::components {
namespace {

/// A filtering component (dissertation §5.8.2): one input, one output, the output
/// keeps the input's order but holds only the tasks that match every criterion
/// given. The others stay schedulable in the input and are never offered further
/// down this path (the absolute decision "not here"). The criteria read the task's
/// attributes, which do not change while it is queued.
class Filter final : public Instance {
 public:
  explicit Filter(InstanceContext ctx) : Instance(std::move(ctx)), out_(context().single("output")) {
    const Params& p = context().params;
    if (p.has("clusters")) clusters_ = p.integers("clusters");
    if (p.has("pes")) pes_ = p.integers("pes");
    // An empty list would read as "no such criterion" (every task kept): the topology
    // parser refuses one; so does this, for parameters set in code (Params::set).
    if ((p.has("clusters") && clusters_.empty()) || (p.has("pes") && pes_.empty())) {
      throw Error("filter '" + context().name +
                  "': an empty clusters or pes list matches no task; list at "
                  "least one value, or leave the parameter out");
    }
    if (p.has("priority_at_most")) priority_max_ = p.integer("priority_at_most");
    if (p.has("priority_at_least")) priority_min_ = p.integer("priority_at_least");
    if (p.has("relative_deadline_at_most")) relative_deadline_max_ = p.duration("relative_deadline_at_most");
  }

  /// Tasks offered to the filter and those it let through (counted when added): one
  /// that lets none through is named after a run (platform::run, warn_withheld).
  std::vector<std::pair<std::string, std::uint64_t>> counters() const override {
    return {{"offered", offered_.load(std::memory_order_relaxed)},
            {"passed", passed_.load(std::memory_order_relaxed)}};
  }

  void pipe_update(Pipe& input, Writer& out) override {
    input.for_each_change([&](Task& task, Change change, std::int64_t key) {
      if (change == Change::added) offered_.fetch_add(1, std::memory_order_relaxed);
      if (!matches(task)) return;
      switch (change) {
        case Change::added:
          passed_.fetch_add(1, std::memory_order_relaxed);
          out.add(*out_, task, key);
          break;
        case Change::removed:
          out.remove(*out_, task);
          break;
        case Change::moved:
          out.rekey(*out_, task, key);
          break;
        case Change::none:
          break;
      }
    });
  }

 private:
  bool matches(const Task& task) const {
    auto in = [](const std::vector<std::int64_t>& list, int value) {
      return std::find(list.begin(), list.end(), value) != list.end();
    };
    if (!clusters_.empty() && !in(clusters_, task.cluster)) return false;
    if (!pes_.empty() && !in(pes_, task.pe)) return false;
    if (task.priority > priority_max_ || task.priority < priority_min_) return false;
    if (task.deadline - task.release > relative_deadline_max_) return false;
    return true;
  }

  Pipe* out_;
  std::vector<std::int64_t> clusters_;
  std::vector<std::int64_t> pes_;
  std::int64_t priority_max_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t priority_min_ = std::numeric_limits<std::int64_t>::min();
  Time relative_deadline_max_ = Time::max();
  std::atomic<std::uint64_t> offered_{0};
  std::atomic<std::uint64_t> passed_{0};
};

}  // namespace

void register_filter(ComponentRegistry& registry) {
  registry.add(ComponentInfo{
      "filter",
      filtering,
      "Forwards only the tasks matching every given criterion, in the input's order; the others "
      "are withheld (never offered down this path).",
      one_to_one_ports(),
      {ParamInfo{"clusters", ParamType::integer_list, "", {}, "keep tasks whose cluster is listed"},
       ParamInfo{"pes", ParamType::integer_list, "", {}, "keep tasks bound to a listed processing element"},
       ParamInfo{"priority_at_most", ParamType::integer, "", {}, "keep tasks with priority <= this"},
       ParamInfo{"priority_at_least", ParamType::integer, "", {}, "keep tasks with priority >= this"},
       ParamInfo{"relative_deadline_at_most",
                 ParamType::duration,
                 "",
                 {},
                 "keep tasks whose deadline - release is at most this"}},
      {},
      {},
      {},
      false,
      [](InstanceContext ctx) { return std::make_unique<Filter>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
