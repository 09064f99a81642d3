// A DAG task's structure: nodes with execution times and precedence edges.
#include "model/dag.hpp"

#include <algorithm>
#include <cassert>

namespace takt::model {

std::chrono::nanoseconds Dag::work() const {
  std::chrono::nanoseconds total{0};
  for (const DagNode& n : nodes) total += n.length;
  return total;
}

std::vector<std::size_t> Dag::topological_order() const {
  // Kahn's algorithm; ties resolved by index so the order is deterministic.
  std::vector<std::size_t> in_degree(nodes.size(), 0);
  std::vector<std::vector<std::size_t>> successors(nodes.size());
  for (std::size_t v = 0; v < nodes.size(); ++v) {
    for (std::size_t u : nodes[v].predecessors) {
      successors[u].push_back(v);
      ++in_degree[v];
    }
  }
  std::vector<std::size_t> ready;
  for (std::size_t v = nodes.size(); v-- > 0;) {
    if (in_degree[v] == 0) ready.push_back(v);
  }
  std::vector<std::size_t> order;
  order.reserve(nodes.size());
  while (!ready.empty()) {
    std::size_t u = ready.back();
    ready.pop_back();
    order.push_back(u);
    for (std::size_t v : successors[u]) {
      if (--in_degree[v] == 0) ready.push_back(v);
    }
  }
  return order;  // shorter than nodes.size() exactly when there is a cycle
}

std::chrono::nanoseconds Dag::critical_path() const {
  std::vector<std::size_t> path = critical_path_nodes();
  std::chrono::nanoseconds total{0};
  for (std::size_t v : path) total += nodes[v].length;
  return total;
}

std::vector<std::size_t> Dag::critical_path_nodes() const {
  std::vector<std::size_t> order = topological_order();
  assert(order.size() == nodes.size() && "critical path of a cyclic graph");
  // finish[v]: length of the longest path ending with v; via[v]: its predecessor.
  std::vector<std::chrono::nanoseconds> finish(nodes.size(), std::chrono::nanoseconds{0});
  std::vector<std::size_t> via(nodes.size(), nodes.size());
  for (std::size_t v : order) {
    std::chrono::nanoseconds start{0};
    for (std::size_t u : nodes[v].predecessors) {
      if (via[v] == nodes.size() || finish[u] > start) {
        start = finish[u];
        via[v] = u;
      }
    }
    finish[v] = start + nodes[v].length;
  }
  if (nodes.empty()) return {};
  std::size_t last = 0;
  for (std::size_t v = 1; v < nodes.size(); ++v) {
    if (finish[v] > finish[last]) last = v;
  }
  std::vector<std::size_t> path;
  for (std::size_t v = last; v != nodes.size(); v = via[v]) path.push_back(v);
  std::reverse(path.begin(), path.end());
  return path;
}

std::optional<std::vector<std::size_t>> Dag::find_cycle() const {
  // Depth-first search over predecessor edges with colours; a grey node reached
  // again closes a cycle.
  enum class Colour { white, grey, black };
  std::vector<Colour> colour(nodes.size(), Colour::white);
  std::vector<std::size_t> stack;
  for (std::size_t root = 0; root < nodes.size(); ++root) {
    if (colour[root] != Colour::white) continue;
    // Iterative DFS: frames of (node, next predecessor position).
    std::vector<std::pair<std::size_t, std::size_t>> frames{{root, 0}};
    colour[root] = Colour::grey;
    stack.assign(1, root);
    while (!frames.empty()) {
      auto& [v, next] = frames.back();
      if (next < nodes[v].predecessors.size()) {
        std::size_t u = nodes[v].predecessors[next++];
        if (colour[u] == Colour::grey) {
          auto from = std::find(stack.begin(), stack.end(), u);
          std::vector<std::size_t> cycle(from, stack.end());
          cycle.push_back(u);
          // The stack follows predecessor edges; reverse to execution order.
          std::reverse(cycle.begin(), cycle.end());
          return cycle;
        }
        if (colour[u] == Colour::white) {
          colour[u] = Colour::grey;
          stack.push_back(u);
          frames.emplace_back(u, 0);
        }
      } else {
        colour[v] = Colour::black;
        stack.pop_back();
        frames.pop_back();
      }
    }
  }
  return std::nullopt;
}

}  // namespace takt::model
