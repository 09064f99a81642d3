// The analysis entry point: admits a task set under one policy and says what each task is granted.
#include "analysis/analyse.hpp"

#include "takt/error.hpp"

namespace takt::analysis {

std::vector<Finding> AnalysisResult::reasons() const {
  if (schedulable) return {};
  return failures(findings);
}

model::Cores resolve_cores(const model::TaskSet& set, std::optional<int> cores) {
  auto check = [](int count) {
    if (count < 1) throw Error("the number of cores must be at least 1, not " + std::to_string(count));
    if (count > model::kMaxCores) {
      throw Error("the number of cores " + std::to_string(count) + " is more than takt supports (at most " +
                  std::to_string(model::kMaxCores) + ")");
    }
  };
  if (cores) {
    check(*cores);
    return model::Cores::of_count(*cores);
  }
  if (set.global.cores) {
    check(set.global.cores->count);
    return *set.global.cores;
  }
  throw Error(set.source +
              ": the task set does not say how many cores to use; add 'cores: 4' (or a CPU list "
              "such as '0-3') to the 'global' section, or pass --cores");
}

AnalysisResult analyse(const model::TaskSet& set, const AnalysisOptions& options) {
  AnalysisResult result;
  result.policy = options.policy.value_or(set.global.policy);
  result.cores = resolve_cores(set, options.cores);
  const model::Fit fit = options.fit.value_or(set.global.fit);
  switch (result.policy) {
    case model::Policy::federated:
    case model::Policy::federated_greedy: {
      FederatedOptions o{result.cores, options.delta ? options.delta : set.global.delta, fit};
      FederatedResult r = analyse_federated(set, o);
      if (result.policy == model::Policy::federated_greedy) {
        // E[R_i] (rtws §V.B) bounds a work-stealing execution; the centralized greedy
        // executor of the RTCG baseline has no such bound.
        for (FederatedGrant& g : r.grants) g.expected_response_ns.reset();
      }
      result.schedulable = r.schedulable;
      result.findings = r.findings;
      result.detail = std::move(r);
      break;
    }
    case model::Policy::partitioned_dm: {
      PartitionedDmResult r = analyse_partitioned_dm(set, {result.cores, fit});
      result.schedulable = r.schedulable;
      result.findings = r.findings;
      result.detail = std::move(r);
      break;
    }
    case model::Policy::gedf_paws: {
      GlobalEdfResult r = analyse_global_edf(set, result.cores);
      result.schedulable = r.schedulable;
      result.findings = r.findings;
      result.detail = std::move(r);
      break;
    }
  }
  return result;
}

}  // namespace takt::analysis
