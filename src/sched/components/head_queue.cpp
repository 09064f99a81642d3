// Head queue: the pass-through component (CoBaS appendix A.1, 0x01).
#include "sched/component_registry.hpp"
#include "sched/components/keyed_forward.hpp"

namespace takt::sched::components {
namespace {

/// Forwards every change unchanged: the output is ordered exactly like the input.
class HeadQueue final : public KeyedForward {
 public:
  using KeyedForward::KeyedForward;

 private:
  std::int64_t key(const Task&, std::int64_t input_key) override { return input_key; }
};

}  // namespace

void register_head_queue(ComponentRegistry& registry) {
  registry.add(
      ComponentInfo{"head-queue",
                    neutral,
                    "Forwards every change from its input to its output; the output keeps the input's order "
                    "(first come, first served when the input is the entry pipe).",
                    one_to_one_ports(),
                    {},
                    {},
                    {},
                    {},
                    false,
                    [](InstanceContext ctx) { return std::make_unique<HeadQueue>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
