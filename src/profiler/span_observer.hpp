// Measures span and burdened span of a job online, from the strand events of a one-worker run.
#pragma once

#include "profiler/burden.hpp"
#include "profiler/dag.hpp"
#include "takt/runtime/extension.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace takt::profiler {

/// A strand observer for a pool of ONE worker that computes the DAG measures of each
/// job while it runs, in memory proportional to the computation's depth, not to its
/// size (a job may spawn millions of times).
///
/// On one worker the events arrive in the serial (depth-first) order of the program, so
/// the longest paths follow Cilkview's rule: each running task keeps the longest path
/// from the job's start to its current strand, and, per open scope, the longest path
/// to the end of any child spawned in it; a sync takes the maximum of the two. A task
/// is a frame on a stack of at most `depth` frames; open scopes form one stack of at
/// most `scopes` entries (a scope is on a strand's stack, so their number is bounded by
/// the stack the computation uses). Both are allocated in the constructor; on_event
/// allocates nothing. Exceeding either, or events that are not serial (a second worker,
/// a stolen continuation), make result() throw.
class SpanObserver final : public ext::StrandObserver {
 public:
  struct Capacity {
    std::size_t depth = 64;     ///< D of the computation (takt::measure), the root being 1
    std::size_t scopes = 4096;  ///< open scopes with children at once, all tasks together
  };

  SpanObserver(Capacity capacity, Burden burden);

  /// Starts afresh (call before each job).
  void reset() noexcept;
  void on_event(const ext::StrandEvent& event) noexcept override;
  /// The measures of the job observed since reset(); throws takt::Error when the job has
  /// not finished, a capacity was exceeded, or the events were not a serial execution.
  [[nodiscard]] DagMeasure result() const;

  [[nodiscard]] const Burden& burden() const noexcept { return burden_; }

 private:
  struct Frame {
    std::uint64_t task = 0;
    std::int64_t start = 0;  ///< when the current strand started (ns)
    std::int64_t path = 0;   ///< longest path from the job's start to here (ns)
    std::int64_t burdened = 0;
    std::size_t scope_base = 0;    ///< first entry of this task in scopes_
    std::size_t parent_entry = 0;  ///< the parent's scope entry this task was spawned in
    std::size_t spawn_entry = 0;   ///< the scope entry of this task's latest spawn
  };
  struct ScopeEntry {
    std::uint64_t scope = 0;
    std::int64_t path = 0;  ///< latest end of a child spawned in the scope
    std::int64_t burdened = 0;
    bool open = false;
  };
  enum class Fault : std::uint8_t { none, depth, scopes, not_serial, inconsistent };

  void fail(Fault fault) noexcept {
    if (fault_ == Fault::none) fault_ = fault;
  }
  void end_strand(Frame& f, std::int64_t now) noexcept;
  // The open entry of `scope` among f's entries, or nullptr; `closed` (if given)
  // receives one of f's entries that is no longer open, if there is one.
  ScopeEntry* find_open(const Frame& f, std::uint64_t scope, ScopeEntry** closed = nullptr) noexcept;

  Capacity capacity_;
  Burden burden_;
  std::vector<Frame> frames_;
  std::vector<ScopeEntry> scopes_;
  std::size_t frame_count_ = 0;
  std::size_t scope_count_ = 0;
  std::uint32_t worker_ = 0;
  bool started_ = false;
  bool finished_ = false;
  Fault fault_ = Fault::none;
  DagMeasure measure_;
};

}  // namespace takt::profiler
