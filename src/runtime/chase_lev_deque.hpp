// The Chase–Lev work-stealing deque, bounded, with C++ memory orders (Lê et al., PPoPP'13).
//
// Items are 64-bit words. The owner pushes and pops at the bottom; thieves take the top
// in two steps (peek, then commit) so that the runtime can place its resource-trading
// offer between them (see trading.hpp). The buffer never grows: in continuation stealing
// a deque holds at most one item per spawn depth, so capacity D + 2 suffices and no
// allocation happens after start-up.
//
// The orders follow the C11 formulation with the standalone seq_cst fences replaced by
// seq_cst accesses (the same instructions on x86; ThreadSanitizer understands them):
// owner pop = seq_cst store of bottom, then seq_cst load of top; thief = seq_cst load of
// top, then of bottom, then a seq_cst CAS of top. In the single total order of these
// operations an owner and a thief cannot both take the last item.
#pragma once

#include <atomic>
#include <cassert>
#include <cstdint>
#include <memory>

namespace takt::detail {

/// What a push does between reading `top` and publishing its item: nothing. Tests put
/// a thief's steps there (see deque_test.cpp) to replay an interleaving exactly.
struct NoPushProbe {
  template <class Deque>
  static void before_publish(Deque& /*deque*/) noexcept {}
};

template <class PushProbe = NoPushProbe>
class BasicChaseLevDeque {
 public:
  BasicChaseLevDeque() = default;
  BasicChaseLevDeque(const BasicChaseLevDeque&) = delete;
  BasicChaseLevDeque& operator=(const BasicChaseLevDeque&) = delete;

  /// Allocates room for at least `capacity` items (start-up only).
  void reserve(std::size_t capacity) {
    std::size_t size = 2;
    while (size < capacity) size *= 2;
    slots_ = std::make_unique<std::atomic<std::uint64_t>[]>(size);
    mask_ = static_cast<std::int64_t>(size - 1);
  }
  [[nodiscard]] std::size_t capacity() const noexcept { return static_cast<std::size_t>(mask_ + 1); }

  /// Owner: pushes `item`; returns true when a thief may have missed it (the caller then
  /// wakes a sleeping worker): the deque was empty, or every earlier item was stolen
  /// while this push published. A thief that steals an item and finds more left wakes
  /// one itself; one that takes the last item it sees does not, and the new item may be
  /// what it did not see.
  bool push(std::uint64_t item) noexcept {
    std::int64_t b = bottom_.load(std::memory_order_relaxed);
    std::int64_t t = top_.load(std::memory_order_relaxed);
    assert(b - t <= mask_ && "deque overflow: more items than spawn depth");
    slots_[b & mask_].store(item, std::memory_order_relaxed);
    PushProbe::before_publish(*this);
    if (b <= t) {
      bottom_.store(b + 1, std::memory_order_release);
      return true;
    }
    // Thieves may have taken the earlier items since `t` was read (an owner preempted
    // here makes that window long), the last of them reading the old bottom: so read
    // `top` again after publishing. With one item, the likeliest race, the store and
    // the reload are seq_cst: in their total order with that thief's seq_cst commit and
    // looks_empty, the thief sees this item or this push sees the steal, even where the
    // reload could otherwise pass the store (x86's store buffer). With two or more, the
    // reload is plain (no locked store on the common path): a miss then needs thieves
    // to take them all in the nanoseconds the store waits in the store buffer.
    if (b - t == 1) {
      bottom_.store(b + 1, std::memory_order_seq_cst);
      return top_.load(std::memory_order_seq_cst) >= b;
    }
    bottom_.store(b + 1, std::memory_order_release);
    return top_.load(std::memory_order_relaxed) >= b;
  }

  /// Owner: takes back the item it pushed last. False when a thief took it (the deque
  /// is then empty). On false the thief's writes before its commit are visible.
  bool pop() noexcept {
    std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    bottom_.store(b, std::memory_order_seq_cst);
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    if (t < b) return true;
    if (t == b) {
      bool won = top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_acquire);
      bottom_.store(b + 1, std::memory_order_relaxed);
      return won;
    }
    bottom_.store(b + 1, std::memory_order_relaxed);
    return false;
  }

  /// Owner: the item it would pop next, or nothing; for the owner's rule-C scan.
  [[nodiscard]] bool owner_empty() const noexcept {
    return bottom_.load(std::memory_order_relaxed) <= top_.load(std::memory_order_relaxed);
  }

  /// Anyone: a racy emptiness check (for victim selection and the pre-sleep scan).
  [[nodiscard]] bool looks_empty() const noexcept {
    return bottom_.load(std::memory_order_seq_cst) <= top_.load(std::memory_order_seq_cst);
  }

  struct Peek {
    std::int64_t top = 0;
    std::uint64_t item = 0;
    bool found = false;
  };
  /// Thief, step 1: reads the top item without taking it.
  [[nodiscard]] Peek peek() const noexcept {
    Peek p;
    p.top = top_.load(std::memory_order_seq_cst);
    std::int64_t b = bottom_.load(std::memory_order_seq_cst);
    if (p.top >= b) return p;
    p.item = slots_[p.top & mask_].load(std::memory_order_relaxed);
    p.found = true;
    return p;
  }
  /// Thief, step 2: takes the item peeked at `top`; false when the owner or another
  /// thief took it first.
  bool commit(std::int64_t top) noexcept {
    return top_.compare_exchange_strong(top, top + 1, std::memory_order_seq_cst, std::memory_order_relaxed);
  }

  const std::atomic<std::int64_t>& top() const noexcept { return top_; }
  const std::atomic<std::int64_t>& bottom() const noexcept { return bottom_; }

 private:
  alignas(64) std::atomic<std::int64_t> top_{0};
  alignas(64) std::atomic<std::int64_t> bottom_{0};
  std::unique_ptr<std::atomic<std::uint64_t>[]> slots_;
  std::int64_t mask_ = 0;
};

using ChaseLevDeque = BasicChaseLevDeque<>;

}  // namespace takt::detail
