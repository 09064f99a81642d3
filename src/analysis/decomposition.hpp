// RT-OpenMP's decomposition of a synchronous task into strands with release offsets and deadlines.
#pragma once

#include "model/task.hpp"

#include <chrono>
#include <vector>

namespace takt::analysis {

/// The decomposition of one segment ⟨e_{i,j}, m_{i,j}⟩.
struct SegmentWindow {
  bool heavy = false;                    ///< m_{i,j} > 2.5·C_i / (D_i − 2.5·P_i)
  double slack = 0;                      ///< l_{i,j}: d_{i,j} = 2.5·e_{i,j}·(1 + l_{i,j})
  std::chrono::nanoseconds release{0};   ///< r_{i,j}: offset from the job's release
  std::chrono::nanoseconds deadline{0};  ///< d_{i,j}: relative to r_{i,j}
};

/// The decomposition of one task (rt-openmp §IV.A).
struct Decomposition {
  /// D_i > 2.5·P_i: there is slack to share. When false decompose() leaves the
  /// segments empty (decompose_proportionally() fills them).
  bool feasible = false;
  double total_slack_ns = 0;   ///< L_i = D_i − 2.5·P_i (on the speed-2 machine)
  double heavy_threshold = 0;  ///< 2.5·C_i / (D_i − 2.5·P_i); 0 when not feasible
  bool any_heavy = false;
  std::vector<SegmentWindow> segments;
  /// The windows are d_{i,j} = e_{i,j}·D_i/P_i for a task without slack (takt's
  /// extension, decompose_proportionally); the augmentation bound does not cover it.
  bool proportional = false;
};

/// The speed factor of rt-openmp §IV.A (decomposition at speed 2 of a machine that
/// runs at speed 5).
inline constexpr double kDecompositionFactor = 2.5;

/// Decomposes a synchronous task (rt-openmp §IV.A, from Saifullah et al.):
///  - heavy segments exist: l_{i,j} = m_{i,j}(D_i − 2.5P^h)/(2.5(C_i − C^h)) − 1 for heavy
///    segments, 0 for light ones (P^h, C^h: the light segments' span and work);
///  - all segments light: d_{i,j} = e_{i,j}·D_i / P_i;
///  - d_{i,j} = 2.5·e_{i,j}·(1 + l_{i,j}); r_{i,j+1} = r_{i,j} + d_{i,j}.
/// The paper states it for implicit deadlines and divides T_i; takt divides the
/// relative deadline D_i (= T_i there). All arithmetic is exact in integers; the
/// cumulative deadlines Σ_{k≤j} d_{i,k} are rounded down to whole nanoseconds, so
/// every segment's end (release + window) is at most the exact one and less than
/// 1 ns before it, and the windows add up to exactly D_i. `task.segments` must not
/// be empty.
Decomposition decompose(const model::Task& task);

/// takt's decomposition of a task that rt-openmp leaves out because it has no slack
/// (D_i ≤ 2.5·P_i): every segment gets the all-light window d_{i,j} = e_{i,j}·D_i/P_i
/// (so d_{i,j} ≥ e_{i,j} since D_i ≥ P_i), rounded as in decompose(); `proportional`
/// is set, `feasible` stays false, heavy_threshold is 0 and l_{i,j} = d/(2.5e) − 1
/// ≤ 0. The 2.5 factor only serves the augmentation proof: the FBB-FFD load
/// condition on these windows is sufficient on its own (each strand meets its window
/// on its core and the windows add up to D_i), so the placement decides.
Decomposition decompose_proportionally(const model::Task& task);

}  // namespace takt::analysis
