// Scheduler: the framework instance a runtime system talks to (adapter calls, broker, reconfiguration).
#include "sched/scheduler.hpp"

#include "sched/component_registry.hpp"
#include "sched/pipe.hpp"
#include "sched/topology.hpp"
#include "sched/writer.hpp"
#include "takt/error.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace takt::sched {

Scheduler::Scheduler(TopologySpec spec, ProcessingElements pes, SchedulerOptions options)
    : registry_(options.registry != nullptr ? options.registry : &ComponentRegistry::builtin()),
      instrumentation_(std::move(options.instrumentation)) {
  register_builtin_topics(broker_);
  topology_ = Topology::build(std::move(spec), std::move(pes), broker_, &instrumentation_, *registry_);
  topology_->connect(broker_);
}

Scheduler::~Scheduler() {
  // Tasks still attached are detached without ceremony: their memberships end with
  // the pipes and their per-task data is destroyed.
  topology_->release_memberships();
  for (Task* task : tasks_by_admission()) {
    for (Instance* i : topology_->data_instances()) i->task_destruct(*task);
    task->state_.store(TaskState::unconsidered, std::memory_order_relaxed);
    task->attached_.store(false, std::memory_order_release);
    task->entry_ = nullptr;
  }
  topology_->disconnect(broker_);
}

// --- task registry -----------------------------------------------------------------

void Scheduler::register_task(Task& task) {
  RegistryLane& lane = registry_lanes_[task.lane_];
  std::lock_guard<os::FutexLock> guard(lane.lock);
  task.registry_prev_ = nullptr;
  task.registry_next_ = lane.head;
  if (lane.head != nullptr) lane.head->registry_prev_ = &task;
  lane.head = &task;
  ++lane.count;
}

void Scheduler::unregister_task(Task& task) {
  RegistryLane& lane = registry_lanes_[task.lane_];
  std::lock_guard<os::FutexLock> guard(lane.lock);
  if (task.registry_prev_ != nullptr) {
    task.registry_prev_->registry_next_ = task.registry_next_;
  } else {
    lane.head = task.registry_next_;
  }
  if (task.registry_next_ != nullptr) task.registry_next_->registry_prev_ = task.registry_prev_;
  task.registry_prev_ = task.registry_next_ = nullptr;
  --lane.count;
}

std::vector<Task*> Scheduler::tasks_by_admission() {
  std::vector<Task*> tasks;
  for (RegistryLane& lane : registry_lanes_) {
    std::lock_guard<os::FutexLock> guard(lane.lock);
    for (Task* t = lane.head; t != nullptr; t = t->registry_next_) tasks.push_back(t);
  }
  std::sort(tasks.begin(), tasks.end(),
            [](const Task* a, const Task* b) { return a->admission_ < b->admission_; });
  return tasks;
}

std::size_t Scheduler::attached_tasks() const {
  std::size_t n = 0;
  for (const RegistryLane& lane : registry_lanes_) {
    std::lock_guard<os::FutexLock> guard(const_cast<os::FutexLock&>(lane.lock));
    n += lane.count;
  }
  return n;
}

// --- pipe chain --------------------------------------------------------------------

void Scheduler::enter(Pipe& entry, Task& task) {
  // Published as schedulable only once its entry pipe is set and it is queued there,
  // under that pipe's lock: a dispatch(task) may claim it from then on (it may overlap
  // the task's own calls), and its leave() finds the entry pipe and waits for the lock.
  task.entry_ = &entry;
  PipeGuard guard(entry);
  entry.add(task, 0);  // the entry pipe is first come, first served
  task.state_.store(TaskState::schedulable, std::memory_order_release);
  flush(entry);
}

void Scheduler::reenter(Task& task) {
  Pipe& entry = topology_->entry_for(task);  // may throw: nothing changed yet
  for (Instance* i : topology_->data_instances()) i->task_enter(task);
  enter(entry, task);
}

void Scheduler::leave(Task& task) {
  Pipe& entry = *task.entry_;
  {
    PipeGuard guard(entry);
    entry.remove(task);
    flush(entry);
  }
  task.entry_ = nullptr;
}

Task* Scheduler::claim(Pipe& pipe) {
  if (pipe.empty()) return nullptr;  // a snapshot: cheap way out for an idle PE
  PipeGuard guard(pipe);
  while (Task* task = pipe.pop_head()) {
    // A head that is no longer schedulable was taken elsewhere (or is leaving);
    // popping it is all there is to do, its producer's removal follows.
    TaskState expected = TaskState::schedulable;
    if (task->state_.compare_exchange_strong(expected, TaskState::dispatching, std::memory_order_acq_rel))
      return task;
  }
  return nullptr;
}

Task* Scheduler::steal(PeSlot& slot) {
  const StealFamily& family = *topology_->steal();
  const std::size_t n = family.pipes.size();
  std::uint64_t x = slot.random.load(std::memory_order_relaxed);
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  slot.random.store(x, std::memory_order_relaxed);
  std::size_t start = static_cast<std::size_t>(x % n);
  for (std::size_t attempt = 0; attempt < n; ++attempt) {
    const std::size_t victim = family.nonempty.find_from(start, slot.own_steal_index);
    if (victim >= n) return nullptr;
    if (Task* task = claim(*family.pipes[victim])) return task;
    start = victim + 1;
  }
  return nullptr;
}

void Scheduler::check_attached(const Task& task, const char* call) const {
  if (!task.attached()) {
    throw std::logic_error(std::string("sched::Scheduler::") + call + ": task " + std::to_string(task.id) +
                           " is not admitted");
  }
}

// --- runtime-system adapter --------------------------------------------------------

void Scheduler::check_entry(const Task& task) {
  SharedSwapGuard guard(lock_);
  (void)topology_->entry_for(task);
}

void Scheduler::admit(Task& task) {
  SharedSwapGuard guard(lock_);
  if (task.attached()) {
    throw std::logic_error("sched::Scheduler::admit: task " + std::to_string(task.id) +
                           " is already admitted");
  }
  Topology& topology = *topology_;
  Pipe& entry = topology.entry_for(task);  // may throw: nothing changed yet
  task.admission_ = next_admission_.fetch_add(1, std::memory_order_relaxed);
  task.lane_ = guard.lane();
  task.entry_ = nullptr;
  register_task(task);
  task.attached_.store(true, std::memory_order_release);
  for (Instance* i : topology.data_instances()) i->task_construct(task);
  enter(entry, task);
  broker_.notify(topics::admit, TaskEvent{&task, task.last_pe()});
}

void Scheduler::unblock(Task& task) {
  SharedSwapGuard guard(lock_);
  check_attached(task, "unblock");
  if (task.state() != TaskState::unconsidered) {
    throw std::logic_error("sched::Scheduler::unblock: task " + std::to_string(task.id) + " is " +
                           to_string(task.state()));
  }
  reenter(task);
  broker_.notify(topics::unblock, TaskEvent{&task, task.last_pe()});
}

bool Scheduler::dispatch(Task& task, int pe) {
  SharedSwapGuard guard(lock_);
  check_attached(task, "dispatch");
  PeSlot* slot = topology_->pe(pe);
  if (slot == nullptr) {
    throw std::out_of_range("sched::Scheduler::dispatch: no processing element " + std::to_string(pe));
  }
  if (!slot->online) return false;  // as schedule(pe): an offline PE takes no work
  TaskState expected = TaskState::schedulable;
  if (!task.state_.compare_exchange_strong(expected, TaskState::dispatching, std::memory_order_acq_rel)) {
    return false;
  }
  task.last_pe_.store(pe, std::memory_order_relaxed);
  leave(task);
  notify_dispatch(task, pe);
  return true;
}

Task* Scheduler::schedule(int pe) {
  SharedSwapGuard guard(lock_);
  Topology& topology = *topology_;
  PeSlot* slot = topology.pe(pe);
  if (slot == nullptr) {
    throw std::out_of_range("sched::Scheduler::schedule: no processing element " + std::to_string(pe));
  }
  if (!slot->online) return nullptr;  // an offline PE gets no work
  Task* task = slot->terminal != nullptr ? claim(*slot->terminal) : nullptr;
  for (std::size_t i = 0; task == nullptr && i < slot->pull.size(); ++i) task = claim(*slot->pull[i]);
  if (task == nullptr && topology.steal() != nullptr) task = steal(*slot);
  if (task == nullptr) return nullptr;
  task->last_pe_.store(pe, std::memory_order_relaxed);
  leave(*task);
  try {
    broker_.notify(topics::dispatch, TaskEvent{task, pe});
  } catch (...) {
    // The caller gets the exception, not the task: queued again (no RELINQUISH is
    // published), else it would be running with nobody to run or relinquish it. Still
    // `dispatching` until enter() publishes it schedulable, so that an exit() or block()
    // meanwhile returns false, as during any dispatch, instead of acting on a task that
    // is then queued again.
    try {
      reenter(*task);
    } catch (...) {
      task->state_.store(TaskState::running, std::memory_order_release);  // as dispatch() leaves it
    }
    throw;
  }
  task->state_.store(TaskState::running, std::memory_order_release);
  return task;
}

void Scheduler::notify_dispatch(Task& task, int pe) {
  // The task is running once the subscribers have been told, also when one of them
  // throws: left `dispatching`, exit() and block() would refuse it for ever.
  struct Running {
    Task& task;
    ~Running() { task.state_.store(TaskState::running, std::memory_order_release); }
  } running{task};
  broker_.notify(topics::dispatch, TaskEvent{&task, pe});
}

Task* Scheduler::peek(int pe) {
  SharedSwapGuard guard(lock_);
  PeSlot* slot = topology_->pe(pe);
  if (slot == nullptr)
    throw std::out_of_range("sched::Scheduler::peek: no processing element " + std::to_string(pe));
  if (!slot->online) return nullptr;
  auto head = [](Pipe* pipe) -> Task* {
    if (pipe == nullptr || pipe->empty()) return nullptr;
    PipeGuard g(*pipe);
    return pipe->head();
  };
  if (Task* t = head(slot->terminal)) return t;
  for (Pipe* p : slot->pull) {
    if (Task* t = head(p)) return t;
  }
  return nullptr;
}

void Scheduler::relinquish(Task& task) {
  SharedSwapGuard guard(lock_);
  check_attached(task, "relinquish");
  const TaskState state = task.state_.load(std::memory_order_acquire);
  if (state == TaskState::dispatching) {
    // state() reads "running" here: say what it is, or the message contradicts itself.
    throw std::logic_error("sched::Scheduler::relinquish: task " + std::to_string(task.id) +
                           " is being dispatched (a DISPATCH subscriber runs before schedule() or dispatch() "
                           "returns it); relinquish it after that");
  }
  if (state != TaskState::running) {
    throw std::logic_error("sched::Scheduler::relinquish: task " + std::to_string(task.id) + " is " +
                           to_string(task.state()) + ", not running");
  }
  reenter(task);
  broker_.notify(topics::relinquish, TaskEvent{&task, task.last_pe()});
}

bool Scheduler::block(Task& task) {
  SharedSwapGuard guard(lock_);
  check_attached(task, "block");
  TaskState state = task.state_.load(std::memory_order_acquire);
  if (state == TaskState::dispatching) return false;  // a PE is dispatching it right now
  if (state == TaskState::unconsidered) {
    // As unblock() of a task that is not blocked: a second BLOCK event would tell the
    // subscribers of a change that did not happen.
    throw std::logic_error("sched::Scheduler::block: task " + std::to_string(task.id) + " is blocked already");
  }
  if (state == TaskState::schedulable) {
    if (!task.state_.compare_exchange_strong(state, TaskState::unconsidered, std::memory_order_acq_rel)) {
      return false;  // dispatched meanwhile
    }
    leave(task);
  } else if (state == TaskState::running) {
    task.state_.store(TaskState::unconsidered, std::memory_order_release);
  }
  broker_.notify(topics::block, TaskEvent{&task, task.last_pe()});
  return true;
}

bool Scheduler::exit(Task& task) {
  SharedSwapGuard guard(lock_);
  check_attached(task, "exit");
  TaskState state = task.state_.load(std::memory_order_acquire);
  if (state == TaskState::dispatching) return false;  // a PE is dispatching it right now: it is running
  if (state == TaskState::schedulable) {
    if (!task.state_.compare_exchange_strong(state, TaskState::unconsidered, std::memory_order_acq_rel)) {
      return false;  // dispatched meanwhile: it is running now
    }
    leave(task);
  } else {
    task.state_.store(TaskState::unconsidered, std::memory_order_release);
  }
  for (Instance* i : topology_->data_instances()) i->task_destruct(task);
  unregister_task(task);
  task.attached_.store(false, std::memory_order_release);
  broker_.notify(topics::exit, TaskEvent{&task, task.last_pe()});
  return true;
}

// --- reconfiguration ---------------------------------------------------------------

void Scheduler::install(const std::function<std::unique_ptr<Topology>(const Topology&)>& build,
                        const std::string& what) {
  std::unique_ptr<Topology> old;
  {
    std::lock_guard<std::mutex> serial(reconfiguring_);
    std::unique_ptr<Topology> next = build(*topology_);  // operations go on meanwhile
    Exclusive x(lock_);
    std::vector<Task*> tasks = tasks_by_admission();
    // Every queued task must be able to enter the new topology: check before
    // changing anything, so that a failure leaves the old topology in place.
    for (Task* task : tasks) {
      if (task->state() == TaskState::schedulable) (void)next->entry_for(*task);
    }
    // From here the old topology is taken apart: a component that throws while the new
    // one is connected and its per-task data built would leave queued tasks in no pipe
    // with no entry, so, as in pipe_update, a throw ends the program (noexcept).
    [&]() noexcept {
      old = std::move(topology_);
      old->release_memberships();
      for (Task* task : tasks) {
        for (Instance* i : old->data_instances()) i->task_destruct(*task);
        task->entry_ = nullptr;
      }
      old->disconnect(broker_);
      topology_ = std::move(next);
      topology_->connect(broker_);
      tell_time(topology_->instances());
      for (Task* task : tasks) {
        for (Instance* i : topology_->data_instances()) i->task_construct(*task);
      }
      for (Task* task : tasks) {
        if (task->state() == TaskState::schedulable) enter(topology_->entry_for(*task), *task);
      }
    }();
    reconfigurations_.fetch_add(1, std::memory_order_relaxed);
  }
  old.reset();
  replay_time();
  notify(topics::reconfigured, ReconfigurationMessage{what});
}

void Scheduler::remember_time(Time now) noexcept {
  std::int64_t seen = last_time_ns_.load(std::memory_order_relaxed);
  while (now.count() > seen &&
         !last_time_ns_.compare_exchange_weak(seen, now.count(), std::memory_order_relaxed)) {
  }
}

void Scheduler::tell_time(const std::vector<Instance*>& fresh) noexcept {
  const std::int64_t now = last_time_ns_.load(std::memory_order_relaxed);
  if (now == kNoTime) return;
  for (Instance* i : fresh) i->time_known(Time{now});
}

void Scheduler::replay_time() {
  const std::int64_t now = last_time_ns_.load(std::memory_order_relaxed);
  if (now != kNoTime) notify(topics::time, TimeMessage{Time{now}});
}

void Scheduler::swap_topology(TopologySpec spec) {
  const std::string what = "topology '" + spec.name + "'";
  install(
      [&](const Topology& current) {
        return Topology::build(std::move(spec), current.processing_elements(), broker_, &instrumentation_,
                               *registry_);
      },
      what);
}

void Scheduler::add_pe(int pe, int cluster) {
  install(
      [&](const Topology& current) {
        ProcessingElements pes = current.processing_elements();
        pes.add(pe, cluster);
        return Topology::build(current.spec(), std::move(pes), broker_, &instrumentation_, *registry_);
      },
      "processing element " + std::to_string(pe) + " added");
  notify(topics::cpu_status, PeEvent{pe, cluster, true});
}

void Scheduler::remove_pe(int pe) {
  int cluster = kAny;
  install(
      [&](const Topology& current) {
        ProcessingElements pes = current.processing_elements();
        cluster = pes.cluster_of(pe);
        pes.remove(pe);
        return Topology::build(current.spec(), std::move(pes), broker_, &instrumentation_, *registry_);
      },
      "processing element " + std::to_string(pe) + " removed");
  notify(topics::cpu_status, PeEvent{pe, cluster, false});
}

void Scheduler::swap_instance(std::string_view name, std::string_view component) {
  swap_instance(name, component, YAML::Node());
}

void Scheduler::swap_instance(std::string_view name, std::string_view component, const YAML::Node& params) {
  std::vector<std::unique_ptr<Instance>> retired;
  {
    std::lock_guard<std::mutex> serial(reconfiguring_);
    // Prepare while operations go on: the spec and elements only change under
    // `reconfiguring_`.
    Topology& topology = *topology_;
    const InstanceSpec* old_spec = topology.spec().find_instance(name);
    if (old_spec == nullptr) {
      std::string names;
      for (const InstanceSpec& i : topology.spec().instances) names += (names.empty() ? "" : ", ") + i.name;
      throw takt::Error("topology '" + topology.spec().name + "' has no instance '" + std::string(name) +
                        "' (its instances: " + names + ")");
    }
    const InstanceSpec new_spec =
        replace_component(topology.spec(), *old_spec, component, params, *registry_);
    TopologySpec whole = topology.spec();
    for (InstanceSpec& i : whole.instances) {
      if (i.name == new_spec.name) i = new_spec;
    }
    check_topology(whole, topology.processing_elements(), *registry_);  // responders, data slots
    const std::vector<std::size_t> elements = topology.elements_of(name);
    std::vector<std::unique_ptr<Instance>> replacements;
    std::vector<std::size_t> slots_handed_out;  // one data slot per element of a family
    for (std::size_t e : elements) {
      replacements.push_back(topology.make_replacement(e, new_spec, *registry_, slots_handed_out));
    }

    Exclusive x(lock_);
    const std::vector<Task*> tasks = tasks_by_admission();
    // From here instances are taken apart and their outputs emptied: a component that
    // throws while its replacement is connected or builds its per-task data would leave
    // the topology half swapped and removals pending in pipe logs, so, as in
    // pipe_update, a throw ends the program (noexcept).
    retired.reserve(retired.size() + elements.size());
    auto swap_elements = [&]() noexcept {
      for (std::size_t k = 0; k < elements.size(); ++k) {
        const std::size_t e = elements[k];
        Instance& old = topology.element(e);
        // The old instance lets go of its per-task data and its subscriptions.
        if (old.component().uses_task_data) {
          for (Task* task : tasks) old.task_destruct(*task);
        }
        broker_.withdraw(&old);
        // Its outputs are emptied; the removals wait in the logs for the new adds.
        std::vector<Pipe*> outputs;
        for (const PortBinding& binding : old.context().ports) {
          const PortInfo* port = old.component().find_port(binding.port);
          if (port->direction != PortInfo::Direction::output) continue;
          for (Pipe* out : binding.pipes) {
            outputs.push_back(out);
            for (Task* task : out->ordered()) out->remove(*task);
          }
        }
        retired.push_back(topology.replace(e, std::move(replacements[k])));
        Instance& fresh = topology.element(e);
        fresh.connect(broker_);
        tell_time({&fresh});
        if (fresh.component().uses_task_data) {
          for (Task* task : tasks) fresh.task_construct(*task);
        }
        // Every task of its inputs arrives anew; its outputs are flushed after its last
        // input: first every output's removals, then their adds and moves, so that a
        // consumer of two of them never meets a task that moved from one to the other
        // before it left the first (it would hold the task twice).
        fresh.offer_inputs_as_new();
        std::sort(outputs.begin(), outputs.end(),
                  [](const Pipe* a, const Pipe* b) { return a->rank() < b->rank(); });
        for (Pipe* out : outputs) out->hold_back_arrivals();
        for (Pipe* out : outputs) flush(*out);
        for (Pipe* out : outputs) {
          out->release_arrivals();
          flush(*out);
        }
      }
    };
    swap_elements();
    topology.set_instance_spec(new_spec);
    reconfigurations_.fetch_add(1, std::memory_order_relaxed);
  }
  retired.clear();
  replay_time();
  notify(topics::reconfigured,
         ReconfigurationMessage{"instance '" + std::string(name) + "' is now " + std::string(component)});
}

// --- broker and introspection ------------------------------------------------------

bool Scheduler::remove_topic(std::string_view name) {
  std::lock_guard<std::mutex> serial(reconfiguring_);
  Exclusive x(lock_);
  if (const auto info = broker_.topic(name); info && info->id <= topics::reconfigured.id &&
                                             info->uuid == 0x7a6b0001u + info->id && info->references == 1) {
    throw takt::Error("topic " + std::string(name) +
                      " is built in: the scheduler publishes it, it cannot be removed");
  }
  return broker_.remove_topic(name);
}

void Scheduler::withdraw(Broker::Owner owner) {
  std::lock_guard<std::mutex> serial(reconfiguring_);
  Exclusive x(lock_);
  broker_.withdraw(owner);
}

std::vector<TopicInfo> Scheduler::topics() {
  SharedSwapGuard guard(lock_);
  return broker_.topics();
}

std::vector<PipeLoad> Scheduler::pipe_loads() {
  SharedSwapGuard guard(lock_);
  std::vector<PipeLoad> loads;
  for (const Pipe* pipe : topology_->pipes()) loads.push_back(PipeLoad{pipe->name(), pipe->size()});
  return loads;
}

std::vector<Task*> Scheduler::queued(std::string_view name) {
  SharedSwapGuard guard(lock_);
  Pipe* pipe = topology_->pipe(name);
  if (pipe == nullptr) throw takt::Error("no pipe named '" + std::string(name) + "'");
  PipeGuard g(*pipe);
  return pipe->ordered();
}

std::vector<InstanceStats> Scheduler::instance_stats() {
  SharedSwapGuard guard(lock_);
  std::vector<InstanceStats> out;
  for (const Instance* i : topology_->instances()) out.push_back(i->stats());
  return out;
}

TopologySpec Scheduler::spec() {
  SharedSwapGuard guard(lock_);
  return topology_->spec();
}

ProcessingElements Scheduler::processing_elements() {
  SharedSwapGuard guard(lock_);
  return topology_->processing_elements();
}

std::string Scheduler::describe() {
  SharedSwapGuard guard(lock_);
  return topology_->describe();
}

std::string Scheduler::verify() {
  std::lock_guard<std::mutex> serial(reconfiguring_);
  Exclusive x(lock_);
  std::ostringstream problems;
  for (const Pipe* pipe : topology_->pipes()) {
    if (pipe->has_changes())
      problems << "pipe " << pipe->name() << " has " << pipe->pending_changes() << " pending changes\n";
  }
  for (Task* task : tasks_by_admission()) {
    std::size_t memberships = 0;
    for (const PipeNode& node : task->nodes_) {
      if (node.owner.load(std::memory_order_relaxed) != nullptr) ++memberships;
    }
    switch (task->state()) {
      case TaskState::schedulable:
        if (task->entry_ == nullptr || !task->entry_->contains(*task)) {
          problems << "task " << task->id << " is schedulable but not in its entry pipe\n";
        }
        break;
      case TaskState::running:
      case TaskState::dispatching:  // (state() reports it as running)
      case TaskState::unconsidered:
        if (memberships != 0) {
          problems << "task " << task->id << " is " << to_string(task->state()) << " but a member of "
                   << memberships << " pipes\n";
        }
        break;
    }
  }
  return problems.str();
}

}  // namespace takt::sched
