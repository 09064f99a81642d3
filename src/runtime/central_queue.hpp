// The one locked queue of a centralized_greedy pool (RTWS's RTCG baseline, as GNU
// OpenMP's team task queue): every spawn pushes its continuation here, the returning
// child removes it again if nobody took it, and idle workers take the oldest.
#pragma once

#include "os/futex_lock.hpp"
#include "takt/runtime/detail/block.hpp"

#include <atomic>
#include <cstdint>

namespace takt::detail {

class CentralQueue {
 public:
  /// Appends `block` (its continuation, whose push epoch the caller has just raised);
  /// returns true when the queue was empty (wake a sleeper).
  bool push(Block* block) noexcept {
    lock_.lock();
    block->queued_epoch = block->epoch;
    bool was_empty = head_ == nullptr;
    block->queue_prev = tail_;
    block->queue_next = nullptr;
    block->queued = true;
    if (tail_ != nullptr) {
      tail_->queue_next = block;
    } else {
      head_ = block;
    }
    tail_ = block;
    size_.fetch_add(1, std::memory_order_relaxed);
    lock_.unlock();
    return was_empty;
  }

  /// The pusher takes back the continuation it pushed with `epoch`; false when another
  /// worker took it. The epoch matters: a thief that took the block may have pushed a
  /// later continuation of the same strand in the meantime.
  bool remove(Block* block, std::uint32_t epoch) noexcept {
    lock_.lock();
    bool present = block->queued && block->queued_epoch == epoch;
    if (present) unlink(block);
    lock_.unlock();
    return present;
  }

  /// Takes the oldest block; under the lock, `on_take(block)` runs before anyone can
  /// observe that it was taken (the taker places its resource-trading offer there).
  template <class OnTake>
  Block* take(OnTake&& on_take) noexcept {
    if (size_.load(std::memory_order_relaxed) <= 0) return nullptr;
    lock_.lock();
    Block* block = head_;
    if (block != nullptr) {
      unlink(block);
      on_take(block);
    }
    lock_.unlock();
    return block;
  }

  [[nodiscard]] bool looks_empty() const noexcept { return size_.load(std::memory_order_seq_cst) <= 0; }
  /// For parallel_for's split decision: empty when *top >= *bottom.
  const std::atomic<std::int64_t>& zero() const noexcept { return zero_; }
  const std::atomic<std::int64_t>& size() const noexcept { return size_; }

 private:
  void unlink(Block* block) noexcept {
    if (block->queue_prev != nullptr) {
      block->queue_prev->queue_next = block->queue_next;
    } else {
      head_ = block->queue_next;
    }
    if (block->queue_next != nullptr) {
      block->queue_next->queue_prev = block->queue_prev;
    } else {
      tail_ = block->queue_prev;
    }
    block->queued = false;
    size_.fetch_sub(1, std::memory_order_relaxed);
  }

  os::FutexLock lock_;
  Block* head_ = nullptr;
  Block* tail_ = nullptr;
  alignas(64) std::atomic<std::int64_t> size_{0};
  std::atomic<std::int64_t> zero_{0};
};

}  // namespace takt::detail
