// A task set: the `global` section (cores, policy and its parameters, run length) and the tasks.
#include "model/task_set.hpp"

namespace takt::model {

std::string delta_problem(const Decimal& delta) {
  if (delta.numerator >= delta.denominator) return "";
  return delta.to_string() +
         " is below 1: δ must be at least 1, because the span is a lower bound on any completion "
         "time and eq. 3 takes C/n + δ·L̂ for one (the papers use 3.65, 1.7, 1.5)";
}

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
