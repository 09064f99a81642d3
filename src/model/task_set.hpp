// A task set: the `global` section (cores, policy and its parameters, run length) and the tasks.
#pragma once

#include "model/decimal.hpp"
#include "model/policy.hpp"
#include "model/source_mark.hpp"
#include "model/task.hpp"
#include "takt/cpu_set.hpp"

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace takt::model {

/// The most cores takt analyses or runs on: counts are at most this, CPU ids below it
/// (CpuSet::kMaxId + 1, the CPU ids a CpuSet holds).
inline constexpr int kMaxCores = CpuSet::kMaxId + 1;

/// The cores a task set may use: a count m (logical cores 0..m−1 of what the
/// process may use) or an explicit list of CPU ids.
struct Cores {
  int count = 0;
  std::vector<int> cpus;  ///< ascending CPU ids; empty when only a count was given

  /// The id of logical core k: cpus[k] for a list, k for a count.
  [[nodiscard]] int id(int k) const { return cpus.empty() ? k : cpus[static_cast<std::size_t>(k)]; }
  static Cores of_count(int m) { return Cores{m, {}}; }
};

/// The `global` section.
struct Global {
  std::optional<Cores> cores;
  Policy policy = Policy::federated;
  bool policy_given = false;
  /// δ of rtws eq. 3 (federated, federated-greedy); unset: the classic core count.
  std::optional<Decimal> delta;
  /// Bin packing of partitioned-dm strands and of federated's light tasks.
  Fit fit = Fit::worst_fit;
  std::optional<std::chrono::nanoseconds> duration;  ///< run length for `takt run`
  std::optional<std::int64_t> jobs;                  ///< or: jobs per task
  Overrun overrun = Overrun::skip;

  struct Marks {
    SourceMark section, cores, policy, delta, fit, duration, jobs, overrun;
  } marks;
};

/// What is wrong with `delta` as the δ of rtws eq. 3, or "" when nothing is: δ must be
/// at least 1. Eq. 3 takes C/n + δ·L̂ for a job's completion time on n cores, and no
/// completion time is below the span L (≤ L̂); with δ < 1 it admits tasks that cannot
/// meet their deadline. The text starts with the value ("0.5 is below 1: ...").
std::string delta_problem(const Decimal& delta);

/// A whole system as read from one task-set file.
struct TaskSet {
  std::string source;  ///< file name used in messages ("<string>" when parsed from text)
  Global global;
  std::vector<Task> tasks;
  /// The `topology:` section, unvalidated (the scheduling framework parses it);
  /// its marks refer to `source`.
  std::optional<YAML::Node> topology;

  /// Σ u_i.
  [[nodiscard]] double total_utilization() const;
  /// The task with this name, or nullptr.
  [[nodiscard]] const Task* find(std::string_view name) const;
};

}  // namespace takt::model
