// The machine's latency floor right after a run: cyclictest on the run's CPUs, printed under its table and added to its JSON.
//
// A run's release latency means little without what the machine itself allows (a VM
// wakes threads tens of microseconds late, with millisecond outliers). `takt run` and
// `takt demo` therefore measure cyclictest for a short while after the run, on the CPUs
// the run used and in the state it ran in, and report it beside the run's results.
#pragma once

#include "os/cpu.hpp"
#include "platform/cyclictest.hpp"
#include "platform/run.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

namespace takt::platform {

/// How long the floor is measured after a run, unless a command says otherwise.
inline constexpr std::chrono::seconds kRunFloorDuration{2};

struct RunFloorOptions {
  std::chrono::nanoseconds duration = kRunFloorDuration;
  os::CpuSet cpus;  ///< the run's CPUs (RunResult::cpus); empty: every allowed CPU
  /// The run's metrics JSON file and the document written to it (RunResult::json,
  /// RunResult::json_document): when the file is a plain file, the floor is added to the
  /// document as `cyclictest` (cyclictest_json) and the file written again. A FIFO, a
  /// terminal or a pipe got the document once and gets nothing more.
  std::optional<std::filesystem::path> json;
  nlohmann::json* document = nullptr;
  std::FILE* out = stdout;  ///< where the line "machine floor, measured after the run ..." goes
};

/// True when a floor after `result` means something and costs nobody a wait: the run
/// ended by its limits (not stopped by a signal, none came while its results were
/// written), every job finished, and every output was written (standard output too).
bool floor_after_run_wanted(const RunResult& result);

/// Runs cyclictest (run_cyclictest; takt's timer probe where cyclictest cannot run) for
/// options.duration on options.cpus, in SCHED_FIFO with the CPU wake-up latency held at
/// 0 us where the privileges allow (as the run had it), prints the summary line and adds
/// the result to the JSON. A SIGINT or SIGTERM while it measures ends it early: what it
/// measured is reported and written (`stopped`), and the command ends by the signal
/// (cli::finish_command). Throws takt::Error only when writing the JSON fails.
CyclictestResult report_floor_after_run(const RunFloorOptions& options);

}  // namespace takt::platform
