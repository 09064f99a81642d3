// Descriptions of the subcommand groups whose members live in other files.
#include "cli/command.hpp"

namespace takt::cli {
namespace {
[[maybe_unused]] const bool bench_group = register_group(
    {"bench"}, "Run a benchmark; results are compared with oneTBB and OpenMP measured in the same run "
               "and written as JSON with --json FILE");
}  // namespace
}  // namespace takt::cli
