// The latency micro-benchmarks of RT-OpenMP §VI.B (Table II) on this machine, with cyclictest as the floor.
//
// Scheduling latency: on every core a low-priority job spins for 60 % of each period;
// 30 % into the period a high-priority job is released on every core. Its release →
// first-instruction time is measured
//   - "direct":  through takt's release engine, one lane per core whose thread runs the
//                job itself (RT-OpenMP's distributed dispatcher, Algorithm 1), and
//   - "handoff": through one central lane that hands the job to a worker thread on
//                another core (futex wake), as a central RT-scheduler would.
// Barrier latency: a team of threads, one per core (more when asked), meets at the
// futex barrier every 200 µs after a random 0–50 µs of work; per round, the time from
// the last thread in to the last thread out.
// Each measurement runs under SCHED_FIFO (when allowed) and under SCHED_OTHER, with
// cyclictest run in the same invocation under the same class for the ratios. The CPU
// wake-up latency is held at 0 µs (PM QoS) for all of them unless asked not to.
#pragma once

#include "platform/cyclictest.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace takt::bench {

struct LatencyBenchOptions {
  std::chrono::nanoseconds seconds = std::chrono::seconds(3);  ///< per measurement
  std::chrono::microseconds period{1000};                      ///< release period (and cyclictest -i)
  bool fifo = true;   ///< run the SCHED_FIFO condition (when the privilege is there)
  bool other = true;  ///< run the SCHED_OTHER condition
  bool cyclictest = true;
  /// Hold the CPU wake-up latency at 0 µs (PM QoS) during the whole benchmark, as
  /// cyclictest does by default; cyclictest itself is run with --default-system so that
  /// both measure the same system state.
  bool pm_qos = true;
  /// Called with a line before each measurement (progress on stderr).
  std::function<void(const std::string&)> progress;
  /// Asked before each measurement, and during the cyclictest run (which it then ends
  /// early, keeping the samples so far): true ends the benchmark there, the measurement
  /// in flight is finished. The report then has `stopped` set and `complete` unset.
  std::function<bool()> stop_requested;
};

struct LatencyReport;
/// Called with the report so far after each measurement (to write partial results).
using LatencyCheckpoint = std::function<void(const LatencyReport&)>;

/// One measured distribution.
struct LatencyResult {
  std::string benchmark;  ///< "scheduling_latency" or "barrier_latency"
  std::string variant;    ///< "direct", "handoff", "sleep", "spin-then-sleep", "openmp"
  unsigned threads = 0;
  platform::LatencyStats stats;
  /// Ratios of this distribution's p50 and p99 to cyclictest's (0 when cyclictest did not run).
  double ratio_p50 = 0;
  double ratio_p99 = 0;
  /// A takt barrier row's p50 and p95 over those of libgomp's barrier with the same number
  /// of threads, measured in the same condition (0 when there is none).
  double ratio_p50_openmp = 0;
  double ratio_p95_openmp = 0;
  std::string target;  ///< the issue's target this row is checked against, "" when none
  bool target_met = false;
  std::string note;
  /// Why this row could not be measured ("" where it was): e.g. OpenMP gave a team of
  /// another size. The other rows are measured; the command then ends with this error.
  std::string error;
};

/// The release-latency target of a scheduling row: p50 and p99 within 1.5x of the
/// floor's (ratios, target, target_met); not met without samples or with `skipped`
/// releases; no target (a note) without a floor.
void judge_scheduling_latency(LatencyResult& r, const platform::CyclictestResult& floor, std::uint64_t skipped);
/// The barrier target of a 2-thread row: p95 at most 20 us (none for other team sizes).
void judge_barrier_latency(LatencyResult& r);
/// Sets a takt barrier row's ratios to `openmp` (libgomp's row of the same team size)
/// and names them in its note; other rows, and rows without samples, are left as they are.
void compare_with_openmp(LatencyResult& own, const LatencyResult& openmp);

struct LatencyCondition {
  std::string name;  ///< "SCHED_FIFO" or "SCHED_OTHER"
  bool ran = false;
  std::string reason;  ///< why it did not run
  platform::CyclictestResult cyclictest;
  std::vector<LatencyResult> results;
};

struct LatencyReport {
  nlohmann::json provenance;  ///< platform::provenance() when the benchmark started
  std::vector<int> cpus;
  std::string privileges;
  std::string pm_qos;  ///< the wake-up latency request's summary
  std::chrono::nanoseconds seconds{};
  std::chrono::microseconds period{};
  std::vector<LatencyCondition> conditions;
  bool complete = false;  ///< every measurement asked for has run
  bool stopped = false;   ///< options.stop_requested ended the run before every measurement had run
  std::string stopped_by;  ///< the caller's name for what stopped it ("SIGINT"), written when set
};

LatencyReport run_latency_bench(const LatencyBenchOptions& options, const LatencyCheckpoint& checkpoint = {});
nlohmann::json to_json(const LatencyReport& report);
std::string format_table(const LatencyReport& report);

/// Scheduling-latency samples and how the releases were accounted for.
struct SchedulingLatency {
  platform::LatencyStats stats;  ///< one sample per released job
  std::uint64_t released = 0;
  std::uint64_t skipped = 0;  ///< releases that found the previous job still running
  /// Jobs started per CPU, as recorded by the thread that started them: each lane's own
  /// CPU when it runs its job, the worker's CPU under the handoff.
  std::map<int, std::uint64_t> started_on;
};

// The measurements, usable alone. `fifo`: SCHED_FIFO priorities, else SCHED_OTHER.
SchedulingLatency measure_scheduling_latency(const std::vector<int>& cpus, bool fifo, bool handoff,
                                             std::chrono::nanoseconds duration,
                                             std::chrono::microseconds period);
/// One barrier row: a team of `threads` and whether they spin before they sleep.
struct BarrierTeam {
  unsigned threads = 0;
  bool spin = false;
};
/// The barrier rows for `cores` cores: 2 threads sleeping (the target), 2 spinning (where
/// each has its own core), one thread per core sleeping and spinning (the size of
/// RT-OpenMP's Table II row, 12 threads on 12 cores; when cores > 2), and 2 per core.
std::vector<BarrierTeam> barrier_teams(unsigned cores);

platform::LatencyStats measure_barrier_latency(const std::vector<int>& cpus, unsigned threads, bool fifo,
                                               std::chrono::nanoseconds spin,
                                               std::chrono::nanoseconds duration);
/// The same rounds with libgomp's `#pragma omp barrier` (its defaults: it spins for a
/// while, then sleeps on a futex) in a team of `threads` OpenMP threads, the calling
/// thread one of them, each placed and prioritised as takt's team; the threads go back
/// to SCHED_OTHER and the caller to its CPUs afterwards. Throws takt::Error when OpenMP
/// gives a team of another size.
platform::LatencyStats measure_openmp_barrier_latency(const std::vector<int>& cpus, unsigned threads,
                                                      bool fifo, std::chrono::nanoseconds duration);

}  // namespace takt::bench
