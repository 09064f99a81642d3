// SwapLock: the readers-writer lock of reconfiguration (operations read, swaps write).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace takt::sched {

/// The broker's readers-writer lock of CoBaS (dissertation §7.3.3): every operation
/// of the framework (admit, schedule, notify, ...) holds it shared, a reconfiguration
/// holds it exclusively, so that a swap sees no operation half done.
///
/// Readers are spread over `kLanes` cache-line-sized counters chosen by the calling
/// thread, so that threads on different processing elements do not write one shared
/// cache line on every operation. The writer is preferred: once it has announced
/// itself, new readers wait, so a continuous stream of operations cannot starve a
/// reconfiguration; and the readers that wait for one writer (counted in readers_waiting()
/// when the next writer looks) enter before that next writer announces itself, so
/// back-to-back reconfigurations cannot starve operations.
/// The price: a waiting reader that cannot run (its CPU taken by a higher-priority
/// thread under SCHED_FIFO) delays the next writer until it does. The thread that holds
/// the lock exclusively must not take it shared (it would wait for itself), and a
/// thread holding two SwapLocks shared must not nest a guard on the first inside the
/// second (the re-entrancy check remembers the innermost lock only).
///
/// Waiting spins about 200 pauses, yields up to 16 times, then sleeps on a futex: a
/// reader on the writer's flag, the writer on a lane's count. Sleeping, not only
/// yielding, matters under
/// SCHED_FIFO: a waiter that only yields never lets a lower-priority holder on its CPU
/// run again (os::FutexLock says the same), and the two spin forever.
class SwapLock {
 public:
  static constexpr std::size_t kLanes = 32;

  /// The lane of the calling thread (stable for the thread's lifetime).
  static std::size_t current_lane() noexcept;

  void lock_shared(std::size_t lane) noexcept;
  void unlock_shared(std::size_t lane) noexcept;
  void lock() noexcept;
  void unlock() noexcept;

  /// A writer holds the lock or waits for the readers inside to leave (new readers then
  /// wait); not yet while it waits for another writer or for waiting readers to enter.
  /// For diagnostics and tests; the answer may be stale by the time it is read.
  [[nodiscard]] bool writer_present() const noexcept { return writer_.load(std::memory_order_seq_cst) != 0; }
  /// Readers that found a writer and wait for it (the next writer lets them in first).
  /// For diagnostics and tests, as writer_present().
  [[nodiscard]] std::uint32_t readers_waiting() const noexcept { return waiting_.load(std::memory_order_seq_cst); }

 private:
  struct alignas(64) Lane {
    std::atomic<std::uint32_t> readers{0};
  };
  /// Drops one reader of `lane`; wakes the writer when it was the last one the writer
  /// waits for.
  void leave(Lane& lane) noexcept;

  std::array<Lane, kLanes> lanes_{};
  alignas(64) std::atomic<std::uint32_t> writer_{0};  ///< 1 while a writer holds or waits
  /// Readers that found a writer and wait for it; the next writer waits until they are in.
  alignas(64) std::atomic<std::uint32_t> waiting_{0};
  std::mutex writers_;  // one reconfiguration at a time
};

/// Holds a SwapLock shared for a scope. Re-entrant per thread: a guard on a lock the
/// thread already holds (shared, through an outer guard) is a no-op, so that a
/// callback run inside an operation may call back into the framework.
class SharedSwapGuard {
 public:
  explicit SharedSwapGuard(SwapLock& lock) noexcept;
  ~SharedSwapGuard();
  SharedSwapGuard(const SharedSwapGuard&) = delete;
  SharedSwapGuard& operator=(const SharedSwapGuard&) = delete;
  std::size_t lane() const noexcept { return lane_; }

 private:
  SwapLock& lock_;
  std::size_t lane_;
  const SwapLock* outer_ = nullptr;
  bool nested_ = false;
};

}  // namespace takt::sched
