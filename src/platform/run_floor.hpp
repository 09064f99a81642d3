// The machine's latency floor right after a run: cyclictest on the run's CPUs, printed under its table and added to its JSON.
//
// A run's release latency means little without what the machine itself allows (a VM
// wakes threads tens of microseconds late, with millisecond outliers). `takt run` and
// `takt demo` therefore measure cyclictest for a short while after the run, on the CPUs
// the run used and in the state it ran in, and report it beside the run's results.
#pragma once

#include "platform/cyclictest.hpp"
#include "platform/run.hpp"

#include <chrono>
#include <filesystem>
#include <optional>

namespace takt::platform {

/// How long the floor is measured after a run.
inline constexpr std::chrono::seconds kRunFloorDuration{2};

/// True when a floor after `result` means something and costs nobody a wait: the run
/// ended by its limits (not stopped by a signal, none came while its results were
/// written), every job finished, and every output was written (standard output too).
bool floor_after_run_wanted(const RunResult& result);

/// Runs cyclictest (run_cyclictest; takt's timer probe where cyclictest cannot run) for
/// kRunFloorDuration on the run's CPUs (RunResult::cpus), in SCHED_FIFO with the CPU
/// wake-up latency held at 0 us where the privileges allow (as the run had it), and
/// prints the summary line on standard output, after flushing what the run printed
/// there. `json` is the run's metrics file (RunOptions::json): when it is a plain file
/// and not the one standard output or error goes to, the floor is added as `cyclictest`
/// (cyclictest_json) to the document the run wrote (RunResult::json_document) and the
/// file written again; a FIFO, a terminal, a pipe or a standard stream got the document
/// once and gets nothing more. A SIGINT or SIGTERM while it measures ends it early: what
/// it measured is reported and written (`stopped`), and the command ends by the signal
/// (cli::finish_command). Throws takt::Error only when writing the JSON fails.
CyclictestResult report_floor_after_run(RunResult& result, const std::optional<std::filesystem::path>& json);

}  // namespace takt::platform
