// Task: a job or strand as the scheduling framework sees it (timing, affinity, state).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace takt::sched {

/// Absolute times (release, deadline, "now") on whatever clock the caller runs:
/// CLOCK_MONOTONIC on the platform, a simulated clock in tests. The framework never
/// reads a clock itself.
using Time = std::chrono::nanoseconds;

/// "No affinity": a task's cluster or PE that is not fixed.
inline constexpr int kAny = -1;

/// Words of per-task data available to component instances (one slot per instance
/// that keeps per-task data; see Instance::uses_task_data).
inline constexpr std::size_t kMaxTaskData = 8;

/// How many pipes one task can be referenced by at the same time (a task sits in
/// every pipe along its path through a topology; see Topology's depth limit).
inline constexpr std::size_t kMaxPipeNodes = 12;

/// The scheduler's view of a task (CoBaS task model, dissertation §5.1.1):
/// schedulable tasks sit in pipes and may be dispatched, running tasks occupy a
/// processing element and sit in no pipe, unconsidered tasks are not scheduled at
/// all (blocked, not yet admitted, or exited).
/// `dispatching` is internal: a PE has claimed the task and schedule() or dispatch() has
/// not yet returned it; Task::state() reports it as running.
enum class TaskState : std::uint8_t { unconsidered, schedulable, running, dispatching };

const char* to_string(TaskState state) noexcept;

/// What happened to a task in a pipe since its consumer last looked.
enum class Change : std::uint8_t { none, added, removed, moved };

const char* to_string(Change change) noexcept;

class Pipe;
class Task;

/// Internal: the membership of one task in one pipe. Lives inside the Task (no
/// allocation on the hot path); `owner` says which pipe uses it. All other fields
/// are touched only by the owning pipe under its lock.
struct PipeNode {
  static constexpr std::uint32_t npos = 0xffffffffu;
  std::atomic<Pipe*> owner{nullptr};
  Task* task = nullptr;
  std::int64_t key = 0;   // ordering key set by the producer (smaller first)
  std::uint64_t seq = 0;  // arrival order in the pipe: ties are first-come first
  PipeNode* log_prev = nullptr;
  PipeNode* log_next = nullptr;
  std::uint32_t heap_index = npos;
  Change change = Change::none;  // pending change for the consumer
  bool claimed = false;          // taken by a processing element, removal pending
};

/// A unit of work the framework schedules: for the platform, a job (federated,
/// gedf-paws) or a strand (partitioned-dm). The owner (the runtime system) fills
/// the public attributes before admit() and changes them only while the task is not
/// schedulable; `payload` points at its own record of the work.
///
/// Tasks are neither copyable nor movable: pipes refer to them by address. The owner
/// keeps a task alive from admit() until exit() has returned.
class Task {
 public:
  explicit Task(std::uint64_t task_id = 0) noexcept : id(task_id) {}
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  std::uint64_t id = 0;
  Time release{0};          ///< absolute release time
  Time deadline{0};         ///< absolute deadline
  int priority = 0;         ///< fixed priority; by default a smaller number is more urgent
  int cluster = kAny;       ///< cluster of processing elements the task belongs to
  int pe = kAny;            ///< processing element the task is bound to
  void* payload = nullptr;  ///< the runtime system's own record (job, strand, ...)

  TaskState state() const noexcept {
    const TaskState s = state_.load(std::memory_order_acquire);
    return s == TaskState::dispatching ? TaskState::running : s;
  }
  /// Between admit() and exit().
  bool attached() const noexcept { return attached_.load(std::memory_order_acquire); }
  /// The processing element of the latest dispatch (kAny before the first).
  int last_pe() const noexcept { return last_pe_.load(std::memory_order_relaxed); }
  /// Admission order: 0 for the first task admitted to a scheduler, then 1, 2, ...
  std::uint64_t admission() const noexcept { return admission_; }

  /// Per-task data word `slot` of a component instance (see Instance).
  std::atomic<std::uint64_t>& data(std::size_t slot) noexcept { return data_[slot]; }
  const std::atomic<std::uint64_t>& data(std::size_t slot) const noexcept { return data_[slot]; }

 private:
  friend class Pipe;
  friend class Scheduler;

  std::atomic<TaskState> state_{TaskState::unconsidered};
  // `dispatching` from the claim until schedule()/dispatch() has taken the task out of
  // the pipes and notified DISPATCH: block(), exit() and relinquish() see that it is
  // not running yet (the first two return false: "just dispatched").
  std::atomic<bool> attached_{false};
  std::atomic<int> last_pe_{kAny};
  std::uint64_t admission_ = 0;
  Pipe* entry_ = nullptr;  // pipe the task entered through (removals start there)
  std::size_t lane_ = 0;   // registry lane
  Task* registry_prev_ = nullptr;
  Task* registry_next_ = nullptr;
  std::array<std::atomic<std::uint64_t>, kMaxTaskData> data_{};
  std::array<PipeNode, kMaxPipeNodes> nodes_{};
};

}  // namespace takt::sched
