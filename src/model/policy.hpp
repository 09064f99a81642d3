// The scheduling policies a task set can name, and their parameters' vocabulary.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace takt::model {

/// The four policies of takt (see docs/analysis.md).
enum class Policy {
  federated,         ///< RTWS: federated scheduling, work stealing on dedicated cores
  federated_greedy,  ///< RTCG baseline: the same core assignment, centralized greedy executor
  partitioned_dm,    ///< RT-OpenMP: decomposition + partitioned deadline-monotonic
  gedf_paws,         ///< PAWS: global EDF + priority-aware work stealing
};

/// Bin-packing heuristic (rt-openmp §IV.A): first core that fits, or least loaded core.
enum class Fit { first_fit, worst_fit };

/// What the platform does when a job is still running at the next release.
enum class Overrun {
  skip,  ///< the release is skipped and counted
  wait,  ///< the next job is released when the previous one finishes, and counted
};

/// "federated", "federated-greedy", "partitioned-dm", "gedf-paws".
std::string_view to_string(Policy policy);
std::string_view to_string(Fit fit);
std::string_view to_string(Overrun overrun);

std::optional<Policy> parse_policy(std::string_view text);
std::optional<Fit> parse_fit(std::string_view text);
std::optional<Overrun> parse_overrun(std::string_view text);

/// "federated, federated-greedy, partitioned-dm, gedf-paws" for messages.
std::string policy_names();

}  // namespace takt::model
