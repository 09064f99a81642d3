// Federated scheduling (Li et al., rtws §V): dedicated cores for high-utilization tasks.
#pragma once

#include "analysis/finding.hpp"
#include "model/decimal.hpp"
#include "model/policy.hpp"
#include "model/task_set.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace takt::analysis {

/// n_i = ⌈(C_i − L_i) / (D_i − L_i)⌉ (rtws §V.A), exact in integers; nullopt when
/// D_i ≤ L_i (no number of cores suffices). Counts above INT64_MAX (possible only
/// for absurd inputs) are returned as INT64_MAX, which exceeds any core count.
std::optional<std::int64_t> federated_cores(std::chrono::nanoseconds work, std::chrono::nanoseconds span,
                                            std::chrono::nanoseconds deadline);

/// n_i = ⌈(C_i + D_i − δ·L̂_i) / (D_i − δ·L̂_i)⌉ (rtws eq. 3), exact in integers with
/// δ as a decimal fraction; nullopt when D_i ≤ δ·L̂_i (deemed unschedulable). Counts
/// above INT64_MAX (a fine δ with D_i just above δ·L̂_i) are returned as INT64_MAX.
/// Throws takt::Error when δ < 1 (model::delta_problem).
std::optional<std::int64_t> federated_cores_with_overhead(std::chrono::nanoseconds work,
                                                          std::chrono::nanoseconds burdened_span,
                                                          std::chrono::nanoseconds deadline,
                                                          model::Decimal delta);

/// E[R_i] ≤ C_i/n_i + δ·L̂_i + (δ/ln 2)² / (2·(D_i − C_i/n_i − δ·L̂_i)) (rtws §V.B), in
/// nanoseconds. The variance term (δ/ln 2)² is in unit time steps squared; takt's
/// time step is 1 ns. The inter-arrival time of rtws's Lemma 2 is Y = D_i, as the paper
/// writes for implicit deadlines; for D_i < T_i takt keeps Y = D_i (a true lower bound
/// on the inter-arrival time T_i, giving the larger bound). nullopt when the denominator
/// is not positive. Throws takt::Error when δ < 1.
std::optional<double> expected_response_bound(std::chrono::nanoseconds work,
                                              std::chrono::nanoseconds burdened_span,
                                              std::chrono::nanoseconds deadline, model::Decimal delta,
                                              std::int64_t cores);

struct FederatedOptions {
  model::Cores cores;                      ///< m and the core ids
  std::optional<model::Decimal> delta;     ///< set: rtws eq. 3 with the burdened span
  model::Fit fit = model::Fit::worst_fit;  ///< packing of the low-utilization tasks
};

/// What one task is granted.
struct FederatedGrant {
  std::string name;
  bool high = false;          ///< C_i > D_i: runs in parallel on `cores` dedicated cores
  bool granted = false;       ///< false when the task could not be given its cores
  std::int64_t cores = 0;     ///< n_i for a high task, 1 for a low one (when granted)
  std::vector<int> core_ids;  ///< the cores (shared with other low tasks for a low task)
  std::chrono::nanoseconds work{0}, span{0}, deadline{0}, period{0};
  std::chrono::nanoseconds span_used{0};  ///< L_i, or L̂_i under eq. 3
  double utilization = 0, density = 0;
  std::optional<double> expected_response_ns;  ///< E[R_i] bound under eq. 3, for a task granted its cores
  std::string formula;                         ///< how `cores` was computed, with the numbers
};

/// A core left for the low-utilization tasks (run sequentially, EDF per core).
struct SharedCore {
  int core_id = 0;
  double density = 0;  ///< Σ C/D of the tasks placed on it
  std::vector<std::string> tasks;
};

/// The capacity-augmentation bound of 2 (rtws §V.A): Σu ≤ m/2 and L_i ≤ D_i/2
/// guarantee schedulability; reported beside the verdict, not part of it. rtws §V.A writes
/// the span condition strictly, L_i < D_i/2; takt checks L_i ≤ D_i/2 (the reading of
/// issue 3, docs/analysis.md). The two differ only at L_i = D_i/2, where a high task's
/// count is still finite and below twice its utilization, n_i = ⌈(C_i − L_i)/(D_i − L_i)⌉
/// = ⌈2u_i − 1⌉ < 2u_i (D = T); the test AugmentationBoundsThatHoldComeWithASchedulableVerdict
/// checks "holds ⇒ schedulable" on generated sets. Proved for
/// implicit deadlines and the classic core count: when some task has D < T the
/// densities C/D stand in for the utilizations (see analyse_federated), and with δ
/// (eq. 3) the bound does not apply.
struct CapacityAugmentation {
  double factor = 2;
  bool holds = false;                        ///< applies, and both conditions are met
  double total_utilization = 0;              ///< Σ C/T, or Σ C/D when `densities`
  double utilization_bound = 0;              ///< m / factor
  std::vector<std::string> long_span_tasks;  ///< tasks with L_i > D_i / factor
  bool densities = false;                    ///< some task has D < T: Σ C/D is compared
  std::string not_applicable;                ///< why the bound says nothing here; "" when it applies
};

struct FederatedResult {
  bool schedulable = false;
  bool with_overhead = false;  ///< eq. 3 (δ given)
  std::optional<model::Decimal> delta;
  int cores = 0;                       ///< m
  std::int64_t dedicated_cores = 0;    ///< Σ n_i over high tasks (what they need; saturates at INT64_MAX)
  int granted_cores = 0;               ///< cores granted to high tasks: the first ones
  int shared_cores = 0;                ///< m − granted_cores: the cores left for the low tasks
  std::vector<FederatedGrant> grants;  ///< one per task, in file order
  std::vector<SharedCore> shared;
  CapacityAugmentation capacity;
  std::vector<Finding> findings;
};

/// Admits `set` under federated scheduling on `options.cores`: high tasks (C > D)
/// get n_i dedicated cores (classic formula, or eq. 3 when δ is given), in file
/// order from the first core, each when its n_i cores are still free; low tasks are
/// packed (decreasing density, first-fit or worst-fit) onto the cores no high task
/// was granted, with the uniprocessor EDF density test Σ C/D ≤ 1. Schedulable when
/// every task got its cores. Formulas in `formula` and in findings show durations
/// exactly (format_duration). Throws takt::Error when `options.delta` is below 1.
FederatedResult analyse_federated(const model::TaskSet& set, const FederatedOptions& options);

}  // namespace takt::analysis
