// Per-worker scheduling statistics and the static-memory footprint of a pool.
#pragma once

#include <cstddef>
#include <cstdint>

namespace takt {

/// Counters of one worker since the pool started or since the last reset_statistics().
struct WorkerStatistics {
  std::uint64_t spawns = 0;          ///< strands this worker spawned
  std::uint64_t steals = 0;          ///< successful steals (continuations taken from others)
  std::uint64_t failed_steals = 0;   ///< steal attempts that found nothing or lost a race
  std::uint64_t sleeps = 0;          ///< times the worker slept on the futex
  std::uint64_t jobs = 0;            ///< root computations started on this worker
  std::uint64_t parks = 0;           ///< syncs that found a stolen child unfinished
  std::uint64_t yields = 0;          ///< strands suspended for a yield policy
  std::uint64_t refused_yields = 0;  ///< yield requests that could not be honoured
  std::uint64_t max_depth = 0;       ///< deepest strand this worker started (not reset)
  /// Nanoseconds the worker spent in the scheduler without a strand to run: looking for
  /// work, backing off and asleep (for a caller that joins as worker 0, while it waits
  /// for its computation; not the time it spends outside the pool), at most the time
  /// since the last reset. An interval still going on is counted up to the moment of
  /// reading; one that ends while it is read may be left out of that reading, so two
  /// readings of a running pool need not grow.
  std::uint64_t idle_ns = 0;

  /// Adds another worker's counters (the deepest strand is the larger of the two), as
  /// Pool::total_statistics() does over the workers.
  WorkerStatistics& operator+=(const WorkerStatistics& other) noexcept {
    spawns += other.spawns;
    steals += other.steals;
    failed_steals += other.failed_steals;
    sleeps += other.sleeps;
    jobs += other.jobs;
    parks += other.parks;
    yields += other.yields;
    refused_yields += other.refused_yields;
    if (other.max_depth > max_depth) max_depth = other.max_depth;
    idle_ns += other.idle_ns;
    return *this;
  }
};

/// The static memory of a pool (P³LS³ §4): what was allocated at start-up, and the
/// bound S_P ≤ P·R_S it guarantees.
struct MemoryFootprint {
  std::size_t workers = 0;          ///< P
  std::size_t depth = 0;            ///< D, blocks per chain
  std::size_t chains_per_worker = 0;  ///< 1, or the priority levels of a priority_aware pool
  std::size_t stack_size = 0;       ///< bytes of one coroutine stack
  std::size_t block_bytes = 0;      ///< one block: stack + guard page + task record
  std::size_t resources_per_chain = 0;  ///< R_S = D · block_bytes
  std::size_t reserve_blocks = 0;   ///< spare blocks for handed-back strands
  std::size_t bound_bytes = 0;      ///< P · chains · R_S + reserve: all the strands can ever use
  /// What the pool allocates at start: the bound, the large stacks and signal stacks
  /// (with guard pages), and the worker records, levels and deque slots.
  std::size_t total_bytes = 0;
};

}  // namespace takt
