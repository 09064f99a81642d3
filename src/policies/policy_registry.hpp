// The built-in policies by name: the one place that knows them all.
#pragma once

#include "model/policy.hpp"
#include "platform/policy.hpp"

#include <memory>

namespace takt::policies {

/// A fresh policy object for `policy` (federated, federated-greedy, partitioned-dm,
/// gedf-paws); one per run.
std::unique_ptr<platform::Policy> make_policy(model::Policy policy);

}  // namespace takt::policies
