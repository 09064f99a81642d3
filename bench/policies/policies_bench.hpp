// The policy experiment (`takt bench policies`): the same task sets under all four policies at
// several utilizations, with cyclictest run in the same invocation as the latency floor.
//
// Two workloads, each at every utilization U (a share of the m cores):
//   - "rt-openmp": task sets drawn by the rt-openmp generator (rt-openmp §VI.A; synchronous
//     tasks of busy-wait strands, mostly light) at timescale 2 ms, several seeds per U;
//   - "fine": one fine-grained parallel task per U (many 4 µs strands per segment, the
//     grain at which rtws §VII compares work stealing with a centralized greedy queue),
//     C = U·m·T with T = 5 ms and D = min(T, 3C/4) (on 2 cores federated then grants it
//     both; on more, fewer than m: 3 of 8 and 6 of 16 at 30 %, docs/results.md).
// Every set runs under every policy, admitted or not (the analysis verdict is reported
// beside the result), for enough time that each (workload, U, policy) cell has at least
// `min_jobs` jobs. Per cell: jobs, deadline misses, miss ratio, mean relative response
// time (response / relative deadline over the finished jobs).
#pragma once

#include "model/task_set.hpp"
#include "platform/cyclictest.hpp"
#include "platform/metrics.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace takt::platform {
class SignalStop;
}

namespace takt::bench {

struct PoliciesReport;

struct PoliciesBenchOptions {
  int cores = 2;                                       ///< m
  std::vector<int> utilizations{30, 50, 70};           ///< percent of m
  std::vector<std::string> workloads{"rt-openmp", "fine"};
  int sets = 3;                                        ///< rt-openmp sets per utilization (seeds 1..sets)
  std::uint64_t min_jobs = 1000;                       ///< per (workload, utilization, policy)
  std::chrono::nanoseconds max_run = std::chrono::seconds(30);  ///< cap on one run
  std::chrono::nanoseconds cyclictest = std::chrono::seconds(10);
  bool run_cyclictest = true;
  std::function<void(const std::string&)> progress;
  /// Called with the report after each finished cell (to write partial results).
  std::function<void(const PoliciesReport&)> checkpoint;
  /// The SignalStop that handles SIGINT/SIGTERM for the whole experiment (the command
  /// keeps it until its results are written); null: run_policies_bench makes its own.
  /// cyclictest and each run attach to it in turn; a signal between them is counted and
  /// ends the experiment before the next set.
  platform::SignalStop* signals = nullptr;
};

/// One (workload, utilization, policy) cell, summed over its sets.
struct PolicyCell {
  std::string workload;
  int utilization = 0;  ///< percent of m
  std::string policy;
  int sets = 0;          ///< sets that ran
  int sets_planned = 0;  ///< sets of the workload: more than `sets` in a cell an early stop cut short
  int admitted = 0;      ///< sets the policy's analysis admitted
  std::uint64_t jobs = 0;
  std::uint64_t misses = 0;
  std::uint64_t finished = 0;  ///< finished, not failed: the jobs of the mean below
  double miss_ratio = 0;
  double mean_relative_response = 0;
  double max_relative_response = 0;
  /// Σ executed / Σ declared C over the finished jobs whose executed time is known
  /// (platform::JobResult::executed): above 1, the jobs ran longer than the C that the
  /// policies' analyses assumed; 0 when no job's is known (shown as "-").
  double work_ratio = 0;
  double seconds = 0;  ///< run time of all its sets, measured (RunInfo::duration), s
  /// The cell ran fewer jobs than PoliciesBenchOptions::min_jobs: its runs hit max_run,
  /// or the experiment stopped in it (`stopped`).
  bool short_of_jobs = false;
  /// The experiment stopped in this cell (a signal, a failed run): its last set that ran
  /// may have run only partly, and the sets after it not at all.
  bool stopped = false;
};

/// Sums the jobs of a cell's runs: jobs with an outcome, misses, and over the finished
/// (not failed) jobs the relative responses R/D and, where known, executed time against
/// the declared C. finish() sets the cell's miss ratio, mean relative response (over all
/// its finished jobs, not a mean of per-set means) and work ratio.
struct CellTally {
  double relative_sum = 0;
  double executed_ns = 0, declared_ns = 0;
  void add(PolicyCell& cell, const platform::RunMetrics& metrics, const model::TaskSet& set);
  void finish(PolicyCell& cell) const;
};

struct PoliciesReport {
  nlohmann::json provenance;  ///< platform::provenance() when the experiment started
  nlohmann::json options;     ///< the PoliciesBenchOptions that shape the results
  std::string machine;     ///< CPUs, privileges
  std::string privileges;  ///< os::Privileges::summary()
  platform::CyclictestResult cyclictest;
  std::vector<PolicyCell> cells;
  std::string stopped;         ///< why the experiment ended early ("" when it ran to the end or has not yet)
  bool complete = false;       ///< ran to the end (false in the checkpoints and when stopped early)
  double max_run_seconds = 0;  ///< PoliciesBenchOptions::max_run
};

/// What the machine refuses of `options` (more cores than CPUs this process may use), as
/// a message naming the option and what to give; "" when nothing.
std::string policies_bench_machine_problem(const PoliciesBenchOptions& options);

/// Runs the experiment. A run that fails (bad input, a job left running) ends the
/// experiment; the report then holds the cells measured so far and `stopped` says why.
PoliciesReport run_policies_bench(const PoliciesBenchOptions& options);

/// The task set of workload "fine" at `utilization` percent of `cores` (YAML text).
std::string fine_grained_set(int cores, int utilization);

/// Markdown tables: miss ratio and mean relative response per policy, and cyclictest.
std::string format_markdown(const PoliciesReport& report);
nlohmann::json to_json(const PoliciesReport& report);

}  // namespace takt::bench
