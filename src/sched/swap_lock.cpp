// SwapLock: the readers-writer lock of reconfiguration (operations read, swaps write).
#include "sched/swap_lock.hpp"

#include "os/cpu_relax.hpp"
#include "os/futex.hpp"

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

namespace {
/// Waits while `word` holds `value`: about 200 pauses, then a few yields (which let a
/// holder of the same priority run), then sleeps on the futex. A bounded number of
/// yields, then sleeping, so that a holder of lower priority runs too.
void await_change(std::atomic<std::uint32_t>& word, std::uint32_t value) noexcept {
  for (int spin = 0; spin < 200; ++spin) {
    if (word.load(std::memory_order_seq_cst) != value) return;
    os::cpu_relax();
  }
  for (int yields = 0; yields < 16; ++yields) {
    if (word.load(std::memory_order_seq_cst) != value) return;
    std::this_thread::yield();
  }
  while (word.load(std::memory_order_seq_cst) == value) os::futex_wait(word, value);
}
}  // namespace

void SwapLock::lock_shared(std::size_t lane) noexcept {
  Lane& mine = lanes_[lane];
  // Announce, then check for a writer (both sequentially consistent, the writer does
  // the mirror image: announce, then count readers).
  mine.readers.fetch_add(1, std::memory_order_seq_cst);
  if (writer_.load(std::memory_order_seq_cst) == 0) return;
  // Wait for the writer as a waiting reader: the next writer lets every waiting reader
  // in first, so back-to-back reconfigurations cannot starve operations (a woken reader
  // needs tens of microseconds to run, longer than a writer needs to lock again).
  // Counted before this reader's announcement is withdrawn, so that a next writer finds
  // it either inside or waiting. (A reader delayed between its load of writer_ above and
  // this count can still be overtaken by a writer that checks waiting_ in between: the
  // rule holds for the readers counted by then.)
  waiting_.fetch_add(1, std::memory_order_seq_cst);
  leave(mine);
  for (;;) {
    await_change(writer_, 1);
    mine.readers.fetch_add(1, std::memory_order_seq_cst);
    if (writer_.load(std::memory_order_seq_cst) == 0) break;
    leave(mine);  // a writer that locked before this reader counted itself waiting
  }
  if (waiting_.fetch_sub(1, std::memory_order_seq_cst) == 1) os::futex_wake_all(waiting_);
}

void SwapLock::unlock_shared(std::size_t lane) noexcept { leave(lanes_[lane]); }

void SwapLock::leave(Lane& lane) noexcept {
  // The writer announces itself, then reads the count and sleeps on it while it is not
  // 0 (the futex re-checks the value): if it read the count before this decrement, its
  // announcement comes before this load in the total order, and the wake is sent.
  if (lane.readers.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
      writer_.load(std::memory_order_seq_cst) != 0) {
    os::futex_wake_all(lane.readers);
  }
}

void SwapLock::lock() noexcept {
  writers_.lock();
  for (std::uint32_t n; (n = waiting_.load(std::memory_order_seq_cst)) != 0;) await_change(waiting_, n);
  writer_.store(1, std::memory_order_seq_cst);
  for (auto& lane : lanes_) {
    for (std::uint32_t n; (n = lane.readers.load(std::memory_order_seq_cst)) != 0;)
      await_change(lane.readers, n);
  }
}

void SwapLock::unlock() noexcept {
  writer_.store(0, std::memory_order_seq_cst);
  os::futex_wake_all(writer_);
  writers_.unlock();
}

}  // namespace takt::sched
