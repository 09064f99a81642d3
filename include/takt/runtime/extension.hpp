// The extension interface of a pool: where scheduling policies and the profiler plug in.
//
// The runtime core is policy-free. A policy (the platform's gedf-paws, the profiler)
// reaches it only through the types below and the Extension object of a pool
// (Pool::extension()). See docs/runtime.md, "Extension interface".
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>

namespace takt {
class Pool;
namespace detail {
struct Block;
struct JobAccess;
struct PoolState;
}  // namespace detail
}  // namespace takt

namespace takt::ext {

/// A root computation that a pool runs asynchronously (Extension::submit, or handed out
/// by a WorkSource or a YieldPolicy). The job object belongs to its submitter and must
/// stay alive until finished() has been called. Everything run() spawns is synced before
/// run() returns. A job is in flight from its submission (or hand-out) until its
/// finished() is called: submitting it again meanwhile throws takt::Error, and a policy
/// handing it out again ends the process with a message (the root would run twice);
/// from finished() on it may be submitted again (from inside finished(): touch the job
/// no more after the submit, and catch takt::Error, a pool being destroyed refuses it).
class Job {
 public:
  /// `key`: the priority key of the whole computation, ordered like an absolute deadline
  /// (smaller = higher priority; takt's policies encode deadline and task index in it).
  /// Every strand of the computation carries it.
  explicit Job(std::chrono::nanoseconds key = std::chrono::nanoseconds::zero()) noexcept : key_(key) {}
  virtual ~Job() = default;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  /// The computation; runs as the root strand on a worker and may spawn and sync.
  virtual void run() = 0;
  /// Called once on the worker that completed the job, after run() returned or threw
  /// (`error` is then the exception). The job may be destroyed from here on.
  virtual void finished(std::exception_ptr error) noexcept = 0;

  [[nodiscard]] std::chrono::nanoseconds key() const noexcept { return key_; }
  /// Changes the key; only while the job is not submitted.
  void set_key(std::chrono::nanoseconds key) noexcept { key_ = key; }

 private:
  friend struct takt::detail::JobAccess;
  std::chrono::nanoseconds key_;
  Job* next_ = nullptr;
  std::atomic<bool> in_flight_{false};
};

/// A strand suspended at a yield point and handed to the yield policy (PAWS rule F). Its
/// continuation stays valid on its own coroutine stack; give it back to the pool (from
/// WorkSource::take or YieldPolicy::preempt) to resume it on any worker of the same pool.
/// A handle must be given back exactly once: one given back again (or given to another
/// pool) ends the process with a message, since the strand would run twice.
class SuspendedStrand {
 public:
  SuspendedStrand() = default;
  explicit operator bool() const noexcept { return block_ != nullptr; }
  /// The priority key of the computation the strand belongs to.
  [[nodiscard]] std::chrono::nanoseconds key() const noexcept { return key_; }

 private:
  friend struct takt::detail::PoolState;
  SuspendedStrand(detail::Block* block, std::chrono::nanoseconds key, std::uint32_t suspension)
      : block_(block), key_(key), suspension_(suspension) {}
  detail::Block* block_ = nullptr;
  std::chrono::nanoseconds key_{};
  std::uint32_t suspension_ = 0;  ///< the block's suspension count when handed out (odd)
};

/// Something for an idle worker to run: a new job (not in flight) or a suspended strand,
/// never both (or nothing). Anything else ends the process with a message.
struct Work {
  Job* job = nullptr;
  SuspendedStrand strand;
  explicit operator bool() const noexcept { return job != nullptr || static_cast<bool>(strand); }
};

/// An external source of work (PAWS rule D: the global EDF queue of jobs). An idle
/// worker asks it after its own deques are empty and before it steals.
class WorkSource {
 public:
  virtual ~WorkSource() = default;
  /// Returns work for `worker` or an empty Work. Called on worker threads; must not block
  /// and must not allocate if the pool is to stay allocation-free.
  virtual Work take(std::size_t worker) noexcept = 0;
};

/// Where a worker stands when its yield point is reached.
struct YieldPoint {
  enum class At : std::uint8_t { spawn, sync };
  std::size_t worker = 0;
  At at = At::spawn;
  std::chrono::nanoseconds key{};  ///< priority key of the running computation
  std::size_t depth = 0;           ///< depth of the running strand
  /// True: the strand has no ancestor in the worker's deques and would be handed to the
  /// policy (rule F). False: it would stay in the worker's local deque for its key
  /// (priority_aware pools only).
  bool hand_back = false;
};

/// Decides preemption at yield points (spawn and sync). Consulted only on a worker for
/// which Extension::request_yield() was called, and only when the runtime can suspend
/// the strand (else the request is dropped and counted as refused_yields).
class YieldPolicy {
 public:
  virtual ~YieldPolicy() = default;
  /// Returns the work to run instead of the current strand, or empty Work to go on.
  virtual Work preempt(const YieldPoint& point) noexcept = 0;
  /// The strand suspended at a yield point with hand_back = true; the policy owns the
  /// handle until it gives it back as Work.
  virtual void suspended(SuspendedStrand strand) noexcept = 0;
  /// A yield requested on `worker` was dropped at a yield point because the runtime
  /// could not suspend the strand there (no spare blocks, no free level); preempt() was
  /// not called. A policy that tracks outstanding requests clears this one.
  virtual void refused(std::size_t worker) noexcept { (void)worker; }
};

/// One strand boundary, for rebuilding the fork-join DAG (the profiler). A task is one
/// spawned function instance (or a root); its strands are numbered 0, 1, 2, ... in program
/// order; a strand runs from task_begin/resume/joined to the next spawn/sync/task_end.
struct StrandEvent {
  enum class Kind : std::uint8_t {
    task_begin,  ///< strand 0 of `task` starts; `other` = the spawning task (0 for a root)
    spawn,       ///< strand `strand` of `task` ends by spawning task `other` in `scope`
    resume,      ///< strand `strand` (the continuation after a spawn) starts; `stolen` if on a thief
    sync,        ///< strand `strand` of `task` ends at a sync of `scope`
    joined,      ///< strand `strand` starts after the sync of `scope` joined all its children
    task_end,    ///< strand `strand`, the last of `task`, ends
  };
  Kind kind = Kind::task_begin;
  bool stolen = false;
  std::uint32_t worker = 0;
  std::uint32_t strand = 0;
  std::uint64_t task = 0;
  std::uint64_t other = 0;
  std::uint64_t scope = 0;  ///< unique within the task
  std::chrono::nanoseconds time{};  ///< CLOCK_MONOTONIC
};

/// Receives strand events on the worker threads. Must be fast, must not block and must
/// not allocate if the pool is to stay allocation-free. With no observer installed the
/// runtime pays one predictable branch per spawn and sync.
class StrandObserver {
 public:
  virtual ~StrandObserver() = default;
  virtual void on_event(const StrandEvent& event) noexcept = 0;
};

/// The extension side of one pool (Pool::extension()).
class Extension {
 public:
  /// Starts `job` asynchronously as a root computation (PAWS: a job released to the
  /// pool). Throws takt::Error once the pool is shutting down, or when `job` is in flight.
  void submit(Job& job);
  /// Installs the rule-D source (nullptr removes it). Jobs it hands out count as in flight:
  /// the pool's destructor waits for them. Returns once no worker is inside a call to the
  /// source it replaced (other than one the calling thread itself is making), so that
  /// source may be destroyed then; later calls go to the new one.
  void set_work_source(WorkSource* source) noexcept;
  /// Installs the yield policy (nullptr removes it). Returns once no worker is inside a
  /// call to the policy it replaced (as set_work_source); a strand that policy preempted
  /// and that is being handed back still goes to its suspended() before this returns.
  void set_yield_policy(YieldPolicy* policy) noexcept;
  /// Installs the strand observer (nullptr removes it). Only while no computation runs.
  void set_observer(StrandObserver* observer) noexcept;
  /// Tells sleeping workers that the work source has something new: wakes one, which
  /// takes it or steals from the worker that does.
  void notify_work() noexcept;
  /// Wakes every sleeping worker: for new work the source gives only some workers (a
  /// topology's per-PE pipe), which the one notify_work() wakes may not be.
  void notify_work_all() noexcept;
  /// Asks `worker` to consult the yield policy at its next spawn or sync.
  void request_yield(std::size_t worker) noexcept;
  /// True and the key of the computation `worker` runs now; false when it is idle.
  bool running_key(std::size_t worker, std::chrono::nanoseconds& key) const noexcept;
  /// Number of workers.
  [[nodiscard]] std::size_t workers() const noexcept;

 private:
  friend class takt::Pool;
  explicit Extension(detail::PoolState& state) : state_(&state) {}
  detail::PoolState* state_;
};

}  // namespace takt::ext
