// Run metrics as JSON (nlohmann), with units in the key names.
#pragma once

#include "platform/metrics.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string_view>

namespace takt::platform {

/// The metrics document: run, totals, tasks, system and (when `with_jobs`) every job.
/// Job times are nanoseconds relative to the run's origin. Format: docs/measurements.md.
nlohmann::json metrics_to_json(const RunMetrics& metrics, bool with_jobs = true);

/// Writes `text` to `path` through a temporary file (`path` + ".partial") renamed into
/// place, so a reader never sees half a file and a failed write leaves the old file. A
/// symbolic link stays a link (the file it names is replaced); a FIFO or a device
/// (/dev/stdout) is written in place. Throws takt::Error naming the path; a folder is
/// refused before anything is written, and if the rename fails the message names the
/// temporary file, which keeps the contents.
void write_text_file(const std::filesystem::path& path, std::string_view text);

/// write_text_file() of `document`, pretty-printed.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& document);

}  // namespace takt::platform
