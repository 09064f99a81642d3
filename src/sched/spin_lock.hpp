// SpinLock: the short test-and-test-and-set lock that guards one pipe or one instance.
#pragma once

#include <atomic>
#include <thread>

namespace takt::sched {

/// A lock for critical sections of a few hundred nanoseconds (a pipe update).
/// Uncontended it costs one atomic exchange and one release store; contended it
/// spins on a plain load and yields the processor after a bounded number of spins,
/// so that a holder preempted on an oversubscribed machine can run again.
/// Satisfies Lockable (lock, try_lock, unlock).
class SpinLock {
 public:
  void lock() noexcept {
    for (;;) {
      if (!locked_.exchange(true, std::memory_order_acquire)) return;
      int spins = 0;
      while (locked_.load(std::memory_order_relaxed)) {
        if (++spins >= kSpinsBeforeYield) {
          std::this_thread::yield();
          spins = 0;
        }
      }
    }
  }

  bool try_lock() noexcept {
    return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
  }

  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  static constexpr int kSpinsBeforeYield = 128;
  std::atomic<bool> locked_{false};
};

}  // namespace takt::sched
