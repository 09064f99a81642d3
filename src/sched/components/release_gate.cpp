// Release gate: withholds tasks until "now" (a TIME message) reaches their release time.
#include "sched/component_registry.hpp"
#include "sched/components/keyed_forward.hpp"
#include "sched/topics.hpp"

#include <algorithm>
#include <vector>

namespace takt::sched::components {
namespace {

/// A time-driven filter. A task admitted before its release time is held back
/// until a TIME notification says now >= release; from then on it is forwarded
/// with its input key. The gate never reads a clock: on the platform the policies'
/// lanes send TIME (the release engine's clock) before each admission, under a
/// simulator it comes from the simulated clock, so the same topology works on both.
///
/// Per-task data word: 0 absent, 1 held, 2 forwarded. The held tasks sit in a
/// min-heap by release time, then arrival (so that tasks a TIME message releases
/// together leave in release order and, at equal release times, in the order they
/// came; of equal keys the output keeps that order); a held task that leaves is taken out of it (linear in
/// the number of held tasks).
class ReleaseGate final : public Instance {
 public:
  explicit ReleaseGate(InstanceContext ctx)
      : Instance(std::move(ctx)),
        input_(context().single("input")),
        out_(context().single("output")),
        now_(context().params.duration("now")) {}

  void connect(Broker& broker) override {
    broker.subscribe(topics::time, this, [this](const TimeMessage& m) { advance(m.now); });
  }

  void task_construct(Task& task) override { task_data(task).store(0, std::memory_order_relaxed); }

  // No task has reached a gate that a reconfiguration just made: nothing to release.
  void time_known(Time now) noexcept override { now_ = std::max(now_, now); }

  void pipe_update(Pipe& input, Writer& out) override {
    input.for_each_change([&](Task& task, Change change, std::int64_t key) {
      std::atomic<std::uint64_t>& word = task_data(task);
      const std::uint64_t state = word.load(std::memory_order_relaxed);
      switch (change) {
        case Change::added:
          if (task.release <= now_) {
            word.store(kForwarded, std::memory_order_relaxed);
            out.add(*out_, task, key);
          } else {
            word.store(kHeld, std::memory_order_relaxed);
            held_.push_back(Held{task.release, arrivals_++, &task});
            std::push_heap(held_.begin(), held_.end(), later);
          }
          break;
        case Change::removed:
          if (state == kForwarded) out.remove(*out_, task);
          if (state == kHeld) forget(task);
          word.store(kAbsent, std::memory_order_relaxed);
          break;
        case Change::moved:
          if (state == kForwarded) out.rekey(*out_, task, key);
          break;
        case Change::none:
          break;
      }
    });
  }

 private:
  static constexpr std::uint64_t kAbsent = 0, kHeld = 1, kForwarded = 2;
  struct Held {
    Time release;
    std::uint64_t arrival;  ///< ties of release time leave in arrival order (a heap is not stable)
    Task* task;
  };
  static bool later(const Held& a, const Held& b) {
    return a.release != b.release ? a.release > b.release : a.arrival > b.arrival;
  }

  // A held task left (it may be destroyed soon): drop its entry, O(held tasks).
  void forget(const Task& task) {
    auto it = std::find_if(held_.begin(), held_.end(), [&](const Held& h) { return h.task == &task; });
    if (it == held_.end()) return;
    *it = held_.back();
    held_.pop_back();
    std::make_heap(held_.begin(), held_.end(), later);
  }

  void advance(Time now) {
    update_from_notification([&](Writer& out) {
      if (now > now_) now_ = now;
      while (!held_.empty() && held_.front().release <= now_) {
        std::pop_heap(held_.begin(), held_.end(), later);
        const Held h = held_.back();
        held_.pop_back();
        task_data(*h.task).store(kForwarded, std::memory_order_relaxed);
        out.add(*out_, *h.task, input_->key_of(*h.task));
      }
    });
  }

  Pipe* input_;
  Pipe* out_;
  Time now_;  // guarded by the input's lock
  std::vector<Held> held_;
  std::uint64_t arrivals_ = 0;  // guarded by the input's lock
};

}  // namespace

void register_release_gate(ComponentRegistry& registry) {
  registry.add(ComponentInfo{
      "release-gate",
      filtering,
      "Withholds each task until a TIME message says now >= its release time, then forwards it "
      "with its input order; time is an input, the gate has no clock.",
      one_to_one_ports(),
      {ParamInfo{"now", ParamType::duration, "0", {}, "the time before the first TIME message"}},
      {"TIME"},
      {},
      {},
      true,
      [](InstanceContext ctx) { return std::make_unique<ReleaseGate>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
