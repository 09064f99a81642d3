// ComponentRegistry: the components a topology can name, each registered by name.
#include "sched/component_registry.hpp"

#include "takt/error.hpp"

#include <set>

namespace takt::sched {

ComponentRegistry& ComponentRegistry::builtin() {
  static ComponentRegistry registry = [] {
    ComponentRegistry r;
    components::register_head_queue(r);
    components::register_stamp_order(r);
    components::register_edf(r);
    components::register_fixed_priority(r);
    components::register_filter(r);
    components::register_release_gate(r);
    components::register_distributor(r);
    components::register_mux(r);
    components::register_load_balancer(r);
    components::register_advanced_balancer(r);
    components::register_affinity(r);
    components::register_lamport(r);
    components::register_status(r);
    components::register_marker(r);
    components::register_termination(r);
    return r;
  }();
  return registry;
}

void ComponentRegistry::add(ComponentInfo info) {
  if (info.name.empty()) throw takt::Error("a component needs a name");
  if (find(info.name) != nullptr) throw takt::Error("component '" + info.name + "' is already registered");
  if (!info.create) throw takt::Error("component '" + info.name + "' has no factory");
  std::set<std::string> seen;
  for (const PortInfo& port : info.ports) {
    if (!seen.insert(port.name).second) {
      throw takt::Error("component '" + info.name + "' declares port '" + port.name + "' twice");
    }
  }
  for (const ParamInfo& param : info.params) {
    if (!seen.insert(param.name).second) {
      throw takt::Error("component '" + info.name + "' declares '" + param.name + "' twice");
    }
  }
  components_.push_back(std::move(info));
}

const ComponentInfo* ComponentRegistry::find(std::string_view name) const {
  for (const ComponentInfo& c : components_) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::vector<std::string> ComponentRegistry::names() const {
  std::vector<std::string> out;
  for (const ComponentInfo& c : components_) out.push_back(c.name);
  return out;
}

}  // namespace takt::sched
