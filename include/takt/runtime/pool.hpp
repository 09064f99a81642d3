// A pool of P workers with static memory that runs fork-join computations.
#pragma once

#include "takt/runtime/config.hpp"
#include "takt/runtime/extension.hpp"
#include "takt/runtime/statistics.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace takt {

namespace detail {
struct PoolState;
/// The pool whose worker runs the calling thread, or nullptr.
PoolState* current_pool() noexcept;
void submit_job(PoolState& state, ext::Job& job);
/// Blocks the calling (non-worker) thread until `done` is 1 (see signal).
void wait_for(std::atomic<std::uint32_t>& done) noexcept;
void signal(std::atomic<std::uint32_t>& done) noexcept;
/// With PoolConfig::caller_joins: runs `job` with the calling thread as worker 0 and
/// returns once `done` is 1. False (nothing done) when the pool does not let callers
/// join, another caller holds worker 0, the calling thread is a worker already, or a
/// work source or yield policy is installed.
bool run_as_caller(PoolState& state, ext::Job& job, std::atomic<std::uint32_t>& done);

/// A blocking root computation: lives on the caller's stack (no allocation).
template <class F>
class RootJob final : public ext::Job {
 public:
  using Result = std::invoke_result_t<F&>;
  RootJob(F& f, std::chrono::nanoseconds key) : ext::Job(key), f_(f) {}
  void run() override {
    if constexpr (std::is_void_v<Result>) {
      f_();
    } else {
      result_.emplace(f_());
    }
  }
  void finished(std::exception_ptr error) noexcept override {
    error_ = std::move(error);
    signal(done_);
  }
  /// Runs the job on `state`: with the caller as worker 0 if it may join, else
  /// submitted while the caller blocks. Returns its result or rethrows its exception.
  Result run_on(PoolState& state) {
    if (!run_as_caller(state, *this, done_)) {
      submit_job(state, *this);
      wait_for(done_);
    }
    if (error_) std::rethrow_exception(error_);
    if constexpr (!std::is_void_v<Result>) return std::move(*result_);
  }

 private:
  using Stored = std::conditional_t<std::is_void_v<Result>, bool, Result>;
  F& f_;
  std::optional<Stored> result_;
  std::exception_ptr error_;
  std::atomic<std::uint32_t> done_{0};
};
}  // namespace detail

/// P workers, each pinned to a CPU of the configured set, with all scheduler memory
/// (deques, coroutine stacks, task records) allocated in the constructor. Several pools
/// may exist at once; a pool of one worker works.
///
/// The destructor waits for every submitted computation to finish, then stops the
/// workers. Destroying a pool from one of its own workers is an error: the destructor
/// throws takt::Error and leaves the pool's threads and memory as they are (leaked),
/// since stopping would wait for the computation that destroys it.
class Pool {
 public:
  explicit Pool(PoolConfig config = {});
  ~Pool() noexcept(false);
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  /// Runs f() as a root computation on the pool and returns its result; the calling
  /// thread blocks until it is done (with PoolConfig::caller_joins it works as worker 0
  /// meanwhile). Exceptions thrown by f or any strand it spawned
  /// propagate here. Called from a worker of this pool, f simply runs inline (nested
  /// parallelism).
  template <class F>
  std::invoke_result_t<F&> run(F&& f) {
    return run(std::chrono::nanoseconds::zero(), std::forward<F>(f));
  }
  /// As run(f), with the priority key (absolute deadline) of the computation.
  template <class F>
  std::invoke_result_t<F&> run(std::chrono::nanoseconds key, F&& f) {
    if (detail::current_pool() == state_.get()) return f();
    detail::RootJob<std::remove_reference_t<F>> job(f, key);
    return job.run_on(*state_);
  }

  /// Number of workers P.
  [[nodiscard]] std::size_t workers() const noexcept;
  /// The CPU each worker is pinned to (or may run on).
  [[nodiscard]] const CpuSet& cpus() const noexcept;
  /// Counters per worker, readable while the pool runs.
  [[nodiscard]] std::vector<WorkerStatistics> statistics() const;
  /// Counters of one worker (no allocation).
  [[nodiscard]] WorkerStatistics statistics(std::size_t worker) const noexcept;
  /// Sums over all workers (max_depth: the maximum); no allocation.
  [[nodiscard]] WorkerStatistics total_statistics() const noexcept;
  /// Starts all counters (but max_depth) from zero again.
  void reset_statistics() noexcept;
  /// What the pool allocated at start-up and the bound P·R_S.
  [[nodiscard]] MemoryFootprint memory() const noexcept;
  /// The static-memory configuration the pool runs with.
  [[nodiscard]] const StaticMemory& static_memory() const noexcept;
  /// The queue strategy the pool runs with (PoolConfig::strategy).
  [[nodiscard]] QueueStrategy strategy() const noexcept;
  /// The interface for scheduling policies and the profiler.
  [[nodiscard]] ext::Extension& extension() noexcept { return extension_; }

  /// Internal: the implementation object.
  [[nodiscard]] detail::PoolState& state() noexcept { return *state_; }

 private:
  std::unique_ptr<detail::PoolState> state_;
  ext::Extension extension_;
};

/// True when the calling thread is a worker of some pool.
bool in_pool() noexcept;
/// Index of the worker running the calling strand, or -1 outside a pool.
int current_worker() noexcept;

}  // namespace takt
