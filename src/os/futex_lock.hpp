// FutexLock: a mutual-exclusion lock that spins briefly, then sleeps on a futex.
#pragma once

#include "os/cpu_relax.hpp"
#include "os/futex.hpp"

#include <atomic>
#include <cstdint>

namespace takt::os {

/// For short critical sections (a queue or pipe update). Uncontended it costs one
/// compare-and-swap to lock and one exchange to unlock. Contended it spins about 200
/// pauses, then sleeps on a futex until the holder unlocks. Sleeping, not yielding,
/// matters under SCHED_FIFO: a waiter that only yields never lets a lower-priority
/// holder on its CPU run again, and the two spin forever.
/// Satisfies Lockable (lock, try_lock, unlock).
class FutexLock {
 public:
  void lock() noexcept {
    std::uint32_t expected = 0;
    if (state_.compare_exchange_strong(expected, 1, std::memory_order_acquire, std::memory_order_relaxed)) return;
    for (int spin = 0; spin < 200; ++spin) {
      cpu_relax();
      expected = 0;
      if (state_.load(std::memory_order_relaxed) == 0 &&
          state_.compare_exchange_weak(expected, 1, std::memory_order_acquire, std::memory_order_relaxed)) {
        return;
      }
    }
    // 2 = locked, maybe with sleepers.
    while (state_.exchange(2, std::memory_order_acquire) != 0) futex_wait(state_, 2);
  }

  bool try_lock() noexcept {
    std::uint32_t expected = 0;
    return state_.load(std::memory_order_relaxed) == 0 &&
           state_.compare_exchange_strong(expected, 1, std::memory_order_acquire, std::memory_order_relaxed);
  }

  void unlock() noexcept {
    if (state_.exchange(0, std::memory_order_release) == 2) futex_wake(state_, 1);
  }

 private:
  std::atomic<std::uint32_t> state_{0};
};

}  // namespace takt::os
