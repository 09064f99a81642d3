// A periodic parallel real-time task: timing, program, and structure or measured work/span.
#include "model/task.hpp"

namespace takt::model {

Structure Task::structure() const {
  if (measured_work) return Structure::measured;
  if (dag) return Structure::dag;
  return Structure::segments;
}

std::chrono::nanoseconds Task::work() const {
  if (measured_work) return *measured_work;
  if (dag) return dag->work();
  return segments_work(segments);
}

std::chrono::nanoseconds Task::span() const {
  if (measured_span) return *measured_span;
  if (dag) return dag->critical_path();
  return segments_span(segments);
}

double Task::utilization() const {
  return static_cast<double>(work().count()) / static_cast<double>(period.count());
}

double Task::density() const {
  return static_cast<double>(work().count()) / static_cast<double>(deadline.count());
}

}  // namespace takt::model
