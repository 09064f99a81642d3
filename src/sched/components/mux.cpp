// Mux: merges several input pipes into one output with a new order.
#include "sched/component_registry.hpp"
#include "sched/pipe.hpp"
#include "sched/writer.hpp"

namespace takt::sched::components {
namespace {

/// A consolidating component (n -> 1): every task of every input is queued in the
/// one output, ordered by `order`: `keep` (the key it had in its input, so inputs
/// with comparable keys interleave), `arrival` (first come first served at the
/// mux), `deadline` (EDF) or `priority` (smaller number first).
class Mux final : public Instance {
 public:
  explicit Mux(InstanceContext ctx) : Instance(std::move(ctx)), out_(context().single("output")) {
    const std::string& order = context().params.text("order");
    order_ = order == "arrival"    ? Order::arrival
             : order == "deadline" ? Order::deadline
             : order == "priority" ? Order::priority
                                   : Order::keep;
  }

  void pipe_update(Pipe& input, Writer& out) override {
    input.for_each_change([&](Task& task, Change change, std::int64_t key) {
      switch (change) {
        case Change::added:
          out.add(*out_, task, output_key(task, key));
          break;
        case Change::removed:
          out.remove(*out_, task);
          break;
        case Change::moved:
          out.rekey(*out_, task, output_key(task, key));
          break;
        case Change::none:
          break;
      }
    });
  }

 private:
  enum class Order { keep, arrival, deadline, priority };
  std::int64_t output_key(const Task& task, std::int64_t key) const {
    switch (order_) {
      case Order::keep:
        return key;
      case Order::arrival:
        return 0;
      case Order::deadline:
        return task.deadline.count();
      case Order::priority:
        return task.priority;
    }
    return key;
  }
  Pipe* out_;
  Order order_;
};

}  // namespace

void register_mux(ComponentRegistry& registry) {
  registry.add(
      ComponentInfo{"mux",
                    consolidating,
                    "Merges its inputs into one output ordered by `order` (keep the input keys, arrival, "
                    "deadline or priority).",
                    {PortInfo{"inputs", PortInfo::Direction::input, true, false, "the pipes it merges"},
                     PortInfo{"output", PortInfo::Direction::output, false, false, "the merged pipe"}},
                    {ParamInfo{"order",
                               ParamType::text,
                               "keep",
                               {"keep", "arrival", "deadline", "priority"},
                               "the order of the output"}},
                    {},
                    {},
                    {},
                    false,
                    [](InstanceContext ctx) { return std::make_unique<Mux>(std::move(ctx)); }});
}

}  // namespace takt::sched::components
