// A segment ⟨e, m⟩ of a synchronous (fork-join) task: m parallel strands of length e.
#pragma once

#include "model/source_mark.hpp"

#include <chrono>
#include <span>
#include <string>
#include <string_view>

namespace takt::model {

/// The most strands a segment may have, in every place that reads one (task-set files,
/// .rtpt files, the segments program's args): far more than any machine runs at once,
/// and small enough that m fits an int.
inline constexpr int kMaxSegmentStrands = 100'000'000;
/// "N strands is more than takt supports (at most 100000000)", N as the file wrote it.
std::string too_many_strands(std::string_view written);

/// One segment ⟨e_{i,j}, m_{i,j}⟩ of a synchronous task (rt-openmp §II, rtws §II):
/// `strands` parallel strands, each of worst-case length `length`; a barrier ends the
/// segment, and the next one starts after all its strands finished.
struct Segment {
  std::chrono::nanoseconds length{0};  ///< e: execution requirement of each strand
  int strands = 1;                     ///< m: number of parallel strands
  SourceMark mark;

  /// m·e, the segment's share of the work. In 64 bits: the task-set parser keeps a
  /// task's Σ m·e within kMaxDuration (duration.hpp); tasks built in code must too.
  [[nodiscard]] std::chrono::nanoseconds work() const { return length * strands; }
};

/// C = Σ m_j·e_j (rt-openmp §II).
std::chrono::nanoseconds segments_work(std::span<const Segment> segments);
/// P = Σ e_j, the critical-path length (rt-openmp §II).
std::chrono::nanoseconds segments_span(std::span<const Segment> segments);

}  // namespace takt::model
