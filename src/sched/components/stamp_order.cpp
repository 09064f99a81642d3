// FCFS and LCFS: orderings by Lamport stamp (CoBaS appendix A.1, 0x02 and 0x03).
#include "sched/component_registry.hpp"
#include "sched/components/keyed_forward.hpp"
#include "sched/topics.hpp"

namespace takt::sched::components {
namespace {

/// Orders by the task's Lamport stamp, asked from the LAMPORT responder (the
/// lamport annotator): ascending for first come first served, descending for last
/// come first served. The stamp is given once, at admission, so a task that
/// relinquishes keeps its place in the arrival order.
class StampOrder final : public KeyedForward {
 public:
  StampOrder(InstanceContext ctx, bool last_first)
      : KeyedForward(std::move(ctx)), sign_(last_first ? -1 : 1) {}

 private:
  std::int64_t key(const Task& task, std::int64_t) override {
    LamportMessage message{&task, task.admission()};
    broker().request(topics::lamport, message);
    return sign_ * static_cast<std::int64_t>(message.stamp);
  }
  std::int64_t sign_;
};

}  // namespace

void register_stamp_order(ComponentRegistry& registry) {
  registry.add(
      ComponentInfo{"fcfs",
                    ordering,
                    "First come, first served: orders by Lamport stamp, oldest first.",
                    one_to_one_ports(),
                    {},
                    {},
                    {},
                    {"LAMPORT"},
                    false,
                    [](InstanceContext ctx) { return std::make_unique<StampOrder>(std::move(ctx), false); }});
  registry.add(
      ComponentInfo{"lcfs",
                    ordering,
                    "Last come, first served: orders by Lamport stamp, newest first.",
                    one_to_one_ports(),
                    {},
                    {},
                    {},
                    {"LAMPORT"},
                    false,
                    [](InstanceContext ctx) { return std::make_unique<StampOrder>(std::move(ctx), true); }});
}

}  // namespace takt::sched::components
