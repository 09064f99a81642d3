// The end of a run: compute the metrics from the recorder and write every requested output.
#pragma once

#include "platform/metrics.hpp"
#include "platform/recorder.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>

namespace takt::platform {

struct ReportOutputs {
  std::optional<std::filesystem::path> json;   ///< metrics JSON (metrics_to_json)
  std::optional<std::filesystem::path> trace;  ///< Chrome trace-event timeline (write_trace)
  std::FILE* table = nullptr;                  ///< where to print the table (e.g. stdout); null: nowhere
};

/// Writes a run's outputs: the JSON document `document` builds from the metrics (it may
/// add to them; null: metrics_to_json), then the trace, then the table. Every output is
/// attempted even when an earlier one fails (partial results are still written);
/// returns the failures' messages joined by "; ", empty when all were written, and
/// moves the JSON document, once written, to `written` (if given). An output that
/// ran out of memory (a document is built whole before it is written) says what makes
/// it large and what to change.
std::string write_run_outputs(const RunMetrics& metrics, std::span<const PeriodicTask> tasks,
                              std::span<const Event> events, std::chrono::nanoseconds origin,
                              const ReportOutputs& outputs,
                              const std::function<nlohmann::json(const RunMetrics&)>& document = nullptr,
                              std::optional<nlohmann::json>* written = nullptr);

/// Computes the run's metrics and writes the JSON, then the trace, then prints the
/// table. Every output is attempted even when an earlier one fails (partial results
/// are still written); the failures are then thrown together as one takt::Error.
RunMetrics report_run(std::span<const PeriodicTask> tasks, const Recorder& recorder, const RunInfo& run,
                      std::optional<SystemSample> before, std::optional<SystemSample> after,
                      const ReportOutputs& outputs);

}  // namespace takt::platform
