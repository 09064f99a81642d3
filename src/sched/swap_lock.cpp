// SwapLock: the readers-writer lock of reconfiguration (operations read, swaps write).
#include "sched/swap_lock.hpp"

#include <functional>
#include <thread>

namespace takt::sched {
namespace {
// The lock this thread holds shared through its outermost guard, if any.
thread_local const SwapLock* held_shared = nullptr;
}  // namespace

SharedSwapGuard::SharedSwapGuard(SwapLock& lock) noexcept : lock_(lock), lane_(SwapLock::current_lane()) {
  if (held_shared == &lock) {
    nested_ = true;
    return;
  }
  lock_.lock_shared(lane_);
  outer_ = held_shared;
  held_shared = &lock;
}

SharedSwapGuard::~SharedSwapGuard() {
  if (nested_) return;
  held_shared = outer_;
  lock_.unlock_shared(lane_);
}

std::size_t SwapLock::current_lane() noexcept {
  thread_local const std::size_t lane = std::hash<std::thread::id>{}(std::this_thread::get_id()) % kLanes;
  return lane;
}

void SwapLock::lock_shared(std::size_t lane) noexcept {
  std::atomic<long>& readers = lanes_[lane].readers;
  for (;;) {
    // Announce, then check for a writer (both sequentially consistent, the
    // writer does the mirror image: announce, then count readers).
    readers.fetch_add(1, std::memory_order_seq_cst);
    if (!writer_.load(std::memory_order_seq_cst)) return;
    readers.fetch_sub(1, std::memory_order_seq_cst);
    while (writer_.load(std::memory_order_seq_cst)) std::this_thread::yield();
  }
}

void SwapLock::unlock_shared(std::size_t lane) noexcept {
  lanes_[lane].readers.fetch_sub(1, std::memory_order_seq_cst);
}

void SwapLock::lock() noexcept {
  writers_.lock();
  writer_.store(true, std::memory_order_seq_cst);
  for (auto& lane : lanes_) {
    while (lane.readers.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
  }
}

void SwapLock::unlock() noexcept {
  writer_.store(false, std::memory_order_seq_cst);
  writers_.unlock();
}

}  // namespace takt::sched
