// The synchronous-task extension of the task API: a task whose jobs are segments of parallel strands, run one strand at a time.
//
// RT-OpenMP's `partitioned-dm` policy (rt-openmp §IV) does not run a job as one
// fork-join computation: it decomposes every job into segments ⟨e, m⟩ of m strands,
// places each strand on a core, and lets the team thread on that core run exactly the
// strands assigned to it, segment by segment, with a barrier after each segment
// (Algorithm 1). A program can be run that way only if it can execute one strand on
// its own; it says so by deriving from takt::SynchronousTask instead of takt::Task:
//
//   class Filter : public takt::SynchronousTask {
//    public:
//     void init(const takt::TaskArgs& args) override;           // as for any task
//     void run(const takt::Job& job) override;                  // the whole job (fork-join policies)
//     std::vector<takt::SegmentShape> segments() const override; // e.g. {{1ms, 1}, {500us, 8}, {1ms, 1}}
//     void run_strand(const takt::Job& job, std::size_t segment, std::size_t strand) override;
//   };
//
// Under partitioned-dm the platform checks that segments() matches the task's
// `segments:` in the task-set file (the structure the analysis decomposed), then calls
// run_strand(job, j, s) for every strand s of every segment j of every job, on the
// thread the strand table names, never two segments of one job at once. The strands of
// one segment may run concurrently on different cores. A job is done when the last
// strand of its last segment has returned; run() is not called under that policy.
//
// A task that is one sequential segment of one strand needs no extension: under
// partitioned-dm its whole run(job) is that strand. Any other task whose program is not
// a SynchronousTask is refused by partitioned-dm with a message naming the policies
// that run it (federated, federated-greedy, gedf-paws). The built-in `segments`
// program (src/apps/segments.hpp) implements this interface. Shared objects (the C
// ABI of <takt/task_abi.h>) cannot, in task ABI version 1.
#pragma once

#include "takt/task.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace takt {

/// One segment ⟨e, m⟩ as a program describes it: `strands` strands of `length` each.
struct SegmentShape {
  std::chrono::nanoseconds length{};
  std::uint32_t strands = 1;
  friend bool operator==(const SegmentShape&, const SegmentShape&) = default;
};

/// A task whose jobs are synchronous: a sequence of segments of parallel strands.
class SynchronousTask : public Task {
 public:
  /// The segments of every job, in order (valid after init()).
  [[nodiscard]] virtual std::vector<SegmentShape> segments() const = 0;
  /// Runs strand `strand` (0-based, < segments()[segment].strands) of segment `segment`
  /// (0-based) of `job`. May throw: the job then counts as failed (missed), the error is
  /// reported, and the job's remaining strands are not run.
  virtual void run_strand(const Job& job, std::size_t segment, std::size_t strand) = 0;
};

}  // namespace takt
