// Running cyclictest (rt-tests) as the latency floor of this machine, and reading its histogram.
//
// cyclictest measures how late a thread wakes from an absolute-time clock_nanosleep:
// the best any release mechanism can do on this kernel and hardware. takt runs it in
// the same invocation as its own measurements and reports ratios to it. When it cannot
// run (not installed, refused), the result says why and the caller goes on.
#pragma once

#include "os/cpu.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace takt::platform {

/// Order statistics of a latency distribution, in microseconds.
struct LatencyStats {
  std::uint64_t samples = 0;
  double min_us = 0;
  double p25_us = 0;
  double p50_us = 0;
  double p75_us = 0;
  double p95_us = 0;
  double p99_us = 0;
  double max_us = 0;
  double mean_us = 0;
};

/// Nearest-rank statistics of latency samples in nanoseconds (sorts `samples`).
LatencyStats latency_stats(std::vector<std::int64_t> samples_ns);

struct CyclictestOptions {
  std::chrono::nanoseconds duration = std::chrono::seconds(5);
  std::chrono::microseconds interval{1000};  ///< -i: period of each measuring thread
  bool fifo = true;                          ///< SCHED_FIFO (-p priority); false: --policy=other
  int priority = 90;
  os::CpuSet cpus;                     ///< one thread per CPU (-t -a); empty: every allowed CPU
  int histogram_us = 10000;            ///< -h: histogram range; later samples count as overflows
  std::string program = "cyclictest";  ///< looked up in PATH unless it contains '/'
  /// When cyclictest cannot run (not installed; rt-tests' cyclictest exits unless it may
  /// set SCHED_FIFO, whatever --policy says), measure with run_timer_probe() instead.
  bool probe_fallback = true;
  /// Asked while the measurement runs (about every 100 ms): true ends it early. A running
  /// cyclictest gets SIGINT, on which it prints the histogram of its samples so far and
  /// exits; the timer probe's threads stop sleeping. The result then holds the samples up
  /// to then and has `stopped` set. (For a command stopped by SIGINT/SIGTERM, which
  /// reaches takt alone when sent with kill.)
  std::function<bool()> stop_requested;
};

struct CyclictestResult {
  bool ran = false;
  std::string tool = "cyclictest";  ///< or "takt timer probe" (run_timer_probe)
  std::string reason;               ///< why it did not run, or a note on how it ran (e.g. no SCHED_FIFO)
  std::string command;              ///< the command line used
  /// "SCHED_FIFO/90" or "SCHED_OTHER"; the timer probe says "SCHED_FIFO/90 on 1 of 2
  /// threads, SCHED_OTHER on the others" where the kernel refused some threads.
  std::string policy;
  LatencyStats latency;
  std::uint64_t overflows = 0;  ///< samples above the histogram range (counted at max)
  bool stopped = false;         ///< ended early by options.stop_requested: fewer samples
};

/// Runs cyclictest for options.duration and summarises its histogram. Without the
/// SCHED_FIFO privilege (or with TAKT_NO_RT) it runs in SCHED_OTHER and says so. Never
/// throws for a cyclictest that is missing or fails: with probe_fallback the result is
/// run_timer_probe()'s and `reason` says why cyclictest did not run; without, `ran` is
/// false and `reason` says why.
CyclictestResult run_cyclictest(const CyclictestOptions& options);

/// cyclictest's measurement done by takt itself, for machines where cyclictest cannot
/// run: one thread per CPU (pinned), each sleeping to absolute CLOCK_MONOTONIC times
/// `interval` apart (clock_nanosleep, TIMER_ABSTIME) for options.duration and taking
/// wake-up time − target time as a sample. SCHED_FIFO at options.priority when allowed
/// and asked for, else SCHED_OTHER. Samples are kept exactly (no histogram, no overflows).
CyclictestResult run_timer_probe(const CyclictestOptions& options);

/// Parses the output of `cyclictest -q -h N` (the histogram: one line per microsecond
/// bucket with one count per thread, then "# Min/Avg/Max Latencies" and "# Histogram
/// Overflows" lines). Buckets of all threads are merged; percentiles are nearest-rank
/// over the bucket values (cyclictest truncates to whole microseconds); a percentile
/// that falls among the overflows is the maximum. Throws takt::Error when the text has
/// no histogram.
CyclictestResult parse_cyclictest_histogram(std::string_view output);

/// One line for a report: "cyclictest (SCHED_FIFO/90, 2000 samples): p50 46 us, p99 149
/// us, max 470 us", with the note in `reason` if any (a stopped measurement says so
/// there), or "cyclictest: did not run (REASON)".
std::string cyclictest_summary(const CyclictestResult& result);

/// The statistics for a JSON report: samples, min_us, p25_us, p50_us, p75_us, p95_us,
/// p99_us, max_us, mean_us; each null without samples (a value without a measurement is
/// null, not 0).
nlohmann::json latency_stats_json(const LatencyStats& stats);

/// The result for a JSON report: ran, tool, reason, command, policy, overflows, stopped
/// and latency_stats_json() of its latency.
nlohmann::json cyclictest_json(const CyclictestResult& result);

}  // namespace takt::platform
