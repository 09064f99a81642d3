// The release engine: periodic absolute-time releases, the overrun policy, limits and stopping.
//
// Job k of task i is released at origin + offset_i + k·T_i, an absolute time on
// CLOCK_MONOTONIC, so releases never drift. Releases are issued by *lanes*: a lane is
// a thread that calls run_lane() for a subset of the tasks and sleeps (an absolute,
// wakeable futex wait) until the earliest next release of its tasks. A policy chooses
// the lanes: one lane for the whole set (a central RT-scheduler feeding a global
// queue), or one lane per task whose thread runs the job itself (release → first
// instruction on the thread that woke up, as RT-OpenMP's distributed dispatcher does).
//
// At most one job of a task is in flight (released and not finished). A release that
// finds the previous job still running is handled by the overrun policy:
//   skip: the release is skipped and counted (it counts as a missed job);
//   wait: the job is released as soon as the previous one finishes, counted as late;
//         its deadline stays release-based (origin + offset + k·T + D).
// The decision uses the previous job's recorded finish time, so it does not depend on
// how promptly the lane thread woke up. A release due while the previous job has not
// reported its finish waits up to 1 ms for the report (a job may have finished before
// the release and not told the engine yet: its thread took the finish time and was
// preempted, possibly by the lane); under "skip" it is skipped if none comes.
//
// The run ends when every lane has no release left (duration or job-count limit) and
// its jobs have finished; or when request_stop() is called (SIGINT/SIGTERM through
// SignalStop): releasing stops at once, running jobs get `drain` to finish, and
// abandon() (a second signal) stops waiting for them. A lane that cannot end by itself
// (it is the thread of a job that does not end, or a release under "wait" waits for
// one) is ended by abandon_if_stalled(), which the run loop polls.
//
// An engine serves one run: start() once, each task in one lane, then discard it.
// It must outlive every thread that may still call finished() (an abandoned job's).
#pragma once

#include "platform/periodic_task.hpp"
#include "platform/recorder.hpp"
#include "platform/release_clock.hpp"
#include "platform/stoppable.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace takt::platform {

struct ReleaseConfig {
  OverrunPolicy overrun = OverrunPolicy::skip;
  /// Release only jobs whose nominal release is before origin + duration.
  std::optional<std::chrono::nanoseconds> duration;
  /// Release only jobs k < jobs_per_task of every task.
  std::optional<std::uint64_t> jobs_per_task;
  /// How long running jobs may take to finish once releasing has ended: after a stop,
  /// `drain` from the stop; at the natural end, `drain` after the latest deadline of
  /// a running job. Jobs still running then are abandoned (reported as unfinished).
  std::chrono::nanoseconds drain = std::chrono::seconds(1);
};

/// What held a run after its last nominal release (ReleaseEngine::abandon_if_stalled).
struct Stall {
  std::uint32_t task = 0;               ///< a task with a job in flight (the first by index)
  std::uint64_t job = 0;                ///< that job's index
  std::chrono::nanoseconds quiet{};     ///< how long no job was released or finished
  std::chrono::nanoseconds patience{};  ///< the limit `quiet` exceeded
};

/// Receives the released jobs of a lane, on the lane's thread.
class ReleaseSink {
 public:
  virtual ~ReleaseSink() = default;
  /// Either runs the job before returning (then calls ReleaseEngine::finished() first)
  /// or hands it on to workers, which call ReleaseEngine::finished() when it completes.
  virtual void release(const Release& release) = 0;
  /// After a pass of the lane that released one or more jobs (every job due then, in
  /// the lane's task order), before the lane waits again: a sink may hand the pass's
  /// jobs on at once here rather than one by one (federated ranks a shared core's jobs
  /// once per pass). Also called when a stop ended the pass early.
  virtual void pass_done() {}
};

/// Counters of one task, readable at any time.
struct ReleaseCounts {
  std::uint64_t released = 0;  ///< jobs released (on time or late)
  std::uint64_t skipped = 0;   ///< due releases not made (overrun "skip", or pending at a stop)
  std::uint64_t late = 0;      ///< jobs released late (overrun "wait")
  bool in_flight = false;      ///< a released job has not finished
};

class ReleaseEngine final : public Stoppable {
 public:
  /// Throws takt::Error for a task without a positive period or deadline, a negative
  /// offset, or a limit of zero.
  ReleaseEngine(std::vector<PeriodicTask> tasks, ReleaseConfig config,
                ReleaseClock& clock = ReleaseClock::monotonic());
  ~ReleaseEngine();
  ReleaseEngine(const ReleaseEngine&) = delete;
  ReleaseEngine& operator=(const ReleaseEngine&) = delete;

  /// Fixes the time origin (call once, before any lane runs); usually a little after
  /// now, so that every thread is ready for the first release.
  void start(std::chrono::nanoseconds origin);
  [[nodiscard]] std::chrono::nanoseconds origin() const noexcept;
  [[nodiscard]] bool started() const noexcept;

  /// Releases the jobs of `tasks` (indices into tasks()) on the calling thread until
  /// the run ends for them (see the file comment). Each task belongs to one lane only.
  /// Records release and skip events into `recorder` (may be null).
  void run_lane(std::span<const std::uint32_t> tasks, ReleaseSink& sink, ThreadRecorder* recorder);
  /// run_lane() for every task.
  void run(ReleaseSink& sink, ThreadRecorder* recorder);

  /// Job `job` of `task` finished at `at` (any thread; lock-free, no allocation).
  void finished(std::uint32_t task, std::uint64_t job, std::chrono::nanoseconds at) noexcept;

  /// Stop releasing; running jobs get `drain` to finish. Async-signal-safe.
  void request_stop() noexcept override;
  /// Stop waiting for running jobs (implies request_stop). Async-signal-safe.
  void abandon() noexcept override;
  [[nodiscard]] bool stop_requested() const noexcept;
  [[nodiscard]] bool abandoned() const noexcept;

  /// The backstop of the natural end, for lanes that cannot end by themselves: a lane
  /// that runs its jobs on its own thread (partitioned-dm) inside a job that does not
  /// end, or a release under overrun "wait" pending behind one. When no stop was
  /// requested, the last nominal release of the run is past (origin + duration, or the
  /// last job's release under jobs_per_task), jobs are in flight, and no job has been
  /// released or finished for the patience (the longest deadline or declared work C of
  /// the tasks, plus `drain`, plus 0.5 s; counted from the later of that release and the
  /// last such event), abandons the run (abandon()) and returns what held it; otherwise
  /// nullopt. A lane that can end by itself has ended before then: its drain limit is
  /// at most the latest deadline plus `drain`. Safe from any thread; not
  /// async-signal-safe.
  std::optional<Stall> abandon_if_stalled();
  /// abandon_if_stalled() abandoned the run.
  [[nodiscard]] bool stalled() const noexcept;
  /// When the first request_stop() or abandon() came, on the engine's clock
  /// (nanoseconds::max() before).
  [[nodiscard]] std::chrono::nanoseconds stop_time() const noexcept;
  /// Skip events (flag at_stop, time `until`) for the releases due by `until` and within
  /// the limits that no lane considered (neither released nor skipped): those of a lane
  /// that was still inside a job when the run gave up on it. A lane that ended has none
  /// when `until` is at most stop_time() (it skipped every release due by then). At most `limit` events;
  /// `left_out` (if given) gets the number of the others. For the run loop, after it gave up on the lanes.
  [[nodiscard]] std::vector<Event> unconsidered_releases(std::chrono::nanoseconds until, std::size_t limit,
                                                         std::uint64_t* left_out = nullptr) const;

  [[nodiscard]] ReleaseCounts counts(std::uint32_t task) const noexcept;
  /// Jobs released and not finished, over all tasks.
  [[nodiscard]] std::uint64_t jobs_in_flight() const noexcept;
  /// Releases the limits allow in total (nullopt: no limit, the run lasts until stopped).
  [[nodiscard]] std::optional<std::uint64_t> planned_releases() const;
  /// A bound on every job's absolute deadline, after the origin (the last release plus
  /// D, saturated; nullopt: no limit). Policies check their priority keys' range with it.
  [[nodiscard]] std::optional<std::chrono::nanoseconds> latest_deadline() const noexcept;

  [[nodiscard]] const std::vector<PeriodicTask>& tasks() const noexcept { return tasks_; }
  [[nodiscard]] const ReleaseConfig& config() const noexcept { return config_; }
  [[nodiscard]] ReleaseClock& clock() noexcept { return clock_; }
  [[nodiscard]] std::chrono::nanoseconds now() { return clock_.now(); }
  /// Nominal release of job k of `task`.
  [[nodiscard]] std::chrono::nanoseconds release_time(std::uint32_t task, std::uint64_t k) const noexcept;

 private:
  struct TaskState;
  struct LaneState;
  [[nodiscard]] bool within_limits(std::uint32_t task, std::uint64_t k) const noexcept;
  /// The absolute time after which no release is nominally due (nullopt: no limit).
  [[nodiscard]] std::optional<std::chrono::nanoseconds> releasing_ends() const noexcept;
  /// The latest last release over the tasks, after the origin, plus each task's D when
  /// `plus_deadline` (saturated; nullopt: no limit).
  [[nodiscard]] std::optional<std::chrono::nanoseconds> latest_over_tasks(bool plus_deadline) const noexcept;
  /// A bound on the nominal release of `task`'s last job, after the origin: the
  /// duration, or offset + (N - 1)·T under jobs_per_task (nullopt: no limit).
  [[nodiscard]] std::optional<std::chrono::nanoseconds> last_release_of(std::uint32_t task) const noexcept;
  void wake_lanes() noexcept;
  /// Keeps the time of the first stop (async-signal-safe with the real clock).
  void note_stop_time() noexcept;

  std::vector<PeriodicTask> tasks_;
  ReleaseConfig config_;
  ReleaseClock& clock_;
  std::unique_ptr<TaskState[]> state_;
  std::atomic<std::int64_t> origin_ns_{0};
  std::atomic<bool> started_{false};
  std::atomic<bool> stop_{false};
  std::atomic<bool> abandon_{false};
  std::atomic<bool> stalled_{false};
  std::atomic<std::int64_t> stop_ns_{INT64_MAX};  ///< stop_time()
  /// Bumped (then futex-woken) whenever a lane must re-examine its tasks.
  std::atomic<std::uint32_t> epoch_{0};
};

}  // namespace takt::platform
