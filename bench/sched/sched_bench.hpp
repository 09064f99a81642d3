// The scheduling framework's benchmark: cost per pipeline stage and admit / schedule cost against #PEs.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace takt::bench {

struct SchedBenchOptions {
  /// Each measurement is repeated this often; the median is reported.
  int repeats = 7;
  /// Fewer operations per measurement (a smoke run, e.g. in tests).
  bool quick = false;
  /// Parts to run (all by default) and, for the scaling part, which PE counts and
  /// topologies (empty: all). Used to count instructions of one configuration
  /// under valgrind (bench/sched/instructions.sh).
  bool per_stage = true;
  bool scaling = true;
  bool idle = true;
  bool baselines = true;
  std::vector<int> pes;
  std::vector<std::string> topologies;
  /// Per-stage part: only these chain depths (empty: 1..8).
  std::vector<int> depths;
  /// Called with a line of progress ("per-stage depth 3 ...").
  std::function<void(const std::string&)> progress;
  /// Called with the results so far after each part (per-stage, scaling) and after each
  /// measurement of the scaling part (one topology at one PE count, as the progress line
  /// reports it), to write partial results.
  std::function<void(const nlohmann::json&)> checkpoint;
  /// Asked before each measurement (a per-stage depth, a scaling step, the baselines):
  /// true ends the run there; the measurement in flight is finished. The results then
  /// hold what was measured and "stopped": true.
  std::function<bool()> stop_requested;
};

/// Runs the benchmark single-threaded on the calling thread and returns its
/// results (keys carry their unit: `per_stage_ns`, `admit_ns`, ...):
///  - per_stage: chains of 1..8 head-queue stages between the entry and the
///    terminal pipe, one PE; the cost of admit() and schedule() per task against
///    the depth, and the slope (Theil-Sen): the cost of carrying one change through
///    one more stage, the mean of the admit and schedule slopes (CoBaS measured
///    about 210 ns; target <= 50 ns).
///  - scaling: admit() and schedule() per task with 2..256 virtual PEs for four
///    topologies (per-PE pipes behind a load balancer, and the built-in gedf-paws,
///    partitioned-dm and federated), 8 tasks in flight per PE (and gedf-paws with a
///    global queue held at 64 jobs), and the growth from 2 to 256 PEs (CoBaS grew
///    linearly to about 24 us at 254 PEs; target: at most 2x); also schedule() of
///    an idle PE when nothing is queued anywhere.
///  - baselines: one push and one pop of oneTBB's concurrent_priority_queue and of
///    an OpenMP-lock-protected std::priority_queue, measured in the same run, and
///    the framework's admit + schedule relative to them.
/// A topology of the scaling part that a stop cut short has "complete": false and the PE
/// counts it was measured at in "pes_measured"; its growth ratios are over those.
nlohmann::json run_sched_bench(const SchedBenchOptions& options);

/// Theil-Sen slope of y against x (x distinct): the nearest-rank median of the slopes
/// between all pairs of points (for an even count the lower middle one, as every median
/// of takt's reports), so that one disturbed measurement on a shared machine does not
/// tilt it.
double theil_sen_slope(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace takt::bench
