// The built-in `segments` program: synchronous jobs of busy-wait strands, the RT-OpenMP workload.
//
// A job is a sequence of segments ⟨e, m⟩: m strands of length e that may run in
// parallel, and the next segment starts when all of them have finished (rt-openmp §II).
// Each strand of 50 us or more busy-waits until its thread has used e of CPU time
// (busy_wait: a loop calibrated once per process, run in steps between reads of
// CLOCK_THREAD_CPUTIME_ID), so a strand that the operating system preempts is not
// shortened, and one on a CPU that runs the loop slower or faster than calibrated
// still executes e of CPU time. Shorter strands, where those reads (system calls)
// would be a large part of the strand, spin until CLOCK_MONOTONIC (the vDSO, tens of
// ns) has advanced by e: also e on a slower or faster CPU, but a preemption inside one
// shortens its CPU time, by at most e.
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

#include <algorithm>
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
  /// Busy-waits the strand's length of CPU time.
  void run_strand(const Job& job, std::size_t segment, std::size_t strand) override;

 private:
  std::vector<SegmentShape> segments_;
};

/// Parses one argument per segment: `LENGTH` or `LENGTH*STRANDS` (STRANDS ≥ 1). Throws
/// takt::Error naming the argument and the expected form.
std::vector<SegmentShape> parse_segment_args(const std::vector<std::string>& args);
/// The argument for one segment, e.g. "500us*8" (or "1ms" for one strand).
std::string format_segment_arg(const SegmentShape& segment);

/// Busy-loop iterations per nanosecond of thread CPU time on this machine, measured on
/// first use (about 25 ms: the fastest of 40 short trials) and then fixed for the
/// process. busy_wait() sizes its steps by it.
double busy_units_per_ns();
/// From this length on, busy_wait() reads the thread's CPU clock; shorter waits read
/// the monotonic clock (see busy_wait).
inline constexpr std::chrono::nanoseconds kClockedStrand{50'000};
/// A monotonic-clock read that costs more than this (a clocksource the vDSO cannot read,
/// so a system call) is too slow to time waits shorter than kClockedStrand by: they are
/// then the calibrated number of iterations.
inline constexpr std::chrono::nanoseconds kCheapClockRead{200};
/// Busy-waits until the calling thread has used `length` of CPU time
/// (CLOCK_THREAD_CPUTIME_ID; time off the CPU does not count), within about half a
/// clock read (~0.3 us) where the loop runs at its calibrated speed and overshooting by
/// at most one step of the loop (an eighth of `length` at the calibrated speed) where
/// it does not. Below kClockedStrand, where those reads (~0.6 us each) would be a large
/// part of the wait: until CLOCK_MONOTONIC has advanced by `length`, with the same steps
/// and bounds (reads of ~40 ns), so a wait that the OS preempts ends early, its CPU
/// time short by at most `length`; or, where a monotonic read costs more than
/// kCheapClockRead, busy_units_per_ns() iterations per ns, no clock.
void busy_wait(std::chrono::nanoseconds length);
/// busy_wait() with steps sized for `units_per_ns` instead of the calibration (tests:
/// a calibration far off still gives `length` of CPU time).
void busy_wait(std::chrono::nanoseconds length, double units_per_ns);
/// `length` × `units_per_ns` iterations, rounded, at least 1 (saturating).
std::uint64_t units_for(std::chrono::nanoseconds length, double units_per_ns);

/// busy_wait()'s stepping, over any clock `now()` (one read costs about `read`) and
/// loop `spin(units)`; busy_wait() passes a real clock and busy_units, the tests a
/// simulated pair whose loop runs a chosen factor slower than `units_per_ns`.
/// Runs the loop until `now()` has advanced by `length`, in steps of at most an eighth
/// of it, each sized by `units_per_ns` for half of what is left, with a read of the
/// clock after each: a loop faster or slower than that rate changes how many steps the
/// wait takes, not its length. A read is part of the wait: its value is taken about
/// half-way through it, so from the first read's value to the last one's, length − one
/// read must pass; each step leaves room for the read after it, and the wait ends when
/// less than half a read is left. A loop up to 2 times slower than the rate (this VM
/// switches between about 1.3 and 2.6 iterations/ns; the calibration keeps the
/// fastest) still ends each step within what is left, so the wait is within half a
/// read of its length; where the loop is slower still it overshoots by at most one
/// step. (Until 2026-11-27 a step was sized for all that was left: a loop 1.5 to 2
/// times slower overshot by up to an eighth of the length, and a partitioned-dm test
/// saw a 10 ms segment take 12.8 ms of CPU time under ThreadSanitizer.)
template <class Now, class Spin>
void spin_steps(std::chrono::nanoseconds length, std::chrono::nanoseconds read, double units_per_ns,
                Now&& now, Spin&& spin) {
  using namespace std::chrono_literals;
  const std::chrono::nanoseconds start = now();
  const std::chrono::nanoseconds target = length - read;
  const std::chrono::nanoseconds most = length / 8;
  for (;;) {
    const std::chrono::nanoseconds left = target - (now() - start);
    if (left <= read / 2) return;
    spin(units_for(std::clamp((left - read) / 2, 0ns, most), units_per_ns));
  }
}

/// Whether busy_wait() times waits shorter than kClockedStrand by the monotonic clock
/// here (its read costs at most kCheapClockRead), rather than counting iterations.
bool short_waits_are_timed();

/// Registers `segments` in `registry` unless it is there already.
inline void register_segments_program(ProgramRegistry& registry = programs()) {
  if (registry.contains(kSegmentsProgramName)) return;
  registry.add<SegmentsTask>(kSegmentsProgramName,
                             "synchronous segments of busy-wait strands (the RT-OpenMP workload); "
                             "args: one LENGTH or LENGTH*STRANDS per segment");
}

}  // namespace takt::apps
