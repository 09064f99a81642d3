// Internal state of a pool: its workers, their levels (deque + chain of blocks), the
// block table, the central queue, the job injection list and the idle protocol.
#pragma once

#include "runtime/central_queue.hpp"
#include "runtime/chase_lev_deque.hpp"
#include "os/futex_lock.hpp"
#include "runtime/stack_memory.hpp"
#include "takt/runtime/config.hpp"
#include "takt/runtime/detail/block.hpp"
#include "takt/runtime/extension.hpp"
#include "takt/runtime/scope.hpp"
#include "takt/runtime/statistics.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace takt::detail {

struct PoolState;

/// The name of takt::measure's pool (detail::measuring_config).
inline constexpr const char* kMeasurePoolName = "measurement";
/// What "in flight" means for an ext::Job, in the messages that refuse one.
inline constexpr const char* kJobInFlight =
    "in flight (submitted or handed out, and its finished() not yet called)";

struct JobAccess {
  static ext::Job*& next(ext::Job& job) noexcept { return job.next_; }
  static std::atomic<bool>& in_flight(ext::Job& job) noexcept { return job.in_flight_; }
};

/// One entry of a worker's local priority queue (PAWS rule C): a deque and the chain of
/// D blocks its computation runs on. A level is free (its chain complete, `head` set),
/// running (the worker's current level), or frozen (a preempted local strand waits at
/// its bottom). Work-stealing and centralized pools have one level per worker.
struct Level {
  ChaseLevDeque deque;
  Block* head = nullptr;  ///< depth-1 block of the complete chain while the level is free
  std::atomic<std::int64_t> key{0};
  bool frozen = false;
  bool awaiting_return = false;      ///< frozen strand was stolen; its trade not yet delivered
  Block* frozen_strand = nullptr;
  Block* frozen_rest = nullptr;      ///< the chain below the frozen strand (depth + 1 ...)
  std::uint32_t frozen_epoch = 0;
  std::atomic<std::uint32_t> returned{0};  ///< index + 1 of the sub-chain a thief of the frozen strand traded
};

/// What a strand asks its worker's scheduler to do once the strand's context is saved.
struct Request {
  enum class Kind : std::uint8_t { none, park, hand_back, freeze };
  Kind kind = Kind::none;
  Scope* scope = nullptr;
  Block* strand = nullptr;
  ext::Work work;
  Block* spare = nullptr;  ///< reserve sub-chain for a hand-back
  /// hand_back: the policy whose preempt() asked for it, which gets the strand
  /// (suspended()) even if the pool's policy was replaced meanwhile.
  ext::YieldPolicy* policy = nullptr;
};

/// Owner-written counters, readable by anyone.
struct Counters {
  std::atomic<std::uint64_t> spawns{0}, steals{0}, failed_steals{0}, sleeps{0}, jobs{0}, parks{0}, yields{0},
      refused_yields{0}, max_depth{0}, idle_ns{0};
};

inline void bump(std::atomic<std::uint64_t>& counter) noexcept {
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

/// Idle time of an interval that began at `since` (ns), counted from `reset_at` at the
/// earliest, up to `now`.
inline std::uint64_t idle_between(std::int64_t since, std::int64_t reset_at, std::int64_t now) noexcept {
  const std::int64_t from = since > reset_at ? since : reset_at;
  return now > from ? static_cast<std::uint64_t>(now - from) : 0;
}

/// A reader's idle time of one worker (Pool::statistics): `counted`, the total added
/// since the last reset (total − baseline), plus the interval in progress since `since`
/// (0: none) from `reset_at` on, capped at the time since the reset (`reset_at` 0: none
/// yet). The cap bounds one race: a worker that read the reset time just before a reset
/// adds an interval begun before it in full, while the reset's baseline lacked it.
inline std::uint64_t idle_reading(std::uint64_t counted, std::int64_t since, std::int64_t reset_at,
                                  std::int64_t now) noexcept {
  std::uint64_t idle = counted;
  if (since != 0) idle += idle_between(since, reset_at, now);
  if (reset_at != 0) {
    const std::uint64_t since_reset = idle_between(reset_at, 0, now);
    if (idle > since_reset) idle = since_reset;
  }
  return idle;
}

struct alignas(64) Worker : WorkerHead {
  PoolState* pool = nullptr;
  std::size_t index = 0;
  Block* current = nullptr;  ///< strand running on this worker (nullptr in the scheduler)
  Level* level = nullptr;    ///< level of the running strand
  ChaseLevDeque* deque = nullptr;  ///< level->deque
  CentralQueue* central = nullptr;  ///< the pool's queue when centralized_greedy
  std::unique_ptr<Level[]> levels;
  std::size_t level_count = 0;
  std::size_t frozen_levels = 0;
  Context sched;             ///< the scheduler loop on the thread's own stack
  Context large;             ///< the large-stack coroutine (if configured)
  Context* large_return = nullptr;
  void (*large_call)(void*) = nullptr;
  void* large_arg = nullptr;
  bool on_large_stack = false;
  bool large_stack_used = false;  ///< call_on_large_stack ran on the large stack (measurement)
  Request request;
  std::uint64_t rng = 0;
  std::chrono::nanoseconds sleep_timeout{0};
  std::uint64_t task_seq = 0;  ///< observer task ids
  Counters counters;
  Counters baseline;
  /// monotonic_now() in ns when the worker last came back to the scheduler without a
  /// strand (it is idle since), 0 while it runs one or is outside the pool.
  std::atomic<std::int64_t> idle_since{0};
  std::atomic<bool> running{false};
  std::atomic<std::int64_t> running_key{0};
  /// Odd while the worker may call the work source or the yield policy it loaded
  /// (incremented before the load and after the last call): Extension::set_work_source
  /// and set_yield_policy wait until no worker is inside a call to the object they
  /// replaced (wait_for_extension_calls).
  std::atomic<std::uint32_t> extension_calls{0};
  char* altstack = nullptr;
  std::thread thread;
};

struct PoolState {
  explicit PoolState(PoolConfig config);
  ~PoolState();

  PoolConfig config;
  QueueStrategy strategy;
  std::size_t workers_count = 0;  ///< P
  std::size_t depth = 0;          ///< D
  std::size_t levels = 0;         ///< chains per worker
  bool measuring = false;
  /// takt::measure's own pool (measuring, named kMeasurePoolName): its limits come from
  /// MeasureOptions, and its messages name them. The profiler's span run also measures,
  /// with limits from a Measurement's recommended() (StaticMemory).
  bool measure_pool = false;

  std::unique_ptr<StackMemory> memory;
  std::unique_ptr<Block[]> blocks;
  std::size_t block_count = 0;
  std::vector<std::unique_ptr<Worker>> workers;
  CentralQueue central;

  // Jobs submitted to the pool itself (run(), Extension::submit).
  os::FutexLock inject_lock;
  ext::Job* inject_head = nullptr;
  ext::Job* inject_tail = nullptr;
  std::atomic<std::int64_t> injected{0};

  std::atomic<ext::WorkSource*> source{nullptr};
  std::atomic<ext::YieldPolicy*> policy{nullptr};
  std::atomic<ext::StrandObserver*> observer{nullptr};

  // Spare blocks for handed-back strands (PAWS rule F).
  os::FutexLock reserve_lock;
  Block* reserve_head = nullptr;
  std::size_t reserve_free = 0;
  std::size_t reserve_total = 0;
  /// Strands handed back now (each holds one take of the reserve until it resumes or
  /// the hand-back is called off): at most PoolConfig::suspended_strands, whatever
  /// their depths (a shallow strand takes fewer than D blocks).
  std::size_t reserve_strands = 0;

  /// monotonic_now() in ns at the last reset_statistics(): idle intervals count from here.
  std::atomic<std::int64_t> statistics_reset_at{0};

  // Idle workers sleep on `idle_epoch` (an eventcount).
  alignas(64) std::atomic<std::uint32_t> idle_epoch{0};
  std::atomic<int> sleepers{0};
  alignas(64) std::atomic<bool> closing{false};
  std::atomic<bool> stopping{false};
  /// Computations in flight (submitted or taken jobs, and caller_joins callers on worker
  /// 0). The destructor sets kDraining and waits on this word until nothing else is left;
  /// leave_flight's decrement is the last access a leaving thread makes to the pool.
  std::atomic<std::uint32_t> in_flight{0};
  static constexpr std::uint32_t kDraining = std::uint32_t{1} << 31;
  // Workers that finished their start-up (pinning, unwinder warm-up, on_worker_start);
  // the constructor returns once all have, so that no start-up work (and none of its
  // allocations) happens while the pool runs jobs.
  std::atomic<std::uint32_t> started{0};
  std::size_t threads_count = 0;  ///< P, or P - 1 with caller_joins (worker 0 has no thread)
  /// caller_joins: a calling thread holds worker 0 (see run_as_caller).
  alignas(64) std::atomic<bool> caller_slot_busy{false};
  /// caller_joins: the root job of the caller on worker 0 (root_done wakes the caller
  /// when it ends), whether that caller sleeps, and the word it sleeps on, bumped by
  /// root_done and by notify_one (so that it helps again when work appears).
  std::atomic<ext::Job*> caller_root{nullptr};
  std::atomic<bool> caller_sleeping{false};
  alignas(64) std::atomic<std::uint32_t> caller_wake{0};

  MemoryFootprint footprint;

  [[nodiscard]] Block* block(std::uint32_t index) const noexcept { return &blocks[index]; }
  static Block* strand_block(const ext::SuspendedStrand& strand) noexcept { return strand.block_; }
  static std::uint32_t suspension(const ext::SuspendedStrand& strand) noexcept { return strand.suspension_; }
  /// The handle of `strand`, handed to a yield policy now (its suspension count made odd).
  static ext::SuspendedStrand handle(Block* strand) noexcept {
    const std::uint32_t suspension = strand->suspension.load(std::memory_order_relaxed) + 1;
    strand->suspension.store(suspension, std::memory_order_release);
    return ext::SuspendedStrand(strand, std::chrono::nanoseconds(strand->suspended_key), suspension);
  }
  void start_threads();
  void stop();
};

inline Worker* worker_of(const Block* block) noexcept { return static_cast<Worker*>(block->worker); }

// ---- scheduler.cpp -------------------------------------------------------------------
void worker_main(Worker* w);
/// One fewer computation (or caller) in flight; wakes a closing pool's destructor at 0.
/// Touches nothing of the pool after its decrement: the pool may be gone at once.
void leave_flight(PoolState& pool) noexcept;
/// Tests only: called by leave_flight right after its decrement with the number of
/// computations still in flight (the pool may be freed while it runs: it gets no pool).
extern std::atomic<void (*)(std::uint32_t)> after_leave_flight_for_testing;

/// The order in which each chain takes its blocks (pool.cpp's chain_order): position d
/// of a chain gets the chain's block order[d], shuffled so that consecutive positions
/// are never a constant stride apart. For tests.
std::vector<std::size_t> chain_order_for_testing(std::size_t depth);

/// `takt bench layout` and tests only: when set, PoolState's constructor gives position
/// d (0-based) of chain c (the chains worker by worker, level by level) the block this
/// returns, an index among the chains' blocks (0 .. chains·depth − 1) that it must
/// return once in all, instead of c·depth + chain_order(depth)[d]. Set it only while
/// no pool is being built on another thread.
using ChainLayout = std::size_t (*)(std::size_t chain, std::size_t position, std::size_t depth);
extern std::atomic<ChainLayout> chain_layout_for_testing;
/// Wakes the caller sleeping as worker 0, if one does (caller_joins).
void wake_caller(PoolState& pool) noexcept;
/// Wakes one sleeping worker if there is one (call after making work visible). Pairs
/// with sleep(): the sleeper raises `sleepers` and then rescans for work; this reads
/// `sleepers` with a read-modify-write, so one of the two sees the other (Dekker).
void notify_one(PoolState& pool) noexcept;
/// Wakes every sleeping worker (and a sleeping caller): for work only some workers can
/// take, where the one notify_one wakes may not be among them.
void notify_all(PoolState& pool) noexcept;
void set_level(Worker* w, Level* level) noexcept;
void emit(Worker* w, ext::StrandEvent event) noexcept;
std::uint64_t new_task_id(Worker* w) noexcept;

// ---- trading.cpp ---------------------------------------------------------------------
Block* claim_offer(PoolState& pool, Block* strand, std::uint32_t epoch) noexcept;
bool settle_offer(PoolState& pool, Block* strand, std::uint32_t epoch, Block*& head) noexcept;
void push_traded(Block* owner, Block* head) noexcept;
Block* pop_traded(PoolState& pool, Block* owner) noexcept;
/// A sub-chain for a party of a join on strand `owner` that is not the last: (if `claim`)
/// the offer of its own detaching steal if still unclaimed, else one from owner's pool. One is always
/// there or about to be (a thief between settling its offer and pushing it): the only
/// wait in the runtime, a few instructions long.
/// After a few spins it sleeps on owner->traded_wake until push_traded wakes it (a thief
/// preempted between settle and push must get to run, whatever the priorities).
Block* take_traded(PoolState& pool, Block* owner, bool claim, std::uint32_t epoch) noexcept;
/// Tests only: called by a thief after settling an offer, before it delivers the sub-chain
/// (push_traded: the window in which take_traded waits; or, `frozen`, to the owner's
/// frozen level, which waits for it in resume_frozen).
extern std::atomic<void (*)(bool frozen)> after_settle_for_testing;
/// A worker's call into the work source or yield policy begins: announced (odd) before
/// the pointer is loaded, seq_cst against the setter's exchange and its read of the count.
inline void begin_extension_call(Worker* w) noexcept { w->extension_calls.fetch_add(1, std::memory_order_seq_cst); }
/// ... and ends (even): the object's last use happens before a setter that saw the change.
inline void end_extension_call(Worker* w) noexcept { w->extension_calls.fetch_add(1, std::memory_order_release); }
/// Tests only: called by a thief right after its steal from a deque committed, before it
/// takes over the strand (the moment a preempted thief would resume at).
extern std::atomic<void (*)()> after_commit_for_testing;
/// Returns once no worker but the calling thread's is inside a call to the work source
/// or yield policy it loaded before the caller replaced them (see Worker::extension_calls).
void wait_for_extension_calls(PoolState& pool) noexcept;
/// `count` spare blocks for one strand to be handed back, nullptr when the reserve has
/// fewer or suspended_strands strands hold blocks of it already.
Block* reserve_take(PoolState& pool, std::size_t count) noexcept;
/// Gives back the blocks of one reserve_take (the strand resumed, or its hand-back was
/// called off).
void reserve_give(PoolState& pool, Block* head, Block* tail, std::size_t count) noexcept;

// ---- strand.cpp ----------------------------------------------------------------------
void prime_block(Block* block) noexcept;
void prime_large(Worker* w) noexcept;
void root_entry(Block* self, void* job);

struct ScopeState {
  /// Added to a scope's join counter when its strand parks at sync (see Scope::join_).
  static constexpr std::int64_t kSync = std::int64_t{1} << 40;
  static std::atomic<std::int64_t>& join(Scope& s) noexcept;
  static bool& stolen(Scope& s) noexcept;
  static std::uint64_t& id(Scope& s) noexcept;
  static void record_exception(Scope& s, std::exception_ptr error) noexcept;
  static Block* block(Scope& s) noexcept;
};

inline constexpr std::uint32_t kNoOffer = 0;
inline constexpr std::uint32_t kSettled = 0xFFFFFFFFu;
inline std::uint64_t offer_word(std::uint32_t epoch, std::uint32_t state) noexcept {
  return (static_cast<std::uint64_t>(epoch) << 32) | state;
}
inline std::uint32_t offer_epoch(std::uint64_t word) noexcept { return static_cast<std::uint32_t>(word >> 32); }
inline std::uint32_t offer_state(std::uint64_t word) noexcept { return static_cast<std::uint32_t>(word); }
/// Deque items: (epoch << 32) | block index.
inline std::uint64_t item_of(const Block* b) noexcept { return (static_cast<std::uint64_t>(b->epoch) << 32) | b->index; }

/// Pushes `parent`'s continuation (by its child once the child runs, or by a yield):
/// from here on a thief may take it, so nothing of `parent` may be read afterwards.
/// Returns the epoch of this push.
inline std::uint32_t publish_continuation(Worker* w, Block* parent, bool ready) noexcept {
  std::uint32_t epoch = ++parent->epoch;
  parent->ready = ready;
  parent->offer.store(offer_word(epoch, kNoOffer), std::memory_order_relaxed);
  bool was_empty;
  if (w->central != nullptr) [[unlikely]] {
    // A thief takes it from the queue without seeing this worker's level: the key goes along.
    parent->queued_key = w->level->key.load(std::memory_order_relaxed);
    was_empty = w->central->push(parent);
  } else {
    was_empty = w->deque->push(item_of(parent));
  }
  if (was_empty) [[unlikely]] notify_one(*w->pool);
  return epoch;
}

/// Takes back `parent`'s continuation pushed with `epoch`; false when another worker took it.
inline bool reclaim_continuation(Worker* w, Block* parent, std::uint32_t epoch) noexcept {
  if (w->central != nullptr) [[unlikely]] return w->central->remove(parent, epoch);
  return w->deque->pop();
}

}  // namespace takt::detail
