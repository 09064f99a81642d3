// TopologyGraph: a TopologySpec expanded for given processing elements, with its graph checks.
#include "sched/topology_graph.hpp"

#include "sched/component_registry.hpp"
#include "sched/processing_elements.hpp"
#include "sched/task.hpp"
#include "takt/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace takt::sched {
namespace {

class Expander {
 public:
  Expander(const TopologySpec& spec, const ProcessingElements& pes, const ComponentRegistry& registry,
           bool probe)
      : spec_(spec), pes_(pes), registry_(registry), probe_(probe) {}

  TopologyGraph run() {
    check_components();
    declare_pipes();
    expand_instances();
    expand_entry();
    expand_pes();
    check_uses();
    order_and_rank();
    check_topics();
    return std::move(graph_);
  }

 private:
  struct Family {
    int first = 0;
    int size = 1;
    const PipeSpec* spec = nullptr;
  };

  [[noreturn]] void fail(SourceMark mark, const std::string& message) const {
    throw takt::Error(spec_.where(mark) + ": " + message);
  }

  /// The description was checked against a registry when it was parsed; this one (the
  /// scheduler's, or the one a topology is checked with) must know its components and
  /// their ports too (each port bound as it expects, every port it requires bound), and
  /// the termination component every terminal pipe gets.
  void check_components() const {
    const std::string fix = "; give the scheduler the registry the topology was read with "
                            "(SchedulerOptions::registry)";
    for (const InstanceSpec& spec : spec_.instances) {
      const ComponentInfo* info = registry_.find(spec.component);
      if (info == nullptr) {
        fail(spec.mark, fmt::format("instance '{}': unknown component '{}' in this scheduler's registry (known "
                                    "components: {}){}",
                                    spec.name, spec.component, fmt::join(registry_.names(), ", "), fix));
      }
      for (const auto& [port, refs] : spec.ports) {
        const PortInfo* p = info->find_port(port);
        if (p == nullptr) {
          fail(spec.mark, "instance '" + spec.name + "': component '" + spec.component + "' has no port '" + port +
                              "' in this registry" + fix);
        }
        if (!p->many && (refs.size() != 1 || refs[0].index == PipeRef::Index::all)) {
          fail(spec.mark, "instance '" + spec.name + "': port '" + port + "' of component '" + spec.component +
                              "' takes one pipe in this registry" + fix);
        }
      }
      for (const PortInfo& p : info->ports) {
        const bool bound = std::any_of(spec.ports.begin(), spec.ports.end(),
                                       [&](const auto& binding) { return binding.first == p.name; });
        if (!p.optional && !bound) {
          fail(spec.mark, "instance '" + spec.name + "': component '" + spec.component + "' needs its port '" +
                              p.name + "' bound in this registry" + fix);
        }
      }
    }
    if (registry_.find("termination") == nullptr) {
      fail(spec_.mark, "this registry has no 'termination' component, which every terminal pipe needs; build "
                       "the registry from ComponentRegistry::builtin()");
    }
  }

  int size_of(Multiplicity m) const {
    switch (m) {
      case Multiplicity::one:
        return 1;
      case Multiplicity::per_pe:
        return pes_.id_count();
      case Multiplicity::per_cluster:
        return std::max(1, pes_.cluster_count());
    }
    return 1;
  }

  void declare_pipes() {
    for (const PipeSpec& p : spec_.pipes) {
      Family family{static_cast<int>(graph_.pipes.size()), size_of(p.per), &p};
      families_[p.name] = family;
      for (int i = 0; i < family.size; ++i) {
        GraphPipe pipe;
        pipe.spec = &p;
        pipe.index = p.per == Multiplicity::one ? -1 : i;
        pipe.name = p.per == Multiplicity::one ? p.name : p.name + "[" + std::to_string(i) + "]";
        graph_.pipes.push_back(std::move(pipe));
      }
    }
  }

  // `self`: the instance index ([#]); `pe`, `cluster`: for [pe] / [cluster]. Empty
  // for a fixed index the probe has no pipe for (see probe_topology).
  std::vector<int> resolve(const PipeRef& ref, int self, int pe, int cluster) const {
    const Family& f = families_.at(ref.pipe);
    auto element = [&](int i) -> int {
      if (i < 0 || i >= f.size) {
        fail(ref.mark, "'" + ref.text() + "' is out of range: '" + ref.pipe + "' has " +
                           std::to_string(f.size) + " pipes (" + to_string(f.spec->per) + ") here, index " +
                           std::to_string(i) + " does not exist");
      }
      return f.first + i;
    };
    using I = PipeRef::Index;
    switch (ref.index) {
      case I::none:
        return {f.first};
      case I::self:
        return {element(self)};
      case I::fixed:
        if (ref.fixed >= f.size) {
          if (probe_) return {};
          const bool per_pe = f.spec->per == Multiplicity::per_pe;
          fail(ref.mark, "'" + ref.text() + "' is out of range: '" + ref.pipe + "' is " +
                             to_string(f.spec->per) + ", one pipe per " +
                             (per_pe ? "processing element id" : "cluster") + ", and there " +
                             (f.size == 1 ? "is 1" : "are " + std::to_string(f.size)) + " here (" + ref.pipe +
                             "[0] to " + ref.pipe + "[" + std::to_string(f.size - 1) + "]); index " +
                             std::to_string(ref.fixed) + " needs at least " + std::to_string(ref.fixed + 1) +
                             (per_pe ? " processing elements" : " clusters"));
        }
        return {element(ref.fixed)};
      case I::pe:
        return {element(pe)};
      case I::cluster:
        return {element(cluster)};
      case I::all: {
        std::vector<int> all;
        for (int i = 0; i < f.size; ++i) all.push_back(f.first + i);
        return all;
      }
    }
    return {};
  }

  void expand_instances() {
    for (const InstanceSpec& spec : spec_.instances) {
      const ComponentInfo* info = registry_.find(spec.component);
      const int count = size_of(spec.per);
      for (int i = 0; i < count; ++i) {
        GraphInstance instance;
        instance.spec = &spec;
        instance.index = spec.per == Multiplicity::one ? -1 : i;
        instance.name = spec.per == Multiplicity::one ? spec.name : spec.name + "[" + std::to_string(i) + "]";
        const int id = static_cast<int>(graph_.instances.size());
        for (const auto& [port, refs] : spec.ports) {
          const PortInfo* p = info->find_port(port);
          std::vector<int> pipes;
          for (const PipeRef& ref : refs) {
            for (int pipe : resolve(ref, i, kAny, kAny)) {
              pipes.push_back(pipe);
              auto& uses = p->direction == PortInfo::Direction::input ? graph_.pipes[pipe].consumers
                                                                      : graph_.pipes[pipe].producers;
              uses.push_back(GraphUse{id, port, ref.mark});
            }
          }
          instance.ports.emplace_back(port, std::move(pipes));
        }
        graph_.instances.push_back(std::move(instance));
      }
    }
  }

  void expand_entry() {
    const PipeRef& ref = spec_.entry;
    graph_.entry_by = ref.index;
    if (ref.index == PipeRef::Index::none) {
      graph_.entry = resolve(ref, kAny, kAny, kAny);
    } else {
      PipeRef all = ref;
      all.index = PipeRef::Index::all;
      graph_.entry = resolve(all, kAny, kAny, kAny);
    }
    for (int pipe : graph_.entry) graph_.pipes[pipe].producers.push_back(GraphUse{-1, "entry", ref.mark});
  }

  void consumed_by_pes(int pipe, SourceMark mark) {
    GraphPipe& p = graph_.pipes[pipe];
    if (p.consumed_by_pes) return;
    p.consumed_by_pes = true;
    p.consumers.push_back(GraphUse{-1, "pes", mark});
  }

  void expand_pes() {
    bool terminal_skipped = false;  // a fixed index the probe has no pipe for
    for (int id = 0; id < pes_.id_count(); ++id) {
      GraphPe pe;
      pe.id = id;
      pe.cluster = pes_.cluster_of(id);
      pe.online = pes_.online(id);
      const bool by_cluster = spec_.terminal.index == PipeRef::Index::cluster;
      if (!(by_cluster && pe.cluster < 0)) {
        const std::vector<int> terminal = resolve(spec_.terminal, kAny, id, pe.cluster);
        if (terminal.empty()) {
          terminal_skipped = true;
        } else {
          pe.terminal = terminal.front();
          consumed_by_pes(pe.terminal, spec_.terminal.mark);
        }
      }
      for (const PipeRef& ref : spec_.pull) {
        if (ref.index == PipeRef::Index::cluster && pe.cluster < 0) continue;
        const std::vector<int> resolved = resolve(ref, kAny, id, pe.cluster);
        if (resolved.empty()) continue;
        const int pipe = resolved.front();
        if (pipe == pe.terminal) continue;  // e.g. PE 1 pulling from ready[1]: its own terminal
        pe.pull.push_back(pipe);
        consumed_by_pes(pipe, ref.mark);
      }
      graph_.pes.push_back(std::move(pe));
    }
    if (!spec_.steal.empty()) {
      PipeRef all{spec_.steal, PipeRef::Index::all, 0, spec_.steal_mark};
      graph_.steal = resolve(all, kAny, kAny, kAny);
      for (int pipe : graph_.steal) consumed_by_pes(pipe, spec_.steal_mark);
    }
    if (!terminal_skipped && std::none_of(graph_.pes.begin(), graph_.pes.end(),
                                          [](const GraphPe& pe) { return pe.terminal >= 0; })) {
      fail(spec_.pes_mark, "no processing element has a terminal pipe");
    }
  }

  std::string user(const GraphUse& use) const {
    if (use.instance >= 0)
      return "instance '" + graph_.instances[use.instance].name + "' (port " + use.port + ")";
    if (use.port == "entry") return "the entry (entry:)";
    return "the processing elements (pes:)";
  }

  /// Why a family's element may have no consumer: its cluster or PE id has no
  /// processing element (families are sized by the largest cluster or PE id).
  std::string empty_element(const GraphPipe& pipe) const {
    if (pipe.index < 0 || pipe.spec == nullptr) return {};
    if (pipe.spec->per == Multiplicity::per_cluster) {
      for (int pe = 0; pe < pes_.id_count(); ++pe) {
        if (pes_.known(pe) && pes_.cluster_of(pe) == pipe.index) return {};
      }
      return "; cluster " + std::to_string(pipe.index) + " has no processing element (" + pes_.describe() +
             "): number the clusters 0, 1, 2, ... without gaps";
    }
    if (pipe.spec->per == Multiplicity::per_pe && !pes_.known(pipe.index)) {
      return "; there is no processing element " + std::to_string(pipe.index) + " (" + pes_.describe() +
             "): number the processing elements without gaps";
    }
    return {};
  }

  void check_uses() {
    for (const GraphPipe& pipe : graph_.pipes) {
      if (pipe.producers.empty() && pipe.consumers.empty()) {
        fail(pipe.spec->mark,
             "pipe '" + pipe.name + "' is dangling: declared but neither produced nor consumed");
      }
      if (pipe.producers.empty()) {
        fail(pipe.consumers.front().mark,
             "pipe '" + pipe.name + "' is dangling: " + user(pipe.consumers.front()) +
                 (pipe.consumers.front().instance >= 0 || pipe.consumers.front().port == "entry"
                      ? " consumes"
                      : " consume") +
                 " it, but nothing produces it (no instance output, not the entry)");
      }
      if (pipe.consumers.empty()) {
        fail(pipe.producers.front().mark,
             "pipe '" + pipe.name + "' is dangling: " + user(pipe.producers.front()) +
                 " produces it, but nothing consumes it (no instance input, not in pes:)" + empty_element(pipe));
      }
      if (pipe.producers.size() > 1) {
        fail(pipe.producers[1].mark, "pipe '" + pipe.name + "' is produced twice: by " +
                                         user(pipe.producers[0]) + " and by " + user(pipe.producers[1]) +
                                         "; a pipe has one producer");
      }
      if (pipe.consumers.size() > 1) {
        fail(pipe.consumers[1].mark, "pipe '" + pipe.name + "' is consumed twice: by " +
                                         user(pipe.consumers[0]) + " and by " + user(pipe.consumers[1]) +
                                         "; a pipe has one consumer");
      }
    }
  }

  // Instances fed by instance i.
  std::vector<int> successors(int i) const {
    std::vector<int> out;
    for (const auto& [port, pipes] : graph_.instances[i].ports) {
      const PortInfo* p = registry_.find(graph_.instances[i].spec->component)->find_port(port);
      if (p->direction != PortInfo::Direction::output) continue;
      for (int pipe : pipes) {
        for (const GraphUse& use : graph_.pipes[pipe].consumers) {
          if (use.instance >= 0) out.push_back(use.instance);
        }
      }
    }
    return out;
  }

  std::string pipe_between(int from, int to) const {
    for (const auto& [port, pipes] : graph_.instances[from].ports) {
      for (int pipe : pipes) {
        for (const GraphUse& use : graph_.pipes[pipe].consumers) {
          if (use.instance == to) return graph_.pipes[pipe].name;
        }
      }
    }
    return "?";
  }

  void check_acyclic() {
    const int n = static_cast<int>(graph_.instances.size());
    std::vector<int> color(n, 0);
    for (int root = 0; root < n; ++root) {
      if (color[root] != 0) continue;
      std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
      std::vector<std::vector<int>> next(n);
      next[root] = successors(root);
      color[root] = 1;
      while (!stack.empty()) {
        auto& [v, k] = stack.back();
        if (k == next[v].size()) {
          color[v] = 2;
          stack.pop_back();
          continue;
        }
        const int w = next[v][k++];
        if (color[w] == 1) {
          // Cycle w -> ... -> v -> w: walk the stack back from v to w.
          std::vector<int> cycle;
          for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
            cycle.push_back(it->first);
            if (it->first == w) break;
          }
          std::reverse(cycle.begin(), cycle.end());
          std::string path;
          for (std::size_t i = 0; i < cycle.size(); ++i) {
            const int a = cycle[i];
            const int b = cycle[(i + 1) % cycle.size()];
            path += graph_.instances[a].name + " -> " + pipe_between(a, b) + " -> ";
          }
          path += graph_.instances[cycle.front()].name;
          fail(graph_.instances[v].spec->mark,
               "the topology has a cycle: " + path +
                   "; tasks must flow from the entry to the processing elements");
        }
        if (color[w] == 0) {
          color[w] = 1;
          next[w] = successors(w);
          stack.emplace_back(w, 0);
        }
      }
    }
  }

  void order_and_rank() {
    check_acyclic();
    const int n = static_cast<int>(graph_.instances.size());
    std::vector<int> indegree(n, 0);
    for (int i = 0; i < n; ++i) {
      for (int s : successors(i)) ++indegree[s];
    }
    std::vector<int> ready;
    for (int i = n - 1; i >= 0; --i) {
      if (indegree[i] == 0) ready.push_back(i);
    }
    int rank = 0;
    for (int pipe : graph_.entry) graph_.pipes[pipe].rank = rank++;
    while (!ready.empty()) {
      const int i = ready.back();
      ready.pop_back();
      graph_.instance_order.push_back(i);
      int depth_in = -1;
      for (const auto& [port, pipes] : graph_.instances[i].ports) {
        const PortInfo* p = registry_.find(graph_.instances[i].spec->component)->find_port(port);
        if (p->direction != PortInfo::Direction::input) continue;
        for (int pipe : pipes) depth_in = std::max(depth_in, graph_.pipes[pipe].depth);
      }
      for (const auto& [port, pipes] : graph_.instances[i].ports) {
        const PortInfo* p = registry_.find(graph_.instances[i].spec->component)->find_port(port);
        if (p->direction != PortInfo::Direction::output) continue;
        for (int pipe : pipes) {
          GraphPipe& out = graph_.pipes[pipe];
          out.rank = rank++;
          out.depth = depth_in + 1;
          if (out.depth + 1 > kMaxPipelineDepth) {
            fail(graph_.instances[i].spec->mark,
                 "the topology is too deep: pipe '" + out.name + "' is the " + std::to_string(out.depth + 1) +
                     "th pipe on a path (at most " + std::to_string(kMaxPipelineDepth) + ")");
          }
        }
      }
      std::vector<int> succ = successors(i);
      for (auto it = succ.rbegin(); it != succ.rend(); ++it) {
        if (--indegree[*it] == 0) ready.push_back(*it);
      }
    }
  }

  void check_topics() {
    std::map<std::string, int> responders;
    // Per declared instance that keeps per-task data, its elements (a per: family has one
    // per pe or cluster, each with its own word), in declaration order.
    std::vector<std::pair<const InstanceSpec*, std::size_t>> data_specs;
    for (int i = 0; i < static_cast<int>(graph_.instances.size()); ++i) {
      const ComponentInfo* info = registry_.find(graph_.instances[i].spec->component);
      if (info->uses_task_data) {
        const InstanceSpec* spec = graph_.instances[i].spec;
        auto it = std::find_if(data_specs.begin(), data_specs.end(),
                               [spec](const auto& d) { return d.first == spec; });
        if (it == data_specs.end()) {
          data_specs.emplace_back(spec, 1);
        } else {
          ++it->second;
        }
      }
      for (const std::string& topic : info->responds) {
        auto [it, inserted] = responders.emplace(topic, i);
        if (!inserted) {
          fail(graph_.instances[i].spec->mark, "topic " + topic + " would have two responders: '" +
                                                   graph_.instances[it->second].name + "' and '" +
                                                   graph_.instances[i].name + "'; a topic has exactly one");
        }
      }
    }
    for (const GraphInstance& instance : graph_.instances) {
      const ComponentInfo* info = registry_.find(instance.spec->component);
      for (const std::string& topic : info->depends) {
        if (responders.count(topic) == 0) {
          std::string provider;
          for (const ComponentInfo& c : registry_.all()) {
            if (std::find(c.responds.begin(), c.responds.end(), topic) != c.responds.end()) provider = c.name;
          }
          fail(instance.spec->mark,
               "instance '" + instance.name + "' (" + info->name + ") needs a responder for topic " + topic +
                   (provider.empty() ? std::string() : ": add an instance of component '" + provider + "'"));
        }
      }
    }
    std::size_t data_users = 0;
    for (const auto& d : data_specs) data_users += d.second;
    if (data_users > kMaxTaskData) {
      std::string which;
      for (const auto& [spec, elements] : data_specs) {
        which += (which.empty() ? "" : ", ") + ("'" + spec->name + "' (" + spec->component);
        if (spec->per != Multiplicity::one) {
          which += ", per: " + std::string(spec->per == Multiplicity::per_pe ? "pe" : "cluster") + ", " +
                   std::to_string(elements) + " elements";
        }
        which += ")";
      }
      fail(spec_.mark, "the topology has " + std::to_string(data_users) +
                           " instances that keep per-task data, each element of a per: family counted: " +
                           which + "; at most " + std::to_string(kMaxTaskData) +
                           " fit in a task: remove some, or use one instance instead of a per: family");
    }
  }

  const TopologySpec& spec_;
  const ProcessingElements& pes_;
  const ComponentRegistry& registry_;
  const bool probe_;
  std::map<std::string, Family> families_;
  TopologyGraph graph_;
};

}  // namespace

TopologyGraph expand_topology(const TopologySpec& spec, const ProcessingElements& pes,
                              const ComponentRegistry& registry) {
  return Expander(spec, pes, registry, false).run();
}

void probe_topology(const TopologySpec& spec, const ComponentRegistry& registry) {
  (void)Expander(spec, ProcessingElements::with_clusters({0, 1}), registry, true).run();
}

}  // namespace takt::sched
