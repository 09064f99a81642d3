// `takt bench cpus`: how fast each CPU runs the calibrated busy loop, alone and with every
// CPU busy. The `segments` and `synthetic` programs turn a declared length into a number
// of loop iterations with one calibration per process; on a machine whose CPUs change
// speed (frequency scaling, a VM's vCPUs sharing physical cores) their strands then run
// longer or shorter than declared, and a task's declared C is not the work it does.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace takt::bench {

struct CpuSpeedOptions {
  double seconds = 0.5;  ///< per CPU alone, and once more for all CPUs together
};

/// One CPU's loop speed, in iterations per ns over chunks of kCpuSpeedChunk iterations.
struct CpuSpeed {
  int cpu = -1;
  double alone_p50 = 0;     ///< median chunk speed with only this CPU measuring
  double together_p10 = 0;  ///< with every CPU measuring at once: tenth percentile
  double together_p50 = 0;  ///< ... and median
  double max = 0;           ///< fastest chunk seen in either phase
};

struct CpuSpeedReport {
  double seconds = 0;
  double calibrated = 0;  ///< iterations per ns that the programs assume (apps::busy_units_per_ns)
  std::vector<CpuSpeed> cpus;
  /// calibrated / the slowest CPU's median: how much longer than declared a strand runs
  /// on that CPU (1 = as declared), alone and with every CPU busy.
  double worst_stretch_alone = 0;
  double worst_stretch_together = 0;
};

constexpr unsigned kCpuSpeedChunk = 20'000;

/// Measures every CPU this process may use: each alone in turn, then all together.
CpuSpeedReport measure_cpu_speed(const CpuSpeedOptions& options);
/// Sets the report's worst stretches from its calibration and its CPUs' medians
/// (a CPU without a median in a phase is left out of that phase).
void set_worst_stretch(CpuSpeedReport& report);
std::string format_cpu_speed(const CpuSpeedReport& report);
nlohmann::json to_json(const CpuSpeedReport& report);

}  // namespace takt::bench
