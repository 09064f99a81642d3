// Resource trading (P³LS³ §4.1): the offers thieves trade in, the per-scope pools of
// traded sub-chains, and the reserve for handed-back strands.
//
// A thief that takes the continuation of strand T at depth k gives up its blocks for
// depths 1..k (it runs T on T's own block and needs only k+1..D for T's children). It
// places that sub-chain in T's offer word *before* its commit on the deque, so the
// trade is atomic with the steal: whoever observes the steal finds the offer.
//
// The offer is consumed exactly once, by a CAS to "settled": by a party of the join
// that claims it directly (claim_offer), or by the thief itself, which then moves it
// into T's pool of traded sub-chains (push_traded) before resuming T.
//
// Which party of the join is last is decided by the scope's join counter, not by the
// pool (the thief's settle and push are two steps). Every party that is not last takes
// one sub-chain (take_traded) and so refills its worker's chain; the last one continues
// the parent. Blocks move only on steals and syncs; a worker always starts stealing
// with a complete chain of D blocks.
#include "os/cpu_relax.hpp"
#include "os/futex.hpp"
#include "runtime/pool_state.hpp"

namespace takt::detail {
namespace {

constexpr std::uint64_t kTagOne = std::uint64_t{1} << 32;

}  // namespace

Block* claim_offer(PoolState& pool, Block* strand, std::uint32_t epoch) noexcept {
  std::uint64_t word = strand->offer.load(std::memory_order_acquire);
  while (offer_epoch(word) == epoch && offer_state(word) != kNoOffer && offer_state(word) != kSettled) {
    if (strand->offer.compare_exchange_weak(word, offer_word(epoch, kSettled), std::memory_order_acq_rel,
                                            std::memory_order_acquire)) {
      return pool.block(offer_state(word) - 1);
    }
  }
  return nullptr;
}

bool settle_offer(PoolState& pool, Block* strand, std::uint32_t epoch, Block*& head) noexcept {
  head = claim_offer(pool, strand, epoch);
  return head != nullptr;
}

void push_traded(Block* owner, Block* head) noexcept {
  auto& traded = owner->traded;
  std::uint64_t old = traded.load(std::memory_order_relaxed);
  for (;;) {
    head->pool_next.store(static_cast<std::uint32_t>(old), std::memory_order_relaxed);
    std::uint64_t next = ((old & ~std::uint64_t{0xFFFFFFFF}) + kTagOne) | (head->index + 1);
    // seq_cst, as the load below and take_traded's announce-then-check: either the
    // waiter sees this sub-chain, or this sees the waiter's bit (same x86 code).
    if (traded.compare_exchange_weak(old, next, std::memory_order_seq_cst, std::memory_order_relaxed)) break;
  }
  if ((owner->traded_wake.load(std::memory_order_seq_cst) & 1) != 0) {
    owner->traded_wake.fetch_add(1, std::memory_order_release);  // odd to even: a new value
    os::futex_wake_all(owner->traded_wake);
  }
}

Block* pop_traded(PoolState& pool, Block* owner) noexcept {
  auto& traded = owner->traded;
  std::uint64_t old = traded.load(std::memory_order_acquire);
  for (;;) {
    auto index = static_cast<std::uint32_t>(old);
    if (index == 0) return nullptr;
    Block* head = pool.block(index - 1);
    std::uint32_t next_index = head->pool_next.load(std::memory_order_relaxed);
    std::uint64_t next = ((old & ~std::uint64_t{0xFFFFFFFF}) + kTagOne) | next_index;
    if (traded.compare_exchange_weak(old, next, std::memory_order_acq_rel, std::memory_order_acquire)) return head;
  }
}

Block* take_traded(PoolState& pool, Block* owner, bool claim, std::uint32_t epoch) noexcept {
  if (claim) {
    if (Block* sub = claim_offer(pool, owner, epoch)) return sub;
  }
  for (unsigned spins = 0; spins < 64; ++spins) {
    if (Block* sub = pop_traded(pool, owner)) return sub;
    os::cpu_relax();
  }
  // The thief that settled our sub-chain has not pushed it yet: it was preempted in
  // between. Sleep until it has, instead of spinning or yielding (a yield never lets a
  // lower-priority SCHED_FIFO thief run on this CPU).
  for (;;) {
    if (Block* sub = pop_traded(pool, owner)) return sub;
    const std::uint32_t announced = owner->traded_wake.fetch_or(1, std::memory_order_seq_cst) | 1;
    if (static_cast<std::uint32_t>(owner->traded.load(std::memory_order_seq_cst)) != 0) continue;
    os::futex_wait(owner->traded_wake, announced);
  }
}

Block* reserve_take(PoolState& pool, std::size_t count) noexcept {
  pool.reserve_lock.lock();
  if (pool.reserve_free < count || count == 0 || pool.reserve_strands >= pool.config.suspended_strands) {
    pool.reserve_lock.unlock();
    return nullptr;
  }
  ++pool.reserve_strands;
  Block* head = pool.reserve_head;
  Block* tail = head;
  for (std::size_t i = 1; i < count; ++i) tail = tail->chain_next;
  pool.reserve_head = tail->chain_next;
  pool.reserve_free -= count;
  pool.reserve_lock.unlock();
  tail->chain_next = nullptr;
  head->sub_tail = tail;
  // Reserve blocks take the chain positions 1..count (see Block::depth).
  std::uint32_t position = 1;
  for (Block* b = head; b != nullptr; b = b->chain_next) b->depth.store(position++, std::memory_order_relaxed);
  return head;
}

void reserve_give(PoolState& pool, Block* head, Block* tail, std::size_t count) noexcept {
  pool.reserve_lock.lock();
  tail->chain_next = pool.reserve_head;
  pool.reserve_head = head;
  pool.reserve_free += count;
  --pool.reserve_strands;
  pool.reserve_lock.unlock();
}

}  // namespace takt::detail
