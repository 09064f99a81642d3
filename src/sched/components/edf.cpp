// EDF: orders tasks by absolute deadline, earliest first.
#include "sched/component_registry.hpp"
#include "sched/components/keyed_forward.hpp"

namespace takt::sched::components {
namespace {

/// Earliest deadline first: key = absolute deadline (ns); equal deadlines keep the
/// order in which the tasks arrived.
class Edf final : public KeyedForward {
 public:
  using KeyedForward::KeyedForward;

 private:
  std::int64_t key(const Task& task, std::int64_t) override { return task.deadline.count(); }
};

}  // namespace

void register_edf(ComponentRegistry& registry) {
  registry.add(ComponentInfo{
      "edf",
      ordering,
      "Earliest deadline first: orders its output by absolute deadline; equal deadlines first come, "
      "first served.",
      one_to_one_ports(),
      {},
      {},
      {},
      {},
      false,
      [](InstanceContext ctx) { return std::make_unique<Edf>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
