// Descriptions of the subcommand groups whose members live in other files.
#include "cli/command.hpp"

namespace takt::cli {
namespace {
[[maybe_unused]] const bool bench_group = register_group(
    {"bench"},
    "Run a benchmark; each says what it compares with (runtime, sched: oneTBB and OpenMP measured "
    "in the same run; latency, policies: cyclictest in the same run; cpus: the busy loop's "
    "calibration; analyze: a time target); --json FILE writes the results");
}  // namespace
}  // namespace takt::cli
