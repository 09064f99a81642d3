// The built-in `segments` program: synchronous jobs of busy-wait strands, the RT-OpenMP workload.
//
// A job is a sequence of segments ⟨e, m⟩: m strands of length e that may run in
// parallel, and the next segment starts when all of them have finished (rt-openmp §II).
// Each strand busy-waits e by a loop calibrated once per process against the thread's
// CPU time (CLOCK_THREAD_CPUTIME_ID, fastest of 40 short trials), so a strand that the
// operating system preempts is not shortened: it still executes e of CPU time.
//
// Under the fork-join policies (federated, federated-greedy, gedf-paws) run(job) runs
// each segment as a parallel loop over its strands on the takt runtime, split eagerly
// down to one strand per leaf (cilk_for with grain 1: m − 1 spawns), so that every
// strand boundary is a spawn or sync point where a policy may preempt the job. Under
// partitioned-dm the dispatcher calls run_strand() for each strand on the core the
// strand table names (takt::SynchronousTask).
//
// Arguments: one per segment, `LENGTH` or `LENGTH*STRANDS` (e.g. `1ms`, `500us*8`),
// with the units of task-set durations. `takt run` passes a task's `segments:` this way
// when the task gives no `args:`.
#pragma once

#include "takt/program.hpp"
#include "takt/synchronous_task.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace takt::apps {

/// The name the program is registered under (model::kSegmentsProgram).
inline constexpr const char* kSegmentsProgramName = "segments";

class SegmentsTask final : public SynchronousTask {
 public:
  /// Parses the segments from args.args (parse_segment_args); throws takt::Error.
  void init(const TaskArgs& args) override;
  /// Every segment in order, each a parallel loop over its strands (eager binary split).
  void run(const Job& job) override;
  [[nodiscard]] std::vector<SegmentShape> segments() const override;
  /// Busy-waits the strand's length.
  void run_strand(const Job& job, std::size_t segment, std::size_t strand) override;

 private:
  struct Segment {
    SegmentShape shape;
    std::uint64_t units = 0;  ///< busy-loop iterations for one strand
  };
  std::vector<Segment> segments_;
};

/// Parses one argument per segment: `LENGTH` or `LENGTH*STRANDS` (STRANDS ≥ 1). Throws
/// takt::Error naming the argument and the expected form.
std::vector<SegmentShape> parse_segment_args(const std::vector<std::string>& args);
/// The argument for one segment, e.g. "500us*8" (or "1ms" for one strand).
std::string format_segment_arg(const SegmentShape& segment);

/// Busy-loop iterations per nanosecond of thread CPU time on this machine, measured on
/// first use (about 25 ms) and then fixed for the process.
double busy_units_per_ns();
/// Busy-waits about `length` of CPU time (busy_units_per_ns() iterations per ns).
void busy_wait(std::chrono::nanoseconds length);

/// Registers `segments` in `registry` unless it is there already.
inline void register_segments_program(ProgramRegistry& registry = programs()) {
  if (registry.contains(kSegmentsProgramName)) return;
  registry.add<SegmentsTask>(kSegmentsProgramName,
                             "synchronous segments of busy-wait strands (the RT-OpenMP workload); "
                             "args: one LENGTH or LENGTH*STRANDS per segment");
}

}  // namespace takt::apps
