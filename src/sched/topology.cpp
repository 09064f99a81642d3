// Topology: a built topology: its pipes, instances, processing elements and pull paths.
#include "sched/topology.hpp"

#include "sched/broker.hpp"
#include "sched/component_registry.hpp"
#include "sched/topology_graph.hpp"
#include "takt/error.hpp"

#include <algorithm>
#include <sstream>

namespace takt::sched {

std::unique_ptr<Topology> Topology::build(TopologySpec spec, ProcessingElements pes, Broker& broker,
                                          const Instrumentation* instrumentation,
                                          const ComponentRegistry& registry) {
  std::unique_ptr<Topology> topology(new Topology(std::move(spec), std::move(pes)));
  Topology& t = *topology;
  t.broker_ = &broker;
  t.instrumentation_ = instrumentation;
  const TopologyGraph graph = expand_topology(t.spec_, t.pes_, registry);

  // Pipes, in rank order.
  std::vector<int> by_rank(graph.pipes.size());
  for (std::size_t i = 0; i < graph.pipes.size(); ++i) by_rank[graph.pipes[i].rank] = static_cast<int>(i);
  std::vector<Pipe*> pipe_of(graph.pipes.size());
  for (int index : by_rank) {
    const GraphPipe& g = graph.pipes[index];
    auto pipe = std::make_unique<Pipe>(g.name, static_cast<std::size_t>(g.depth));
    pipe->set_rank(g.rank);
    pipe->set_logging(!g.consumed_by_pes);
    pipe_of[index] = pipe.get();
    t.pipes_.push_back(std::move(pipe));
  }

  // Instances, in topological order; data slots in that order.
  std::size_t next_slot = 0;
  for (int index : graph.instance_order) {
    const GraphInstance& g = graph.instances[index];
    Element element;
    element.family = g.spec->name;
    element.index = g.index;
    for (const auto& [port, pipes] : g.ports) {
      std::vector<Pipe*> bound;
      for (int p : pipes) bound.push_back(pipe_of[p]);
      element.ports.emplace_back(port, std::move(bound));
    }
    t.elements_.push_back(std::move(element));
    const ComponentInfo& info = *registry.find(g.spec->component);
    const std::size_t slot = info.uses_task_data ? next_slot++ : 0;
    t.instances_.push_back(info.create(t.context_for(t.instances_.size(), *g.spec, info, slot)));
  }
  // A termination instance for every pipe the processing elements take from.
  const ComponentInfo& termination = *registry.find("termination");
  for (const GraphPipe& g : graph.pipes) {
    if (!g.consumed_by_pes) continue;
    Element element;
    element.family = "termination:" + g.name;
    element.ports.emplace_back("input", std::vector<Pipe*>{pipe_of[&g - graph.pipes.data()]});
    element.automatic = true;
    t.elements_.push_back(std::move(element));
    InstanceSpec spec;
    spec.name = "termination:" + g.name;
    spec.component = "termination";
    t.instances_.push_back(termination.create(t.context_for(t.instances_.size(), spec, termination, 0)));
  }
  // Wire producers and consumers.
  for (std::size_t i = 0; i < t.instances_.size(); ++i) {
    const ComponentInfo& info = t.instances_[i]->component();
    for (const auto& [port, pipes] : t.elements_[i].ports) {
      const PortInfo* p = info.find_port(port);
      for (Pipe* pipe : pipes) {
        if (p->direction == PortInfo::Direction::input) {
          pipe->set_consumer(t.instances_[i].get());
        } else {
          pipe->set_producer(t.instances_[i].get());
        }
      }
    }
  }
  t.rebuild_data_instances();

  for (int p : graph.entry) t.entry_.push_back(pipe_of[p]);
  t.entry_by_ = graph.entry_by;

  if (!graph.steal.empty()) {
    std::vector<Pipe*> members;
    for (int p : graph.steal) members.push_back(pipe_of[p]);
    t.steal_ = std::make_unique<StealFamily>(std::move(members));
    for (std::size_t i = 0; i < t.steal_->pipes.size(); ++i)
      t.steal_->pipes[i]->watch(&t.steal_->nonempty, i);
  }
  for (const GraphPe& g : graph.pes) {
    auto slot = std::make_unique<PeSlot>();
    slot->id = g.id;
    slot->cluster = g.cluster;
    slot->online = g.online;
    slot->terminal = g.terminal >= 0 ? pipe_of[g.terminal] : nullptr;
    for (int p : g.pull) slot->pull.push_back(pipe_of[p]);
    if (t.steal_ != nullptr) {
      auto it = std::find(t.steal_->pipes.begin(), t.steal_->pipes.end(), slot->terminal);
      if (it != t.steal_->pipes.end())
        slot->own_steal_index = static_cast<std::size_t>(it - t.steal_->pipes.begin());
    }
    // Any odd, PE-specific seed: victim choice is deterministic per run.
    slot->random.store(0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(g.id + 1) | 1u,
                       std::memory_order_relaxed);
    t.pe_slots_.push_back(std::move(slot));
  }
  return topology;
}

Topology::~Topology() {
  // Instances first (they refer to pipes), then pipes.
  instances_.clear();
  pipes_.clear();
}

InstanceContext Topology::context_for(std::size_t element, const InstanceSpec& spec,
                                      const ComponentInfo& info, std::size_t data_slot) const {
  InstanceContext ctx;
  const Element& e = elements_[element];
  ctx.name = e.index >= 0 ? spec.name + "[" + std::to_string(e.index) + "]" : spec.name;
  ctx.index = e.index;
  ctx.component = &info;
  ctx.params = spec.params;
  for (const auto& [port, pipes] : e.ports) ctx.ports.push_back(PortBinding{port, pipes});
  ctx.broker = broker_;
  ctx.topology = this;
  ctx.instrumentation = instrumentation_;
  ctx.data_slot = data_slot;
  return ctx;
}

void Topology::rebuild_data_instances() {
  data_instances_.clear();
  for (const auto& instance : instances_) {
    if (instance->component().uses_task_data) data_instances_.push_back(instance.get());
  }
}

Pipe* Topology::terminal_of(int pe) const {
  const PeSlot* slot = this->pe(pe);
  return slot != nullptr ? slot->terminal : nullptr;
}

std::vector<const Pipe*> Topology::pipes() const {
  std::vector<const Pipe*> out;
  for (const auto& p : pipes_) out.push_back(p.get());
  return out;
}

Pipe& Topology::entry_for(const Task& task) const {
  if (entry_by_ == PipeRef::Index::none) return *entry_.front();
  const bool by_cluster = entry_by_ == PipeRef::Index::cluster;
  const int value = by_cluster ? task.cluster : task.pe;
  if (value < 0 || static_cast<std::size_t>(value) >= entry_.size()) {
    throw takt::Error("task " + std::to_string(task.id) + " has " + (by_cluster ? "cluster " : "pe ") +
                      std::to_string(value) + ", but topology '" + spec_.name + "' admits tasks by " +
                      (by_cluster ? "cluster" : "pe") + " into " + std::to_string(entry_.size()) +
                      " entry pipes (" + spec_.entry.text() + "): give the task a value from 0 to " +
                      std::to_string(entry_.size() - 1));
  }
  return *entry_[static_cast<std::size_t>(value)];
}

PeSlot* Topology::pe(int pe) const noexcept {
  if (pe < 0 || static_cast<std::size_t>(pe) >= pe_slots_.size()) return nullptr;
  PeSlot* slot = pe_slots_[static_cast<std::size_t>(pe)].get();
  return slot->cluster >= 0 ? slot : nullptr;  // an id between known ones was never added
}

std::vector<Instance*> Topology::instances() const {
  std::vector<Instance*> out;
  for (const auto& i : instances_) out.push_back(i.get());
  return out;
}

Instance* Topology::instance(std::string_view name) const {
  for (const auto& i : instances_) {
    if (i->name() == name) return i.get();
  }
  return nullptr;
}

Pipe* Topology::pipe(std::string_view name) const {
  for (const auto& p : pipes_) {
    if (p->name() == name) return p.get();
  }
  return nullptr;
}

void Topology::connect(Broker& broker) {
  for (const auto& i : instances_) i->connect(broker);
}

void Topology::disconnect(Broker& broker) {
  for (const auto& i : instances_) broker.withdraw(i.get());
}

std::vector<std::size_t> Topology::elements_of(std::string_view name) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < elements_.size(); ++i) {
    if (!elements_[i].automatic && elements_[i].family == name) out.push_back(i);
  }
  return out;
}

std::unique_ptr<Instance> Topology::make_replacement(std::size_t element, const InstanceSpec& spec,
                                                     const ComponentRegistry& registry,
                                                     std::vector<std::size_t>& handed_out) const {
  const ComponentInfo& info = *registry.find(spec.component);
  std::size_t slot = 0;
  if (info.uses_task_data) {
    const Instance& old = *instances_[element];
    if (old.component().uses_task_data) {
      slot = old.context().data_slot;
    } else {
      std::vector<bool> used(kMaxTaskData, false);
      for (const Instance* i : data_instances_) used[i->context().data_slot] = true;
      for (std::size_t taken : handed_out) used[taken] = true;
      auto free = std::find(used.begin(), used.end(), false);
      if (free == used.end()) {
        throw takt::Error("cannot swap in component '" + info.name + "': all " +
                          std::to_string(kMaxTaskData) + " per-task data slots are in use");
      }
      slot = static_cast<std::size_t>(free - used.begin());
      handed_out.push_back(slot);
    }
  }
  return info.create(context_for(element, spec, info, slot));
}

std::unique_ptr<Instance> Topology::replace(std::size_t element, std::unique_ptr<Instance> replacement) {
  std::unique_ptr<Instance> old = std::move(instances_[element]);
  const ComponentInfo& info = replacement->component();
  for (const auto& [port, pipes] : elements_[element].ports) {
    const PortInfo* p = info.find_port(port);
    for (Pipe* pipe : pipes) {
      if (p->direction == PortInfo::Direction::input) {
        pipe->set_consumer(replacement.get());
      } else {
        pipe->set_producer(replacement.get());
      }
    }
  }
  instances_[element] = std::move(replacement);
  rebuild_data_instances();
  return old;
}

void Topology::release_memberships() {
  for (const auto& p : pipes_) p->release_all();
}

void Topology::set_instance_spec(const InstanceSpec& spec) {
  for (InstanceSpec& s : spec_.instances) {
    if (s.name == spec.name) s = spec;
  }
}

std::string Topology::describe() const {
  std::ostringstream out;
  out << "topology '" << spec_.name << "' for " << pes_.describe() << "\n";
  for (const auto& p : pipes_) {
    out << "  pipe " << p->name() << " (rank " << p->rank()
        << "): " << (p->producer() != nullptr ? p->producer()->name() : std::string("entry")) << " -> "
        << (p->consumer() != nullptr ? p->consumer()->name() : std::string("?")) << "\n";
  }
  for (const auto& slot : pe_slots_) {
    out << "  pe " << slot->id << (slot->online ? "" : " (offline)") << ": terminal "
        << (slot->terminal != nullptr ? slot->terminal->name() : std::string("none"));
    for (const Pipe* p : slot->pull) out << ", pull " << p->name();
    if (steal_ != nullptr) out << ", steal " << spec_.steal << "[*]";
    out << "\n";
  }
  return out.str();
}

}  // namespace takt::sched
