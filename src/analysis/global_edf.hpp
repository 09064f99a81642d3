// Global EDF tests for gedf-paws: the GFB utilization test (paws §2) and Li et al.'s capacity bound.
#pragma once

#include "analysis/finding.hpp"
#include "model/task_set.hpp"

#include <string>
#include <vector>

namespace takt::analysis {

/// (3 + √5)/2 ≈ 2.618: the capacity augmentation bound of global EDF for parallel
/// DAG tasks (Li et al., ECRTS 2014; rtws §VIII).
inline constexpr double kGlobalEdfCapacityBound = 2.6180339887498948482;

struct GlobalEdfTask {
  std::string name;
  double utilization = 0;  ///< C_i / T_i
  double density = 0;      ///< C_i / D_i (used by both tests; = u_i for D = T)
  bool span_ok = false;    ///< L_i ≤ D_i / 2.618
};

struct GlobalEdfResult {
  bool schedulable = false;  ///< the GFB test holds
  int cores = 0;
  std::vector<int> core_ids;  ///< every task may run on every core
  double total_density = 0;   ///< U_Π = Σ C_i / D_i
  double max_density = 0;     ///< u_Π = max C_i / D_i
  /// Some task has D < T: the sums and the maximum are of densities C/D (with D = T for
  /// every task they are the utilizations C/T); reports label them accordingly.
  bool densities = false;
  /// GFB (Goossens, Funk, Baruah; paws §2): U_Π ≤ m − (m − 1)·u_Π and u_Π ≤ 1.
  bool gfb_holds = false;
  double gfb_bound = 0;  ///< m − (m − 1)·u_Π
  /// Li et al.: Σu ≤ m / 2.618 and L_i ≤ D_i / 2.618 for every task. Information
  /// only: not part of `schedulable` (see analyse_global_edf).
  bool capacity_holds = false;
  /// Its first condition alone: Σu ≤ m / 2.618 (the second is each task's span_ok).
  bool capacity_utilization_holds = false;
  double capacity_bound = 0;  ///< m / 2.618
  std::vector<GlobalEdfTask> tasks;
  std::vector<Finding> findings;
};

/// Admits `set` on `cores` under global EDF by the GFB test that PAWS relies on (paws
/// §2; each job's work C_i seen as sequential demand, so every u_i ≤ 1). The
/// capacity-augmentation test for parallel tasks (Li et al.) is computed and reported
/// beside the verdict, not used for it: it is proved for a greedy, fully preemptive
/// global EDF, and gedf-paws preempts only at spawn and sync points (GFB assumes
/// preemptive global EDF too; docs/analysis.md). With constrained deadlines both use
/// densities C_i/D_i (a task with D < T is treated as one with period D, which only
/// adds jobs). Comparisons are exact in integers where the sums fit (see RatioSum);
/// √5 is handled by squaring. Only the GFB test contributes findings.
GlobalEdfResult analyse_global_edf(const model::TaskSet& set, const model::Cores& cores);

}  // namespace takt::analysis
