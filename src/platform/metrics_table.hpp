// Run metrics as a readable table for the terminal.
#pragma once

#include "platform/metrics.hpp"

#include <string>

namespace takt::platform {

/// One line per task (jobs, misses, miss ratio, skipped/late/failed, response time
/// min / mean / p99 / max, mean relative response, release latency p99), a total line,
/// then the system lines (migrations, context switches, release latency, CPU time
/// per core, recording and job errors).
std::string format_table(const RunMetrics& metrics);

}  // namespace takt::platform
