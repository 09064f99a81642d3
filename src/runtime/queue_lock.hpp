// A mutual-exclusion lock that spins briefly and then sleeps on a futex, like libgomp's
// gomp_mutex; it guards the central queue of the centralized_greedy strategy.
#pragma once

#include "os/futex.hpp"

#include <atomic>
#include <cstdint>

namespace takt::detail {

class QueueLock {
 public:
  void lock() noexcept {
    std::uint32_t expected = 0;
    if (state_.compare_exchange_strong(expected, 1, std::memory_order_acquire, std::memory_order_relaxed)) return;
    for (int spin = 0; spin < 200; ++spin) {
      __builtin_ia32_pause();
      expected = 0;
      if (state_.load(std::memory_order_relaxed) == 0 &&
          state_.compare_exchange_weak(expected, 1, std::memory_order_acquire, std::memory_order_relaxed)) {
        return;
      }
    }
    // 2 = locked with possible sleepers.
    while (state_.exchange(2, std::memory_order_acquire) != 0) os::futex_wait(state_, 2);
  }
  void unlock() noexcept {
    if (state_.exchange(0, std::memory_order_release) == 2) os::futex_wake(state_, 1);
  }

 private:
  std::atomic<std::uint32_t> state_{0};
};

}  // namespace takt::detail
