// The end of a run: compute the metrics from the recorder and write every requested output.
#pragma once

#include "platform/metrics.hpp"
#include "platform/recorder.hpp"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>

namespace takt::platform {

struct ReportOutputs {
  std::optional<std::filesystem::path> json;   ///< metrics JSON (metrics_to_json)
  std::optional<std::filesystem::path> trace;  ///< Chrome trace-event timeline (write_trace)
  std::FILE* table = nullptr;                  ///< where to print the table (e.g. stdout); null: nowhere
};

/// Computes the run's metrics and writes the JSON, then the trace, then prints the
/// table. Every output is attempted even when an earlier one fails (partial results
/// are still written); the failures are then thrown together as one takt::Error.
RunMetrics report_run(std::span<const PeriodicTask> tasks, const Recorder& recorder, const RunInfo& run,
                      std::optional<SystemSample> before, std::optional<SystemSample> after,
                      const ReportOutputs& outputs);

}  // namespace takt::platform
