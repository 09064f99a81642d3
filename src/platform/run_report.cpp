// The end of a run: compute the metrics from the recorder and write every requested output.
#include "platform/run_report.hpp"

#include "platform/metrics_json.hpp"
#include "platform/metrics_table.hpp"
#include "platform/trace_writer.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <string>
#include <vector>

namespace takt::platform {

RunMetrics report_run(std::span<const PeriodicTask> tasks, const Recorder& recorder, const RunInfo& run,
                      std::optional<SystemSample> before, std::optional<SystemSample> after,
                      const ReportOutputs& outputs) {
  const std::vector<Event> events = recorder.events();
  RunMetrics metrics =
      compute_metrics(metrics_input(tasks, events, recorder, run, std::move(before), std::move(after)));

  std::vector<std::string> failures;
  if (outputs.json) {
    try {
      nlohmann::json document = metrics_to_json(metrics);
      document.update(provenance());  // its date: when the file is written
      write_json_file(*outputs.json, document);
    } catch (const std::exception& e) {
      failures.emplace_back(e.what());
    }
  }
  if (outputs.trace) {
    try {
      write_trace(*outputs.trace, tasks, events, run.origin, metrics.system.events_dropped, metrics.jobs,
                  &metrics.run);
    } catch (const std::exception& e) {
      failures.emplace_back(e.what());
    }
  }
  if (outputs.table != nullptr) {
    std::fputs(format_table(metrics).c_str(), outputs.table);
    std::fflush(outputs.table);
  }
  if (!failures.empty()) throw Error(fmt::format("{}", fmt::join(failures, "; ")));
  return metrics;
}

}  // namespace takt::platform
