// Distributor: sends each task to the output its cluster or processing element names.
#include "sched/component_registry.hpp"
#include "sched/components/affinity_lookup.hpp"
#include "sched/pipe.hpp"
#include "sched/writer.hpp"

#include <limits>

namespace takt::sched::components {
namespace {

/// A distributing component (1 -> n, CoBaS's task distributor made deterministic):
/// a task goes to outputs[c] where c is its cluster (`by: cluster`) or its
/// processing element (`by: pe`), as the AFFINITY responder reports it (or the
/// task's own fields without one). A task with no value (kAny) goes to the
/// `unassigned` output if there is one. A task whose value names no output is
/// withheld (counted each time it becomes so; it is offered again when an AFFINITY
/// notification moves it).
/// Every output keeps the relative order of the input (keys pass through), and an
/// AFFINITY notification for a queued task migrates it (dissertation Fig. 5.19).
///
/// Per-task data word: 0 not here, i+1 in outputs[i], kUnassigned, kWithheld.
class Distributor final : public Instance {
 public:
  explicit Distributor(InstanceContext ctx)
      : Instance(std::move(ctx)),
        input_(context().single("input")),
        outputs_(context().port("outputs")),
        unassigned_(context().single("unassigned")),
        by_pe_(context().params.text("by") == "pe") {}

  void connect(Broker& broker) override {
    broker.subscribe(topics::affinity, this, [this](const AffinityMessage& m) { migrate(m); });
  }

  std::vector<std::pair<std::string, std::uint64_t>> counters() const override {
    return {{"withheld", withheld_.load(std::memory_order_relaxed)}};
  }

  void task_construct(Task& task) override { task_data(task).store(kNotHere, std::memory_order_relaxed); }

  void pipe_update(Pipe& input, Writer& out) override {
    input.for_each_change([&](Task& task, Change change, std::int64_t key) {
      std::atomic<std::uint64_t>& word = task_data(task);
      const std::uint64_t where = word.load(std::memory_order_relaxed);
      switch (change) {
        case Change::added: {
          const std::uint64_t target = route(affinity_of(broker(), task));
          count_if_withheld(where, target);
          word.store(target, std::memory_order_relaxed);
          if (Pipe* pipe = pipe_of(target)) out.add(*pipe, task, key);
          break;
        }
        case Change::removed:
          if (Pipe* pipe = pipe_of(where)) out.remove(*pipe, task);
          word.store(kNotHere, std::memory_order_relaxed);
          break;
        case Change::moved:
          if (Pipe* pipe = pipe_of(where)) out.rekey(*pipe, task, key);
          break;
        case Change::none:
          break;
      }
    });
  }

 private:
  static constexpr std::uint64_t kNotHere = 0;
  static constexpr std::uint64_t kUnassigned = std::numeric_limits<std::uint64_t>::max() - 1;
  static constexpr std::uint64_t kWithheld = std::numeric_limits<std::uint64_t>::max();

  std::uint64_t route(const AffinityMessage& affinity) {
    const int value = by_pe_ ? affinity.pe : affinity.cluster;
    if (value >= 0 && static_cast<std::size_t>(value) < outputs_.size())
      return static_cast<std::uint64_t>(value) + 1;
    if (value == kAny && unassigned_ != nullptr) return kUnassigned;
    return kWithheld;
  }

  // `withheld` counts the times a task became withheld, not the routings that left it
  // so (an AFFINITY notification that changes nothing).
  void count_if_withheld(std::uint64_t from, std::uint64_t to) {
    if (to == kWithheld && from != kWithheld) withheld_.fetch_add(1, std::memory_order_relaxed);
  }

  Pipe* pipe_of(std::uint64_t where) const {
    if (where == kNotHere || where == kWithheld) return nullptr;
    if (where == kUnassigned) return unassigned_;
    return outputs_[where - 1];
  }

  void migrate(const AffinityMessage& m) {
    if (m.task == nullptr || !m.task->attached()) return;
    update_from_notification([&](Writer& out) {
      Task& task = *m.task;
      if (!input_->contains(task)) return;  // running, or on another path
      std::atomic<std::uint64_t>& word = task_data(task);
      const std::uint64_t from = word.load(std::memory_order_relaxed);
      const std::uint64_t to = route(m);
      if (from == to) return;
      count_if_withheld(from, to);
      if (Pipe* pipe = pipe_of(from)) out.remove(*pipe, task);
      word.store(to, std::memory_order_relaxed);
      if (Pipe* pipe = pipe_of(to)) out.add(*pipe, task, input_->key_of(task));
    });
  }

  Pipe* input_;
  std::vector<Pipe*> outputs_;
  Pipe* unassigned_;
  bool by_pe_;
  std::atomic<std::uint64_t> withheld_{0};
};

}  // namespace

void register_distributor(ComponentRegistry& registry) {
  registry.add(ComponentInfo{
      "distributor",
      distributing,
      "Sends each task to outputs[c], c its cluster (by: cluster) or processing element (by: pe); "
      "tasks without one go to `unassigned`; keeps the input's relative order; AFFINITY "
      "notifications migrate queued tasks.",
      {PortInfo{"input", PortInfo::Direction::input, false, false, "the pipe it consumes"},
       PortInfo{"outputs", PortInfo::Direction::output, true, false, "one pipe per cluster or PE, by index"},
       PortInfo{"unassigned", PortInfo::Direction::output, false, true, "tasks whose value is kAny"}},
      {ParamInfo{
          "by", ParamType::text, "cluster", {"cluster", "pe"}, "which task attribute picks the output"}},
      {"AFFINITY"},
      {},
      {},
      true,
      [](InstanceContext ctx) { return std::make_unique<Distributor>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
