// Lamport annotator: stamps every task at admission, answers LAMPORT requests.
#include "sched/component_registry.hpp"
#include "sched/topics.hpp"

#include <atomic>

namespace takt::sched::components {
namespace {

/// An annotating component (CoBaS appendix A.1, 0x21): a Lamport clock that ticks
/// once per admitted task; each task keeps the stamp of its admission, which is the
/// scheduler's admission number + 1. A clock of its own could hand two concurrent
/// admissions their stamps in the other order than their admission numbers, which a
/// swapped-in instance (stamping the existing tasks by admission number) then reversed.
/// So a lamport instance created by a reconfiguration gives every task the stamp it
/// had, and first-come-first-served orders survive the swap.
class Lamport final : public Instance {
 public:
  using Instance::Instance;

  void connect(Broker& broker) override {
    broker.respond(topics::lamport, this, name(), [this](LamportMessage& m) {
      if (m.task == nullptr) return false;
      m.stamp = task_data(const_cast<Task&>(*m.task)).load(std::memory_order_relaxed);
      return true;
    });
  }

  void task_construct(Task& task) override {
    task_data(task).store(task.admission() + 1, std::memory_order_relaxed);
  }
};

}  // namespace

void register_lamport(ComponentRegistry& registry) {
  registry.add(ComponentInfo{
      "lamport",
      annotating,
      "A Lamport clock: stamps each task when it is admitted (1, 2, ...) and answers LAMPORT requests.",
      {},
      {},
      {},
      {"LAMPORT"},
      {},
      true,
      [](InstanceContext ctx) { return std::make_unique<Lamport>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
