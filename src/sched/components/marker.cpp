// Marker: a trace point; counts MARKER notifications and reports them to the trace.
#include "sched/component_registry.hpp"
#include "sched/topics.hpp"

#include <atomic>

namespace takt::sched::components {
namespace {

/// CoBaS's marker (appendix A.1, 0x24) runs a recognisable code path when notified
/// so that a call trace shows the moment. takt's marker counts MARKER notifications
/// and hands each label to the instrumentation's on_marker callback, which the
/// platform writes into its trace.
class Marker final : public Instance {
 public:
  using Instance::Instance;

  void connect(Broker& broker) override {
    broker.subscribe(topics::marker, this, [this](const MarkerMessage& m) {
      marks_.fetch_add(1, std::memory_order_relaxed);
      const Instrumentation* ins = context().instrumentation;
      if (ins != nullptr && ins->on_marker) ins->on_marker(*this, m.label);
    });
  }

  std::vector<std::pair<std::string, std::uint64_t>> counters() const override {
    return {{"marks", marks_.load(std::memory_order_relaxed)}};
  }

 private:
  std::atomic<std::uint64_t> marks_{0};
};

}  // namespace

void register_marker(ComponentRegistry& registry) {
  registry.add(ComponentInfo{
      "marker",
      annotating,
      "A trace point: counts MARKER notifications and passes each label to the instrumentation.",
      {},
      {},
      {"MARKER"},
      {},
      {},
      false,
      [](InstanceContext ctx) { return std::make_unique<Marker>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
