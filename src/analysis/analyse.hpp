// The analysis entry point: admits a task set under one policy and says what each task is granted.
#pragma once

#include "analysis/federated.hpp"
#include "analysis/finding.hpp"
#include "analysis/global_edf.hpp"
#include "analysis/partitioned_dm.hpp"
#include "model/decimal.hpp"
#include "model/policy.hpp"
#include "model/task_set.hpp"

#include <optional>
#include <variant>
#include <vector>

namespace takt::analysis {

/// Overrides of the task set's `global` section (e.g. from the command line).
struct AnalysisOptions {
  std::optional<model::Policy> policy;
  std::optional<int> cores;  ///< a count m: logical cores 0..m−1, replacing global.cores
  std::optional<model::Decimal> delta;
  std::optional<model::Fit> fit;
};

/// The verdict of one policy on one task set.
struct AnalysisResult {
  model::Policy policy = model::Policy::federated;
  model::Cores cores;
  bool schedulable = false;
  /// Every test that was checked, passed or failed, with its margin.
  std::vector<Finding> findings;
  /// The policy's own result: core grants (federated, federated-greedy), the strand
  /// table (partitioned-dm), or the global tests (gedf-paws).
  std::variant<FederatedResult, PartitionedDmResult, GlobalEdfResult> detail;

  /// Why the set is not schedulable (the failed findings); empty when it is.
  [[nodiscard]] std::vector<Finding> reasons() const;
  [[nodiscard]] const FederatedResult* federated() const { return std::get_if<FederatedResult>(&detail); }
  [[nodiscard]] const PartitionedDmResult* partitioned_dm() const {
    return std::get_if<PartitionedDmResult>(&detail);
  }
  [[nodiscard]] const GlobalEdfResult* global_edf() const { return std::get_if<GlobalEdfResult>(&detail); }
};

/// The cores to analyse for: `cores` when given, else `global.cores`. Throws
/// takt::Error when neither says how many, or when the count is below 1 or above
/// model::kMaxCores.
model::Cores resolve_cores(const model::TaskSet& set, std::optional<int> cores);

/// Analyses `set` under `options.policy` (default: `global.policy`):
///  - federated, federated-greedy: analyse_federated (the same core assignment;
///    federated-greedy is the RTCG baseline that runs it with a greedy executor, so
///    its grants carry no E[R] work-stealing bound);
///  - partitioned-dm: analyse_partitioned_dm;
///  - gedf-paws: analyse_global_edf.
/// Pure and deterministic. Throws takt::Error for input the policy cannot analyse
/// (no cores given, a task without segments under partitioned-dm, δ below 1 under
/// federated and federated-greedy).
AnalysisResult analyse(const model::TaskSet& set, const AnalysisOptions& options = {});

}  // namespace takt::analysis
