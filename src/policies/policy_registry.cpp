// The built-in policies by name: the one place that knows them all.
#include "policies/policy_registry.hpp"

#include "policies/federated.hpp"
#include "takt/error.hpp"

namespace takt::policies {

std::unique_ptr<platform::Policy> make_policy(model::Policy policy) {
  switch (policy) {
    case model::Policy::federated: return make_federated(QueueStrategy::work_stealing);
    case model::Policy::federated_greedy: return make_federated(QueueStrategy::centralized_greedy);
    case model::Policy::partitioned_dm:
    case model::Policy::gedf_paws:
      throw Error(std::string("the ") + std::string(model::to_string(policy)) +
                  " policy cannot run task sets yet; use federated or federated-greedy");
  }
  return make_federated(QueueStrategy::work_stealing);
}

}  // namespace takt::policies
