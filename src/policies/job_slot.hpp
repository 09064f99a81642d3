// One task's job as a policy hands it around: the released job, its entry in the topology, and the computation a pool runs.
//
// At most one job of a task is in flight (the release engine's rule), so every task has
// one slot, reused job after job. The lane fills it at the release and admits its
// sched::Task; the worker that gets it from schedule(pe) either gives it to a runtime
// pool (it is an ext::Job) or runs it inline. Whoever completes the job records the
// finish, takes the entry out of the topology and only then tells the release engine,
// after which the lane may fill the slot again.
#pragma once

#include "platform/periodic_task.hpp"
#include "platform/recorder.hpp"
#include "platform/release_engine.hpp"
#include "sched/scheduler.hpp"
#include "takt/runtime/extension.hpp"
#include "takt/task.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string_view>

namespace takt::policies {

/// The runtime priority keys of jobs: key = ((deadline − origin) << bits) | task, with
/// bits the width of (tasks − 1). Ordered by absolute deadline, then task index (EDF,
/// ties to the lower index), and unique among in-flight jobs (one per task), so a key
/// names its job. (Deadline + task index in ns, the earlier key, made two jobs whose
/// deadlines differ by exactly the difference of their indices share a key.)
class PriorityKeys {
 public:
  PriorityKeys() = default;
  explicit PriorityKeys(std::size_t tasks) noexcept;
  /// Throws takt::Error, naming `policy`, when a deadline of the engine's run can lie
  /// beyond the range of the keys (2^(63 − bits) ns after the origin).
  void check_range(const platform::ReleaseEngine& engine, std::string_view policy) const;
  /// The key of `task`'s job due at `deadline`; the engine must be started. A deadline
  /// beyond the range (a run without limits that outlasts it) saturates.
  [[nodiscard]] std::chrono::nanoseconds key(std::chrono::nanoseconds deadline, std::uint32_t task,
                                             const platform::ReleaseEngine& engine) const noexcept;
  /// The deadline a key was made from (to the ns, unless it saturated).
  [[nodiscard]] std::chrono::nanoseconds deadline_of(std::chrono::nanoseconds key,
                                                     const platform::ReleaseEngine& engine) const noexcept;
  /// The task a key belongs to.
  [[nodiscard]] std::uint32_t task_of(std::chrono::nanoseconds key) const noexcept {
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(key.count()) & mask_);
  }

 private:
  std::size_t tasks_ = 0;
  unsigned bits_ = 0;
  std::uint64_t mask_ = 0;
};

class JobSlot final : public ext::Job {
 public:
  /// `priority`: the task's `priority:` from the task-set file (1 is the highest), or
  /// kNoPriority; its jobs carry it as sched::Task::priority, for a topology's
  /// fixed-priority component or a filter.
  JobSlot(std::uint32_t index, Task& task, const platform::PeriodicTask& timing,
          platform::ReleaseEngine& engine, sched::Scheduler& scheduler, int priority) noexcept;
  /// The sched::Task::priority of the jobs of a task without `priority:`: after every
  /// task that names one where a smaller number is more urgent (fixed-priority's
  /// default; with higher_is: larger, before them).
  static constexpr int kNoPriority = std::numeric_limits<int>::max();

  /// On the lane, before admitting entry(): the job released now, its topology cluster,
  /// and its runtime priority key (PriorityKeys: deadline order, unique per task).
  void fill(const platform::Release& release, int cluster, std::chrono::nanoseconds key) noexcept;

  /// Before the run: throws takt::Error where the topology's entry cannot take this
  /// task's jobs as fill() makes them (bound to no PE, in `cluster`), naming the task
  /// `name`, the policy and what to write instead. Without it, the first release threw
  /// on the release lane and ended the process.
  void check_entry(int cluster, std::string_view policy, std::string_view name);

  /// On the lane, after fill(): admits entry() to the topology, after a TIME message
  /// with the time now. The lane admits a job once it is released, and time-driven
  /// components (release-gate) forward a task only once TIME has reached its release.
  void admit();

  /// The job as the scheduling framework sees it (payload: this slot).
  [[nodiscard]] sched::Task& entry() noexcept { return entry_; }
  [[nodiscard]] std::uint32_t task() const noexcept { return index_; }
  /// The current (or last) job's index and release; readable from any thread.
  [[nodiscard]] std::uint64_t job() const noexcept { return job_.load(std::memory_order_acquire); }
  [[nodiscard]] const platform::Release& release() const noexcept { return release_; }

  /// ext::Job: the job's computation on a pool worker (records the start on the
  /// worker's current_recorder()).
  void run() override;
  /// ext::Job: records the finish (and the error) on the completing worker, exits the
  /// entry, tells the engine.
  void finished(std::exception_ptr error) noexcept override;

  /// Runs the whole job on the calling thread (a sequential executor), recording on
  /// `recorder`. `before_engine(context)`, when given, is called once the job is
  /// recorded and out of the topology, just before the engine hears of the finish (and
  /// may release the task's next job): the executor is free again from there.
  void run_inline(platform::ThreadRecorder* recorder, void (*before_engine)(void*) = nullptr,
                  void* context = nullptr) noexcept;

 private:
  void complete(platform::ThreadRecorder* recorder, std::chrono::nanoseconds at, const char* error,
                void (*before_engine)(void*) = nullptr, void* context = nullptr,
                std::optional<std::chrono::nanoseconds> cpu_time = std::nullopt) noexcept;

  std::uint32_t index_;
  Task& task_;
  const platform::PeriodicTask& timing_;
  platform::ReleaseEngine& engine_;
  sched::Scheduler& scheduler_;
  sched::Task entry_;
  platform::Release release_;
  std::atomic<std::uint64_t> job_{0};
};

/// The message of an exception (for job errors); "" for none.
void describe_exception(std::exception_ptr error, char* out, std::size_t size) noexcept;

/// Wakes the sleeping workers of a pool whose worker k asks `scheduler` for work as PE
/// `first_pe` + k, after work was admitted: one where every worker would take the same
/// task first (a shared queue: the first awake takes it, or steals from the one that
/// does), all where the workers see different work or only some see any (a topology's
/// per-PE pipes: the one worker notify_work() wakes may not be the PE the work waits
/// for, which then slept until its timeout, up to a second); where none could yet, one
/// if `even_if_none` (work a worker may still reach by stealing).
/// Returns whether any worker could take work now.
bool wake_workers_for(ext::Extension& pool, sched::Scheduler& scheduler, int first_pe, std::size_t workers,
                      bool even_if_none) noexcept;

}  // namespace takt::policies
