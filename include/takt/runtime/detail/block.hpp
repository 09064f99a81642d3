// A block: one coroutine stack plus the record of the strand running on it (the unit of
// static memory and of resource trading, P³LS³ §4.2), and the hot part of a worker.
#pragma once

#include "takt/runtime/detail/context.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace takt {
class Scope;
namespace ext {
class Job;
}
}  // namespace takt

namespace takt::detail {

struct Block;

/// The part of a worker that inline code (spawn, sync, parallel_for) reads.
struct WorkerHead {
  /// Bit 0: a strand observer is installed; bit 1: a yield was requested.
  std::atomic<std::uint32_t> hooks{0};
  /// Deque ends of the worker's current level, for parallel_for's split decision.
  const std::atomic<std::int64_t>* level_top = nullptr;
  const std::atomic<std::int64_t>* level_bottom = nullptr;
  /// Measurement mode: split every loop (the largest invocation tree).
  bool measuring = false;
  /// The worker thread's exception-handling state (see Context).
  EhGlobals* eh = nullptr;
};

inline constexpr std::uint32_t hook_observer = 1;
inline constexpr std::uint32_t hook_yield = 2;
/// The worker runs call_on_large_stack's function: spawns on a Scope of the strand below
/// run inline, and a sync that would park throws (the frames are on the one large stack).
inline constexpr std::uint32_t hook_large_stack = 4;

/// Block::special bits: completion takes the slow path for roots and observed strands.
inline constexpr std::uint8_t kRootStrand = 1;
inline constexpr std::uint8_t kObservedStrand = 2;

/// One block. Fields above `offer` belong to the strand that occupies the block and
/// are written only by the worker running it (or, while it is suspended in a deque,
/// read by the thief that won it); the rest is shared between workers.
struct alignas(64) Block {
  // -- hot: read and written on every spawn ------------------------------------------
  Context context;                ///< the strand's registers while it is suspended
  Block* chain_next = nullptr;    ///< the block the strand's children run on (depth + 1)
  WorkerHead* worker = nullptr;   ///< the worker running the strand now
  void (*invoke)(Block*, void*) = nullptr;  ///< entry of a spawned child
  void* closure = nullptr;        ///< the callable handed to spawn (on the parent's stack)
  Block* parent = nullptr;        ///< the spawning strand's block (nullptr for a root)
  Scope* parent_scope = nullptr;  ///< the parent's scope that spawned this strand
  Scope* push_scope = nullptr;    ///< this strand's scope whose spawn pushed its continuation
  char* stack_limit = nullptr;    ///< lowest address a spawn may run at (stack + headroom)
  /// stack_hi - stack_limit: a spawn or sync whose stack pointer is not among the
  /// spawn_span bytes above stack_limit takes the slow path (near the end of the stack,
  /// on another strand's stack or the large stack).
  std::uint32_t spawn_span = 0;
  /// Position in a chain, the root being 1. Invariant: a block only ever sits at the same
  /// position of a chain (trades move sub-chains 1..k to positions 1..k), so spawn
  /// never writes it; only blocks taken from the reserve are renumbered.
  std::atomic<std::uint32_t> depth{0};
  std::uint32_t epoch = 0;        ///< bumped each time the continuation is pushed
  std::uint32_t parent_epoch = 0; ///< parent's epoch when it spawned this strand
  std::uint32_t index = 0;        ///< position in the pool's block table
  bool migrated = false;          ///< stolen or handed back since it started
  std::uint8_t special = 0;       ///< 0: a plain child; else kRootStrand and/or kObservedStrand
  bool ready = false;             ///< pushed by a yield (no child detached from it)
  /// This strand's Scopes whose continuation a thief took and that are not synced since
  /// (a thief counts one when it marks a scope stolen, its sync's park uncounts it): a
  /// strand that returns with one still counted would let the computation go on without
  /// a child that may still run, so that ends the process (strand_kept_a_scope_open).
  std::uint32_t open_stolen_scopes = 0;
  // -- shared ------------------------------------------------------------------------
  /// Resource-trading word (epoch << 32 | state): state 0 = no offer, ~0 = settled,
  /// else the index + 1 of the head of the sub-chain a thief traded in for it.
  alignas(64) std::atomic<std::uint64_t> offer{0};
  /// Sub-chains thieves traded in for this strand's detached children, not yet taken
  /// (tag << 32 | head index + 1). Kept in the block, not the scope: a party that is not
  /// the last of a join takes its sub-chain after arriving, when the scope may be gone.
  /// All of them are k blocks long for a strand at depth k, so they are interchangeable.
  std::atomic<std::uint64_t> traded{0};
  /// Link between traded sub-chains in a `traded` pool (block index + 1, 0 = end).
  std::atomic<std::uint32_t> pool_next{0};
  /// Futex word of parties waiting for a sub-chain in `traded` (take_traded): bit 0 set
  /// while one may sleep; push_traded then adds 1 (clearing it, a new value) and wakes.
  std::atomic<std::uint32_t> traded_wake{0};
  /// Last block of the traded sub-chain this block heads.
  Block* sub_tail = nullptr;
  /// Central queue links (centralized_greedy).
  Block* queue_prev = nullptr;
  Block* queue_next = nullptr;
  std::uint32_t queued_epoch = 0;  ///< epoch of the continuation in the central queue
  std::int64_t queued_key = 0;     ///< its computation's key, which a thief's level takes
  bool queued = false;
  /// Hand-outs and give-backs of this strand to and from a yield policy: odd while a
  /// policy holds it. A SuspendedStrand carries the odd value of its hand-out; giving it
  /// back advances the count by one, so a handle given back twice (or a stale one, from
  /// an earlier suspension) is told from the one in force.
  std::atomic<std::uint32_t> suspension{0};
  // -- per computation / profiling ----------------------------------------------------
  ext::Job* job = nullptr;        ///< the job of a root strand
  std::int64_t suspended_key = 0; ///< key of a handed-back strand
  std::uint64_t task_id = 0;      ///< observer only
  std::uint32_t strand_index = 0; ///< observer only
  std::uint32_t scope_seq = 0;    ///< observer only
  // -- memory --------------------------------------------------------------------------
  char* stack_lo = nullptr;
  char* stack_hi = nullptr;
};
// Four cache lines, the strand's own fields in the first two (the static memory a pool
// reports counts them: MemoryFootprint).
static_assert(sizeof(Block) == 256 && offsetof(Block, offer) == 128, "a field added to Block grew it");

/// True when `sp` lies in [block.stack_limit, block.stack_hi), the fast path of spawn and
/// sync (one compare: an address below stack_limit wraps around to a large distance).
inline bool in_spawn_range(const Block& block, const char* sp) noexcept {
  return static_cast<std::uintptr_t>(sp - block.stack_limit) < block.spawn_span;
}

/// The stack pointer of the calling code.
inline char* stack_pointer() noexcept {
#if defined(__x86_64__)
  char* sp;
  asm volatile("mov %%rsp, %0" : "=r"(sp));
  return sp;
#else
  return static_cast<char*>(__builtin_frame_address(0));
#endif
}

/// Slow paths of spawn and sync, out of line (src/runtime/strand.cpp).
[[noreturn]] void throw_depth_exhausted(const Block* self);
[[noreturn]] void throw_stack_exhausted(const Block* self, const char* sp);
/// False when the spawn must run the child inline (on the worker's large stack).
bool spawn_hooks(Scope& scope, Block* self);
/// The spawn of a Scope made outside any pool (the serial elision): throws takt::Error
/// when a strand of a pool calls it (the scope is not that strand's).
void check_serial_spawn();
/// Called by a child once it has its own copy of the callable: publishes the parent's
/// continuation (pushes it), so that it may be stolen from here on.
void child_started(Block* self) noexcept;
/// The block of the strand the calling thread runs, or nullptr outside a pool (or on a
/// large stack). Out of line on purpose: a strand may migrate between threads, so a
/// thread-local address must never be cached across a spawn or sync.
Block* current_block() noexcept;

}  // namespace takt::detail
