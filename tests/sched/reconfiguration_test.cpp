// Tests of run-time reconfiguration: instance swap, whole-topology swap, PEs coming and going.
#include "sched/component_registry.hpp"
#include "sched/components/keyed_forward.hpp"
#include "sched/scheduler.hpp"
#include "sched_test_util.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using namespace takt::sched;
using namespace takt::sched::test;
using V = std::vector<std::uint64_t>;

namespace {

// What a `recorder` instance saw: "added 3", "moved 1", ...
std::vector<std::string> seen;
// Per-task data bookkeeping of `counting` instances.
int constructed = 0;
int destructed = 0;
int destructed_wrong = 0;

/// Forwards like a head queue and records every change it processes.
class Recorder final : public components::KeyedForward {
 public:
  using KeyedForward::KeyedForward;
  void pipe_update(Pipe& input, Writer& out) override {
    input.for_each_change([](Task& t, Change c, std::int64_t) {
      seen.push_back(std::string(to_string(c)) + " " + std::to_string(t.id));
    });
    KeyedForward::pipe_update(input, out);
  }

 private:
  std::int64_t key(const Task&, std::int64_t input_key) override { return input_key; }
};

/// An annotator whose per-task data must be constructed before it is destructed.
class Counting final : public Instance {
 public:
  using Instance::Instance;
  void task_construct(Task& t) override {
    task_data(t).store(42, std::memory_order_relaxed);
    ++constructed;
  }
  void task_destruct(Task& t) override {
    if (task_data(t).load(std::memory_order_relaxed) != 42) ++destructed_wrong;
    task_data(t).store(0, std::memory_order_relaxed);
    ++destructed;
  }
};

/// Forwards like a head queue; an AFFINITY notification makes it change its output
/// with a function that throws.
class ThrowingOnAffinity final : public components::KeyedForward {
 public:
  using KeyedForward::KeyedForward;
  void connect(Broker& broker) override {
    broker.subscribe(topics::affinity, this, [this](const AffinityMessage&) {
      update_from_notification([](Writer&) { throw std::runtime_error("a component's bug"); });
    });
  }

 private:
  std::int64_t key(const Task&, std::int64_t input_key) override { return input_key; }
};

// ExitOnEnter: the scheduler and task it tries to exit, and what exit() answered.
Scheduler* exit_on_enter_scheduler = nullptr;
Task* exit_on_enter_task = nullptr;
std::optional<bool> exit_on_enter_answer;

/// An annotator whose task_enter (a task entering the topology again) tries to exit
/// that task: it runs inside the scheduler's call, where the task's state is visible.
class ExitOnEnter final : public Instance {
 public:
  using Instance::Instance;
  void task_enter(Task& t) override {
    if (exit_on_enter_scheduler != nullptr && &t == exit_on_enter_task) {
      exit_on_enter_answer = exit_on_enter_scheduler->exit(t);
    }
  }
};

const ComponentRegistry& registry() {
  static ComponentRegistry r = [] {
    ComponentRegistry copy = ComponentRegistry::builtin();
    copy.add(ComponentInfo{"recorder",
                           neutral,
                           "records changes",
                           components::one_to_one_ports(),
                           {},
                           {},
                           {},
                           {},
                           false,
                           [](InstanceContext c) { return std::make_unique<Recorder>(std::move(c)); }});
    copy.add(
        ComponentInfo{"throwing-on-affinity",
                      neutral,
                      "throws while it updates its output after an AFFINITY notification",
                      components::one_to_one_ports(),
                      {},
                      {},
                      {},
                      {},
                      false,
                      [](InstanceContext c) { return std::make_unique<ThrowingOnAffinity>(std::move(c)); }});
    copy.add(ComponentInfo{"exit-on-enter",
                           annotating,
                           "exits a task as it enters again",
                           {},
                           {},
                           {},
                           {},
                           {},
                           true,
                           [](InstanceContext c) { return std::make_unique<ExitOnEnter>(std::move(c)); }});
    copy.add(ComponentInfo{
        "counting", annotating, "counts per-task data", {}, {}, {}, {}, {}, true, [](InstanceContext c) {
          return std::make_unique<Counting>(std::move(c));
        }});
    return copy;
  }();
  return r;
}

TopologySpec with_registry(const std::string& yaml) {
  return parse_topology(YAML::Load(yaml)["topology"], "test.yaml", registry());
}

SchedulerOptions options() {
  SchedulerOptions o;
  o.registry = &registry();
  return o;
}

const std::string observed =
    "topology:\n"
    "  name: observed\n"
    "  pipes: {in: one, mid: one, out: one}\n"
    "  entry: in\n"
    "  instances:\n"
    "    order: {component: edf, input: in, output: mid}\n"
    "    rec: {component: recorder, input: mid, output: out}\n"
    "    clock: {component: lamport}\n"
    "    data: {component: counting}\n"
    "  pes: {terminal: out}\n";

/// A distributor by PE in front of one fixed-priority instance per PE (the family `order`).
TopologySpec per_pe_fixed_priority() {
  return topology("topology:\n"
                  "  name: per-pe\n"
                  "  pipes: {in: one, queued: per-pe, ready: per-pe}\n"
                  "  entry: in\n"
                  "  instances:\n"
                  "    place: {component: distributor, input: in, outputs: \"queued[*]\", params: {by: pe}}\n"
                  "    order: {component: fixed-priority, per: pe, input: \"queued[#]\", output: \"ready[#]\"}\n"
                  "  pes: {terminal: \"ready[pe]\"}\n");
}

}  // namespace

TEST(Reconfiguration, SwappedInstanceReordersAndDownstreamSeesMoves) {
  TaskPool pool;
  seen.clear();
  Scheduler s(with_registry(observed), ProcessingElements::uniform(1), options());
  s.admit(pool.make(1, 30ms));
  s.admit(pool.make(2, 10ms));
  s.admit(pool.make(3, 20ms));
  Task& running = pool.make(4, 5ms);
  s.admit(running);
  ASSERT_EQ(s.schedule(0), &running);
  EXPECT_EQ(queued_ids(s, "out"), (V{2, 3, 1}));
  seen.clear();
  s.swap_instance("order", "lcfs");
  // The same tasks, newest first; the recorder downstream saw three moves, no
  // removal and no addition (remove-then-add became move in one log).
  EXPECT_EQ(queued_ids(s, "out"), (V{3, 2, 1}));
  EXPECT_EQ(seen, (std::vector<std::string>{"moved 2", "moved 3", "moved 1"}));
  EXPECT_EQ(running.state(), TaskState::running);  // running tasks finish where they are
  EXPECT_EQ(s.spec().find_instance("order")->component, "lcfs");
  // A filter withholds one task: downstream sees its removal.
  seen.clear();
  s.swap_instance("order", "filter", YAML::Load("{relative_deadline_at_most: 25ms}"));
  EXPECT_EQ(queued_ids(s, "out"), (V{2, 3}));  // back to arrival order (keys pass through)
  // The removals come down first (1, which the filter withholds), then the moves, in
  // the order of the first change of each task: the removals of the emptied output
  // (3, 2 in lcfs order), which the filter turned into moves.
  EXPECT_EQ(seen, (std::vector<std::string>{"removed 1", "moved 3", "moved 2"}));
  s.relinquish(running);
  EXPECT_EQ(queued_ids(s, "out"), (V{2, 3, 4}));
  EXPECT_EQ(s.reconfigurations(), 2u);
  EXPECT_EQ(s.verify(), "");
}

TEST(Reconfiguration, SwappedInstanceWithSeveralInputsIsSeenDownstreamAsMoves) {
  // The mux reads a and b. Each input used to get a Writer of its own that flushed the
  // output when that input was done: after a, the swap's pending removals of b's tasks
  // went down as removed, and b's tasks then arrived as added.
  TaskPool pool;
  seen.clear();
  Scheduler s(with_registry("topology:\n"
                            "  name: merged\n"
                            "  pipes: {in: one, a: one, b: one, merged: one, out: one}\n"
                            "  entry: in\n"
                            "  instances:\n"
                            "    split: {component: distributor, input: in, outputs: [a, b]}\n"
                            "    merge: {component: mux, inputs: [a, b], output: merged}\n"
                            "    rec: {component: recorder, input: merged, output: out}\n"
                            "  pes: {terminal: out}\n"),
              ProcessingElements::uniform(1), options());
  for (std::uint64_t id = 1; id <= 4; ++id) {
    s.admit(pool.make(id, Time{static_cast<std::int64_t>(10 - id)}, 0, static_cast<int>((id - 1) % 2)));
  }
  EXPECT_EQ(queued_ids(s, "out"), (V{1, 2, 3, 4}));
  seen.clear();
  s.swap_instance("merge", "mux", YAML::Load("{order: deadline}"));
  EXPECT_EQ(queued_ids(s, "out"), (V{4, 3, 2, 1}));
  EXPECT_EQ(seen, (std::vector<std::string>{"moved 1", "moved 2", "moved 3", "moved 4"}));
  EXPECT_EQ(s.verify(), "");
}

TEST(Reconfiguration, ATaskASwapMovesToAnotherOutputLeavesTheFirstBeforeItArrives) {
  // A distributor feeds a and b, which a load balancer merges into q[*]. Task 7 (cluster 0,
  // bound to PE 1) goes by cluster to a, then to q[1]. Swapped to distribute by PE, the
  // splitter sends it to b. The swap used to flush b (the add) before a (the removal):
  // the balancer placed task 7 in q[1] a second time, then took the first node away on
  // a's removal and forgot the task, which stayed queued; once dispatched, it was still
  // a member of q[1] (verify() said so), and a node leaked at every relinquish.
  TaskPool pool;
  Scheduler s(with_registry("topology:\n"
                            "  name: merged\n"
                            "  pipes: {in: one, a: one, b: one, q: per-pe}\n"
                            "  entry: in\n"
                            "  instances:\n"
                            "    split: {component: distributor, input: in, outputs: [a, b], params: {by: cluster}}\n"
                            "    lb: {component: load-balancer, inputs: [a, b], outputs: \"q[*]\"}\n"
                            "    affinity: {component: affinity}\n"
                            "  pes: {terminal: \"q[pe]\"}\n"),
              ProcessingElements::with_clusters({0, 1}), options());
  // Task 8 (cluster 1, PE 0) goes the other way, b to a: each output has a removal
  // and an add, and every removal still comes down first.
  Task& t = pool.make(7, Time{10}, 0, 0, 1);
  Task& u = pool.make(8, Time{20}, 0, 1, 0);
  s.admit(t);
  s.admit(u);
  EXPECT_EQ(queued_ids(s, "a"), (V{7}));
  EXPECT_EQ(queued_ids(s, "b"), (V{8}));
  EXPECT_EQ(queued_ids(s, "q[1]"), (V{7}));
  EXPECT_EQ(queued_ids(s, "q[0]"), (V{8}));
  s.swap_instance("split", "distributor", YAML::Load("{by: pe}"));
  EXPECT_EQ(queued_ids(s, "a"), (V{8}));
  EXPECT_EQ(queued_ids(s, "b"), (V{7}));
  EXPECT_EQ(queued_ids(s, "q[1]"), (V{7}));
  EXPECT_EQ(queued_ids(s, "q[0]"), (V{8}));
  EXPECT_EQ(s.verify(), "");
  ASSERT_EQ(s.schedule(0), &u);
  EXPECT_EQ(s.schedule(0), nullptr);
  s.exit(u);
  ASSERT_EQ(s.schedule(1), &t);
  EXPECT_EQ(s.schedule(1), nullptr);
  EXPECT_EQ(s.verify(), "");
  s.relinquish(t);
  EXPECT_EQ(queued_ids(s, "q[1]"), (V{7}));
  ASSERT_EQ(s.schedule(1), &t);
  s.exit(t);
  EXPECT_EQ(s.verify(), "");
}

TEST(Reconfiguration, ATopologyReadWithAnotherRegistryIsAnErrorNotACrash) {
  // `observed` was read with a registry that has `recorder` and `counting`; a scheduler
  // given no registry (the built-in one) dereferenced a null component there. Now the
  // constructor and swap_topology say which component is missing and what to pass.
  const TopologySpec spec = with_registry(observed);
  try {
    Scheduler s(spec, ProcessingElements::uniform(1));
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("test.yaml:7:5: instance 'rec': unknown component 'recorder' in this "
                                         "scheduler's registry"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("(SchedulerOptions::registry)"), std::string::npos) << e.what();
  }
  Scheduler builtin(parse_topology(YAML::Load("{name: plain, pipes: {in: one, out: one}, entry: in, instances: "
                                              "{order: {component: edf, input: in, output: out}}, "
                                              "pes: {terminal: out}}"),
                                   "plain.yaml", ComponentRegistry::builtin()),
                    ProcessingElements::uniform(1));
  EXPECT_THROW(builtin.swap_topology(spec), takt::Error);
  EXPECT_EQ(builtin.spec().name, "plain");  // nothing changed
  // A registry whose `recorder` wants a port more, or has one port fewer: refused too
  // (a component would have read a port it needs as a null pipe).
  for (const bool wants_more : {true, false}) {
    ComponentRegistry other = ComponentRegistry::builtin();
    std::vector<PortInfo> ports = components::one_to_one_ports();
    if (wants_more) {
      ports.push_back(PortInfo{"side", PortInfo::Direction::output, false, false, "a second output"});
    } else {
      ports.pop_back();  // no "output"
    }
    other.add(ComponentInfo{"recorder", neutral, "", ports, {}, {}, {}, {}, false,
                            [](InstanceContext c) { return std::make_unique<Recorder>(std::move(c)); }});
    other.add(ComponentInfo{"counting", annotating, "", {}, {}, {}, {}, {}, true,
                            [](InstanceContext c) { return std::make_unique<Counting>(std::move(c)); }});
    SchedulerOptions o;
    o.registry = &other;
    try {
      Scheduler s(spec, ProcessingElements::uniform(1), o);
      FAIL() << "expected takt::Error";
    } catch (const takt::Error& e) {
      EXPECT_NE(std::string(e.what()).find(wants_more ? "needs its port 'side' bound in this registry"
                                                      : "has no port 'output' in this registry"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Reconfiguration, AReleaseGateASwapMakesKnowsTheTimeBeforeTasksReachIt) {
  // After TIME 10 ms, tasks released at 5 and 10 ms are through the gate. A swapped-in
  // gate used to start at time 0 and hold them inside the swap: downstream saw them
  // removed, and added again only when the TIME was replayed after the swap (in
  // between, schedule() found nothing). Given the time before the tasks arrive, it
  // forwards them at once: downstream sees moves; the task released at 20 ms stays held.
  TaskPool pool;
  seen.clear();
  Scheduler s(with_registry("topology:\n"
                            "  name: gated\n"
                            "  pipes: {in: one, mid: one, out: one}\n"
                            "  entry: in\n"
                            "  instances:\n"
                            "    gate: {component: release-gate, input: in, output: mid}\n"
                            "    rec: {component: recorder, input: mid, output: out}\n"
                            "  pes: {terminal: out}\n"),
              ProcessingElements::uniform(1), options());
  s.admit(pool.make(1, Time{0}, 0, kAny, kAny, 10ms));
  s.admit(pool.make(2, Time{0}, 0, kAny, kAny, 5ms));
  s.admit(pool.make(3, Time{0}, 0, kAny, kAny, 20ms));
  s.notify(topics::time, TimeMessage{10ms});
  EXPECT_EQ(queued_ids(s, "out"), (V{2, 1}));  // forwarded in release order (equal keys)
  seen.clear();
  s.swap_instance("gate", "release-gate");
  EXPECT_EQ(seen, (std::vector<std::string>{"moved 2", "moved 1"}));
  EXPECT_EQ(queued_ids(s, "out"), (V{2, 1}));
  EXPECT_EQ(s.verify(), "");
}

TEST(Reconfiguration, InstanceSwapRunsPerTaskDestructorsAndConstructors) {
  TaskPool pool;
  constructed = destructed = destructed_wrong = 0;
  Scheduler s(with_registry(observed), ProcessingElements::uniform(1), options());
  for (std::uint64_t id = 1; id <= 3; ++id) s.admit(pool.make(id, Time{static_cast<std::int64_t>(id)}));
  ASSERT_TRUE(s.block(pool[2]));
  ASSERT_NE(s.schedule(0), nullptr);
  EXPECT_EQ(constructed, 3);
  // Every attached task, whatever its state, gets the old destructor and the new constructor.
  s.swap_instance("data", "counting");
  EXPECT_EQ(destructed, 3);
  EXPECT_EQ(constructed, 6);
  EXPECT_EQ(destructed_wrong, 0);
  // A swapped-in clock gives each task the stamp it had: its admission number + 1.
  s.swap_instance("clock", "lamport");
  LamportMessage stamp{&pool[1], 0};
  ASSERT_TRUE(s.request(topics::lamport, stamp));
  EXPECT_EQ(stamp.stamp, 2u);
  for (std::size_t i = 0; i < 3; ++i) s.exit(pool[i]);
  EXPECT_EQ(destructed, 6);
  EXPECT_EQ(destructed_wrong, 0);
}

TEST(Reconfiguration, ASwappedLamportClockKeepsFcfsOrderForTasksAdmittedAfterIt) {
  // Tasks 1 and 2 leave; task 3 (stamp 3) stays queued in fcfs's output with key 3. The
  // swapped-in clock used to restamp the live tasks 1..N (task 3: 1) and go on from N:
  // tasks 4 and 5 got 2 and 3, and fcfs, which keeps its keys, put 4 before 3. Stamps
  // are the admission number + 1 now, the same for every instance: 3, 4, 5 in order.
  TaskPool pool;
  Scheduler s(topology(single_stage("fcfs", "", "    clock: {component: lamport}\n")),
              ProcessingElements::uniform(1));
  for (std::uint64_t id = 1; id <= 3; ++id) s.admit(pool.make(id));
  s.exit(pool[0]);
  s.exit(pool[1]);
  s.swap_instance("clock", "lamport");
  s.admit(pool.make(4));
  s.admit(pool.make(5));
  EXPECT_EQ(queued_ids(s, "out"), (V{3, 4, 5}));
  LamportMessage stamp{&pool[3], 0};
  ASSERT_TRUE(s.request(topics::lamport, stamp));
  EXPECT_EQ(stamp.stamp, 4u);
  EXPECT_EQ(s.verify(), "");
}

TEST(Reconfiguration, SwapsEveryElementOfAFamily) {
  TaskPool pool;
  Scheduler s(
      per_pe_fixed_priority(),
      ProcessingElements::uniform(2));
  // Priorities against deadlines: fixed priority and EDF disagree.
  s.admit(pool.make(1, 10ms, 3, kAny, 0));
  s.admit(pool.make(2, 20ms, 1, kAny, 0));
  s.admit(pool.make(3, 10ms, 2, kAny, 1));
  s.admit(pool.make(4, 30ms, 1, kAny, 1));
  EXPECT_EQ(queued_ids(s, "ready[0]"), (V{2, 1}));
  EXPECT_EQ(queued_ids(s, "ready[1]"), (V{4, 3}));
  s.swap_instance("order", "edf");
  EXPECT_EQ(queued_ids(s, "ready[0]"), (V{1, 2}));
  EXPECT_EQ(queued_ids(s, "ready[1]"), (V{3, 4}));
  EXPECT_EQ(s.verify(), "");
}

TEST(Reconfiguration, EachElementOfASwappedFamilyGetsADataSlotOfItsOwn) {
  // fixed-priority keeps no per-task data, release-gate does. Swapping the family
  // `order` (one element per PE) gave every new element the same free slot, so
  // order[1]'s task_construct wiped what order[0] had just recorded of its tasks: their
  // exit then left them in ready[0] (a freed task a PE could take).
  TaskPool pool;
  Scheduler s(
      per_pe_fixed_priority(),
      ProcessingElements::uniform(2));
  std::vector<Task*> tasks = {&pool.make(1, 10ms, 3, kAny, 0), &pool.make(2, 20ms, 1, kAny, 0),
                              &pool.make(3, 10ms, 2, kAny, 1), &pool.make(4, 30ms, 1, kAny, 1)};
  for (Task* t : tasks) s.admit(*t);
  s.swap_instance("order", "release-gate");  // released at 0: every task passes at once
  EXPECT_EQ(queued_ids(s, "ready[0]").size(), 2u);
  EXPECT_EQ(queued_ids(s, "ready[1]").size(), 2u);
  for (Task* t : tasks) EXPECT_TRUE(s.exit(*t));
  EXPECT_EQ(queued_ids(s, "ready[0]"), V{});
  EXPECT_EQ(queued_ids(s, "ready[1]"), V{});
  EXPECT_EQ(s.verify(), "");
}

TEST(Reconfiguration, RejectedSwapsLeaveTheTopologyAlone) {
  TaskPool pool;
  Scheduler s(with_registry(observed), ProcessingElements::uniform(1), options());
  s.admit(pool.make(1, 30ms));
  s.admit(pool.make(2, 10ms));
  EXPECT_THROW(s.swap_instance("nope", "edf"), takt::Error);
  EXPECT_THROW(s.swap_instance("order", "mux"), takt::Error);  // has no `input` port
  EXPECT_THROW(s.swap_instance("order", "edf", YAML::Load("{x: 1}")), takt::Error);
  s.swap_instance("order", "fcfs");
  // fcfs needs the LAMPORT responder: the clock cannot become a marker now.
  try {
    s.swap_instance("clock", "marker");
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs a responder for topic LAMPORT"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(queued_ids(s, "out"), (V{1, 2}));
  EXPECT_EQ(s.spec().find_instance("clock")->component, "lamport");
  EXPECT_EQ(s.reconfigurations(), 1u);
  EXPECT_EQ(s.verify(), "");
}

TEST(Reconfiguration, WholeTopologySwapCarriesQueuedTasksOver) {
  TaskPool pool;
  Scheduler s(topology(single_stage("edf")), ProcessingElements::uniform(2));
  std::vector<std::string> notes;
  int me = 0;
  s.subscribe(topics::reconfigured, &me, [&](const ReconfigurationMessage& m) { notes.push_back(m.what); });
  s.admit(pool.make(1, 30ms));
  s.admit(pool.make(2, 10ms));
  Task& running = pool.make(3, 1ms);
  s.admit(running);
  s.admit(pool.make(4, 20ms));
  ASSERT_EQ(s.schedule(1), &running);
  ASSERT_TRUE(s.block(pool[3]));
  const TopologySpec balanced = topology(
      "topology:\n"
      "  name: balanced\n"
      "  pipes: {in: one, q: per-pe}\n"
      "  entry: in\n"
      "  instances:\n"
      "    lb: {component: load-balancer, inputs: in, outputs: \"q[*]\"}\n"
      "  pes: {terminal: \"q[pe]\"}\n");
  s.swap_topology(balanced);
  // Queued tasks re-entered in admission order: 1 then 2 (the blocked 4 and the
  // running 3 stay out).
  EXPECT_EQ(queued_ids(s, "q[0]"), (V{1}));
  EXPECT_EQ(queued_ids(s, "q[1]"), (V{2}));
  EXPECT_EQ(running.state(), TaskState::running);
  s.relinquish(running);  // back into the new topology, near where it ran
  EXPECT_EQ(queued_ids(s, "q[1]"), (V{2, 3}));
  s.unblock(pool[3]);
  EXPECT_EQ(queued_ids(s, "q[0]"), (V{1, 4}));
  EXPECT_EQ(notes, (std::vector<std::string>{"topology 'balanced'"}));
  EXPECT_EQ(s.spec().name, "balanced");
  EXPECT_EQ(s.verify(), "");
}

TEST(Reconfiguration, WholeTopologySwapThatCannotTakeAQueuedTaskChangesNothing) {
  TaskPool pool;
  Scheduler s(topology(single_stage("edf")), ProcessingElements::with_clusters({0, 1}));
  s.admit(pool.make(1, 20ms));  // cluster kAny
  s.admit(pool.make(2, 10ms, 0, 1));
  const TopologySpec by_cluster = topology(
      "topology:\n"
      "  name: by-cluster\n"
      "  pipes: {in: per-cluster}\n"
      "  entry: \"in[cluster]\"\n"
      "  instances: {}\n"
      "  pes: {terminal: \"in[cluster]\"}\n");
  EXPECT_THROW(s.swap_topology(by_cluster), takt::Error);
  EXPECT_EQ(s.spec().name, "single");
  EXPECT_EQ(queued_ids(s, "out"), (V{2, 1}));
  EXPECT_EQ(s.verify(), "");
  s.exit(pool[0]);
  s.swap_topology(by_cluster);
  EXPECT_EQ(queued_ids(s, "in[1]"), (V{2}));
}

TEST(Reconfiguration, DynamicTopologyFollowsProcessingElements) {
  TaskPool pool;
  Scheduler s(topology("topology:\n"
                       "  name: paws\n"
                       "  pipes: {in: one, global: one, local: per-pe}\n"
                       "  entry: in\n"
                       "  instances:\n"
                       "    place: {component: distributor, input: in, outputs: \"local[*]\", unassigned: "
                       "global, params: {by: pe}}\n"
                       "  pes: {terminal: \"local[pe]\", pull: [global], steal: local}\n"),
              ProcessingElements::uniform(2));
  std::vector<std::string> events;
  int me = 0;
  s.subscribe(topics::cpu_status, &me, [&](const PeEvent& e) {
    events.push_back(std::to_string(e.pe) + (e.online ? " on" : " off"));
  });
  s.admit(pool.make(1, 0ms, 0, kAny, 1));
  s.admit(pool.make(2, 0ms, 0, kAny, 1));
  s.remove_pe(1);
  EXPECT_EQ(queued_ids(s, "local[1]"), (V{1, 2}));  // bound work waits for its PE ...
  EXPECT_EQ(s.schedule(0)->id, 1u);                 // ... unless another PE steals it
  s.add_pe(2, 0);
  EXPECT_EQ(s.processing_elements().online_pes(), (std::vector<int>{0, 2}));
  s.admit(pool.make(3, 0ms, 0, kAny, 2));
  EXPECT_EQ(queued_ids(s, "local[2]"), (V{3}));
  EXPECT_EQ(s.schedule(2)->id, 3u);
  s.add_pe(1, 0);
  EXPECT_EQ(s.schedule(1)->id, 2u);
  EXPECT_EQ(events, (std::vector<std::string>{"1 off", "2 on", "1 on"}));
  EXPECT_THROW(s.add_pe(1, 0), takt::Error);  // already online
  EXPECT_THROW(s.remove_pe(7), takt::Error);
  EXPECT_EQ(s.verify(), "");
}

TEST(ComponentUpdate, AnExceptionInAnUpdateFromANotificationEndsTheProgram) {
  // The instance's input pipes stayed locked when the function threw, and the next
  // call through them hung for ever. As in a pipe update, a component that throws
  // there ends the program (its outputs may be half changed).
  EXPECT_EXIT(
      {
        ::alarm(10);  // a hang ends by SIGALRM, which the test does not accept
        Scheduler s(with_registry("topology:\n"
                                  "  name: throwing\n"
                                  "  pipes: {in: one, out: one}\n"
                                  "  entry: in\n"
                                  "  instances:\n"
                                  "    t: {component: throwing-on-affinity, input: in, output: out}\n"
                                  "  pes: {terminal: out}\n"),
                    ProcessingElements::uniform(1), options());
        Task task;
        task.id = 1;
        s.admit(task);
        try {
          s.notify(topics::affinity, AffinityMessage{&task, 0, 0});
        } catch (const std::exception&) {
        }
        Task other;
        other.id = 2;
        s.admit(other);  // hung here: its input pipe was never unlocked
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGABRT), "a component's bug");
}

TEST(ComponentUpdate, ATaskQueuedAgainAfterAThrowingDispatchCannotBeExitedMeanwhile) {
  // schedule() claimed the task and a DISPATCH subscriber threw; the task was marked
  // running before schedule() queued it again, so an exit() in between (another
  // thread's; here a data instance's task_enter, which runs in that window) exited it
  // and the re-queue then put an exited task back into the pipes. It stays
  // `dispatching` until it is queued: exit() returns false, as during any dispatch.
  Scheduler s(with_registry("topology:\n"
                            "  name: exiting\n"
                            "  pipes: {in: one, out: one}\n"
                            "  entry: in\n"
                            "  instances:\n"
                            "    order: {component: edf, input: in, output: out}\n"
                            "    probe: {component: exit-on-enter}\n"
                            "  pes: {terminal: out}\n"),
              ProcessingElements::uniform(1), options());
  int me = 0;
  s.subscribe(topics::dispatch, &me, [](const TaskEvent&) { throw std::runtime_error("subscriber failed"); });
  Task task;
  task.id = 1;
  s.admit(task);
  exit_on_enter_scheduler = &s;
  exit_on_enter_task = &task;
  exit_on_enter_answer.reset();
  EXPECT_THROW((void)s.schedule(0), std::runtime_error);
  exit_on_enter_scheduler = nullptr;
  s.withdraw(&me);
  ASSERT_TRUE(exit_on_enter_answer.has_value()) << "the task did not enter again";
  EXPECT_FALSE(*exit_on_enter_answer) << "exited while schedule() was still queueing it again";
  EXPECT_EQ(task.state(), TaskState::schedulable);
  EXPECT_EQ(s.verify(), "");
  EXPECT_EQ(s.schedule(0), &task);
  EXPECT_TRUE(s.exit(task));
  EXPECT_EQ(s.verify(), "");
}
