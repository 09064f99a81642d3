// The offset-aware request-bound function RBF* of FBB-FFD, kept per core as strands are placed.
#pragma once

#include "analysis/exact.hpp"

#include <chrono>
#include <cstdint>
#include <limits>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace takt::analysis {

/// For every core q, the interference Σ_j RBF*_q(τ_j^decom, d) that the strands
/// already placed on q put on a strand with relative deadline d (rt-openmp §IV.A):
///
///   RBF*_q(τ_{j,l}, d) = Σ_{p: (r_{j,p} + T_j − r_{j,l}) mod T_j ≤ d} e_{j,p}·m_{j,p,q}
///                      + Σ_p u_{j,p}·m_{j,p,q}·d,        u_{j,p} = e_{j,p} / T_j
///   RBF*_q(τ_j^decom, d) = max_l RBF*_q(τ_{j,l}, d)
///
/// For the strand's own task only strands of its own segment count (e·their number):
/// the task's other segments run in disjoint windows of the same job, and the
/// previous job ended by its deadline D ≤ T.
///
/// Exactness: the first sum is exact (kept in 128 bits: each task adds up to 2^62 ns). The second, the
/// rate term ⌈Σ_j W_j·d/T_j⌉ (W_j: the work of task j's strands on the core), is kept in fixed point: each
/// placement of n strands adds n·⌈e·2^64/T⌉ units of 2^−64, which over-estimates Σ by less than n units.
/// When ⌈d·Σ/2^64⌉ and ⌈d·(Σ − N)/2^64⌉ (N: strands placed) agree, that is the exact term; when they do
/// not (a term at a whole nanosecond, or a large d·N), it is recomputed from the W_j, summed by period, as
/// whole parts plus an exact sum of remainders (RatioSum, rounded up where that sum no longer fits in 128
/// bits).
///
/// Cost: strands are placed in non-decreasing d (deadline-monotonic order), so each
/// (core, task) keeps its first-sum maximum with the deadline up to which it stays
/// valid, and a per-core heap renews only the entries whose validity ran out;
/// `load` is amortised O(log n) instead of a scan of every strand on the core.
class CoreInterference {
 public:
  /// The decomposed timing of one task: period and, per segment, release offset and
  /// strand length.
  struct TaskTiming {
    std::chrono::nanoseconds period{0};
    std::vector<std::chrono::nanoseconds> release;
    std::vector<std::chrono::nanoseconds> length;
  };

  CoreInterference(int cores, std::vector<TaskTiming> tasks);

  /// The interference on core q for a strand of (task, segment) with deadline d.
  /// d must not decrease from one call to the next.
  std::chrono::nanoseconds load(int q, std::size_t task, std::size_t segment, std::chrono::nanoseconds d);
  /// Records `count` strands of (task, segment) on core q, placed at deadline d.
  void place(int q, std::size_t task, std::size_t segment, std::chrono::nanoseconds d,
             std::int64_t count = 1);

  static constexpr int kFixedPointBits = 64;

 private:
  struct Entry {
    std::vector<std::pair<std::size_t, std::int64_t>> present;  // (segment, strands on this core), by segment
    i128 window_max = 0;  // max_l of the first sum, valid for d < valid_until
    std::int64_t valid_until = 0;
    i128 utilization_fixed = 0;  // Σ ⌈e·2^64/T⌉ over this task's strands on the core
    i128 work = 0;               // W: Σ e over this task's strands on the core (exact)
    std::int64_t strands = 0;    // strands placed: each rounded its share up by less than one unit
    std::uint32_t version = 0;
  };
  using HeapItem = std::tuple<std::int64_t, std::size_t, std::uint32_t>;  // valid_until, task, version
  struct Core {
    std::unordered_map<std::size_t, Entry> entries;
    i128 window_sum = 0;         // Σ_j window_max (tasks of up to 2^62 ns of work each)
    i128 utilization_fixed = 0;  // Σ_j utilization_fixed
    std::int64_t strands = 0;    // Σ_j strands
    std::unordered_map<std::int64_t, i128> work_by_period;  // T → Σ_{j: T_j = T} W_j (exact)
    std::priority_queue<HeapItem, std::vector<HeapItem>, std::greater<>> expiry;
  };

  void refresh(Core& core, std::int64_t d);
  /// The rate term ⌈Σ_j W_j·d/T_j⌉ over the tasks on `core` but `task`, exactly (or, where
  /// the remainders' sum does not fit in 128 bits, rounded up); `bound` if a product overflows.
  [[nodiscard]] i128 exact_rate_term(const Core& core, std::size_t task, std::int64_t d, i128 bound) const;
  /// The same, one term per task: where a period's summed work times d overflows.
  [[nodiscard]] i128 exact_rate_term_by_task(const Core& core, std::size_t task, std::int64_t d,
                                             i128 bound) const;
  /// whole + the smallest whole c ≥ Σ remainders, at most `bound`.
  [[nodiscard]] static i128 rate_term_from(i128 whole, const RatioSum& remainders, i128 bound);
  void recompute(Entry& entry, std::size_t task, std::int64_t d) const;

  std::vector<Core> cores_;
  std::vector<TaskTiming> tasks_;
  std::int64_t last_d_ = 0;
};

}  // namespace takt::analysis
