// Run metrics as JSON (nlohmann), with units in the key names.
#pragma once

#include "platform/metrics.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace takt::platform {

/// The metrics document: run, totals, tasks, system and (when `with_jobs`) every job.
/// Job times are nanoseconds relative to the run's origin. Format: docs/measurements.md.
nlohmann::json metrics_to_json(const RunMetrics& metrics, bool with_jobs = true);

/// Writes `document` to `path` (pretty-printed), through a temporary file renamed into
/// place, so a reader never sees half a file. Throws takt::Error naming the path.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& document);

}  // namespace takt::platform
