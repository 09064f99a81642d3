// The synthetic synchronous tasks of RTWS §IV.A (types 1–3): sequences of parallel-for
// segments whose nodes busy-wait for a given time.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace takt::apps {

/// What the nodes run while a tally is set count into it: how many ran, and the sum
/// (mod 2^64) of each one's node_key. Every node once gives nodes() and
/// SyntheticTask::expected_key_sum(); a node run twice and another left out give the
/// right count but not the right sum.
struct NodeTally {
  std::atomic<std::uint64_t> count{0};
  std::atomic<std::uint64_t> key_sum{0};
};

/// A synchronous task: segment s has segment_nodes[s] nodes that may run in parallel;
/// the segments run one after the other. Node j of segment s busy-waits
/// node_ns(s, j) ∈ [min_node_ns, max_node_ns] nanoseconds.
struct SyntheticTask {
  int type = 1;
  std::uint64_t seed = 0;
  std::uint32_t min_node_ns = 0;
  std::uint32_t max_node_ns = 0;
  std::vector<std::uint32_t> segment_nodes;
  /// Busy-loop iterations per nanosecond on this machine (calibrated when the task is made).
  double units_per_ns = 1.0;
  /// When set, every node run counts itself here (a check that a runtime ran every node
  /// once; the benchmarks set it for an untimed run only).
  mutable NodeTally* tally = nullptr;

  /// Nominal execution time of node j of segment s (a hash of seed, s and j).
  [[nodiscard]] std::uint32_t node_ns(std::size_t segment, std::uint32_t node) const;
  /// Runs node j of segment s: busy-waits node_ns(s, j).
  void run_node(std::size_t segment, std::uint32_t node) const;
  /// Σ over all nodes of node_ns: the task's work C in nanoseconds.
  [[nodiscard]] std::uint64_t work_ns() const;
  /// Σ over segments of the longest node: the span L in nanoseconds.
  [[nodiscard]] std::uint64_t span_ns() const;
  [[nodiscard]] std::uint64_t nodes() const;
  /// A node's key for NodeTally: a 64-bit hash of (segment, node), distinct per node.
  [[nodiscard]] static std::uint64_t node_key(std::size_t segment, std::uint32_t node);
  /// Σ node_key over every node, mod 2^64: what a tally reads after each ran once.
  [[nodiscard]] std::uint64_t expected_key_sum() const;
  /// Whether `t` reads every node run exactly once (up to a 2^-64 chance of a collision).
  [[nodiscard]] bool ran_every_node_once(const NodeTally& t) const;
};

/// Makes a task of RTWS type 1, 2 or 3 (§IV.A): 10–20 segments, and per segment
///   type 1: 100,000–200,000 nodes of 5–10 ns,
///   type 2: 10,000–20,000 nodes of 2,000–4,500 ns,
///   type 3: 1,000–2,000 nodes of 20,000–50,000 ns,
/// drawn uniformly from `seed`. `node_scale` multiplies the node counts (benchmarks use
/// it to shorten runs). Its nodes run busy_units_per_ns() iterations per ns: the busy
/// loop's calibration that the segments program uses too (the fastest of 40 short trials
/// by thread CPU time, once per process; `takt bench cpus` compares each CPU with it).
/// A node's fixed overhead (its time drawn from the seed, the call, the loop's exit) is
/// not calibrated away: type-1 nodes run about 4.5 times their nominal 5-10 ns
/// (docs/programs.md).
SyntheticTask make_synthetic_task(int type, std::uint64_t seed, double node_scale = 1.0);

/// Spins for `units` busy-loop iterations.
void busy_units(std::uint64_t units);

/// Runs the task on the takt runtime: each segment is a parallel_for over its nodes
/// (grain 1: every node is a unit the scheduler may hand out).
void run_synthetic(const SyntheticTask& task);
/// Runs the task serially.
void run_synthetic_serial(const SyntheticTask& task);

}  // namespace takt::apps
