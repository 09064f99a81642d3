// The built-in topologies of the four policies, compiled into the program from topologies/*.yaml.
#include "policies/builtin_topologies.hpp"

#include "takt/error.hpp"

#include <algorithm>
#include <vector>

namespace takt::policies {
namespace detail {
// Defined in the generated builtin_topologies_data.cpp.
extern const BuiltinTopology builtin_topology_table[];
extern const std::size_t builtin_topology_count;
}  // namespace detail

std::span<const BuiltinTopology> builtin_topologies() {
  static const std::vector<BuiltinTopology> sorted = [] {
    std::vector<BuiltinTopology> v(detail::builtin_topology_table,
                                   detail::builtin_topology_table + detail::builtin_topology_count);
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.policy < b.policy; });
    return v;
  }();
  return sorted;
}

const BuiltinTopology* find_builtin_topology(std::string_view policy) {
  for (const BuiltinTopology& t : builtin_topologies()) {
    if (t.policy == policy) return &t;
  }
  return nullptr;
}

std::string builtin_policy_names() {
  std::string names;
  for (const BuiltinTopology& t : builtin_topologies()) {
    if (!names.empty()) names += ", ";
    names += t.policy;
  }
  return names;
}

sched::TopologySpec builtin_topology(std::string_view policy) {
  const BuiltinTopology* t = find_builtin_topology(policy);
  if (t == nullptr) {
    throw takt::Error("no built-in topology for policy '" + std::string(policy) +
                      "' (known: " + builtin_policy_names() + ")");
  }
  return sched::parse_topology_text(t->yaml, std::string(t->file));
}

void check_entry_for_policy(const sched::TopologySpec& spec, std::string_view policy) {
  using Index = sched::PipeRef::Index;
  const bool pdm = policy == "partitioned-dm";
  if (spec.entry.index != (pdm ? Index::cluster : Index::pe)) return;
  throw Error(
      spec.where(spec.entry.mark) + ": the entry '" + spec.entry.text() + "' routes each job by its " +
      (pdm ? "cluster, but partitioned-dm admits each strand bound to its core (pe) and to no cluster; "
             "write the entry as one pipe (entry: NAME) or as a family indexed by pe (entry: \"NAME[pe]\")"
           : "pe, but " + std::string(policy) +
                 " admits each job bound to no PE; write the entry as one pipe (entry: NAME) or as a family "
                 "indexed by cluster (entry: \"NAME[cluster]\")"));
}

}  // namespace takt::policies
