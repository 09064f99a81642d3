// Termination: the end of a pipe chain; processing elements take tasks from its pipe.
#include "sched/component_registry.hpp"

namespace takt::sched::components {
namespace {

/// CoBaS's termination component (appendix A.1, 0xFD) ends the pipe update chain;
/// schedule(pe) takes tasks from its pipe. Every pipe a processing element takes
/// from (terminal, pull or steal pipe) gets one automatically; such pipes keep no
/// change log, so there is nothing left to do here.
class Termination final : public Instance {
 public:
  using Instance::Instance;
};

}  // namespace

void register_termination(ComponentRegistry& registry) {
  registry.add(ComponentInfo{
      "termination",
      neutral,
      "Ends a pipe chain: processing elements take tasks from its input. Added automatically to "
      "every pipe named in `pes:`.",
      {PortInfo{"input", PortInfo::Direction::input, false, false, "the pipe processing elements take from"}},
      {},
      {},
      {},
      {},
      false,
      [](InstanceContext ctx) { return std::make_unique<Termination>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
