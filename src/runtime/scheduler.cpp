// The worker's scheduler loop on its own thread stack: find work (local levels, jobs,
// stealing), run it, handle what a suspended strand asked for, back off and sleep.
#include "os/clock.hpp"
#include "os/cpu.hpp"
#include "os/cpu_relax.hpp"
#include "os/diagnostics.hpp"
#include "os/futex.hpp"
#include "runtime/pool_state.hpp"
#include "takt/error.hpp"
#include "takt/runtime/pool.hpp"

#include <signal.h>
#include <time.h>

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

namespace takt::detail {

extern thread_local Worker* tls_worker;

void yield_point(Block* self, ext::YieldPoint::At at);

namespace {

std::uint64_t next_random(Worker* w) noexcept {
  // xorshift64*
  std::uint64_t x = w->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  w->rng = x;
  return x * 0x2545F4914F6CDD1DULL;
}

using os::cpu_relax;

bool priority_aware(const PoolState& pool) noexcept { return pool.strategy == QueueStrategy::priority_aware; }
bool centralized(const PoolState& pool) noexcept { return pool.strategy == QueueStrategy::centralized_greedy; }

std::chrono::nanoseconds key_of(const Level* level) noexcept {
  return std::chrono::nanoseconds(level->key.load(std::memory_order_relaxed));
}

void mark_running(Worker* w) noexcept {
  w->running_key.store(w->level->key.load(std::memory_order_relaxed), std::memory_order_relaxed);
  w->running.store(true, std::memory_order_relaxed);
}

/// A level of `w` whose chain is complete (free); the current one if it is.
Level* free_level(Worker* w) noexcept {
  if (w->level != nullptr && !w->level->frozen && w->level->head != nullptr) return w->level;
  for (std::size_t i = 0; i < w->level_count; ++i) {
    Level* level = &w->levels[i];
    if (!level->frozen && level->head != nullptr) return level;
  }
  return nullptr;
}

/// Walks `count` blocks down a free chain starting at `head`; returns the last one.
Block* walk(Block* head, std::size_t count) noexcept {
  Block* b = head;
  for (std::size_t i = 1; i < count; ++i) b = b->chain_next;
  return b;
}

/// Prepares the root strand of `job` on `level`'s depth-1 block.
Block* prepare_root(Worker* w, Level* level, ext::Job* job) noexcept {
  Block* root = level->head;
  level->head = nullptr;
  level->key.store(job->key().count(), std::memory_order_relaxed);
  set_level(w, level);
  root->invoke = &root_entry;
  root->closure = job;
  root->job = job;
  root->parent = nullptr;
  root->parent_scope = nullptr;
  root->migrated = false;
  root->special = kRootStrand;
  root->ready = false;
  root->depth.store(1, std::memory_order_relaxed);
  bump(w->counters.jobs);
  if (w->counters.max_depth.load(std::memory_order_relaxed) < 1) w->counters.max_depth.store(1, std::memory_order_relaxed);
  return root;
}

/// Prepares a handed-back strand to continue on `level`: the level's blocks for depths
/// 1..k go to the reserve, the strand's children use the rest.
Block* prepare_resume(Worker* w, Level* level, const ext::SuspendedStrand& handle) noexcept {
  PoolState& pool = *w->pool;
  Block* strand = PoolState::strand_block(handle);
  if (strand < &pool.blocks[0] || strand >= &pool.blocks[0] + pool.block_count) {
    // A policy bug; continuing would run a strand on another pool's memory.
    std::fprintf(stderr, "takt: fatal: a suspended strand was given to pool '%s', which did not suspend it\n",
                 pool.config.name.c_str());
    std::abort();
  }
  // The handle in force only once: a second give-back (or a stale handle of an earlier
  // suspension) would run the strand twice, or run one that is running or finished.
  std::uint32_t expected = PoolState::suspension(handle);
  if (!strand->suspension.compare_exchange_strong(expected, expected + 1, std::memory_order_acq_rel)) {
    std::fprintf(
        stderr,
        "takt: fatal: pool '%s': a suspended strand was given back that is not with the policy now (an "
        "ext::SuspendedStrand must be given back exactly once)\n",
        pool.config.name.c_str());
    std::abort();
  }
  std::size_t k = strand->depth.load(std::memory_order_relaxed);
  Block* head = level->head;
  Block* kth = walk(head, k);
  Block* rest = kth->chain_next;
  reserve_give(*w->pool, head, kth, k);
  level->head = nullptr;
  level->key.store(strand->suspended_key, std::memory_order_relaxed);
  set_level(w, level);
  strand->chain_next = rest;
  return strand;
}

Block* prepare_work(Worker* w, Level* level, const ext::Work& work) noexcept {
  if (work.job != nullptr) return prepare_root(w, level, work.job);  // counted by whoever handed it out
  return prepare_resume(w, level, work.strand);
}

/// After the running strand switched back to the scheduler: act on its request and
/// return the next block to enter (nullptr: the worker is idle).
Block* handle_request(Worker* w) noexcept {
  Request request = w->request;
  w->request = Request{};
  PoolState& pool = *w->pool;
  switch (request.kind) {
    case Request::Kind::none:
      return nullptr;
    case Request::Kind::park: {
      Scope& scope = *request.scope;
      Block* strand = ScopeState::block(scope);
      // Read before joining: from then on the last child may resume the strand (and give
      // it a new chain_next) at any moment.
      Block* rest = strand->chain_next;
      std::int64_t after =
          ScopeState::join(scope).fetch_add(ScopeState::kSync, std::memory_order_acq_rel) + ScopeState::kSync;
      if (after == ScopeState::kSync) return strand;  // every child already finished
      // Children still run: the strand stays parked; take a traded sub-chain (all
      // thieves settled theirs before resuming the strand, so one is there).
      Block* sub = take_traded(pool, strand, false, 0);
      sub->sub_tail->chain_next = rest;
      w->level->head = sub;
      bump(w->counters.parks);
      return nullptr;
    }
    case Request::Kind::hand_back: {
      Block* strand = request.strand;
      strand->migrated = true;
      Level* level = w->level;
      request.spare->sub_tail->chain_next = strand->chain_next;
      level->head = request.spare;
      strand->suspended_key = level->key.load(std::memory_order_relaxed);
      bump(w->counters.yields);
      // The policy that preempted the strand takes it, not the one installed now: a
      // policy removed or replaced since (set_yield_policy waits for this call) would
      // leave the strand with nobody to resume it.
      request.policy->suspended(PoolState::handle(strand));
      end_extension_call(w);  // begun in yield_point
      return prepare_work(w, level, request.work);
    }
    case Request::Kind::freeze: {
      Block* strand = request.strand;
      Level* level = w->level;
      level->frozen = true;
      level->awaiting_return = false;
      level->returned.store(0, std::memory_order_relaxed);
      level->frozen_strand = strand;
      level->frozen_rest = strand->chain_next;
      ++w->frozen_levels;
      level->frozen_epoch = publish_continuation(w, strand, true);
      bump(w->counters.yields);
      Level* next = free_level(w);
      assert(next != nullptr);
      return prepare_work(w, next, request.work);
    }
  }
  return nullptr;
}

/// The worker is back in the scheduler without a strand: idle from now.
void begin_idle(Worker* w) noexcept {
  w->idle_since.store(os::monotonic_now().count(), std::memory_order_relaxed);
}

/// The worker found a strand, or leaves the pool: its idle interval, if any, ends.
void end_idle(Worker* w) noexcept {
  const std::int64_t since = w->idle_since.load(std::memory_order_relaxed);
  if (since == 0) return;
  // The start is cleared before the total grows (release): a reader that sees the new
  // total (acquire) sees no interval in progress, so it never counts this one twice.
  w->idle_since.store(0, std::memory_order_relaxed);
  const std::uint64_t idle = idle_between(since, w->pool->statistics_reset_at.load(std::memory_order_relaxed),
                                          os::monotonic_now().count());
  std::atomic<std::uint64_t>& total = w->counters.idle_ns;
  total.store(total.load(std::memory_order_relaxed) + idle, std::memory_order_release);
}

/// Runs `first` and whatever the strands it leads to ask for, until the worker is idle.
void dispatch(Worker* w, Block* first) noexcept {
  end_idle(w);
  Block* next = first;
  while (next != nullptr) {
    w->current = next;
    next->worker = w;
    mark_running(w);
    switch_to(next->context, w->sched, w->eh);
    w->running.store(false, std::memory_order_relaxed);
    next = handle_request(w);
  }
  w->sleep_timeout = std::chrono::milliseconds(1);
  begin_idle(w);
}

// ---- rule C: the worker's own frozen levels ------------------------------------------

/// Rule C: the worker's frozen level with the smallest key, skipping those whose
/// stolen strand's trade has not been delivered yet (their deques are empty: the next
/// one in key order may have work).
bool resume_frozen(Worker* w) noexcept {
  Level* best = nullptr;
  for (std::size_t i = 0; i < w->level_count; ++i) {
    Level* level = &w->levels[i];
    if (!level->frozen) continue;
    if (level->awaiting_return && level->returned.load(std::memory_order_acquire) == 0) continue;
    if (best == nullptr || level->key.load(std::memory_order_relaxed) < best->key.load(std::memory_order_relaxed)) {
      best = level;
    }
  }
  if (best == nullptr) return false;
  Level* level = best;
  Block* strand = level->frozen_strand;
  auto unfreeze = [&](Block* sub) {
    sub->sub_tail->chain_next = level->frozen_rest;
    level->head = sub;
    level->frozen = false;
    level->awaiting_return = false;
    --w->frozen_levels;
  };
  if (level->awaiting_return) {  // its thief has delivered the trade (checked above)
    unfreeze(w->pool->block(level->returned.load(std::memory_order_acquire) - 1));
    return true;
  }
  set_level(w, level);
  if (level->deque.pop()) {
    // The preempted strand is still here: continue it.
    level->frozen = false;
    --w->frozen_levels;
    strand->ready = false;
    dispatch(w, strand);
    return true;
  }
  if (Block* sub = claim_offer(*w->pool, strand, level->frozen_epoch)) {
    unfreeze(sub);
  } else {
    level->awaiting_return = true;
  }
  return true;
}

// ---- rule D: jobs --------------------------------------------------------------------

/// Work a policy handed out (`who`: "work source" or "yield policy"): a job counts as in
/// flight from here (the pool's destructor waits for it). A job still in flight, or a
/// Work naming both a job and a strand, is a policy's bug that would corrupt the pool's
/// queues or run a strand twice; the process ends with a message.
void accept_handed_work(PoolState& pool, const ext::Work& work, const char* who) noexcept {
  if (work.job == nullptr) return;
  const bool both = static_cast<bool>(work.strand);
  if (both || JobAccess::in_flight(*work.job).exchange(true, std::memory_order_acq_rel)) {
    std::fprintf(stderr, "takt: fatal: pool '%s': the %s handed out %s%s\n", pool.config.name.c_str(), who,
                 both ? "an ext::Work with both a job and a suspended strand (give one per Work)"
                      : "an ext::Job that is still ",
                 both ? "" : kJobInFlight);
    std::abort();
  }
  pool.in_flight.fetch_add(1, std::memory_order_seq_cst);
}

ext::Job* take_injected(PoolState& pool) noexcept {
  if (pool.injected.load(std::memory_order_relaxed) <= 0) return nullptr;
  pool.inject_lock.lock();
  ext::Job* job = pool.inject_head;
  if (job != nullptr) {
    pool.inject_head = JobAccess::next(*job);
    if (pool.inject_head == nullptr) pool.inject_tail = nullptr;
    JobAccess::next(*job) = nullptr;
    pool.injected.fetch_sub(1, std::memory_order_relaxed);
  }
  pool.inject_lock.unlock();
  return job;
}

ext::Work take_external(Worker* w) noexcept {
  ext::Work work;
  if (ext::Job* job = take_injected(*w->pool)) {
    work.job = job;
    return work;
  }
  if (w->pool->source.load(std::memory_order_relaxed) != nullptr) {
    // Announced before the source is loaded: either this sees the new source, or the
    // setter sees the call and waits for it.
    begin_extension_call(w);
    if (auto* source = w->pool->source.load(std::memory_order_seq_cst)) work = source->take(w->index);
    end_extension_call(w);
  }
  accept_handed_work(*w->pool, work, "work source");
  return work;
}

// ---- rule E: stealing ----------------------------------------------------------------

/// The victim's level to steal from: its only one, or (priority_aware) the level with
/// the highest priority among its non-empty deques.
Level* victim_level(Worker* victim, bool by_priority) noexcept {
  if (!by_priority) return &victim->levels[0];
  Level* best = nullptr;
  for (std::size_t i = 0; i < victim->level_count; ++i) {
    Level* level = &victim->levels[i];
    if (level->deque.looks_empty()) continue;
    if (best == nullptr || level->key.load(std::memory_order_relaxed) < best->key.load(std::memory_order_relaxed)) {
      best = level;
    }
  }
  return best;
}

/// A random other worker; priority_aware: a random one among those with work (busy).
Worker* choose_victim(Worker* w) noexcept {
  PoolState& pool = *w->pool;
  std::size_t p = pool.workers_count;
  if (p < 2) return nullptr;
  if (!priority_aware(pool)) {
    std::size_t v = next_random(w) % (p - 1);
    if (v >= w->index) ++v;
    return pool.workers[v].get();
  }
  Worker* chosen = nullptr;
  std::uint64_t busy = 0;
  for (std::size_t i = 0; i < p; ++i) {
    if (i == w->index) continue;
    Worker* candidate = pool.workers[i].get();
    if (victim_level(candidate, true) == nullptr) continue;
    ++busy;
    if (next_random(w) % busy == 0) chosen = candidate;  // reservoir sampling: uniform among busy
  }
  return chosen;
}

/// The thief won `strand` (depth k) with the sub-chain head..(k-th) it traded in;
/// `rest` are its blocks for depths k+1..D. Settles the trade and returns the strand.
/// `key` is the key of the level it was stolen from, read before the commit.
Block* won(Worker* w, Level* mine, Level* from, Block* strand, std::uint32_t epoch, Block* rest,
           std::int64_t key) noexcept {
  PoolState& pool = *w->pool;
  mine->head = nullptr;
  mine->key.store(key, std::memory_order_relaxed);
  set_level(w, mine);
  Block* traded = nullptr;
  if (strand->ready) {
    // A preempted strand (no child detached from it): the trade belongs to the owner's
    // frozen level; deliver it there before the strand can be pushed again.
    if (settle_offer(pool, strand, epoch, traded)) {
      if (auto* hook = after_settle_for_testing.load(std::memory_order_relaxed)) [[unlikely]]
        hook(true);
      from->returned.store(traded->index + 1, std::memory_order_release);
    }
    strand->ready = false;
  } else {
    // The child running below the continuation is now detached: count it in the join,
    // then settle the offer into the scope's pool unless that child claimed it already.
    Scope& scope = *strand->push_scope;
    if (!ScopeState::stolen(scope)) {
      ScopeState::stolen(scope) = true;
      ++strand->open_stolen_scopes;
    }
    ScopeState::join(scope).fetch_add(1, std::memory_order_relaxed);
    if (settle_offer(pool, strand, epoch, traded)) {
      if (auto* hook = after_settle_for_testing.load(std::memory_order_relaxed)) [[unlikely]]
        hook(false);
      push_traded(strand, traded);
    }
  }
  strand->migrated = true;
  strand->chain_next = rest;
  bump(w->counters.steals);
  return strand;
}

Block* steal_from_deque(Worker* w, Worker* victim, Level* mine) noexcept {
  PoolState& pool = *w->pool;
  Level* from = victim_level(victim, priority_aware(pool));
  if (from == nullptr) return nullptr;
  ChaseLevDeque::Peek peek = from->deque.peek();
  if (!peek.found) return nullptr;
  Block* strand = pool.block(static_cast<std::uint32_t>(peek.item));
  auto epoch = static_cast<std::uint32_t>(peek.item >> 32);
  std::size_t k = strand->depth.load(std::memory_order_relaxed);
  if (k == 0 || k > pool.depth) return nullptr;  // a stale read; the item moved on
  // Cut the sub-chain 1..k to trade before offering it: once the steal commits, the
  // victim's child may claim it and link its own blocks below it.
  Block* head = mine->head;
  Block* kth = walk(head, k);
  Block* rest = kth->chain_next;
  head->sub_tail = kth;
  kth->chain_next = nullptr;
  // The victim level's key, read while the strand is still in its deque: until the
  // commit the level runs the strand's computation, so this is its key. After the commit
  // the victim may finish its part, go idle and start another job on that level (a
  // preempted thief would then copy that job's key).
  const std::int64_t key = from->key.load(std::memory_order_relaxed);
  std::uint64_t expected = offer_word(epoch, kNoOffer);
  std::uint64_t offered = offer_word(epoch, head->index + 1);
  if (!strand->offer.compare_exchange_strong(expected, offered, std::memory_order_acq_rel, std::memory_order_relaxed)) {
    kth->chain_next = rest;
    return nullptr;  // another thief is trading for it, or it moved on
  }
  if (!from->deque.commit(peek.top)) {
    expected = offered;
    strand->offer.compare_exchange_strong(expected, offer_word(epoch, kNoOffer), std::memory_order_acq_rel,
                                          std::memory_order_relaxed);
    kth->chain_next = rest;
    return nullptr;
  }
  if (auto* hook = after_commit_for_testing.load(std::memory_order_relaxed)) [[unlikely]]
    hook();
  Block* stolen = won(w, mine, from, strand, epoch, rest, key);
  if (!from->deque.looks_empty()) notify_one(pool);  // more to steal: wake a helper
  return stolen;
}

Block* steal_from_central(Worker* w, Level* mine) noexcept {
  PoolState& pool = *w->pool;
  Block* head = mine->head;
  Block* rest = nullptr;
  std::uint32_t epoch = 0;
  std::int64_t key = 0;
  Block* strand = pool.central.take([&](Block* taken) {
    key = taken->queued_key;  // the computation's key, as a deque thief reads its victim level's
    std::size_t k = taken->depth.load(std::memory_order_relaxed);
    Block* kth = walk(head, k);
    rest = kth->chain_next;
    kth->chain_next = nullptr;
    head->sub_tail = kth;
    epoch = taken->queued_epoch;
    taken->offer.store(offer_word(epoch, head->index + 1), std::memory_order_release);
  });
  if (strand == nullptr) return nullptr;
  Block* stolen = won(w, mine, mine, strand, epoch, rest, key);
  // A push wakes a sleeper only onto an empty queue; a queue that stayed non-empty while
  // the owner pushed more needs the thief to pass the wake-up on, as for the deques.
  if (!pool.central.looks_empty()) notify_one(pool);
  return stolen;
}

bool try_steal(Worker* w) noexcept {
  PoolState& pool = *w->pool;
  Level* mine = free_level(w);
  if (mine == nullptr) return false;
  Block* strand = nullptr;
  if (centralized(pool)) {
    strand = steal_from_central(w, mine);
  } else if (Worker* victim = choose_victim(w)) {
    strand = steal_from_deque(w, victim, mine);
  }
  if (strand == nullptr) {
    bump(w->counters.failed_steals);
    return false;
  }
  if ((w->hooks.load(std::memory_order_relaxed) & hook_observer) != 0) {
    ext::StrandEvent e;
    e.kind = ext::StrandEvent::Kind::resume;
    e.stolen = true;
    e.worker = static_cast<std::uint32_t>(w->index);
    e.task = strand->task_id;
    e.strand = strand->strand_index;
    e.time = os::monotonic_now();
    emit(w, e);
  }
  dispatch(w, strand);
  return true;
}

// ---- idle ----------------------------------------------------------------------------

/// A strand that some worker could steal (in a deque, or the central queue).
bool stealable_visible(const PoolState& pool) noexcept {
  if (centralized(pool)) return !pool.central.looks_empty();
  for (const auto& worker : pool.workers) {
    for (std::size_t i = 0; i < worker->level_count; ++i) {
      if (!worker->levels[i].deque.looks_empty()) return true;
    }
  }
  return false;
}

bool work_visible(const PoolState& pool) noexcept {
  return pool.injected.load(std::memory_order_seq_cst) > 0 || stealable_visible(pool);
}

/// One pass over rules C, D (unless `take_jobs` is false), E. True when the worker ran something.
bool find_and_run(Worker* w, bool take_jobs = true) noexcept {
  if (w->frozen_levels > 0 && resume_frozen(w)) return true;
  if (!take_jobs) return try_steal(w);
  if (Level* level = free_level(w)) {
    ext::Work work = take_external(w);
    if (work) {
      dispatch(w, prepare_work(w, level, work));
      return true;
    }
  }
  return try_steal(w);
}

void sleep(Worker* w) noexcept {
  PoolState& pool = *w->pool;
  std::uint32_t epoch = pool.idle_epoch.load(std::memory_order_acquire);
  pool.sleepers.fetch_add(1, std::memory_order_seq_cst);
  if (work_visible(pool) || pool.stopping.load(std::memory_order_seq_cst)) {
    pool.sleepers.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
  if (Level* level = free_level(w)) {
    ext::Work work = take_external(w);
    if (work) {
      pool.sleepers.fetch_sub(1, std::memory_order_relaxed);
      dispatch(w, prepare_work(w, level, work));
      return;
    }
  }
  bump(w->counters.sleeps);
  // The timeout is a safety net against a missed wake-up; it doubles while the pool
  // stays idle, so an idle pool wakes about once a second.
  os::futex_wait_for(pool.idle_epoch, epoch, w->sleep_timeout);
  if (w->sleep_timeout < std::chrono::seconds(1)) w->sleep_timeout *= 2;
  pool.sleepers.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace

std::atomic<void (*)(std::uint32_t)> after_leave_flight_for_testing{nullptr};
std::atomic<void (*)(bool)> after_settle_for_testing{nullptr};
std::atomic<void (*)()> after_commit_for_testing{nullptr};

void wait_for_extension_calls(PoolState& pool) noexcept {
  for (const auto& worker : pool.workers) {
    // The calling thread's own worker may be inside a call: the caller is that call
    // (a policy that removes itself), which cannot wait for itself.
    if (worker.get() == tls_worker) continue;
    const std::uint32_t seen = worker->extension_calls.load(std::memory_order_seq_cst);
    if ((seen & 1) == 0) continue;  // not inside a call: its next one loads the new pointer
    // Inside a call that may use the old object: wait until it ends (the count moves on).
    // Calls are short; after a few spins sleep, so that a worker of lower SCHED_FIFO
    // priority on this CPU gets to finish it.
    for (unsigned spins = 0; worker->extension_calls.load(std::memory_order_acquire) == seen; ++spins) {
      if (spins < 256) {
        cpu_relax();
      } else {
        const timespec pause{0, 20'000};
        ::nanosleep(&pause, nullptr);
      }
    }
  }
}

void leave_flight(PoolState& pool) noexcept {
  // Once the count drops to kDraining, the destructor may free the pool: afterwards only
  // the word's address is used, for the futex wake (a spurious wake-up at worst, should
  // the memory be reused).
  std::atomic<std::uint32_t>* word = &pool.in_flight;
  const std::uint32_t before = word->fetch_sub(1, std::memory_order_acq_rel);
  if (auto* hook = after_leave_flight_for_testing.load(std::memory_order_relaxed)) [[unlikely]] {
    hook((before - 1) & ~PoolState::kDraining);
  }
  if (before == (PoolState::kDraining | 1)) os::futex_wake_all(*word);
}

void wake_caller(PoolState& pool) noexcept {
  pool.caller_wake.fetch_add(1, std::memory_order_release);
  os::futex_wake(pool.caller_wake, 1);
}

namespace {
void notify(PoolState& pool, int sleepers) noexcept {
  if (pool.sleepers.fetch_add(0, std::memory_order_seq_cst) > 0) {
    pool.idle_epoch.fetch_add(1, std::memory_order_release);
    os::futex_wake(pool.idle_epoch, sleepers);
    // A caller sleeping as worker 0 (caller_sleep) is woken as well.
    if (pool.caller_sleeping.load(std::memory_order_seq_cst)) wake_caller(pool);
  }
}
}  // namespace

void notify_one(PoolState& pool) noexcept { notify(pool, 1); }

void notify_all(PoolState& pool) noexcept { notify(pool, std::numeric_limits<int>::max()); }

void set_level(Worker* w, Level* level) noexcept {
  w->level = level;
  w->deque = &level->deque;
  if (centralized(*w->pool)) {
    w->central = &w->pool->central;
    w->level_top = &w->pool->central.zero();
    w->level_bottom = &w->pool->central.size();
  } else {
    w->level_top = &level->deque.top();
    w->level_bottom = &level->deque.bottom();
  }
}

void emit(Worker* w, ext::StrandEvent event) noexcept {
  if (auto* observer = w->pool->observer.load(std::memory_order_acquire)) observer->on_event(event);
}

std::uint64_t new_task_id(Worker* w) noexcept { return (static_cast<std::uint64_t>(w->index + 1) << 48) | ++w->task_seq; }

void yield_point(Block* self, ext::YieldPoint::At at) {
  Worker* w = worker_of(self);
  PoolState& pool = *w->pool;
  w->hooks.fetch_and(~hook_yield, std::memory_order_relaxed);
  if (pool.policy.load(std::memory_order_relaxed) == nullptr) return;
  // Announce the calls before loading the policy (as take_external does for the source);
  // `done` ends the announcement on every path but a hand-back, whose policy gets the
  // strand in handle_request, which ends it there. (Not a destructor: the strand may be
  // resumed on another worker after the switch below.)
  begin_extension_call(w);
  auto done = [w] { end_extension_call(w); };
  auto* policy = pool.policy.load(std::memory_order_seq_cst);
  if (policy == nullptr) return done();
  // A request that cannot be granted is counted and reported to the policy.
  auto refuse = [w, policy, &done] {
    bump(w->counters.refused_yields);
    policy->refused(w->index);
    done();
  };
  // A calling thread runs no other job (a policy may have asked worker 0 while a caller held it).
  if (pool.config.caller_joins && w->index == 0) return refuse();
  Level* level = w->level;
  bool no_local_ancestors = self->parent == nullptr || self->migrated ||
                            (!centralized(pool) && level->deque.owner_empty());
  ext::YieldPoint point;
  point.worker = w->index;
  point.at = at;
  point.key = key_of(level);
  point.depth = self->depth.load(std::memory_order_relaxed);
  if (no_local_ancestors) {
    Block* spare = reserve_take(pool, point.depth);
    if (spare == nullptr) return refuse();
    point.hand_back = true;
    ext::Work work = policy->preempt(point);
    if (!work) {
      reserve_give(pool, spare, spare->sub_tail, point.depth);
      return done();
    }
    accept_handed_work(pool, work, "yield policy");
    w->request.kind = Request::Kind::hand_back;
    w->request.strand = self;
    w->request.work = work;
    w->request.spare = spare;
    w->request.policy = policy;
  } else {
    bool other_free = false;
    if (priority_aware(pool)) {
      for (std::size_t i = 0; i < w->level_count; ++i) {
        Level* other = &w->levels[i];
        if (other != level && !other->frozen && other->head != nullptr) other_free = true;
      }
    }
    if (!other_free) return refuse();
    point.hand_back = false;
    ext::Work work = policy->preempt(point);
    done();
    if (!work) return;
    accept_handed_work(pool, work, "yield policy");
    w->request.kind = Request::Kind::freeze;
    w->request.strand = self;
    w->request.work = work;
  }
  w->current = nullptr;
  switch_to(w->sched, self->context, w->eh);
}

namespace {

/// Worker 0's sleep while its caller's computation runs elsewhere, on the pool's
/// `caller_wake` word: root_done bumps it when the caller's computation ends, and
/// notify_one, like for a sleeping worker, when work appears. The epoch is read before
/// announcing the sleep, so a bump in between makes the wait return at once. Only
/// stealable work counts: worker 0 never takes jobs, so a queued job must not keep it
/// spinning.
void caller_sleep(Worker* w, std::atomic<std::uint32_t>& done) noexcept {
  PoolState& pool = *w->pool;
  const std::uint32_t epoch = pool.caller_wake.load(std::memory_order_acquire);
  pool.caller_sleeping.store(true, std::memory_order_seq_cst);
  pool.sleepers.fetch_add(1, std::memory_order_seq_cst);
  if (done.load(std::memory_order_seq_cst) != 1 && !stealable_visible(pool)) {
    bump(w->counters.sleeps);
    os::futex_wait_for(pool.caller_wake, epoch, w->sleep_timeout);
    if (w->sleep_timeout < std::chrono::seconds(1)) w->sleep_timeout *= 2;
  }
  pool.sleepers.fetch_sub(1, std::memory_order_relaxed);
  pool.caller_sleeping.store(false, std::memory_order_relaxed);
}

}  // namespace

bool run_as_caller(PoolState& pool, ext::Job& job, std::atomic<std::uint32_t>& done) {
  if (!pool.config.caller_joins || tls_worker != nullptr) return false;
  // A work source or a yield policy assumes every worker is a thread that is always
  // there (take(0), request_yield(0)); such a pool runs run() with a blocking caller.
  if (pool.source.load(std::memory_order_acquire) != nullptr || pool.policy.load(std::memory_order_acquire) != nullptr) {
    return false;
  }
  bool expected = false;
  if (!pool.caller_slot_busy.compare_exchange_strong(expected, true, std::memory_order_acquire,
                                                     std::memory_order_relaxed)) {
    return false;
  }
  // Counted twice: the job (root_done leaves once) and this thread's stay on worker 0,
  // so that a closing pool waits until the caller is off its memory.
  pool.in_flight.fetch_add(2, std::memory_order_seq_cst);
  if (pool.closing.load(std::memory_order_seq_cst)) {
    pool.caller_slot_busy.store(false, std::memory_order_release);
    leave_flight(pool);
    leave_flight(pool);
    return false;  // submit_job reports the closing pool
  }
  // Whatever a worker thread sets up once at its start, this thread sets up now.
  static thread_local bool unwinder_warm = false;
  if (!unwinder_warm) {
    try {
      throw std::runtime_error("warm-up");  // see worker_main
    } catch (const std::runtime_error&) {
    }
    unwinder_warm = true;
  }
  Worker* w = pool.workers[0].get();
  w->sleep_timeout = std::chrono::milliseconds(1);
  if (free_level(w) == nullptr) {  // every level holds a preempted computation (policies only)
    pool.caller_slot_busy.store(false, std::memory_order_release);
    leave_flight(pool);
    leave_flight(pool);
    return false;
  }
  tls_worker = w;
  w->eh = eh_globals();
#if defined(TAKT_TSAN)
  w->sched.fiber = __tsan_get_current_fiber();
#endif
  stack_t previous{};
  const bool altstack = install_overflow_handler(w->altstack, &previous);
  JobAccess::next(job) = nullptr;
  pool.caller_root.store(&job, std::memory_order_release);
  // Worker 0 is idle between callers: its chain is complete and its deque empty.
  dispatch(w, prepare_root(w, free_level(w), &job));
  // The root strand parked at a sync whose children were stolen, or finished. Help
  // until it is done; after idle_spin without work, sleep until then.
  const std::chrono::nanoseconds spin = pool.config.idle_spin;
  auto deadline = os::monotonic_now() + spin;
  for (unsigned round = 0; done.load(std::memory_order_acquire) != 1; ++round) {
    if (find_and_run(w, false)) {
      round = 0;
      deadline = os::monotonic_now() + spin;
      continue;
    }
    unsigned pauses = 1u << (round < 6 ? round : 6);
    for (unsigned i = 0; i < pauses; ++i) cpu_relax();
    if ((round & 7) == 7 && os::monotonic_now() >= deadline) {
      caller_sleep(w, done);
      round = 0;
      deadline = os::monotonic_now() + spin;
    }
  }
  end_idle(w);  // the caller leaves the pool: its wait for the computation ends here
  pool.caller_root.store(nullptr, std::memory_order_relaxed);
  if (altstack) restore_altstack(&previous);
  tls_worker = nullptr;
  pool.caller_slot_busy.store(false, std::memory_order_release);
  leave_flight(pool);
  return true;
}

void worker_main(Worker* w) {
  PoolState& pool = *w->pool;
  tls_worker = w;
  w->eh = eh_globals();
#if defined(TAKT_TSAN)
  w->sched.fiber = __tsan_get_current_fiber();
#endif
  if (!pool.measuring) {
    // Pinned: one CPU each; else any of the pool's CPUs (not the creating thread's mask).
    const os::CpuSet& cpus = pool.config.cpus;
    os::pin_current_thread(pool.config.pin ? os::CpuSet{cpus[w->index % cpus.size()]} : cpus);
  }
  install_overflow_handler(w->altstack);
  // The first exception a thread throws initializes the unwinder's state, which takes
  // far more stack than later throws; do it here, on the thread's own stack, not in a
  // strand stack that throws because it is nearly full.
  try {
    throw std::runtime_error("warm-up");
  } catch (const std::runtime_error&) {
  }
  if (pool.config.on_worker_start) {
    try {
      pool.config.on_worker_start(w->index);
    } catch (const std::exception& e) {
      os::warn(std::string("pool '") + pool.config.name + "': on_worker_start(" + std::to_string(w->index) +
               ") threw: " + e.what() + "; the worker runs on");
    } catch (...) {
      os::warn(std::string("pool '") + pool.config.name + "': on_worker_start(" + std::to_string(w->index) +
               ") threw an exception that is no std::exception; the worker runs on");
    }
  }
  if (pool.memory->large_size() > 0) prime_large(w);
  begin_idle(w);  // before the constructor can return: idle time counts from then on
  pool.started.fetch_add(1, std::memory_order_release);
  os::futex_wake_all(pool.started);
  w->sleep_timeout = std::chrono::milliseconds(1);
  const std::chrono::nanoseconds spin = pool.config.idle_spin;
  while (true) {
    if (find_and_run(w)) continue;
    if (pool.stopping.load(std::memory_order_acquire)) break;
    // Back off: keep trying for `spin`, pausing longer and longer, then sleep.
    auto deadline = os::monotonic_now() + spin;
    bool found = false;
    for (unsigned round = 0; !found; ++round) {
      unsigned pauses = 1u << (round < 6 ? round : 6);
      for (unsigned i = 0; i < pauses; ++i) cpu_relax();
      found = find_and_run(w);
      if (!found && (round & 7) == 7 && os::monotonic_now() >= deadline) break;
      if (pool.stopping.load(std::memory_order_relaxed)) break;
    }
    if (!found && !pool.stopping.load(std::memory_order_acquire)) sleep(w);
  }
  tls_worker = nullptr;
}

}  // namespace takt::detail
