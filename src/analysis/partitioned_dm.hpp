// RT-OpenMP's partitioned deadline-monotonic scheduling: decomposition, priorities, FBB-FFD placement.
#pragma once

#include "analysis/decomposition.hpp"
#include "analysis/finding.hpp"
#include "model/policy.hpp"
#include "model/task_set.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace takt::analysis {

/// The most strands partitioned-dm analyses in one task set: every strand is a row of
/// the strand table (one placement each), so this bounds its memory and time.
inline constexpr std::int64_t kMaxStrands = 1'000'000;

struct PartitionedDmOptions {
  model::Cores cores;
  model::Fit fit = model::Fit::worst_fit;
};

/// One row of the strand table (rt-openmp Fig. 2(c)).
struct StrandAssignment {
  std::size_t task = 0;                  ///< index into the task set
  int segment = 0;                       ///< 1-based segment of the task
  int strand = 0;                        ///< 1-based strand of the task (s_i^k numbering, across segments)
  int strand_in_segment = 0;             ///< 1-based within the segment
  std::chrono::nanoseconds length{0};    ///< e_{i,j}
  std::chrono::nanoseconds release{0};   ///< release offset r_{i,j} from the job's release
  std::chrono::nanoseconds deadline{0};  ///< relative deadline d_{i,j} (from r_{i,j})
  int priority = 0;                      ///< 1 is the highest
  int core = -1;                         ///< logical core 0..m−1, −1 when it fits nowhere
  int core_id = -1;                      ///< the core's id (CPU id for a CPU list)
  std::chrono::nanoseconds interference{0};  ///< Σ RBF* on its core when placed
};

/// A task's decomposition and the priority of each of its segments.
struct TaskDecomposition {
  std::string name;
  Decomposition decomposition;
  std::vector<int> priorities;  ///< per segment
  /// C_i and P_i of the segments decomposed (a sequential task given by work = span is
  /// one segment ⟨C, 1⟩).
  std::chrono::nanoseconds work{0};
  std::chrono::nanoseconds span{0};
};

/// The augmentation bound 5 of rt-openmp §IV.A: Σu ≤ m/5 and P_i ≤ D_i/5
/// guarantee schedulability; reported beside the verdict. Proved for implicit
/// deadlines: when some task has D < T it is reported as not applicable. u_i and P_i
/// are those of the segments analysed (measured work is not used).
struct AugmentationBound {
  double factor = 5;
  bool holds = false;  ///< applies, and both conditions are met
  double total_utilization = 0;
  double utilization_bound = 0;
  std::vector<std::string> long_span_tasks;
  std::string not_applicable;  ///< why the bound says nothing here; "" when it applies
};

struct PartitionedDmResult {
  bool schedulable = false;
  model::Fit fit = model::Fit::worst_fit;
  int cores = 0;
  std::vector<TaskDecomposition> tasks;   ///< in file order
  std::vector<StrandAssignment> strands;  ///< by task, then strand
  AugmentationBound bound;
  std::vector<Finding> findings;
};

/// Decomposes every task (all need `segments:`; a task with only measured work
/// equal to its span counts as one sequential segment) with decompose(), or with
/// decompose_proportionally() when D ≤ 2.5·P (a passed finding says so), gives each segment a
/// deadline-monotonic priority (shorter d_{i,j} first; ties by task, then segment
/// order; one priority per segment), and places strands from the highest priority
/// down with FBB-FFD: a strand fits core q when d − Σ_j RBF*_q(τ_j, d) ≥ e
/// (CoreInterference). First-fit takes the lowest such core, worst-fit the core
/// with the least RBF* (lowest index on ties). A strand that fits nowhere is kept
/// with core −1 and makes the set unschedulable; the others are still placed.
/// The strands of a segment are placed together: the loads are computed once per
/// core and segment, and the choices are the same as placing them one at a time.
/// Throws takt::Error (at the task's file position) for a task without segments,
/// and (at the `strands` value that passes it) for a set of more than kMaxStrands
/// strands.
PartitionedDmResult analyse_partitioned_dm(const model::TaskSet& set, const PartitionedDmOptions& options);

}  // namespace takt::analysis
