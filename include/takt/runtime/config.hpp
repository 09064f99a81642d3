// Configuration of a worker pool: CPUs, static memory (depth D, stack size) and queue strategy.
#pragma once

#include "takt/cpu_set.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace takt {

/// How the ready strands of a pool are queued (the same task code runs under each).
enum class QueueStrategy {
  /// One Chase–Lev deque per worker, owner LIFO, thieves FIFO from random victims.
  work_stealing,
  /// PAWS rules B, C, E: per worker one deque per priority key (ordered like an absolute
  /// deadline, smaller = higher priority); the owner takes the bottom of its highest-priority
  /// non-empty deque, a thief steals the top of the highest-priority non-empty deque of a
  /// random busy worker.
  priority_aware,
  /// The RTCG baseline of RTWS: one locked queue per pool, as GNU OpenMP's team queue;
  /// every spawn and every steal goes through it.
  centralized_greedy,
};

/// The static memory of P³LS³ §4: every worker owns `depth` coroutine stacks (the
/// resources R_S, one block per spawn depth), all allocated when the pool starts.
struct StaticMemory {
  /// D: the deepest nesting of strands a computation reaches, the root counting as 1
  /// (fib(n) needs about n). A spawn deeper than this throws takt::Error.
  std::size_t depth = 64;
  /// Bytes of each coroutine stack (rounded up to whole pages); a guard page sits below
  /// each one. takt::measure() reports the peak a computation uses.
  std::size_t stack_size = 64 * 1024;
  /// Bytes of the one large stack per worker used by takt::call_on_large_stack for
  /// deep serial code; 0 means such calls run on the strand's own stack.
  std::size_t large_stack_size = 1024 * 1024;
};

/// Everything a pool needs at start-up; nothing is allocated after the constructor.
struct PoolConfig {
  /// CPUs the workers run on; empty means the CPUs the thread that makes the pool may run
  /// on (its affinity mask: the process's CPUs unless that thread was pinned, e.g. a
  /// worker of another pool).
  CpuSet cpus;
  /// Number of workers P; 0 means one per CPU of `cpus`.
  std::size_t workers = 0;
  /// Pin worker i to cpus[i mod |cpus|]; otherwise every worker may run on all of `cpus`.
  bool pin = true;
  StaticMemory memory;
  QueueStrategy strategy = QueueStrategy::work_stealing;
  /// priority_aware only: deques (and chains of D blocks) per worker, i.e. how many
  /// computations of different priority a worker can hold at once (one running, the
  /// others preempted). Other strategies use one.
  std::size_t priority_levels = 4;
  /// How many strands may be handed back to a yield policy at the same time (PAWS rule
  /// F). Each needs up to D spare blocks, allocated at start; 0 disables handing back.
  std::size_t suspended_strands = 0;
  /// Touch every stack page at start so that no page fault happens while running.
  bool prefault = true;
  /// How long an idle worker keeps trying to steal before it sleeps on a futex. Long
  /// enough to ride out a short preemption of another worker (a woken worker may have to
  /// wait for its CPU); an idle pool still sleeps after this.
  std::chrono::nanoseconds idle_spin = std::chrono::microseconds(200);
  /// Called on each worker thread before it runs anything (e.g. to set SCHED_FIFO). The
  /// Pool constructor returns after every worker has called it. An exception it throws
  /// is reported as a warning; the worker runs on.
  std::function<void(std::size_t worker)> on_worker_start;
  /// The thread that calls Pool::run takes part as worker 0 until its computation is
  /// done, as OpenMP's master thread and a oneTBB arena's caller do: the pool starts
  /// threads only for workers 1..P-1 (pinned to cpus[1..]), and run() returns without a
  /// wake-up of the caller. Worker 0 runs its caller's root strand and steals while that
  /// computation lasts; it never takes submitted jobs or work-source jobs, which run on
  /// workers 1..P-1. One caller at a time holds worker 0; a concurrent caller, or a
  /// caller that is itself a worker of some pool, submits and blocks as without this
  /// option; so does every caller while a work source or yield policy is installed.
  /// While its computation is unfinished, worker 0 may run stolen strands of other
  /// computations of this pool on the calling thread (as any worker does): do not hold
  /// a lock around run() that those take. takt does not pin the calling thread (pin it
  /// to cpus[0] for the P-CPU picture); on_worker_start is not called for worker 0.
  /// Needs P >= 2.
  bool caller_joins = false;
  /// Used in messages.
  std::string name = "pool";
  /// Measurement mode (set by takt::measure): stacks are reserved but not committed, and
  /// every parallel loop splits down to its grain, to build the largest invocation tree.
  bool measurement_mode = false;
};

}  // namespace takt
