// Affinity annotator: keeps each task's cluster and PE, answers AFFINITY requests.
#include "sched/component_registry.hpp"
#include "sched/topics.hpp"

namespace takt::sched::components {
namespace {

/// An annotating component (CoBaS appendix A.1, 0x20): no pipes. It stores the
/// affinity of every task, answers AFFINITY requests and follows AFFINITY
/// notifications, so distributors and balancers read one authoritative value. The
/// value is taken from the task's cluster and pe fields whenever the task enters
/// (admit, relinquish, unblock): its owner sets them while the task is not
/// schedulable; a notification changes it while the task is queued.
///
/// Per-task data word: (cluster + 1) in the low 32 bits, (pe + 1) in the high 32.
class Affinity final : public Instance {
 public:
  using Instance::Instance;

  void connect(Broker& broker) override {
    broker.respond(topics::affinity, this, name(), [this](AffinityMessage& m) {
      if (m.task == nullptr) return false;
      const std::uint64_t word = task_data(*m.task).load(std::memory_order_relaxed);
      m.cluster = static_cast<int>(word & 0xffffffffu) - 1;
      m.pe = static_cast<int>(word >> 32) - 1;
      return true;
    });
    broker.subscribe(topics::affinity, this, [this](const AffinityMessage& m) {
      if (m.task != nullptr && m.task->attached()) store(*m.task, m.cluster, m.pe);
    });
  }

  void task_construct(Task& task) override { store(task, task.cluster, task.pe); }
  void task_enter(Task& task) override { store(task, task.cluster, task.pe); }

 private:
  void store(Task& task, int cluster, int pe) {
    const std::uint64_t word = static_cast<std::uint32_t>(cluster + 1) |
                               static_cast<std::uint64_t>(static_cast<std::uint32_t>(pe + 1)) << 32;
    task_data(task).store(word, std::memory_order_relaxed);
  }
};

}  // namespace

void register_affinity(ComponentRegistry& registry) {
  registry.add(
      ComponentInfo{"affinity",
                    annotating,
                    "Keeps every task's cluster and processing element (from the task, then from AFFINITY "
                    "notifications) and answers AFFINITY requests.",
                    {},
                    {},
                    {"AFFINITY"},
                    {"AFFINITY"},
                    {},
                    true,
                    [](InstanceContext ctx) { return std::make_unique<Affinity>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
