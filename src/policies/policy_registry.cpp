// The built-in policies by name: the one place that knows them all.
#include "policies/policy_registry.hpp"

#include "policies/federated.hpp"
#include "policies/gedf_paws.hpp"
#include "policies/partitioned_dm.hpp"

namespace takt::policies {

std::unique_ptr<platform::Policy> make_policy(model::Policy policy) {
  switch (policy) {
    case model::Policy::federated: return make_federated(QueueStrategy::work_stealing);
    case model::Policy::federated_greedy: return make_federated(QueueStrategy::centralized_greedy);
    case model::Policy::gedf_paws: return make_gedf_paws();
    case model::Policy::partitioned_dm: return make_partitioned_dm();
  }
  return make_federated(QueueStrategy::work_stealing);
}

}  // namespace takt::policies
