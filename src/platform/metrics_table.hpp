// Run metrics as a readable table for the terminal.
#pragma once

#include "platform/metrics.hpp"

#include <string>
#include <string_view>

namespace takt::platform {

/// One line per task (jobs, misses, miss ratio, skipped/late/failed, response time
/// min / mean / p99 / max, mean relative response, release latency p99), a total line,
/// then the system lines (migrations, context switches, release latency, CPU time
/// per core, recording and job errors). A task whose jobs executed more than their
/// declared work C gets a warning that ends with `work_remedy`, how to measure C.
std::string format_table(const RunMetrics& metrics,
                         std::string_view work_remedy = "takt profile --update FILE");

}  // namespace takt::platform
