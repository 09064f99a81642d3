// `takt bench runtime`: fib, UTS, matmul and the RTWS synthetic tasks on takt, oneTBB,
// OpenMP and serially, isolated and multiprogrammed; ratios and targets; JSON.
#pragma once

#include "bench/runtime/kernels.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <chrono>
#include <string>
#include <vector>

namespace takt::bench {

struct RuntimeBenchOptions {
  std::string json_path;              ///< write the results here ("" = no JSON)
  int repetitions = 0;                ///< timed runs per kernel and runtime (0 = each kernel's default)
  bool quick = false;                 ///< small sizes, few runs: a smoke test (well under a minute)
  std::size_t workers = 0;            ///< threads per runtime (0 = the CPUs this process may use)
  std::vector<std::string> kernels;   ///< run only these kernels (empty = all)
  std::vector<std::string> runtimes;  ///< run only these runtimes: takt, onetbb, openmp, serial (empty = all)
  bool pin = true;                    ///< pin takt's workers (its default; oneTBB and OpenMP are not pinned)
  /// takt's pools of 2+ workers let the timing thread join as worker 0 (PoolConfig::
  /// caller_joins), so each runtime uses P threads with the caller among them, as
  /// oneTBB's arena and OpenMP's team do; false: P worker threads, the caller blocks.
  bool caller_joins = true;
  /// n of the fib kernels (0 = 30, or 25 with quick); other sizes show how a runtime's
  /// tail ratio depends on the length of its run.
  std::uint64_t fib_n = 0;
  /// Period of the multiprogrammed condition's load (busy a quarter of each period): the
  /// same share of the CPUs taken in fewer, longer preemptions, or more, shorter ones.
  std::chrono::nanoseconds load_period = std::chrono::milliseconds(1);
  /// The schedule of OpenMP's loops (matmul, synthetic); dynamic,1 by default.
  OpenmpSchedule openmp_schedule;
  /// Asked between rounds (may be empty): true ends the measuring there (a SIGINT, for
  /// `takt bench runtime`); the rounds every runtime finished are kept, the table, the
  /// targets and the JSON (complete: false, stopped: true) come from them.
  std::function<bool()> stop_requested;
};

/// Which of the `n` runtimes runs `i`-th in round `round`: the order rotates by one every
/// two rounds and every other round runs it backwards, so that over four rounds each
/// runtime runs just before and just after each of its neighbours equally often (with
/// the rotation alone, takt, listed before oneTBB, ran just before it in 3 of 4 rounds).
std::size_t round_position(std::size_t round, std::size_t i, std::size_t n);

/// What the machine refuses of `options` (more workers than CPUs this process may use),
/// as a message naming the option and what to give; "" when nothing.
std::string runtime_bench_machine_problem(const RuntimeBenchOptions& options);

/// Runs the benchmark, prints a table and the targets, writes JSON. Returns the exit code.
int run_runtime_bench(const RuntimeBenchOptions& options);

}  // namespace takt::bench
