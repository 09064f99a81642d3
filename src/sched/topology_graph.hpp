// TopologyGraph: a TopologySpec expanded for given processing elements, with its graph checks.
#pragma once

#include "sched/topology_spec.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace takt::sched {

class ComponentRegistry;
class ProcessingElements;

/// Longest chain of pipes a task can travel (entry pipe included). A task is a
/// member of every pipe on its path, plus, for a moment, of the pipe it is moving
/// away from (a migration, a swapped instance re-placing it), so this stays below
/// kMaxPipeNodes.
inline constexpr int kMaxPipelineDepth = 10;

/// An instance or the runtime system using a pipe through a port.
struct GraphUse {
  int instance = -1;  ///< -1: the runtime system (entry) or the processing elements
  std::string port;
  SourceMark mark;
};

/// One pipe of the expanded topology ("ready[2]").
struct GraphPipe {
  std::string name;
  const PipeSpec* spec = nullptr;
  int index = -1;  ///< element index in its family, -1 for a single pipe
  std::vector<GraphUse> producers;
  std::vector<GraphUse> consumers;
  bool consumed_by_pes = false;  ///< a terminal, pull or steal pipe
  int rank = -1;                 ///< position in topological order (locks in rank order)
  int depth = 0;                 ///< pipes before it on the longest path from an entry
};

/// One instance of the expanded topology ("order[2]").
struct GraphInstance {
  std::string name;
  const InstanceSpec* spec = nullptr;
  int index = -1;
  std::vector<std::pair<std::string, std::vector<int>>> ports;  // port -> pipe indices
};

/// One processing element slot (every id below ProcessingElements::id_count()).
struct GraphPe {
  int id = 0;
  int cluster = -1;  ///< -1: an id not known to the ProcessingElements
  bool online = false;
  int terminal = -1;
  std::vector<int> pull;
};

struct TopologyGraph {
  std::vector<GraphPipe> pipes;
  std::vector<GraphInstance> instances;
  std::vector<GraphPe> pes;
  std::vector<int> entry;  ///< the entry pipe, or the family indexed by entry_by
  PipeRef::Index entry_by = PipeRef::Index::none;
  std::vector<int> steal;           ///< the steal family, in index order
  std::vector<int> instance_order;  ///< topological order of `instances`
};

/// Expands `spec` for `pes` and checks it (producers, consumers, cycles, depth,
/// terminal pipes, responders); throws takt::Error with file:line:column.
TopologyGraph expand_topology(const TopologySpec& spec, const ProcessingElements& pes,
                              const ComponentRegistry& registry);

/// The checks of expand_topology on a probe of 2 processing elements in 2 clusters,
/// for a spec whose real processing elements are not known yet (parse_topology). A
/// fixed index the probe has no pipe for (`ready[3]`) is not an error here: the uses
/// it names are left out, and expand_topology checks it for the real processing
/// elements.
void probe_topology(const TopologySpec& spec, const ComponentRegistry& registry);

}  // namespace takt::sched
