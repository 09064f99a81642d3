// The built-in topologies of the four policies, compiled into the program from topologies/*.yaml.
#pragma once

#include "sched/topology_spec.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace takt::policies {

/// One built-in topology: the policy it belongs to, the name its errors carry
/// ("<builtin>/federated.yaml") and its YAML text (a document with a `topology:`
/// section, exactly the file in src/policies/topologies/).
struct BuiltinTopology {
  std::string_view policy;
  std::string_view file;
  std::string_view yaml;
};

/// Every built-in topology, by policy name: federated, federated-greedy,
/// gedf-paws, partitioned-dm. The texts are embedded at build time
/// (src/policies/embed_topologies.cmake), so an installed binary needs no files.
std::span<const BuiltinTopology> builtin_topologies();

/// The built-in topology of `policy`, nullptr if there is none.
const BuiltinTopology* find_builtin_topology(std::string_view policy);

/// The parsed topology of `policy`; throws takt::Error naming the known policies.
sched::TopologySpec builtin_topology(std::string_view policy);

/// "federated, federated-greedy, gedf-paws, partitioned-dm"
std::string builtin_policy_names();

/// Throws takt::Error (file:line:column) where `spec`'s entry routes by a value the
/// policy's work does not carry: by pe under federated, federated-greedy and gedf-paws
/// (jobs are admitted bound to no PE), by cluster under partitioned-dm (strands carry
/// none). For `takt analyze`, which builds no policy; a run refuses them as it prepares
/// (JobSlot::check_entry).
void check_entry_for_policy(const sched::TopologySpec& spec, std::string_view policy);

}  // namespace takt::policies
