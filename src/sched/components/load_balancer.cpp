// Load balancer: places each task on the least loaded output, in O(1) per task.
#include "sched/component_registry.hpp"
#include "sched/components/affinity_lookup.hpp"
#include "sched/components/load_buckets.hpp"
#include "sched/pipe.hpp"
#include "sched/writer.hpp"

namespace takt::sched::components {
namespace {

/// A distributing and consolidating component (m -> n; CoBaS appendix A.1, 0x12).
/// Output i belongs to processing element i (CoBaS: "affinities are mapped 1:1 to
/// its outgoing pipes"). A task bound to a PE (AFFINITY pe) goes to that PE's
/// output; any other task goes to the least loaded output of an online PE, and to
/// the output of the PE it last ran on if that one is among the least loaded (a
/// little cache affinity). Load = tasks this balancer has queued in the output.
/// Keys pass through, so each output keeps the relative order of the inputs.
///
/// CoBaS's balancer was O(n) in the number of outputs; this one keeps the outputs
/// in buckets of equal load (LoadBuckets), so placing a task is O(1).
class LoadBalancer final : public Instance {
 public:
  explicit LoadBalancer(InstanceContext ctx)
      : Instance(std::move(ctx)), outputs_(context().port("outputs")), buckets_(eligibility()) {}

  void connect(Broker& broker) override {
    broker.subscribe(topics::affinity, this, [this](const AffinityMessage& m) { migrate(m); });
  }

  void task_construct(Task& task) override { task_data(task).store(0, std::memory_order_relaxed); }

  void pipe_update(Pipe& input, Writer& out) override {
    input.for_each_change([&](Task& task, Change change, std::int64_t key) {
      std::atomic<std::uint64_t>& word = task_data(task);
      const std::uint64_t where = word.load(std::memory_order_relaxed);
      switch (change) {
        case Change::added: {
          const std::size_t target = choose(task, affinity_of(broker(), task).pe);
          place(out, task, key, target);
          break;
        }
        case Change::removed:
          if (where != 0) {
            out.remove(*outputs_[where - 1], task);
            buckets_.decrement(where - 1);
          }
          word.store(0, std::memory_order_relaxed);
          break;
        case Change::moved:
          if (where != 0) out.rekey(*outputs_[where - 1], task, key);
          break;
        case Change::none:
          break;
      }
    });
  }

 private:
  std::vector<bool> eligibility() const {
    const ProcessingElements& pes = context().topology->processing_elements();
    std::vector<bool> eligible(outputs_.size(), false);
    bool any = false;
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
      eligible[i] = pes.online(static_cast<int>(i));
      any = any || eligible[i];
    }
    if (!any) eligible.assign(outputs_.size(), true);  // outputs are not per PE: balance over all
    return eligible;
  }

  std::size_t choose(const Task& task, int bound_pe) const {
    if (bound_pe >= 0 && static_cast<std::size_t>(bound_pe) < outputs_.size()) {
      return static_cast<std::size_t>(bound_pe);
    }
    const std::size_t least = buckets_.least_loaded();
    const int last = task.last_pe();
    if (last >= 0 && static_cast<std::size_t>(last) < outputs_.size() && buckets_.eligible(last) &&
        buckets_.load(last) == buckets_.load(least)) {
      return static_cast<std::size_t>(last);
    }
    return least;
  }

  void place(Writer& out, Task& task, std::int64_t key, std::size_t target) {
    task_data(task).store(target + 1, std::memory_order_relaxed);
    buckets_.increment(target);
    out.add(*outputs_[target], task, key);
  }

  void migrate(const AffinityMessage& m) {
    if (m.task == nullptr || !m.task->attached()) return;
    update_from_notification([&](Writer& out) {
      Task& task = *m.task;
      std::atomic<std::uint64_t>& word = task_data(task);
      const std::uint64_t where = word.load(std::memory_order_relaxed);
      if (where == 0) return;  // not queued here
      if (m.pe < 0 || static_cast<std::size_t>(m.pe) >= outputs_.size() ||
          where - 1 == static_cast<std::size_t>(m.pe)) {
        return;  // unbound tasks stay where they are
      }
      Pipe& from = *outputs_[where - 1];
      const std::int64_t key = out.key_of(from, task);
      out.remove(from, task);
      buckets_.decrement(where - 1);
      place(out, task, key, static_cast<std::size_t>(m.pe));
    });
  }

  std::vector<Pipe*> outputs_;
  LoadBuckets buckets_;  // guarded by the input lock (the instance lock with several inputs)
};

}  // namespace

void register_load_balancer(ComponentRegistry& registry) {
  registry.add(ComponentInfo{
      "load-balancer",
      distributing | consolidating,
      "Output i belongs to processing element i: tasks bound to a PE go to its output, the others "
      "to the least loaded output of an online PE (O(1): outputs are kept in buckets of equal load).",
      {PortInfo{"inputs", PortInfo::Direction::input, true, false, "the pipes it balances"},
       PortInfo{"outputs", PortInfo::Direction::output, true, false, "one pipe per processing element"}},
      {},
      {"AFFINITY"},
      {},
      {},
      true,
      [](InstanceContext ctx) { return std::make_unique<LoadBalancer>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
