// Tests of every shipped component's rule: ordering, filtering, distribution, annotation.
#include "sched/component_registry.hpp"
#include "sched/components/load_buckets.hpp"
#include "sched/scheduler.hpp"
#include "sched_test_util.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace takt::sched;
using namespace takt::sched::test;
using V = std::vector<std::uint64_t>;

namespace {

std::uint64_t counter(Scheduler& s, const std::string& instance, const std::string& name) {
  for (const InstanceStats& st : s.instance_stats()) {
    if (st.name != instance) continue;
    for (const auto& [n, v] : st.counters) {
      if (n == name) return v;
    }
  }
  return ~std::uint64_t{0};
}

}  // namespace

TEST(Components, RegistryHasEveryShippedComponentWithItsClasses) {
  const ComponentRegistry& r = ComponentRegistry::builtin();
  for (const char* name : {"head-queue", "fcfs", "lcfs", "edf", "fixed-priority", "deadline-monotonic",
                           "filter", "release-gate", "distributor", "mux", "load-balancer",
                           "advanced-balancer", "affinity", "lamport", "status", "marker", "termination"}) {
    EXPECT_NE(r.find(name), nullptr) << name;
  }
  EXPECT_EQ(r.find("edf")->classes, unsigned{ordering});
  EXPECT_EQ(r.find("filter")->classes, unsigned{filtering});
  EXPECT_EQ(r.find("distributor")->classes, unsigned{distributing});
  EXPECT_EQ(r.find("mux")->classes, unsigned{consolidating});
  EXPECT_EQ(r.find("affinity")->classes, unsigned{annotating});
  EXPECT_EQ(describe_classes(r.find("load-balancer")->classes), "distributing, consolidating");
  EXPECT_EQ(describe_classes(r.find("head-queue")->classes), "neutral");
  ComponentRegistry mine;
  EXPECT_THROW(mine.add(ComponentInfo{"x", neutral, "", {}, {}, {}, {}, {}, false, nullptr}), takt::Error);
}

TEST(Components, HeadQueueKeepsArrivalOrder) {
  TaskPool pool;
  Scheduler s(topology(single_stage("head-queue")), ProcessingElements::uniform(1));
  for (std::uint64_t id : {1, 2, 3}) s.admit(pool.make(id, Time{100 - static_cast<std::int64_t>(id)}));
  EXPECT_EQ(queued_ids(s, "out"), (V{1, 2, 3}));
  EXPECT_EQ(drain(s, 0), (V{1, 2, 3}));
}

TEST(Components, EdfOrdersByDeadlineTiesFirstComeFirstServed) {
  TaskPool pool;
  Scheduler s(topology(single_stage("edf")), ProcessingElements::uniform(1));
  s.admit(pool.make(1, 30ms));
  s.admit(pool.make(2, 10ms));
  s.admit(pool.make(3, 20ms));
  s.admit(pool.make(4, 10ms));
  EXPECT_EQ(queued_ids(s, "out"), (V{2, 4, 3, 1}));
  EXPECT_EQ(queued_ids(s, "in"), (V{1, 2, 3, 4}));  // the entry pipe is first come first served
  EXPECT_EQ(drain(s, 0), (V{2, 4, 3, 1}));
}

TEST(Components, FixedPriorityAndDeadlineMonotonic) {
  {
    TaskPool pool;
    Scheduler s(topology(single_stage("fixed-priority")), ProcessingElements::uniform(1));
    for (auto [id, prio] : {std::pair{1, 3}, {2, 1}, {3, 2}, {4, 1}}) s.admit(pool.make(id, Time{0}, prio));
    EXPECT_EQ(queued_ids(s, "out"), (V{2, 4, 3, 1}));  // 1 is the highest priority
  }
  {
    TaskPool pool;
    Scheduler s(topology(single_stage("fixed-priority", "{higher_is: larger}")),
                ProcessingElements::uniform(1));
    for (auto [id, prio] : {std::pair{1, 3}, {2, 1}, {3, 2}, {4, 1}}) s.admit(pool.make(id, Time{0}, prio));
    EXPECT_EQ(queued_ids(s, "out"), (V{1, 3, 2, 4}));
  }
  {
    // Relative deadlines 10, 5, 7 ms (absolute deadline - release).
    TaskPool pool;
    Scheduler s(topology(single_stage("deadline-monotonic")), ProcessingElements::uniform(1));
    s.admit(pool.make(1, 110ms, 0, kAny, kAny, 100ms));
    s.admit(pool.make(2, 5ms, 0, kAny, kAny, 0ms));
    s.admit(pool.make(3, 57ms, 0, kAny, kAny, 50ms));
    EXPECT_EQ(queued_ids(s, "out"), (V{2, 3, 1}));
  }
}

TEST(Components, FcfsAndLcfsUseLamportStamps) {
  const std::string lamport = "    clock: {component: lamport}\n";
  TaskPool pool;
  Scheduler fcfs(topology(single_stage("fcfs", "", lamport)), ProcessingElements::uniform(1));
  Scheduler lcfs(topology(single_stage("lcfs", "", lamport)), ProcessingElements::uniform(1));
  for (std::uint64_t id : {1, 2, 3}) fcfs.admit(pool.make(id));
  for (std::uint64_t id : {4, 5, 6}) lcfs.admit(pool.make(id));
  EXPECT_EQ(queued_ids(fcfs, "out"), (V{1, 2, 3}));
  EXPECT_EQ(queued_ids(lcfs, "out"), (V{6, 5, 4}));
  // A task keeps its admission stamp: relinquished, it is still the oldest.
  Task* first = fcfs.schedule(0);
  ASSERT_EQ(first->id, 1u);
  fcfs.relinquish(*first);
  EXPECT_EQ(queued_ids(fcfs, "out"), (V{1, 2, 3}));
  EXPECT_EQ(queued_ids(fcfs, "in"), (V{2, 3, 1}));  // while the entry saw it come back last
  LamportMessage stamp{&pool[2], 0};
  EXPECT_TRUE(fcfs.request(topics::lamport, stamp));
  EXPECT_EQ(stamp.stamp, 3u);
}

TEST(Components, FilterWithholdsTasksThatDoNotMatch) {
  TaskPool pool;
  Scheduler s(topology(single_stage("filter", "{priority_at_most: 2}")), ProcessingElements::uniform(1));
  s.admit(pool.make(1, 0ms, 1));
  s.admit(pool.make(2, 0ms, 3));
  s.admit(pool.make(3, 0ms, 2));
  EXPECT_EQ(queued_ids(s, "out"), (V{1, 3}));
  EXPECT_EQ(queued_ids(s, "in"), (V{1, 2, 3}));
  EXPECT_EQ(drain(s, 0), (V{1, 3}));
  EXPECT_EQ(pool[1].state(), TaskState::schedulable);  // withheld, still schedulable
  EXPECT_TRUE(s.exit(pool[1]));
  EXPECT_TRUE(queued_ids(s, "in").empty());
  EXPECT_EQ(s.verify(), "");
}

TEST(Components, AFilterGivenAnEmptyListInCodeIsRefused) {
  // The topology parser refuses `pes: []`; set in code, the empty list read as "no such
  // criterion" and every task passed.
  TopologySpec spec = topology(single_stage("filter", "{pes: [0]}"));
  spec.instances[0].params.set("pes", std::vector<std::int64_t>{});
  try {
    Scheduler s(spec, ProcessingElements::uniform(1));
    ADD_FAILURE() << "a filter with an empty pes list was made";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("an empty clusters or pes list matches no task"), std::string::npos)
        << e.what();
  }
}

TEST(Components, FilterRulesEachByHand) {
  // Six tasks (priority, cluster, pe, relative deadline = deadline − release):
  //   1: (1, 0, 0, 10 ms)  2: (2, 1, 1, 20 ms)  3: (3, 0, 1, 30 ms)
  //   4: (4, 1, 0, 40 ms)  5: (5, 0, 0, 50 ms)  6: (6, 1, 1, 60 ms)
  // Each rule alone, then all together (a task must match every one).
  auto run = [](const std::string& params) {
    TaskPool pool;
    Scheduler s(topology(single_stage("filter", params)), ProcessingElements::with_clusters({0, 1}));
    const int cluster[] = {0, 1, 0, 1, 0, 1};
    const int pe[] = {0, 1, 1, 0, 0, 1};
    for (int n = 1; n <= 6; ++n) {
      s.admit(pool.make(static_cast<std::uint64_t>(n), 100ms + 10ms * n, n, cluster[n - 1], pe[n - 1], 100ms));
    }
    return queued_ids(s, "out");
  };
  EXPECT_EQ(run("{priority_at_least: 4}"), (V{4, 5, 6}));
  EXPECT_EQ(run("{priority_at_most: 2}"), (V{1, 2}));
  EXPECT_EQ(run("{clusters: [1]}"), (V{2, 4, 6}));
  EXPECT_EQ(run("{pes: [1]}"), (V{2, 3, 6}));
  EXPECT_EQ(run("{relative_deadline_at_most: 30ms}"), (V{1, 2, 3}));
  EXPECT_EQ(run("{priority_at_least: 2, priority_at_most: 5, clusters: [0], pes: [0, 1], "
                "relative_deadline_at_most: 40ms}"),
            (V{3}));
}

namespace {

/// Admits tasks 1, 2, ... with deadline 30 ms and the given release times.
void admit_released(Scheduler& s, TaskPool& pool, std::initializer_list<std::chrono::nanoseconds> releases) {
  std::uint64_t id = 0;
  for (std::chrono::nanoseconds r : releases) s.admit(pool.make(++id, 30ms, 0, kAny, kAny, r));
}

}  // namespace

TEST(Components, AReleaseGateSwappedInKnowsTheTimeAlreadySent) {
  // A reconfiguration creates a fresh gate, which starts at time 0: tasks released at 5
  // and 10 ms, already passed at TIME 10 ms, were held again until the next TIME. The
  // scheduler gives the new instances the latest TIME before any task reaches them, so
  // they forward those two as they arrive (in input order: the keys are equal, so the
  // queue keeps that order, where the first gate forwarded them in release order).
  TaskPool pool;
  Scheduler s(topology(single_stage("release-gate")), ProcessingElements::uniform(1));
  admit_released(s, pool, {10ms, 5ms, 20ms});
  s.notify(topics::time, TimeMessage{10ms});
  EXPECT_EQ(queued_ids(s, "out"), (V{2, 1}));
  s.swap_instance("stage", "release-gate");
  EXPECT_EQ(queued_ids(s, "out"), (V{1, 2}));
  s.add_pe(1, 0);  // a rebuilt topology too
  EXPECT_EQ(queued_ids(s, "out"), (V{1, 2}));
  EXPECT_EQ(s.verify(), "");
}

TEST(Components, ReleaseGateFollowsTimeMessages) {
  TaskPool pool;
  Scheduler s(topology(single_stage("release-gate")), ProcessingElements::uniform(1));
  admit_released(s, pool, {10ms, 5ms, 20ms, 0ms, 15ms});
  EXPECT_EQ(queued_ids(s, "out"), (V{4}));  // now = 0: only the task released at 0
  s.notify(topics::time, TimeMessage{10ms});
  EXPECT_EQ(queued_ids(s, "out"), (V{4, 2, 1}));  // released at 0, then 5 ms, then 10 ms
  s.exit(pool[4]);                                // task 5 leaves while held
  s.notify(topics::time, TimeMessage{5ms});       // time does not go back
  EXPECT_EQ(queued_ids(s, "out"), (V{4, 2, 1}));
  s.notify(topics::time, TimeMessage{20ms});
  EXPECT_EQ(queued_ids(s, "out"), (V{4, 2, 1, 3}));
  EXPECT_EQ(drain(s, 0), (V{4, 2, 1, 3}));
  EXPECT_EQ(s.verify(), "");
}

TEST(Components, ReleaseGateForwardsEqualReleasesInTheOrderTheyCame) {
  // Six tasks released at 10 ms, all admitted before it (every key 0 behind the gate):
  // the gate's heap popped them 1 3 6 5 2 4 (std::pop_heap is not stable), and the
  // output pipe keeps that order among equal keys.
  TaskPool pool;
  Scheduler s(topology(single_stage("release-gate")), ProcessingElements::uniform(1));
  admit_released(s, pool, {10ms, 10ms, 10ms, 10ms, 10ms, 10ms});
  EXPECT_EQ(queued_ids(s, "out"), V{});
  s.notify(topics::time, TimeMessage{10ms});
  EXPECT_EQ(queued_ids(s, "out"), (V{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(drain(s, 0), (V{1, 2, 3, 4, 5, 6}));
}

namespace {
const std::string distribute =
    "topology:\n"
    "  name: d\n"
    "  pipes: {in: one, sorted: one, out: per-cluster, spare: one}\n"
    "  entry: in\n"
    "  instances:\n"
    "    order: {component: edf, input: in, output: sorted}\n"
    "    split: {component: distributor, input: sorted, outputs: \"out[*]\", unassigned: spare}\n"
    "    where: {component: affinity}\n"
    "  pes: {terminal: \"out[cluster]\", pull: [spare]}\n";
}  // namespace

TEST(Components, DistributorRoutesByClusterKeepingOrder) {
  TaskPool pool;
  Scheduler s(topology(distribute), ProcessingElements::with_clusters({0, 1}));
  s.admit(pool.make(1, 40ms, 0, 1));
  s.admit(pool.make(2, 30ms, 0, 0));
  s.admit(pool.make(3, 20ms, 0, 1));
  s.admit(pool.make(4, 10ms, 0, kAny));
  s.admit(pool.make(5, 10ms, 0, 7));  // no cluster 7: withheld
  EXPECT_EQ(queued_ids(s, "out[0]"), (V{2}));
  EXPECT_EQ(queued_ids(s, "out[1]"), (V{3, 1}));  // deadline order kept
  EXPECT_EQ(queued_ids(s, "spare"), (V{4}));
  EXPECT_EQ(counter(s, "split", "withheld"), 1u);
  // PE 1 (cluster 1) takes its cluster's work, then the spare pipe.
  EXPECT_EQ(drain(s, 1), (V{3, 1, 4}));
  EXPECT_EQ(drain(s, 0), (V{2}));
  // An AFFINITY notification moves the withheld task to cluster 0.
  s.notify(topics::affinity, AffinityMessage{&pool[4], 0, kAny});
  EXPECT_EQ(queued_ids(s, "out[0]"), (V{5}));
  AffinityMessage asked{&pool[4], kAny, kAny};
  EXPECT_TRUE(s.request(topics::affinity, asked));
  EXPECT_EQ(asked.cluster, 0);
  EXPECT_EQ(s.verify(), "");
}

TEST(Components, DistributorCountsATaskEachTimeItBecomesWithheld) {
  // Every routing to no output used to count: an AFFINITY notification that kept a task
  // withheld counted it again.
  TaskPool pool;
  Scheduler s(topology(distribute), ProcessingElements::with_clusters({0, 1}));
  Task& lost = pool.make(1, 10ms, 0, 7);  // no cluster 7: withheld
  s.admit(lost);
  EXPECT_EQ(counter(s, "split", "withheld"), 1u);
  s.notify(topics::affinity, AffinityMessage{&lost, 9, kAny});  // still withheld
  s.notify(topics::affinity, AffinityMessage{&lost, 8, kAny});
  EXPECT_EQ(counter(s, "split", "withheld"), 1u);
  s.swap_instance("order", "edf");  // upstream swap: the distributor sees a move
  EXPECT_EQ(counter(s, "split", "withheld"), 1u);
  s.notify(topics::affinity, AffinityMessage{&lost, 0, kAny});  // routed to out[0]
  EXPECT_EQ(queued_ids(s, "out[0]"), (V{1}));
  s.notify(topics::affinity, AffinityMessage{&lost, 5, kAny});  // withheld again
  EXPECT_EQ(counter(s, "split", "withheld"), 2u);
  EXPECT_TRUE(queued_ids(s, "out[0]").empty());
  EXPECT_EQ(s.verify(), "");
}

TEST(Components, DistributorMigratesQueuedTasksOnAffinityNotification) {
  TaskPool pool;
  Scheduler s(topology(distribute), ProcessingElements::with_clusters({0, 1}));
  s.admit(pool.make(1, 10ms, 0, 0));
  s.admit(pool.make(2, 30ms, 0, 1));
  s.admit(pool.make(3, 20ms, 0, 0));
  s.notify(topics::affinity, AffinityMessage{&pool[1], 0, kAny});
  EXPECT_EQ(queued_ids(s, "out[0]"), (V{1, 3, 2}));  // migrated, placed by its deadline
  EXPECT_TRUE(queued_ids(s, "out[1]").empty());
  // A task that comes back is routed by the fields its owner set meanwhile.
  Task* t = s.schedule(0);
  ASSERT_EQ(t->id, 1u);
  t->cluster = 1;
  s.relinquish(*t);
  EXPECT_EQ(queued_ids(s, "out[1]"), (V{1}));
}

/// A distributor by cluster into a and b, merged by a mux in `order`; `edf_first` puts an
/// edf stage before the distributor (so that a and b are ordered by deadline).
TopologySpec split_and_merge(const std::string& order, bool edf_first) {
  return topology(std::string("topology:\n  name: m\n  pipes: {in: one, sorted: one, a: one, b: one, out: one}\n"
                              "  entry: in\n  instances:\n") +
                  (edf_first ? "    order: {component: edf, input: in, output: sorted}\n"
                               "    split: {component: distributor, input: sorted, outputs: [a, b]}\n"
                             : "    order: {component: head-queue, input: in, output: sorted}\n"
                               "    split: {component: distributor, input: sorted, outputs: [a, b]}\n") +
                  "    merge: {component: mux, inputs: [a, b], output: out, params: {order: " + order +
                  "}}\n  pes: {terminal: out}\n");
}

TEST(Components, MuxMergesInputsInANewOrder) {
  TaskPool pool;
  Scheduler s(split_and_merge("deadline", false), ProcessingElements::uniform(1));
  s.admit(pool.make(1, 40ms, 0, 0));
  s.admit(pool.make(2, 10ms, 0, 1));
  s.admit(pool.make(3, 30ms, 0, 0));
  s.admit(pool.make(4, 20ms, 0, 1));
  EXPECT_EQ(queued_ids(s, "a"), (V{1, 3}));
  EXPECT_EQ(queued_ids(s, "b"), (V{2, 4}));
  EXPECT_EQ(queued_ids(s, "out"), (V{2, 4, 3, 1}));
  EXPECT_EQ(drain(s, 0), (V{2, 4, 3, 1}));
}

TEST(Components, MuxOrdersByArrivalOrByPriority) {
  // Tasks (deadline, priority, cluster): 1 (40 ms, 3, 0), 2 (10 ms, 1, 1), 3 (30 ms, 4, 0),
  // 4 (20 ms, 2, 1), split by cluster into a and b. By arrival at the mux: 1, 2, 3, 4,
  // whatever the inputs' orders; by priority (smaller first): 2, 4, 1, 3.
  for (const std::string order : {"arrival", "priority"}) {
    SCOPED_TRACE(order);
    TaskPool pool;
    Scheduler s(split_and_merge(order, true), ProcessingElements::uniform(1));
    s.admit(pool.make(1, 40ms, 3, 0));
    s.admit(pool.make(2, 10ms, 1, 1));
    s.admit(pool.make(3, 30ms, 4, 0));
    s.admit(pool.make(4, 20ms, 2, 1));
    EXPECT_EQ(queued_ids(s, "a"), (V{3, 1}));  // edf upstream: the inputs are by deadline
    EXPECT_EQ(queued_ids(s, "out"), order == "arrival" ? (V{1, 2, 3, 4}) : (V{2, 4, 1, 3}));
    EXPECT_EQ(s.verify(), "");
  }
}

TEST(LoadBuckets, LeastLoadedMatchesBruteForce) {
  std::mt19937 rng(7);
  const std::size_t n = 37;
  std::vector<bool> eligible(n, true);
  eligible[3] = eligible[20] = false;
  components::LoadBuckets buckets(eligible);
  std::vector<std::size_t> load(n, 0);
  for (int step = 0; step < 20000; ++step) {
    const std::size_t i = rng() % n;
    if (rng() % 2 == 0) {
      buckets.increment(i);
      ++load[i];
    } else if (load[i] > 0) {
      buckets.decrement(i);
      --load[i];
    }
    const std::size_t least = buckets.least_loaded();
    ASSERT_TRUE(eligible[least]);
    std::size_t min_load = ~std::size_t{0};
    for (std::size_t k = 0; k < n; ++k) {
      if (eligible[k]) min_load = std::min(min_load, load[k]);
    }
    ASSERT_EQ(load[least], min_load) << "step " << step;
    ASSERT_EQ(buckets.load(i), load[i]);
  }
}

namespace {
const std::string balance =
    "topology:\n"
    "  name: lb\n"
    "  pipes: {in: one, q: per-pe}\n"
    "  entry: in\n"
    "  instances:\n"
    "    lb: {component: load-balancer, inputs: in, outputs: \"q[*]\"}\n"
    "  pes: {terminal: \"q[pe]\"}\n";
}  // namespace

TEST(Components, LoadBalancerSpreadsRoundRobinAndHonoursBindings) {
  TaskPool pool;
  Scheduler s(topology(balance), ProcessingElements::uniform(4));
  for (std::uint64_t id = 1; id <= 8; ++id) s.admit(pool.make(id));
  EXPECT_EQ(queued_ids(s, "q[0]"), (V{1, 5}));
  EXPECT_EQ(queued_ids(s, "q[1]"), (V{2, 6}));
  EXPECT_EQ(queued_ids(s, "q[3]"), (V{4, 8}));
  s.admit(pool.make(9, 0ms, 0, kAny, 2));  // bound to PE 2
  EXPECT_EQ(queued_ids(s, "q[2]"), (V{3, 7, 9}));
  // PE 1 empties its pipe: the next unbound tasks go there first.
  EXPECT_EQ(drain(s, 1), (V{2, 6}));
  s.admit(pool.make(10));
  s.admit(pool.make(11));
  EXPECT_EQ(queued_ids(s, "q[1]"), (V{10, 11}));
  EXPECT_EQ(s.verify(), "");
}

TEST(Components, LoadBalancerPrefersTheLastProcessingElementAndSkipsOfflineOnes) {
  TaskPool pool;
  Scheduler s(topology(balance), ProcessingElements::uniform(3));
  Task& t = pool.make(1);
  s.admit(t);
  ASSERT_EQ(s.schedule(0), &t);
  ASSERT_FALSE(s.schedule(2));
  ASSERT_TRUE(s.dispatch(t, 2) == false);  // already running: not schedulable
  s.relinquish(t);                         // all loads 0: back to PE 0, where it ran
  EXPECT_EQ(queued_ids(s, "q[0]"), (V{1}));
  s.remove_pe(1);
  for (std::uint64_t id = 2; id <= 5; ++id) s.admit(pool.make(id));
  EXPECT_TRUE(queued_ids(s, "q[1]").empty());  // PE 1 is offline
  EXPECT_EQ(queued_ids(s, "q[0]").size() + queued_ids(s, "q[2]").size(), 5u);
}

namespace {
/// One advanced-balancer from `in` to a pipe per cluster, each the terminal of its PEs.
TopologySpec advanced_balancer_topology() {
  return topology(
      "topology:\n"
      "  name: ab\n"
      "  pipes: {in: one, ready: per-cluster}\n"
      "  entry: in\n"
      "  instances:\n"
      "    place: {component: advanced-balancer, inputs: in, outputs: \"ready[*]\"}\n"
      "  pes: {terminal: \"ready[cluster]\"}\n");
}
}  // namespace

TEST(Components, AdvancedBalancerBalancesLoadPerProcessingElement) {
  TaskPool pool;
  // Cluster 0 has three PEs, cluster 1 one: unbound tasks split 3 : 1.
  Scheduler s(advanced_balancer_topology(), ProcessingElements::with_clusters({0, 0, 0, 1}));
  // Choice by least (load / PEs), ties to the lower cluster: c0 c1 c0 c0 c0 c1 c0 c0.
  for (std::uint64_t id = 1; id <= 8; ++id) s.admit(pool.make(id));
  EXPECT_EQ(queued_ids(s, "ready[0]"), (V{1, 3, 4, 5, 7, 8}));
  EXPECT_EQ(queued_ids(s, "ready[1]"), (V{2, 6}));
  s.admit(pool.make(9, 0ms, 0, 1));         // bound to cluster 1
  s.admit(pool.make(10, 0ms, 0, kAny, 3));  // bound to PE 3, in cluster 1
  EXPECT_EQ(queued_ids(s, "ready[1]"), (V{2, 6, 9, 10}));
  // The PEs of a cluster share its pipe.
  EXPECT_EQ(s.schedule(2)->id, 1u);
  EXPECT_EQ(s.schedule(0)->id, 3u);
  EXPECT_EQ(s.schedule(3)->id, 2u);
}

TEST(Components, AdvancedBalancerLeavesATaskBoundToAClusterWithoutAnOutputWhereItIs) {
  // Placing treats a binding to a cluster that has no output as unbound; an AFFINITY
  // notification with such a binding moved the task to the least loaded cluster
  // (behind its equal keys there), as if bound there.
  TaskPool pool;
  Scheduler s(advanced_balancer_topology(), ProcessingElements::with_clusters({0, 1}));
  Task& t = pool.make(1);
  s.admit(t);
  ASSERT_EQ(queued_ids(s, "ready[0]"), (V{1}));
  s.notify(topics::affinity, AffinityMessage{&t, 5, kAny});  // cluster 5: no output here
  EXPECT_EQ(queued_ids(s, "ready[0]"), (V{1}));
  EXPECT_EQ(queued_ids(s, "ready[1]"), V{});
  s.notify(topics::affinity, AffinityMessage{&t, 1, kAny});  // bound to cluster 1: moves
  EXPECT_EQ(queued_ids(s, "ready[1]"), (V{1}));
  EXPECT_EQ(s.verify(), "");
}

TEST(Components, AnnotatorsAnswerRequests) {
  TaskPool pool;
  Scheduler s(topology("topology:\n"
                       "  name: a\n"
                       "  pipes: {in: one, out: one}\n"
                       "  entry: in\n"
                       "  instances:\n"
                       "    fifo: {component: head-queue, input: in, output: out}\n"
                       "    where: {component: affinity}\n"
                       "    clock: {component: lamport}\n"
                       "    loads: {component: status}\n"
                       "  pes: {terminal: out}\n"),
              ProcessingElements::uniform(1));
  Task& a = pool.make(1, 0ms, 0, 3, 0);
  Task& b = pool.make(2);
  s.admit(a);
  s.admit(b);
  AffinityMessage where{&a, kAny, kAny};
  ASSERT_TRUE(s.request(topics::affinity, where));
  EXPECT_EQ(where.cluster, 3);
  EXPECT_EQ(where.pe, 0);
  s.notify(topics::affinity, AffinityMessage{&a, 2, kAny});
  ASSERT_TRUE(s.request(topics::affinity, where));
  EXPECT_EQ(where.cluster, 2);
  EXPECT_EQ(where.pe, kAny);
  LamportMessage stamp{&b, 0};
  ASSERT_TRUE(s.request(topics::lamport, stamp));
  EXPECT_EQ(stamp.stamp, 2u);
  StatusMessage status;
  ASSERT_TRUE(s.request(topics::status, status));
  ASSERT_EQ(status.loads.size(), 2u);
  EXPECT_EQ(status.loads[0].pipe, "in");
  EXPECT_EQ(status.loads[0].tasks, 2u);
  EXPECT_EQ(status.loads[1].tasks, 2u);
  StatusMessage one{"out", {}};
  ASSERT_TRUE(s.request(topics::status, one));
  ASSERT_EQ(one.loads.size(), 1u);
  StatusMessage none{"nope", {}};
  EXPECT_FALSE(s.request(topics::status, none));
}

TEST(Components, MarkerReportsToTheInstrumentation) {
  std::vector<std::string> marks;
  SchedulerOptions options;
  options.instrumentation.on_marker = [&](const Instance& i, std::string_view label) {
    marks.push_back(i.name() + ":" + std::string(label));
  };
  Scheduler s(topology(single_stage("head-queue", "", "    mark: {component: marker}\n")),
              ProcessingElements::uniform(1), options);
  s.notify(topics::marker, MarkerMessage{"start"});
  s.notify(topics::marker, MarkerMessage{"stop"});
  EXPECT_EQ(marks, (std::vector<std::string>{"mark:start", "mark:stop"}));
  EXPECT_EQ(counter(s, "mark", "marks"), 2u);
}

TEST(Components, TerminationEndsEveryPipeProcessingElementsTakeFrom) {
  Scheduler s(topology(distribute), ProcessingElements::with_clusters({0, 1}));
  std::vector<std::string> names;
  for (const InstanceStats& st : s.instance_stats()) {
    if (st.component == "termination") names.push_back(st.name);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"termination:out[0]", "termination:out[1]", "termination:spare"}));
}

TEST(Components, UpdatesAreCountedAndTimedWithTheRuntimeSystemsClock) {
  // A fake clock that advances 7 ns per reading: every update lasts a multiple of 7.
  std::int64_t ticks = 0;
  std::vector<std::pair<std::string, std::int64_t>> seen;
  SchedulerOptions options;
  options.instrumentation.clock = [&] { return Time{ticks += 7}; };
  options.instrumentation.on_update = [&](const Instance& i, Time, Time d) {
    seen.emplace_back(i.name(), d.count());
  };
  TaskPool pool;
  Scheduler s(topology(single_stage("edf")), ProcessingElements::uniform(1), options);
  s.admit(pool.make(1));
  s.admit(pool.make(2));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (std::pair<std::string, std::int64_t>{"stage", 7}));
  drain(s, 0);  // two removals
  const std::vector<InstanceStats> stats = s.instance_stats();
  auto stage =
      std::find_if(stats.begin(), stats.end(), [](const InstanceStats& st) { return st.name == "stage"; });
  ASSERT_NE(stage, stats.end()) << "no statistics for the instance 'stage'";
  EXPECT_EQ(stage->updates, 4u);
  EXPECT_EQ(stage->total.count(), 28);
  EXPECT_EQ(stage->max.count(), 7);
}
