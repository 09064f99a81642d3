// Fixed priority and deadline monotonic: static-priority orderings.
#include "sched/component_registry.hpp"
#include "sched/components/keyed_forward.hpp"

namespace takt::sched::components {
namespace {

/// Orders by Task::priority. By default a smaller number is more urgent (priority 1
/// is the highest, as in RT-OpenMP's strand table); `higher_is: larger` inverts it
/// (the SCHED_FIFO convention). Equal priorities: first come, first served.
class FixedPriority final : public KeyedForward {
 public:
  explicit FixedPriority(InstanceContext ctx)
      : KeyedForward(std::move(ctx)), sign_(context().params.text("higher_is") == "larger" ? -1 : 1) {}

 private:
  std::int64_t key(const Task& task, std::int64_t) override { return sign_ * task.priority; }
  std::int64_t sign_;
};

/// Deadline monotonic: the shorter the relative deadline (deadline - release), the
/// more urgent; equal relative deadlines first come, first served.
class DeadlineMonotonic final : public KeyedForward {
 public:
  using KeyedForward::KeyedForward;

 private:
  std::int64_t key(const Task& task, std::int64_t) override { return (task.deadline - task.release).count(); }
};

}  // namespace

void register_fixed_priority(ComponentRegistry& registry) {
  registry.add(
      ComponentInfo{"fixed-priority",
                    ordering,
                    "Orders by the tasks' fixed priority (by default a smaller number is more urgent); equal "
                    "priorities first come, first served.",
                    one_to_one_ports(),
                    {ParamInfo{"higher_is",
                               ParamType::text,
                               "smaller",
                               {"smaller", "larger"},
                               "which priority numbers are more urgent"}},
                    {},
                    {},
                    {},
                    false,
                    [](InstanceContext ctx) { return std::make_unique<FixedPriority>(std::move(ctx)); }});
  registry.add(ComponentInfo{
      "deadline-monotonic",
      ordering,
      "Orders by relative deadline (deadline - release), shortest first; ties first come, first "
      "served.",
      one_to_one_ports(),
      {},
      {},
      {},
      {},
      false,
      [](InstanceContext ctx) { return std::make_unique<DeadlineMonotonic>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
