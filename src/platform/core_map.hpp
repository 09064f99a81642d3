// Where the analysis' cores are on this machine: logical core ids mapped onto the CPUs the process may use.
//
// A task set names its cores as a count m (logical cores 0..m−1) or a CPU list. The
// analysis reports core ids in the same terms. For a count, logical core k runs on the
// k-th CPU this process may use, isolated CPUs first (isolcpus=: no other work is
// scheduled there); for a list, each id is that CPU, which must be allowed.
#pragma once

#include "model/task_set.hpp"
#include "os/cpu.hpp"

#include <string>
#include <vector>

namespace takt::platform {

class CoreMap {
 public:
  /// Maps `cores` onto `allowed` (isolated CPUs first among them). Throws takt::Error
  /// when the set needs more CPUs than are allowed, or names a CPU that is not allowed,
  /// saying what to change.
  static CoreMap map(const model::Cores& cores, const os::CpuSet& allowed, const os::CpuSet& isolated);
  /// For this process: os::allowed_cpus(), os::isolated_cpus().
  static CoreMap for_this_process(const model::Cores& cores);

  /// The CPU of analysis core id `core_id` (a logical id for a count, a CPU id for a list).
  [[nodiscard]] int cpu(int core_id) const;
  /// The CPUs of several core ids.
  [[nodiscard]] os::CpuSet cpus(const std::vector<int>& core_ids) const;
  /// Every CPU the run uses.
  [[nodiscard]] const os::CpuSet& all() const noexcept { return all_; }
  /// The used CPUs that are isolated.
  [[nodiscard]] const os::CpuSet& isolated() const noexcept { return isolated_; }
  [[nodiscard]] int count() const noexcept { return static_cast<int>(cpu_of_.size()); }
  /// "logical cores 0-1 on CPUs 0-1 (isolated: none)".
  [[nodiscard]] std::string describe() const;

 private:
  bool logical_ = true;
  std::vector<int> ids_;     ///< analysis core ids, in order
  std::vector<int> cpu_of_;  ///< CPU of ids_[k]
  os::CpuSet all_;
  os::CpuSet isolated_;
};

}  // namespace takt::platform
