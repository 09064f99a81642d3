// Pairing the strand_begin and strand_end events of a recorded run into segments (the
// metrics and the trace both read segments this way).
#pragma once

#include "platform/event.hpp"

#include <chrono>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

namespace takt::platform {

/// The strand segments begun and not yet ended, while reading a run's events in time order.
class OpenStrands {
 public:
  /// (task, job, strand id, CPU it began on).
  using Key = std::tuple<std::uint32_t, std::uint64_t, std::uint64_t, int>;
  struct Segment {
    std::chrono::nanoseconds begin{};
    int cpu = -1;  ///< the CPU it began on
  };

  /// `e` is a strand_begin.
  void begin(const Event& e) { open_[{e.task, e.job, e.arg, e.cpu}] = e.time; }

  /// `e` is a strand_end: the segment it ends (no longer open), begun on e's CPU, else,
  /// when its thread moved to another CPU inside the segment (an unpinned thread), the
  /// one segment of the same strand open on another CPU; nullopt when its begin is
  /// missing, or when several such segments are open (after dropped events: which one
  /// it ends is not known).
  std::optional<Segment> end(const Event& e) {
    auto it = open_.find({e.task, e.job, e.arg, e.cpu});
    if (it == open_.end()) {
      auto same_strand = [&](auto at) {
        return at != open_.end() && std::get<0>(at->first) == e.task && std::get<1>(at->first) == e.job &&
               std::get<2>(at->first) == e.arg;
      };
      it = open_.lower_bound({e.task, e.job, e.arg, std::numeric_limits<int>::min()});
      if (!same_strand(it) || same_strand(std::next(it))) return std::nullopt;
    }
    const Segment segment{it->second, std::get<3>(it->first)};
    open_.erase(it);
    return segment;
  }

  /// The segments whose end event is missing, by key.
  [[nodiscard]] const std::map<Key, std::chrono::nanoseconds>& still_open() const noexcept { return open_; }

 private:
  std::map<Key, std::chrono::nanoseconds> open_;
};

}  // namespace takt::platform
