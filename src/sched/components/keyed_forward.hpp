// KeyedForward: the 1 -> 1 stage that forwards every change with a key of its own choosing.
#pragma once

#include "sched/component.hpp"
#include "sched/pipe.hpp"
#include "sched/writer.hpp"

#include <cstdint>
#include <vector>

namespace takt::sched::components {

/// Base of the ordering components (and the head queue): one input, one output;
/// an added task is queued in the output with key(task, input key), a removed one
/// removed, a moved one re-keyed. So the output holds exactly the input's tasks, in
/// the order the key defines.
class KeyedForward : public Instance {
 public:
  explicit KeyedForward(InstanceContext context)
      : Instance(std::move(context)), out_(this->context().single("output")) {}

  void pipe_update(Pipe& input, Writer& out) override {
    input.for_each_change([&](Task& task, Change change, std::int64_t input_key) {
      switch (change) {
        case Change::added:
          out.add(*out_, task, key(task, input_key));
          break;
        case Change::removed:
          out.remove(*out_, task);
          break;
        case Change::moved:
          out.rekey(*out_, task, key(task, input_key));
          break;
        case Change::none:
          break;
      }
    });
  }

 protected:
  /// The output key of `task` (smaller is earlier); `input_key` is its key upstream.
  virtual std::int64_t key(const Task& task, std::int64_t input_key) = 0;

 private:
  Pipe* out_;
};

/// The ports of every 1 -> 1 component.
inline std::vector<PortInfo> one_to_one_ports() {
  return {PortInfo{"input", PortInfo::Direction::input, false, false, "the pipe it consumes"},
          PortInfo{"output", PortInfo::Direction::output, false, false, "the pipe it produces"}};
}

}  // namespace takt::sched::components
