// Renders an analysis result for `takt analyze`: a readable table, or JSON.
#pragma once

#include "analysis/analyse.hpp"
#include "model/task_set.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

namespace takt::cli {

/// The analysis as JSON: file, policy, cores, schedulable, reasons, findings, and
/// `tasks` (one object per task with its `name` and what the policy grants it:
/// `cores` and `core_ids`), plus the policy's own part (`federated`,
/// `partitioned_dm` with the strand table, or `gedf_paws`). Durations are integer
/// nanoseconds in keys ending in `_ns`.
nlohmann::ordered_json analysis_json(const model::TaskSet& set, const analysis::AnalysisResult& result);

/// Writes exactly analysis_json(set, result).dump(2) and a newline to `out`, but
/// renders the strand table of partitioned-dm row by row instead of as one tree
/// (which, for the largest tables, needs gigabytes). What `takt analyze --json` uses.
void write_analysis_json(std::FILE* out, const model::TaskSet& set, const analysis::AnalysisResult& result);

/// The analysis as text for a terminal: the task table, the policy's table (core
/// grants or strand table), the bound checked beside the verdict, and the verdict
/// with every failed test (which task, which test, by how much).
std::string analysis_text(const model::TaskSet& set, const analysis::AnalysisResult& result);

}  // namespace takt::cli
