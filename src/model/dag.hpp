// A DAG task's structure: nodes with execution times and precedence edges.
#pragma once

#include "model/source_mark.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace takt::model {

/// One node (sub-computation) of a DAG task (rtws §II, Fig. 1).
struct DagNode {
  std::string name;
  std::chrono::nanoseconds length{0};     ///< execution time of the node
  std::vector<std::size_t> predecessors;  ///< indices of the nodes that must finish first
  SourceMark mark;
};

/// A directed acyclic graph of nodes. Work C is the sum of all node lengths;
/// critical-path length L the largest sum along a path (rtws §II).
struct Dag {
  std::vector<DagNode> nodes;

  [[nodiscard]] std::chrono::nanoseconds work() const;
  /// L; requires an acyclic graph (see find_cycle).
  [[nodiscard]] std::chrono::nanoseconds critical_path() const;
  /// The node indices of one critical path, in execution order.
  [[nodiscard]] std::vector<std::size_t> critical_path_nodes() const;
  /// A cycle as node indices (first == last), or nullopt when the graph is acyclic.
  [[nodiscard]] std::optional<std::vector<std::size_t>> find_cycle() const;
  /// Node indices in an order where every node follows its predecessors; requires
  /// an acyclic graph.
  [[nodiscard]] std::vector<std::size_t> topological_order() const;
};

}  // namespace takt::model
