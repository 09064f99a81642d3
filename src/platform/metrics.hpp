// Run metrics computed from the recorded events: per job, per task and for the system.
//
// Definitions (docs/measurements.md gives them in full):
//   response time        = finish − nominal release (origin + offset + k·T)
//   deadline             = nominal release + relative deadline; met when finish ≤ deadline
//   tardiness            = max(0, finish − deadline)
//   relative response    = response / relative deadline (RTWS §VII.B)
//   release latency      = start − eligible time (the nominal release, or the previous
//                          job's finish for a late release): release → first instruction
//   miss ratio           = misses / jobs with an outcome, where a skipped release counts
//                          as a job and a miss, a failed job is a miss, and a job still
//                          running at the end is a miss when its deadline had passed
//                          ("unfinished") and has no outcome otherwise ("abandoned"); a
//                          job whose finish the recorder may have dropped has no
//                          outcome either ("unknown").
// Percentiles are nearest-rank (percentile.hpp).
#pragma once

#include "os/usage.hpp"
#include "platform/event.hpp"
#include "platform/percentile.hpp"
#include "platform/periodic_task.hpp"
#include "platform/recorder.hpp"
#include "platform/release_engine.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace takt::platform {

enum class JobStatus {
  met,         ///< finished by its deadline
  missed,      ///< finished after its deadline
  failed,      ///< its run failed (threw); counts as missed
  unfinished,  ///< still running at the end, deadline passed; counts as missed
  abandoned,   ///< still running at the end, deadline not yet passed: no outcome
  skipped,     ///< the release was skipped; counts as a missed job
  unknown,     ///< no finish recorded, but the recorder dropped job events and the job ledger
               ///< does not cover it: it may have finished. No outcome
};
std::string_view to_string(JobStatus status);

struct JobResult {
  std::uint32_t task = 0;
  std::uint64_t index = 0;
  JobStatus status = JobStatus::abandoned;
  std::chrono::nanoseconds release{};   ///< nominal release
  std::chrono::nanoseconds eligible{};  ///< when it could start (late releases: previous finish)
  std::chrono::nanoseconds deadline{};  ///< absolute
  std::optional<std::chrono::nanoseconds> start;
  std::optional<std::chrono::nanoseconds> finish;
  bool late = false;
  int start_cpu = -1;
  /// Time the job executed: the sum of its recorded strand segments on every core (each
  /// the CPU time its thread spent in it when recorded, a cpu_timed strand_end, else its
  /// wall-clock time); for a job that recorded no strands, the CPU time of the thread
  /// that ran it (a cpu_timed finish), else start → finish (0 before it finished).
  std::chrono::nanoseconds executed{};
  /// True when `executed` is CPU time throughout; false when some of it is wall-clock
  /// time, which also counts the time other threads ran on the job's cores.
  bool executed_cpu_time = false;
  /// False when the job finished after the recorder first dropped an event: some of its
  /// strand events may be missing, so `executed` is not known (and left 0).
  bool executed_known = true;

  [[nodiscard]] std::optional<std::chrono::nanoseconds> response() const;
  [[nodiscard]] std::optional<std::chrono::nanoseconds> tardiness() const;
  [[nodiscard]] std::optional<std::chrono::nanoseconds> release_latency() const;
  /// True for statuses that count as a deadline miss.
  [[nodiscard]] bool counts_as_miss() const;
};

struct TaskMetrics {
  std::string name;
  std::chrono::nanoseconds period{};
  std::chrono::nanoseconds deadline{};
  std::uint64_t jobs = 0;  ///< released + skipped
  std::uint64_t released = 0;
  std::uint64_t met = 0;
  std::uint64_t misses = 0;  ///< missed + failed + unfinished + skipped
  std::uint64_t skipped = 0;
  std::uint64_t late = 0;
  std::uint64_t failed = 0;
  std::uint64_t unfinished = 0;
  std::uint64_t abandoned = 0;
  std::uint64_t unknown = 0;          ///< jobs whose outcome was lost with dropped events
  double miss_ratio = 0;              ///< misses / (jobs − abandoned − unknown)
  DurationStats response;             ///< over finished, non-failed jobs
  double mean_relative_response = 0;  ///< mean of response / relative deadline, same jobs
  DurationStats release_latency;
  DurationStats executed;                    ///< JobResult::executed over finished, non-failed jobs
  std::uint64_t executed_unknown = 0;        ///< of those jobs, the ones whose executed time is not known
  /// Of the jobs in `executed`, those whose executed time is (partly) wall-clock time
  /// (JobResult::executed_cpu_time false): it includes preemption by other threads.
  std::uint64_t executed_wall_clock = 0;
  std::chrono::nanoseconds declared_work{};  ///< C from the task set (0: none declared)
  /// executed.mean / declared C: above 1, the jobs ran longer than the C the analysis
  /// assumed (0 when no C is declared or no job finished).
  double work_ratio = 0;
  std::vector<std::string> errors;  ///< kept messages of failed jobs ("job 12: ...")
};

struct CoreMetrics {
  int cpu = -1;
  std::chrono::nanoseconds job_time{};           ///< time takt's recorded jobs and strands executed here
  std::optional<std::chrono::nanoseconds> busy;  ///< /proc/stat busy time over the run (every process)
};

/// What the operating system said at one instant (sample before and after a run).
struct SystemSample {
  std::chrono::nanoseconds time{};
  std::chrono::nanoseconds process_cpu_time{};
  os::ContextSwitches context_switches;
  std::vector<std::chrono::nanoseconds> cpu_busy;  ///< per CPU id, since boot
};
SystemSample sample_system();

struct SystemMetrics {
  std::uint64_t migrations = 0;         ///< every migration event
  std::uint64_t thread_migrations = 0;  ///< of which the OS moved a recording thread
  std::uint64_t steals = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t strands = 0;             ///< strand executions begun
  os::ContextSwitches context_switches;  ///< process-wide, over the run
  DurationStats release_latency;
  std::vector<CoreMetrics> cores;
  std::chrono::nanoseconds process_cpu_time{};
  std::uint64_t events_recorded = 0;
  std::uint64_t events_dropped = 0;
  std::uint64_t events_unattached = 0;
  std::uint64_t job_errors = 0;
  std::vector<ThreadSummary> threads;
};

/// Facts about the run that only the caller knows.
struct RunInfo {
  std::chrono::nanoseconds origin{};  ///< the release engine's origin
  std::chrono::nanoseconds end{};     ///< when the run ended (all lanes returned)
  OverrunPolicy overrun = OverrunPolicy::skip;
  std::string policy;      ///< scheduling policy name, "" when none
  std::string privileges;  ///< os::privileges().summary()
  bool stopped = false;    ///< ended by request_stop (a signal) before its limits
  bool abandoned = false;  ///< running jobs were abandoned
  bool stalled = false;    ///< abandoned because a job held the run after its last release
                           ///< (ReleaseEngine::abandon_if_stalled)
  int signal = 0;          ///< the signal that stopped it, 0 if none
  /// The error that ended the run midway (a thread that could not start, memory that
  /// ran out), its message; empty if none. Such a run is also `abandoned` when jobs were
  /// still in flight after it.
  std::string error;

  /// end − origin; 0 for a run stopped before its first release (the origin lies
  /// ahead of the start, so such a run ends before it).
  [[nodiscard]] std::chrono::nanoseconds duration() const {
    return end > origin ? end - origin : std::chrono::nanoseconds{0};
  }
};

/// How a run ended early, in the words of the table and the trace: "ended by an error"
/// (with " (running jobs abandoned)" when jobs were), "stopped early",
/// "stopped (running jobs abandoned)", "running jobs abandoned (no job released or
/// finished after the last release)" or "running jobs abandoned at the end"; "" for a
/// run that ended by its limits with every job finished.
std::string_view how_run_ended(const RunInfo& run);

struct RunMetrics {
  RunInfo run;
  std::vector<TaskMetrics> tasks;
  /// Every released or skipped job with a recorded event, by task then index (jobs whose
  /// events were all dropped are only in the task numbers: MetricsInput::engine_counts).
  std::vector<JobResult> jobs;
  SystemMetrics system;
  std::uint64_t jobs_total = 0;
  std::uint64_t misses_total = 0;
  double miss_ratio = 0;  ///< over all tasks, same rule as per task
};

struct MetricsInput {
  std::span<const PeriodicTask> tasks;
  std::span<const Event> events;  ///< sorted by time (Recorder::events())
  RunInfo run;
  std::optional<SystemSample> before;
  std::optional<SystemSample> after;
  std::vector<ThreadSummary> threads;
  std::vector<JobError> errors;
  std::uint64_t job_errors = 0;
  std::uint64_t events_dropped = 0;
  std::uint64_t events_unattached = 0;
  /// Recorder::first_drop(): jobs that finished before it have every strand event.
  std::optional<std::chrono::nanoseconds> first_drop;
  /// Recorder::first_job_drop(): set when some job's release, start or finish was
  /// dropped; a job outside `ledger_jobs` without a finish then has no known outcome.
  std::optional<std::chrono::nanoseconds> first_job_drop;
  /// Recorder::ledger_jobs(): per task, the jobs 0 .. n−1 whose job events are all kept.
  std::vector<std::uint64_t> ledger_jobs;
  /// Per task, the release engine's own counts (ReleaseEngine::counts): the jobs it
  /// released and the releases it skipped, job indices 0 .. released + skipped − 1. Jobs
  /// among those of which no job event survived (all dropped, beyond the job ledger) are
  /// still counted in the task's numbers: as skipped (a miss) as far as the engine
  /// skipped more than the recorded skip events say, the rest as released jobs with
  /// status unknown. They get no per-job entry (RunMetrics::jobs): a long run can have
  /// millions. Empty: not known; only jobs with a surviving event are counted.
  std::vector<ReleaseCounts> engine_counts;
};

RunMetrics compute_metrics(const MetricsInput& input);

/// The input of compute_metrics() from `recorder`: its threads, errors and counters, and
/// `events` (its Recorder::events(), kept by the caller, who may use them again).
MetricsInput metrics_input(std::span<const PeriodicTask> tasks, std::span<const Event> events,
                           const Recorder& recorder, const RunInfo& run, std::optional<SystemSample> before,
                           std::optional<SystemSample> after);

/// compute_metrics() with the events, threads and errors of `recorder`.
RunMetrics compute_metrics(std::span<const PeriodicTask> tasks, const Recorder& recorder, const RunInfo& run,
                           std::optional<SystemSample> before, std::optional<SystemSample> after);

}  // namespace takt::platform
