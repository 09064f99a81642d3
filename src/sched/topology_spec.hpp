// TopologySpec: the declarative description of a topology (the `topology:` YAML section).
#pragma once

#include "sched/params.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace YAML {
class Node;
}

namespace takt::sched {

class ComponentRegistry;
class ProcessingElements;

/// A place in the source text (0-based, as yaml-cpp reports it; -1 if unknown).
struct SourceMark {
  int line = -1;
  int column = -1;
};

/// How many copies of a pipe or instance a topology has.
enum class Multiplicity { one, per_pe, per_cluster };

const char* to_string(Multiplicity multiplicity) noexcept;

/// A declared pipe (or family of pipes).
struct PipeSpec {
  std::string name;
  Multiplicity per = Multiplicity::one;
  SourceMark mark;
};

/// A reference to a pipe in a port, in `entry:` or in `pes:`:
///   `name`            a single pipe
///   `name[#]`         the element of the family at this instance's own index
///   `name[*]`         every element of the family, in index order
///   `name[3]`         element 3
///   `name[pe]`        (pes:, entry:) the element of the PE's / task's pe
///   `name[cluster]`   (pes:, entry:) the element of the PE's / task's cluster
struct PipeRef {
  enum class Index { none, self, all, fixed, pe, cluster };
  std::string pipe;
  Index index = Index::none;
  int fixed = 0;
  SourceMark mark;
  std::string text() const;
};

/// A declared instance (or family of instances, one per PE or per cluster).
struct InstanceSpec {
  std::string name;
  std::string component;
  Multiplicity per = Multiplicity::one;
  Params params;
  std::vector<std::pair<std::string, std::vector<PipeRef>>> ports;
  SourceMark mark;
};

/// A topology description, parsed and checked.
struct TopologySpec {
  std::string name;
  std::string description;
  std::string file;  ///< for file:line:column messages
  SourceMark mark;
  std::vector<PipeSpec> pipes;
  std::vector<InstanceSpec> instances;
  PipeRef entry;
  // pes:
  SourceMark pes_mark;
  PipeRef terminal;
  std::vector<PipeRef> pull;
  std::string steal;  ///< a per-pe or per-cluster pipe family, empty for none
  SourceMark steal_mark;

  const PipeSpec* find_pipe(std::string_view name) const;
  const InstanceSpec* find_instance(std::string_view name) const;
  /// "file:line:column" of a mark (1-based), or the file name alone.
  std::string where(SourceMark mark) const;
};

/// Parses and checks a `topology:` section (the node is the section's value: a
/// map with name, description, pipes, entry, instances, pes). Every mistake is a
/// takt::Error whose message starts with file:line:column and says what to change:
/// unknown key, a key given twice in one map, unknown component, unknown port or
/// parameter, a bad parameter value, an undeclared pipe, an index that does not fit
/// the pipe, a pipe nothing produces or nothing consumes (dangling), a pipe consumed
/// or produced twice, a cycle, processing elements without a terminal pipe, a topic
/// without responder.
/// The graph checks run on a probe of 2 processing elements in 2 clusters, which
/// does not check fixed indices beyond it (`ready[3]`); Topology::build checks
/// everything again for the real processing elements.
TopologySpec parse_topology(const YAML::Node& section, std::string file);
TopologySpec parse_topology(const YAML::Node& section, std::string file, const ComponentRegistry& registry);

/// Parses YAML text holding either a document with a `topology:` key or the section
/// itself (built-in topologies, tests).
TopologySpec parse_topology_text(std::string_view yaml, std::string file);

/// The spec of instance `old` with another component and parameters (the ports stay
/// the same); checks that the component accepts those ports and parameters.
InstanceSpec replace_component(const TopologySpec& spec, const InstanceSpec& old, std::string_view component,
                               const YAML::Node& params, const ComponentRegistry& registry);

/// Checks the whole graph of `spec` for the processing elements `pes` (see
/// parse_topology); throws takt::Error with file:line:column on the first problem.
void check_topology(const TopologySpec& spec, const ProcessingElements& pes,
                    const ComponentRegistry& registry);

}  // namespace takt::sched
