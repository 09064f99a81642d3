// Scheduler: the framework instance a runtime system talks to (adapter calls, broker, reconfiguration).
#pragma once

#include "sched/adapter.hpp"
#include "sched/broker.hpp"
#include "sched/component.hpp"
#include "sched/processing_elements.hpp"
#include "os/futex_lock.hpp"
#include "sched/swap_lock.hpp"
#include "sched/topics.hpp"
#include "sched/topology_spec.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace YAML {
class Node;
}

namespace takt::sched {

class ComponentRegistry;
class Pipe;
class Topology;
struct PeSlot;

struct SchedulerOptions {
  /// Timing of pipe updates and trace callbacks (no clock: no timing).
  Instrumentation instrumentation;
  /// Components to build from; the built-in registry if null.
  const ComponentRegistry* registry = nullptr;
};

/// One scheduling framework: a topology, its broker and the runtime-system adapter
/// calls (RuntimeSystemAdapter), safe to call from any number of threads.
///
/// Concurrency (what callers can rely on):
///  - Every call runs under the reconfiguration lock held shared; reconfigurations
///    (swap_instance, swap_topology, add_pe, remove_pe, broker changes) hold it
///    exclusively, so they see no operation half done and no operation sees a
///    reconfiguration half done.
///  - A change is carried down the pipe chain synchronously by the calling thread,
///    holding each pipe's lock from its change until its consumer has processed
///    it; locks are taken in rank (topological) order. When a call returns, all its
///    changes have reached the terminal pipes, and every pipe's change log is
///    empty whenever its lock is free.
///  - schedule(pe) takes the head of a terminal pipe under that pipe's lock and
///    claims it with a compare-and-swap on the task state (schedulable ->
///    running), so a task is dispatched at most once even when several PEs share a
///    pipe or steal from each other.
///  - A task's own calls (admit, relinquish, block, unblock, exit) must not overlap
///    each other; they may overlap anything else.
///  - Broker subscribers run inside a call, under the shared lock; they may call
///    notify(), request() and the adapter calls, but not the reconfiguration or
///    subscription functions (those wait for every call to finish, including the
///    one running the callback). Instrumentation callbacks run under a pipe's lock
///    as well and must only record (see Instrumentation).
class Scheduler final : public RuntimeSystemAdapter {
 public:
  /// Builds the topology for `pes` (throws takt::Error with file:line:column).
  Scheduler(TopologySpec spec, ProcessingElements pes, SchedulerOptions options = {});
  /// Detaches the tasks still admitted (writes into them): they must still be alive, so
  /// an owner declares its tasks before the scheduler, or exits them first.
  ~Scheduler() override;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // --- runtime-system adapter (see RuntimeSystemAdapter) ---------------------------
  void admit(Task& task) override;
  void unblock(Task& task) override;
  bool dispatch(Task& task, int pe) override;
  Task* schedule(int pe) override;
  void relinquish(Task& task) override;
  bool block(Task& task) override;
  bool exit(Task& task) override;
  void add_pe(int pe, int cluster) override;
  void remove_pe(int pe) override;

  /// The task schedule(pe) would try first (head of the terminal pipe, else of the
  /// first non-empty pull pipe), without taking it; nullptr if none or if `pe` is
  /// offline. Advisory: it may be taken by another PE at any moment (for preemption
  /// decisions).
  Task* peek(int pe);

  /// Throws takt::Error, as admit() would, where the entry cannot route `task` (a
  /// family indexed by pe or cluster of which the task names no element); changes
  /// nothing. For an owner to refuse, before anything runs, tasks it would admit later.
  void check_entry(const Task& task);

  // --- adaptive topology -----------------------------------------------------------
  /// Replaces the component of instance `name` (every element of a per-pe /
  /// per-cluster family) by `component` with `params`, keeping its pipes, while
  /// tasks flow (instance-swap protocol, dissertation §7.3.3): the old instance's
  /// per-task destructors run for every task, its outputs are emptied, the new
  /// instance's per-task constructors run, every task of its inputs is offered to
  /// it as new, and the resulting removals and additions go down the chain (a task
  /// that lands where it was is seen downstream as moved). Running tasks are not
  /// touched. Throws takt::Error for an unknown instance or unfit component; the
  /// topology is then unchanged.
  void swap_instance(std::string_view name, std::string_view component);
  void swap_instance(std::string_view name, std::string_view component, const YAML::Node& params);
  /// Replaces the whole topology: every schedulable task leaves the old pipes and
  /// enters the new topology's entry in admission order; per-task data is
  /// destroyed and rebuilt; running and blocked tasks stay as they are and use the
  /// new topology when they come back. Throws takt::Error (topology unchanged) if
  /// the spec does not fit the processing elements or a queued task cannot enter.
  void swap_topology(TopologySpec spec);

  // --- broker ----------------------------------------------------------------------
  template <class Message>
  void notify(Topic<Message> topic, const std::type_identity_t<Message>& message) {
    if constexpr (std::is_same_v<Message, TimeMessage>) {
      if (topic.id == topics::time.id) remember_time(message.now);
    }
    SharedSwapGuard guard(lock_);
    broker_.notify(topic, message);
  }
  template <class Message>
  bool request(Topic<Message> topic, std::type_identity_t<Message>& message) {
    SharedSwapGuard guard(lock_);
    return broker_.request(topic, message);
  }
  template <class Message>
  void subscribe(Topic<Message> topic, Broker::Owner owner,
                 std::type_identity_t<std::function<void(const Message&)>> callback) {
    std::lock_guard<std::mutex> serial(reconfiguring_);
    Exclusive x(lock_);
    broker_.subscribe(topic, owner, std::move(callback));
  }
  template <class Message>
  Topic<Message> add_topic(std::string_view name, std::string_view description, std::uint64_t uuid) {
    std::lock_guard<std::mutex> serial(reconfiguring_);
    Exclusive x(lock_);
    return broker_.add_topic<Message>(name, description, uuid);
  }
  bool remove_topic(std::string_view name);
  void withdraw(Broker::Owner owner);
  std::vector<TopicInfo> topics();

  // --- introspection ---------------------------------------------------------------
  std::vector<PipeLoad> pipe_loads();
  /// The tasks queued in pipe `pipe` ("ready[1]"), in order; throws takt::Error for
  /// an unknown pipe.
  std::vector<Task*> queued(std::string_view pipe);
  std::vector<InstanceStats> instance_stats();
  std::size_t attached_tasks() const;
  TopologySpec spec();
  ProcessingElements processing_elements();
  std::string describe();
  std::uint64_t reconfigurations() const noexcept {
    return reconfigurations_.load(std::memory_order_relaxed);
  }
  /// Checks the framework's invariants with everything stopped (empty change logs;
  /// schedulable tasks queued in their entry pipe; running and blocked tasks in no
  /// pipe). Returns a description of every violation, empty if none. For tests.
  std::string verify();

 private:
  // Reconfigurations run one at a time (`reconfiguring_`, which also guards the
  // topology's spec against change): they prepare under it while operations go
  // on, then take the reconfiguration lock exclusively for the swap itself.
  class Exclusive {
   public:
    explicit Exclusive(SwapLock& lock) : lock_(lock) { lock_.lock(); }
    ~Exclusive() { lock_.unlock(); }
    Exclusive(const Exclusive&) = delete;
    Exclusive& operator=(const Exclusive&) = delete;

   private:
    SwapLock& lock_;
  };

  struct alignas(64) RegistryLane {
    os::FutexLock lock;
    Task* head = nullptr;
    std::size_t count = 0;
  };

  void enter(Pipe& entry, Task& task);
  /// A task known to the topology enters it again (unblock, relinquish, a schedule()
  /// whose DISPATCH subscriber threw): per-task data told, then enter().
  void reenter(Task& task);
  void leave(Task& task);
  Task* claim(Pipe& pipe);
  Task* steal(PeSlot& slot);
  void register_task(Task& task);
  void unregister_task(Task& task);
  std::vector<Task*> tasks_by_admission();
  // Builds the next topology from the current one (under `reconfiguring_`), then swaps.
  void install(const std::function<std::unique_ptr<Topology>(const Topology&)>& build,
               const std::string& what);
  void check_attached(const Task& task, const char* call) const;

  const ComponentRegistry* registry_;
  Instrumentation instrumentation_;
  SwapLock lock_;
  std::mutex reconfiguring_;
  Broker broker_;
  std::unique_ptr<Topology> topology_;
  std::array<RegistryLane, SwapLock::kLanes> registry_lanes_{};
  std::atomic<std::uint64_t> next_admission_{0};
  std::atomic<std::uint64_t> reconfigurations_{0};
  // The latest TIME sent through notify(), replayed to the instances a reconfiguration
  // creates (a fresh release gate would start at time 0 and hold released tasks).
  std::atomic<std::int64_t> last_time_ns_{kNoTime};
  static constexpr std::int64_t kNoTime = INT64_MIN;
  /// dispatch(): publishes DISPATCH for the claimed task, then marks it running (also
  /// when a subscriber throws; the exception goes on to the caller, who knows the task).
  /// schedule() queues the task again instead when a subscriber throws.
  void notify_dispatch(Task& task, int pe);
  void remember_time(Time now) noexcept;
  /// Gives the remembered time to instances a reconfiguration made, before any task
  /// reaches them (inside the exclusive section; Instance::time_known).
  void tell_time(const std::vector<Instance*>& fresh) noexcept;
  void replay_time();
};

}  // namespace takt::sched
