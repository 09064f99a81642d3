// Component and Instance: scheduling code (stateless, registered by name) and its stateful instances.
#pragma once

#include "sched/broker.hpp"
#include "sched/params.hpp"
#include "sched/processing_elements.hpp"
#include "os/futex_lock.hpp"
#include "sched/task.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace takt::sched {

class Instance;
class Pipe;
class Writer;

/// The classes of CoBaS components (dissertation §5.8.2, appendix A.1). A component
/// may belong to several (a bit set); `neutral` is the appendix's word for a
/// component that neither filters nor orders nor distributes (head queue,
/// termination).
enum ComponentClass : unsigned {
  neutral = 0,
  filtering = 1u << 0,      ///< 1 -> 1, removes tasks, keeps the order
  ordering = 1u << 1,       ///< 1 -> 1, defines the order
  distributing = 1u << 2,   ///< 1 -> n, keeps the relative order
  consolidating = 1u << 3,  ///< n -> 1 (or m -> n), defines a new order
  annotating = 1u << 4,     ///< no pipes; keeps per-task data, answers requests
};

/// "filtering, distributing" for a class set.
std::string describe_classes(unsigned classes);

/// A named connection point of a component.
struct PortInfo {
  enum class Direction { input, output };
  std::string name;
  Direction direction = Direction::input;
  bool many = false;      ///< takes a list of pipes (a family with [*], or several)
  bool optional = false;  ///< may be left out
  std::string doc;
};

/// What the topology an instance lives in tells it.
class TopologyView {
 public:
  virtual ~TopologyView() = default;
  virtual const ProcessingElements& processing_elements() const = 0;
  /// The terminal pipe of processing element `pe` (nullptr for an unknown PE).
  virtual Pipe* terminal_of(int pe) const = 0;
  /// Every pipe of the topology, in rank (topological) order.
  virtual std::vector<const Pipe*> pipes() const = 0;
};

/// Optional instrumentation, supplied by the runtime system (the framework has no
/// clock): with a clock every pipe update is timed; the callbacks feed traces. They
/// run while the instance holds its input pipe's lock: they must only record (no
/// scheduler calls, no notify/request, which could need that same lock).
struct Instrumentation {
  std::function<Time()> clock;
  std::function<void(const Instance&, Time start, Time duration)> on_update;
  std::function<void(const Instance&, std::string_view label)> on_marker;
};

/// The pipes bound to one port of an instance.
struct PortBinding {
  std::string port;
  std::vector<Pipe*> pipes;
};

struct ComponentInfo;

/// Everything an instance is created from.
struct InstanceContext {
  std::string name;  ///< "order", or "order[3]" for one of a per-pe / per-cluster family
  int index = kAny;  ///< the family index ([#]) of a per-pe / per-cluster instance
  const ComponentInfo* component = nullptr;
  Params params;
  std::vector<PortBinding> ports;
  Broker* broker = nullptr;
  const TopologyView* topology = nullptr;
  const Instrumentation* instrumentation = nullptr;
  std::size_t data_slot = 0;  ///< the Task::data() word this instance may use

  /// The pipes bound to `port` (empty if the port was left out).
  const std::vector<Pipe*>& port(std::string_view port) const;
  /// The single pipe bound to `port`, nullptr if none.
  Pipe* single(std::string_view port) const;
};

/// A component: stateless code registered by name, from which instances are made
/// (dissertation §5.2, §7.4.3).
struct ComponentInfo {
  std::string name;
  unsigned classes = neutral;
  std::string description;
  std::vector<PortInfo> ports;
  std::vector<ParamInfo> params;
  std::vector<std::string> subscribes;  ///< topics (documentation)
  std::vector<std::string> responds;    ///< topics it answers
  std::vector<std::string> depends;     ///< topics whose responder it needs
  bool uses_task_data = false;          ///< needs a Task::data() slot
  std::function<std::unique_ptr<Instance>(InstanceContext)> create;

  const PortInfo* find_port(std::string_view port) const;
  const ParamInfo* find_param(std::string_view param) const;
};

/// Update counts and times of one instance.
struct InstanceStats {
  std::string name;
  std::string component;
  std::uint64_t updates = 0;
  Time total{0};  ///< summed update time, downstream stages included (zero without a clock)
  Time max{0};
  std::vector<std::pair<std::string, std::uint64_t>> counters;  ///< component-specific
};

/// A component instance: the component's code plus its state (dissertation §5.2).
///
/// An instance with input pipes is called through pipe_update() whenever one of its
/// inputs has pending changes, with that input locked (and, for an instance with
/// several inputs, its own lock held). It reads the changes, writes its outputs
/// through the Writer (which locks them and runs their consumers before returning)
/// and returns; the framework then clears the input's log. Within pipe_update an
/// instance may send requests (Broker::request) but must not notify, and must not
/// call the Scheduler.
///
/// An instance that keeps per-task data (ComponentInfo::uses_task_data) owns word
/// context().data_slot of every task: task_construct() runs for every task when it
/// is admitted or when the instance is created while tasks exist, task_enter() when
/// a task comes back (relinquish, unblock), task_destruct() when the task exits or
/// the instance is swapped out.
class Instance {
 public:
  explicit Instance(InstanceContext context);
  virtual ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  const std::string& name() const noexcept { return ctx_.name; }
  const ComponentInfo& component() const noexcept { return *ctx_.component; }
  const InstanceContext& context() const noexcept { return ctx_; }

  /// Processes the pending changes of `input` (locked).
  virtual void pipe_update(Pipe& input, Writer& out);
  virtual void task_construct(Task& task);
  virtual void task_destruct(Task& task);
  /// A task this instance keeps data for comes back (relinquish, unblock), with
  /// the attributes its owner may have changed while it was not schedulable.
  virtual void task_enter(Task& task);
  /// Subscribes to and responds on topics (the reconfiguration lock is held
  /// exclusively; subscriptions are withdrawn by owner when the instance goes).
  virtual void connect(Broker& broker);
  /// The latest time a TIME notification carried, given to an instance that a
  /// reconfiguration created, after connect() and before any task reaches it (the
  /// reconfiguration lock is held exclusively). A release gate starts from it instead of
  /// holding every task until the next TIME. Default: nothing.
  virtual void time_known(Time now) noexcept;
  /// Component-specific counters for InstanceStats (e.g. the distributor's withheld tasks).
  virtual std::vector<std::pair<std::string, std::uint64_t>> counters() const;

  InstanceStats stats() const;

  /// Framework: runs pipe_update for a locked input, with timing and the instance
  /// lock; a component that throws here terminates the program (a broken pipe
  /// chain cannot be recovered).
  void run_update(Pipe& input) noexcept;
  /// Framework (instance swap; the reconfiguration lock is held exclusively): marks
  /// every task of every input as added and runs pipe_update for each input in rank
  /// order through one exclusive Writer, which flushes nothing: the swap flushes the
  /// outputs afterwards, so that the swap's removal of a task from an output and this
  /// instance's add of it meet in one log (a move), whichever input it came from.
  /// Counts as one update.
  void offer_inputs_as_new() noexcept;
  /// Framework: the data slot after a reconfiguration.
  void set_data_slot(std::size_t slot) noexcept { ctx_.data_slot = slot; }
  /// Framework: the topology this instance now belongs to (instance swaps).
  void set_topology(const TopologyView* topology) noexcept { ctx_.topology = topology; }
  const std::vector<Pipe*>& inputs_by_rank() const noexcept { return inputs_; }

 protected:
  /// Changes outputs outside a pipe update (reacting to a notification): locks the
  /// inputs in rank order and the instance, runs fn(Writer&), propagates, unlocks.
  /// Only from a notification callback (the reconfiguration lock is held shared). As
  /// in run_update, an fn that throws terminates the program: its outputs may be half
  /// changed, and the locked inputs would hang every later call through them.
  void update_from_notification(const std::function<void(Writer&)>& fn) noexcept;

  std::atomic<std::uint64_t>& task_data(Task& task) const noexcept { return task.data(ctx_.data_slot); }
  Broker& broker() const noexcept { return *ctx_.broker; }

 private:
  Time update_start() const noexcept;
  void update_done(Time start) noexcept;
  InstanceContext ctx_;
  std::vector<Pipe*> inputs_;  // every input pipe, by rank
  bool several_inputs_ = false;
  os::FutexLock lock_;  // taken when the instance has several inputs
  std::atomic<std::uint64_t> updates_{0};
  std::atomic<std::int64_t> total_ns_{0};
  std::atomic<std::int64_t> max_ns_{0};
};

}  // namespace takt::sched
