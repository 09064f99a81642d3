// A segment ⟨e, m⟩ of a synchronous (fork-join) task: m parallel strands of length e.
#include "model/segment.hpp"

namespace takt::model {

std::string too_many_strands(std::string_view written) {
  return std::string(written) + " strands is more than takt supports (at most " +
         std::to_string(kMaxSegmentStrands) + ")";
}

std::chrono::nanoseconds segments_work(std::span<const Segment> segments) {
  std::chrono::nanoseconds total{0};
  for (const Segment& s : segments) total += s.work();
  return total;
}

std::chrono::nanoseconds segments_span(std::span<const Segment> segments) {
  std::chrono::nanoseconds total{0};
  for (const Segment& s : segments) total += s.length;
  return total;
}

}  // namespace takt::model
