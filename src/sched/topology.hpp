// Topology: a built topology: its pipes, instances, processing elements and pull paths.
#pragma once

#include "sched/component.hpp"
#include "sched/nonempty_set.hpp"
#include "sched/pipe.hpp"
#include "sched/processing_elements.hpp"
#include "sched/topology_spec.hpp"

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace takt::sched {

class Broker;
class ComponentRegistry;

/// The pipes a pull path may steal from, with a bit per pipe saying it is non-empty.
struct StealFamily {
  explicit StealFamily(std::vector<Pipe*> members) : pipes(std::move(members)), nonempty(pipes.size()) {}
  std::vector<Pipe*> pipes;
  NonEmptySet nonempty;
};

/// How one processing element finds work: its terminal pipe, then the pull pipes in
/// order, then a random non-empty pipe of the steal family.
struct PeSlot {
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  int id = 0;
  int cluster = -1;
  bool online = false;
  Pipe* terminal = nullptr;
  std::vector<Pipe*> pull;
  std::size_t own_steal_index = npos;    ///< the terminal's index in the steal family
  std::atomic<std::uint64_t> random{0};  ///< xorshift state for victim choice
};

/// A topology built from a TopologySpec for a set of processing elements
/// (dissertation §5.6): pipes in rank order, instances in topological order (plus a
/// termination instance for every pipe processing elements take from), per-PE
/// pull paths. Static once built; the Scheduler swaps instances in it or replaces
/// it as a whole (dynamic and adaptive topologies).
class Topology final : public TopologyView {
 public:
  /// Builds and checks (throws takt::Error with file:line:column). Instances are
  /// created but not yet connected to the broker.
  static std::unique_ptr<Topology> build(TopologySpec spec, ProcessingElements pes, Broker& broker,
                                         const Instrumentation* instrumentation,
                                         const ComponentRegistry& registry);
  ~Topology() override;

  const TopologySpec& spec() const noexcept { return spec_; }

  // TopologyView
  const ProcessingElements& processing_elements() const override { return pes_; }
  Pipe* terminal_of(int pe) const override;
  std::vector<const Pipe*> pipes() const override;

  /// The pipe a task enters through; throws takt::Error when the entry is a family
  /// indexed by cluster or pe and the task's value does not name one of its pipes.
  Pipe& entry_for(const Task& task) const;
  /// The slot of processing element `pe` (online or taken offline), nullptr for an id
  /// out of range or one that was never added (between the ids of known PEs).
  PeSlot* pe(int pe) const noexcept;
  const StealFamily* steal() const noexcept { return steal_.get(); }

  /// The instances that keep per-task data, in topological order.
  const std::vector<Instance*>& data_instances() const noexcept { return data_instances_; }
  std::vector<Instance*> instances() const;
  Instance* instance(std::string_view name) const;
  Pipe* pipe(std::string_view name) const;

  /// Subscribes every instance (Instance::connect) / withdraws them all.
  void connect(Broker& broker);
  void disconnect(Broker& broker);

  /// The elements of the declared instance `name` ("order" -> order[0], order[1]...).
  std::vector<std::size_t> elements_of(std::string_view name) const;
  /// A new instance for element `element` from `spec` (same ports), not connected;
  /// it takes the element's data slot, or a free one (throws takt::Error if none).
  /// `handed_out`: data slots already given to other replacements of the same swap (a
  /// family swaps all its elements at once, and each needs a slot of its own); the
  /// slot chosen here is added to it.
  std::unique_ptr<Instance> make_replacement(std::size_t element, const InstanceSpec& spec,
                                             const ComponentRegistry& registry,
                                             std::vector<std::size_t>& handed_out) const;
  /// Puts `replacement` in place of element `element` (pipes re-pointed) and returns
  /// the old instance. The caller holds the reconfiguration lock exclusively.
  std::unique_ptr<Instance> replace(std::size_t element, std::unique_ptr<Instance> replacement);
  /// Records `spec` as the declaration of instance `spec.name`.
  void set_instance_spec(const InstanceSpec& spec);
  Instance& element(std::size_t element) { return *instances_[element]; }
  /// Ends every task's membership of every pipe without logging (the reconfiguration
  /// lock is held exclusively; the topology is being discarded).
  void release_memberships();

  /// A readable listing: pipes with producer and consumer, processing elements.
  std::string describe() const;

 private:
  Topology(TopologySpec spec, ProcessingElements pes) : spec_(std::move(spec)), pes_(std::move(pes)) {}
  InstanceContext context_for(std::size_t element, const InstanceSpec& spec, const ComponentInfo& info,
                              std::size_t data_slot) const;
  void rebuild_data_instances();

  struct Element {
    std::string family;  // declared instance name
    int index = -1;
    std::vector<std::pair<std::string, std::vector<Pipe*>>> ports;
    bool automatic = false;  // a termination added for a pipe processing elements take from
  };

  TopologySpec spec_;
  ProcessingElements pes_;
  Broker* broker_ = nullptr;
  const Instrumentation* instrumentation_ = nullptr;
  std::vector<std::unique_ptr<Pipe>> pipes_;
  std::vector<std::unique_ptr<Instance>> instances_;
  std::vector<Element> elements_;  // parallel to instances_
  std::vector<Instance*> data_instances_;
  std::vector<Pipe*> entry_;
  PipeRef::Index entry_by_ = PipeRef::Index::none;
  std::vector<std::unique_ptr<PeSlot>> pe_slots_;
  std::unique_ptr<StealFamily> steal_;
};

}  // namespace takt::sched
