// `takt bench cpus`: how fast each CPU runs the calibrated busy loop, alone and with every
// CPU busy. The `segments` and `synthetic` programs turn a declared length into a number
// of loop iterations with one calibration per process; on a machine whose CPUs change
// speed (frequency scaling, a VM's vCPUs sharing physical cores) their strands then run
// longer or shorter than declared, and a task's declared C is not the work it does.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace takt::bench {

struct CpuSpeedOptions {
  double seconds = 0.5;  ///< per CPU alone, and once more for all CPUs together
  /// Asked between chunks (may be empty; it is called from the measuring threads, so it
  /// must be thread-safe): true cuts the measurement in flight short and leaves it out
  /// (a phase shorter than `seconds` is not the phase asked for), and nothing more is
  /// measured: the report keeps what was measured before (CpuSpeedReport::complete).
  std::function<bool()> stop_requested;
};

/// One CPU's loop speed, in iterations per ns over chunks of kCpuSpeedChunk iterations.
/// A phase that was not measured (a stop came first) has no values (std::nullopt).
struct CpuSpeed {
  int cpu = -1;
  std::optional<double> alone_p50;     ///< median chunk speed with only this CPU measuring
  std::optional<double> together_p10;  ///< with every CPU measuring at once: tenth percentile
  std::optional<double> together_p50;  ///< ... and median
  std::optional<double> max;           ///< fastest chunk seen in either phase
};

struct CpuSpeedReport {
  nlohmann::json provenance;  ///< platform::provenance() when the measurement started
  double seconds = 0;
  double calibrated = 0;  ///< iterations per ns that the programs assume (apps::busy_units_per_ns)
  /// segments strands shorter than apps::kClockedStrand are timed by the monotonic clock
  /// here (apps::short_waits_are_timed), so the loop's speed does not lengthen them;
  /// false: they are the calibrated count and stretch like synthetic nodes.
  bool short_strands_timed = true;
  /// Every CPU this process may use, in order; those a stop left unmeasured have no values.
  std::vector<CpuSpeed> cpus;
  /// Every CPU was measured in both phases; false when CpuSpeedOptions::stop_requested
  /// ended the measuring first.
  bool complete = true;
  /// What stopped an incomplete report ("SIGINT"), set by the caller; empty if none.
  std::string stopped_by;
  /// calibrated / the slowest CPU's median: how much longer than declared a strand runs
  /// on that CPU (1 = as declared), alone and with every CPU busy.
  double worst_stretch_alone = 0;
  double worst_stretch_together = 0;
};

constexpr unsigned kCpuSpeedChunk = 20'000;

/// Measures every CPU this process may use: each alone in turn, then all together.
/// options.stop_requested ends it early: the CPUs measured alone before keep their
/// values, the rest (and the together phase, unless it was over) have none.
CpuSpeedReport measure_cpu_speed(const CpuSpeedOptions& options);
/// CPUs measured alone, and whether the together phase was measured.
std::size_t cpus_measured_alone(const CpuSpeedReport& report);
bool measured_together(const CpuSpeedReport& report);
/// Sets the report's worst stretches from its calibration and its CPUs' medians
/// (a CPU without a median in a phase is left out of that phase).
void set_worst_stretch(CpuSpeedReport& report);
std::string format_cpu_speed(const CpuSpeedReport& report);
nlohmann::json to_json(const CpuSpeedReport& report);

}  // namespace takt::bench
