// ComponentRegistry: the components a topology can name, each registered by name.
#pragma once

#include "sched/component.hpp"

#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace takt::sched {

/// Components by name (dissertation §7.4.2: built-in components announce
/// themselves; takt registers them in one list instead of a linker section).
/// Registration is not thread-safe: register before building schedulers.
class ComponentRegistry {
 public:
  /// A registry holding every component takt ships.
  static ComponentRegistry& builtin();

  /// Adds a component; throws takt::Error if the name is taken or the description
  /// is incomplete (no factory, duplicate port or parameter names).
  void add(ComponentInfo info);
  const ComponentInfo* find(std::string_view name) const;
  std::vector<std::string> names() const;
  const std::deque<ComponentInfo>& all() const noexcept { return components_; }

 private:
  std::deque<ComponentInfo> components_;  // stable addresses
};

/// Registers the shipped components (called by builtin()); one function per file.
namespace components {
void register_head_queue(ComponentRegistry& registry);
void register_stamp_order(ComponentRegistry& registry);  // fcfs, lcfs
void register_edf(ComponentRegistry& registry);
void register_fixed_priority(ComponentRegistry& registry);  // fixed-priority, deadline-monotonic
void register_filter(ComponentRegistry& registry);
void register_release_gate(ComponentRegistry& registry);
void register_distributor(ComponentRegistry& registry);
void register_mux(ComponentRegistry& registry);
void register_load_balancer(ComponentRegistry& registry);
void register_advanced_balancer(ComponentRegistry& registry);
void register_affinity(ComponentRegistry& registry);
void register_lamport(ComponentRegistry& registry);
void register_status(ComponentRegistry& registry);
void register_marker(ComponentRegistry& registry);
void register_termination(ComponentRegistry& registry);
}  // namespace components

}  // namespace takt::sched
