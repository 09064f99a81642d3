// SwapLock: the readers-writer lock of reconfiguration (operations read, swaps write).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
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
/// reconfiguration.
class SwapLock {
 public:
  static constexpr std::size_t kLanes = 32;

  /// The lane of the calling thread (stable for the thread's lifetime).
  static std::size_t current_lane() noexcept;

  void lock_shared(std::size_t lane) noexcept;
  void unlock_shared(std::size_t lane) noexcept;
  void lock() noexcept;
  void unlock() noexcept;

 private:
  struct alignas(64) Lane {
    std::atomic<long> readers{0};
  };
  std::array<Lane, kLanes> lanes_{};
  alignas(64) std::atomic<bool> writer_{false};
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
