// A task set: the `global` section (cores, policy and its parameters, run length) and the tasks.
#include "model/task_set.hpp"

namespace takt::model {

double TaskSet::total_utilization() const {
  double total = 0;
  for (const Task& t : tasks) total += t.utilization();
  return total;
}

const Task* TaskSet::find(std::string_view name) const {
  for (const Task& t : tasks) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace takt::model
