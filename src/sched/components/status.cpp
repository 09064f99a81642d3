// Status annotator: answers STATUS requests with the load of every pipe.
#include "sched/component_registry.hpp"
#include "sched/pipe.hpp"
#include "sched/topics.hpp"

namespace takt::sched::components {
namespace {

/// An annotating component (CoBaS appendix A.1, 0x22): answers STATUS requests with
/// the number of tasks queued in each pipe of its topology (or in the one named).
/// Sizes are read without the pipes' locks: a snapshot, each value exact at some
/// moment during the request.
class Status final : public Instance {
 public:
  using Instance::Instance;

  void connect(Broker& broker) override {
    broker.respond(topics::status, this, name(), [this](StatusMessage& m) {
      m.loads.clear();
      for (const Pipe* pipe : context().topology->pipes()) {
        if (m.pipe.empty() || m.pipe == pipe->name()) m.loads.push_back(PipeLoad{pipe->name(), pipe->size()});
      }
      return m.pipe.empty() || !m.loads.empty();
    });
  }
};

}  // namespace

void register_status(ComponentRegistry& registry) {
  registry.add(ComponentInfo{
      "status",
      annotating,
      "Answers STATUS requests: the number of tasks queued in every pipe (or in the one named).",
      {},
      {},
      {},
      {"STATUS"},
      {},
      false,
      [](InstanceContext ctx) { return std::make_unique<Status>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
