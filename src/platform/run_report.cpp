// The end of a run: compute the metrics from the recorder and write every requested output.
#include "platform/run_report.hpp"

#include "platform/metrics_json.hpp"
#include "platform/metrics_table.hpp"
#include "platform/trace_writer.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <filesystem>
#include <new>
#include <string>
#include <vector>

namespace takt::platform {

std::string write_run_outputs(const RunMetrics& metrics, std::span<const PeriodicTask> tasks,
                              std::span<const Event> events, std::chrono::nanoseconds origin,
                              const ReportOutputs& outputs,
                              const std::function<nlohmann::json(const RunMetrics&)>& document,
                              std::optional<nlohmann::json>* written) {
  std::vector<std::string> failures;
  // A document is built whole in memory before it is written: one too large for the
  // memory left is named with what makes it large, not as a bare "std::bad_alloc".
  // `holds`: what the document has one entry for, `count` of them.
  auto failed = [&failures](const char* option, const std::filesystem::path& path, const char* holds,
                            std::size_t count) {
    try {
      throw;
    } catch (const std::bad_alloc&) {
      failures.push_back(fmt::format(
          "{} {}: out of memory (an allocation failed) building it: it holds every {} of the run ({} of "
          "them); give a shorter --duration (or fewer --jobs), leave this output out, or raise the limit on "
          "memory (ulimit -v)",
          option, path.string(), holds, count));
    } catch (const std::exception& e) {
      failures.emplace_back(e.what());
    }
  };
  if (outputs.json) {
    try {
      nlohmann::json json = document ? document(metrics) : metrics_to_json(metrics);
      write_json_file(*outputs.json, json);
      if (written != nullptr) *written = std::move(json);
    } catch (...) {
      failed("--json", *outputs.json, "job", metrics.jobs.size());
    }
  }
  if (outputs.trace) {
    try {
      write_trace(*outputs.trace, tasks, events, origin, metrics.system.events_dropped, metrics.jobs,
                  &metrics.run);
    } catch (...) {
      failed("--trace", *outputs.trace, "event", events.size());
    }
  }
  if (outputs.table != nullptr) {
    std::fputs(format_table(metrics).c_str(), outputs.table);
    std::fflush(outputs.table);
  }
  return fmt::format("{}", fmt::join(failures, "; "));
}

RunMetrics report_run(std::span<const PeriodicTask> tasks, const Recorder& recorder, const RunInfo& run,
                      std::optional<SystemSample> before, std::optional<SystemSample> after,
                      const ReportOutputs& outputs) {
  const std::vector<Event> events = recorder.events();
  RunMetrics metrics =
      compute_metrics(metrics_input(tasks, events, recorder, run, std::move(before), std::move(after)));
  const std::string failures =
      write_run_outputs(metrics, tasks, events, run.origin, outputs, [](const RunMetrics& m) {
        nlohmann::json json = metrics_to_json(m);
        json.update(provenance());  // its date: when the file is written
        return json;
      });
  if (!failures.empty()) throw Error(failures);
  return metrics;
}

}  // namespace takt::platform
