// Where the analysis' cores are on this machine: logical core ids mapped onto the CPUs the process may use.
#include "platform/core_map.hpp"

#include "takt/error.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace takt::platform {

CoreMap CoreMap::map(const model::Cores& cores, const os::CpuSet& allowed, const os::CpuSet& isolated) {
  CoreMap m;
  if (cores.cpus.empty()) {
    m.logical_ = true;
    std::vector<int> order;
    for (int cpu : allowed) {
      if (isolated.contains(cpu)) order.push_back(cpu);
    }
    for (int cpu : allowed) {
      if (!isolated.contains(cpu)) order.push_back(cpu);
    }
    if (cores.count > static_cast<int>(order.size())) {
      throw Error(fmt::format(
          "the task set uses {} cores, but this process may run on only {} CPU(s) ({}); set global.cores "
          "to at most {} or pass --cores {} (the set is then analysed for that many cores)",
          cores.count, order.size(), allowed.to_string(), order.size(), order.size()));
    }
    for (int k = 0; k < cores.count; ++k) {
      m.ids_.push_back(k);
      m.cpu_of_.push_back(order[static_cast<std::size_t>(k)]);
    }
  } else {
    m.logical_ = false;
    os::CpuSet missing;
    for (int cpu : cores.cpus) {
      if (!allowed.contains(cpu)) missing.add(cpu);
      m.ids_.push_back(cpu);
      m.cpu_of_.push_back(cpu);
    }
    if (!missing.empty()) {
      throw Error(fmt::format(
          "the task set names CPU(s) {} in global.cores, but this process may run only on {}; change "
          "global.cores (or give a count of cores, which takt maps onto the CPUs it may use)",
          missing.to_string(), allowed.to_string()));
    }
  }
  for (int cpu : m.cpu_of_) {
    m.all_.add(cpu);
    if (isolated.contains(cpu)) m.isolated_.add(cpu);
  }
  return m;
}

CoreMap CoreMap::for_this_process(const model::Cores& cores) {
  return map(cores, os::allowed_cpus(), os::isolated_cpus());
}

int CoreMap::cpu(int core_id) const {
  auto it = std::find(ids_.begin(), ids_.end(), core_id);
  if (it == ids_.end()) throw Error(fmt::format("core {} is not one of the task set's cores", core_id));
  return cpu_of_[static_cast<std::size_t>(it - ids_.begin())];
}

os::CpuSet CoreMap::cpus(const std::vector<int>& core_ids) const {
  os::CpuSet out;
  for (int id : core_ids) out.add(cpu(id));
  return out;
}

std::string CoreMap::describe() const {
  const std::string isolated = isolated_.empty() ? std::string("none") : isolated_.to_string();
  if (logical_) {
    std::string mapping;
    for (std::size_t k = 0; k < cpu_of_.size(); ++k) {
      mapping += fmt::format("{}{}→{}", k == 0 ? "" : " ", ids_[k], cpu_of_[k]);
    }
    return fmt::format("cores {} on CPUs {} (core→CPU {}; isolated: {})", count(), all_.to_string(), mapping,
                       isolated);
  }
  return fmt::format("CPUs {} (isolated: {})", all_.to_string(), isolated);
}

}  // namespace takt::platform
