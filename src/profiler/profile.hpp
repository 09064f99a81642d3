// Profiling a task: work, span, burdened span, parallelism and counts over N jobs (takt profile).
#pragma once

#include "platform/percentile.hpp"
#include "profiler/burden.hpp"
#include "profiler/dag.hpp"
#include "takt/runtime/measure.hpp"
#include "takt/task.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace takt::profiler {

struct ProfileOptions {
  /// Jobs measured (each phase runs every job; the first, unmeasured run of takt::measure
  /// comes before them).
  std::size_t jobs = 10;
  /// Which of the jobs' values the task set gets: the nearest-rank percentile
  /// (100 = the maximum, the default; 50 = the median).
  double percentile = 100;
  /// The burdens; none: calibrate_burden() on this machine first.
  std::optional<Burden> burden;
  /// CPUs the one-worker runs may use (the worker is not pinned to one of them); empty:
  /// the CPUs this process may use. The T_P runs pin P workers to the first P of them.
  os::CpuSet cpus;
  /// Also measure the response time T_P of each job on P workers, for each P listed
  /// (e.g. {1, 2}: the work and span laws, docs/profiling.md).
  std::vector<std::size_t> parallel_workers;
  /// SCHED_FIFO priority of every worker of the profiling pools (and of the burden
  /// calibration), so that other processes' threads do not preempt the measured code;
  /// 0, or no privilege (or TAKT_NO_RT=1): the workers stay in SCHED_OTHER.
  int fifo_priority = 10;
  /// Called with a short line before each phase and job (may be empty).
  std::function<void(std::string_view)> progress;
  /// Asked before each job (may be empty): true ends the measurement there, with the
  /// jobs measured so far (ProfileResult::stopped). A job that has begun is finished:
  /// the task's code cannot be interrupted safely.
  std::function<bool()> stop_requested;
  /// The period and relative deadline the jobs carry (takt::Job), those of the task
  /// when a task-set file is profiled; 0 for a program profiled alone. Each job's
  /// release is the moment it starts and its deadline release + relative_deadline.
  std::chrono::nanoseconds period{0};
  std::chrono::nanoseconds relative_deadline{0};
};

/// One job's measurements.
struct JobProfile {
  std::chrono::nanoseconds work{0};  ///< T₁ on a one-worker pool, no observer
  DagMeasure dag;                    ///< from the observed one-worker run
  /// T_P for each ProfileOptions::parallel_workers entry, in that order.
  std::vector<std::chrono::nanoseconds> parallel;
};

/// T_P over the jobs for one P.
struct ParallelTime {
  std::size_t workers = 0;
  platform::DurationStats time;
};

/// The outcome of profiling one program with one set of arguments.
struct ProfileResult {
  std::string program;
  std::vector<std::string> args;
  std::size_t jobs = 0;            ///< jobs measured: ProfileOptions::jobs unless stopped
  std::size_t jobs_requested = 0;  ///< ProfileOptions::jobs
  /// stop_requested() ended the measurement before jobs_requested jobs; with jobs = 0
  /// nothing was measured (the statistics are empty).
  bool stopped = false;
  double percentile = 100;
  Measurement memory;  ///< what takt::measure reported (depth D, peak stack, spawns)
  Burden burden;
  std::optional<BurdenCalibration> calibration;  ///< when the burden was calibrated here
  std::vector<JobProfile> per_job;
  /// How the workers were scheduled: "SCHED_FIFO/10", or "SCHED_OTHER" with the reason.
  std::string scheduling;

  platform::DurationStats work;           ///< C per job
  platform::DurationStats span;           ///< L per job
  platform::DurationStats burdened_span;  ///< L̂ per job
  platform::DurationStats strand_work;    ///< Σ strand lengths of the observed run
  std::uint64_t spawns = 0;               ///< of the observed run (most of any job)
  std::uint64_t syncs = 0;
  std::uint64_t strands = 0;
  std::vector<ParallelTime> parallel;

  /// The values for the task set: the chosen percentile of each quantity over the jobs.
  std::chrono::nanoseconds chosen_work{0};
  std::chrono::nanoseconds chosen_span{0};
  std::chrono::nanoseconds chosen_burdened_span{0};
  /// Parallelism C/L from the medians over the jobs (the maxima may be single
  /// disturbed jobs).
  [[nodiscard]] double parallelism() const;
  /// C/L̂ from the medians.
  [[nodiscard]] double burdened_parallelism() const;
};

/// Profiles an initialised task (docs/profiling.md):
///   1. takt::measure runs one job on a measuring worker: the depth D, stack and spawns
///      that size the pools and the span observer;
///   2. then, for each of `jobs` jobs in turn:
///      - work: the job on a pool of one worker, no observer: T₁, the time the job's
///        code takes on one core with every spawn executed by the runtime;
///      - span: the job on a pool of one worker in measurement mode (every parallel loop
///        split to its grain, the DAG a greedy parallel run could use) with a
///        SpanObserver: span, burdened span, spawns, syncs, strands;
///      - T_P on P workers for each P in parallel_workers.
/// Each time is measured on the worker, around task.run(job). Throws takt::Error when
/// the task throws (the message names the job) or the options are invalid.
/// options.stop_requested is asked before each job: a stop keeps the jobs measured.
ProfileResult profile(Task& task, std::string program, std::vector<std::string> args,
                      const ProfileOptions& options);

/// The CPUs profiled on: options.cpus, or every CPU this process may use.
os::CpuSet profiled_cpus(const ProfileOptions& options);

/// The task's job for profiling: index k, released now, `cores` as job.cores, and the
/// options' period and relative deadline (deadline = release + relative deadline).
Job profiling_job(std::string_view name, std::uint64_t index, unsigned cores, const ProfileOptions& options);

}  // namespace takt::profiler
