// Tests of the built-in topologies of the four policies (src/policies/topologies/*.yaml).
#include "policies/builtin_topologies.hpp"
#include "../support/quarantining_delete.hpp"  // operator delete, kept while a Quarantine lives
#include "sched/scheduler.hpp"
#include "sched_test_util.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace takt::sched;
using namespace takt::sched::test;
using takt::policies::builtin_topology;
using takt::testing::Quarantine;
using V = std::vector<std::uint64_t>;

TEST(BuiltinTopologies, AllFourPoliciesAreEmbeddedVerbatim) {
  std::vector<std::string> names;
  for (const auto& t : takt::policies::builtin_topologies()) {
    names.emplace_back(t.policy);
    // The embedded text is the file in the source tree, byte for byte.
    std::ifstream file(std::string(TAKT_SOURCE_DIR) + "/src/policies/topologies/" + std::string(t.policy) +
                       ".yaml");
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_EQ(text.str(), std::string(t.yaml)) << t.policy;
    EXPECT_NO_THROW(builtin_topology(t.policy)) << t.policy;
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"federated", "federated-greedy", "gedf-paws", "partitioned-dm"}));
  try {
    builtin_topology("round-robin");
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("known: federated, federated-greedy, gedf-paws, partitioned-dm"),
              std::string::npos);
  }
}

TEST(BuiltinTopologies, BuildForManyMachineShapes) {
  for (const auto& t : takt::policies::builtin_topologies()) {
    for (int n : {1, 2, 3, 16, 256}) {
      std::vector<int> clusters;
      for (int pe = 0; pe < n; ++pe) clusters.push_back(pe / 2);
      // Each machine shape builds and routes: a job bound to the last PE (and its
      // cluster) reaches that PE, and under the partitioned and federated policies no
      // other (gedf-paws is global: any PE may take it).
      // The pool first: the scheduler's destructor detaches the task still admitted, so
      // the task must outlive it. Declared the other way round, the pool freed the task
      // first and the destructor wrote into it (heap-use-after-free under ASan); the
      // quarantine shows that here too (SIGSEGV: the freed task's links are its pattern).
      const Quarantine quarantine;
      {
        TaskPool pool;
        Scheduler s(builtin_topology(t.policy), ProcessingElements::with_clusters(clusters));
        s.admit(pool.make(1, 10ms, 0, (n - 1) / 2, n - 1));
        if (n > 2 && std::string(t.policy) != "gedf-paws") {
          EXPECT_EQ(s.schedule(0), nullptr) << t.policy << " on " << n << " PEs";
        }
        Task* got = s.schedule(static_cast<std::size_t>(n - 1));
        ASSERT_NE(got, nullptr) << t.policy << " on " << n << " PEs";
        EXPECT_EQ(got->id, 1u);
        EXPECT_EQ(s.verify(), "") << t.policy << " on " << n << " PEs";
      }
      EXPECT_EQ(quarantine.overflowed(), 0u);
      EXPECT_EQ(quarantine.written_after_delete(), 0u) << t.policy << " on " << n << " PEs";
    }
  }
}

TEST(BuiltinTopologies, FederatedSendsJobsToTheirClusterInDeadlineOrder) {
  // Heavy task A owns PEs 0-1 (cluster 0), heavy task B owns PE 2 (cluster 1), the
  // light tasks share PE 3 (cluster 2).
  for (const char* policy : {"federated", "federated-greedy"}) {
    TaskPool pool;
    Scheduler s(builtin_topology(policy), ProcessingElements::with_clusters({0, 0, 1, 2}));
    s.admit(pool.make(1, 50ms, 0, 0));
    s.admit(pool.make(2, 20ms, 0, 2));
    s.admit(pool.make(3, 40ms, 0, 1));
    s.admit(pool.make(4, 10ms, 0, 2));
    s.admit(pool.make(5, 30ms, 0, 0));
    EXPECT_EQ(queued_ids(s, "ready[0]"), (V{5, 1})) << policy;
    EXPECT_EQ(queued_ids(s, "ready[1]"), (V{3})) << policy;
    EXPECT_EQ(queued_ids(s, "ready[2]"), (V{4, 2})) << policy;
    // Both cores of cluster 0 take from its pipe; no core takes another cluster's job.
    EXPECT_EQ(s.schedule(1)->id, 5u);
    EXPECT_EQ(s.schedule(0)->id, 1u);
    EXPECT_EQ(s.schedule(0), nullptr);
    EXPECT_EQ(drain(s, 3), (V{4, 2}));
    EXPECT_EQ(drain(s, 2), (V{3}));
  }
}

TEST(BuiltinTopologies, PartitionedDmServesEachCoresStrandsByPriority) {
  // The RT-OpenMP worked example (Fig. 2): first-fit puts every strand on core 1
  // (index 0 here) with priorities 2, 3, 1 for task 1's three segments and 4 for
  // task 2 (1 is the highest). Two strands of segment 2 released together.
  TaskPool pool;
  Scheduler s(builtin_topology("partitioned-dm"), ProcessingElements::uniform(3));
  s.admit(pool.make(11, 0ms, 2, kAny, 0));  // task 1, segment 1
  s.admit(pool.make(21, 0ms, 4, kAny, 0));  // task 2
  s.admit(pool.make(12, 0ms, 3, kAny, 0));  // task 1, segment 2
  s.admit(pool.make(13, 0ms, 1, kAny, 0));  // task 1, segment 3
  s.admit(pool.make(14, 0ms, 3, kAny, 0));  // task 1, segment 2, second strand
  EXPECT_EQ(queued_ids(s, "ready[0]"), (V{13, 11, 12, 14, 21}));
  EXPECT_EQ(s.schedule(1), nullptr);  // no stealing in a partitioned policy
  EXPECT_EQ(drain(s, 0), (V{13, 11, 12, 14, 21}));
}

TEST(BuiltinTopologies, GedfPawsFollowsRulesAToF) {
  TaskPool pool;
  Scheduler s(builtin_topology("gedf-paws"), ProcessingElements::uniform(3));
  // Rule A: released jobs wait in one global EDF queue.
  s.admit(pool.make(1, 30ms));
  s.admit(pool.make(2, 10ms));
  EXPECT_EQ(queued_ids(s, "global"), (V{2, 1}));
  // Rule D: an idle core takes the earliest deadline from the global queue.
  Task* a = s.schedule(0);
  ASSERT_EQ(a->id, 2u);
  // Rule C: a preempted job bound to its core stays local, and that core looks there first.
  a->pe = 0;
  s.relinquish(*a);
  s.admit(pool.make(3, 5ms));
  EXPECT_EQ(queued_ids(s, "local[0]"), (V{2}));
  EXPECT_EQ(s.schedule(0)->id, 2u);  // local before global, though 3 is earlier
  // Rule F: relinquished unbound (a stolen strand), it goes back to the global queue.
  // (Task 2 runs on core 0, bound there until now; this checked an unbound task that
  // had never been bound, which went to the global queue whatever rule F did.)
  Task& two = pool[1];
  two.pe = kAny;
  s.relinquish(two);
  EXPECT_EQ(queued_ids(s, "local[0]"), (V{}));
  EXPECT_EQ(queued_ids(s, "global"), (V{3, 2, 1}));
  EXPECT_EQ(s.schedule(1)->id, 3u);
  EXPECT_EQ(s.schedule(2)->id, 2u);
  // Rule E: with the global queue empty, an idle core steals from a busy core's local pipe.
  EXPECT_EQ(s.schedule(0)->id, 1u);  // the global queue's last
  s.admit(pool.make(4, 50ms, 0, kAny, 0));
  EXPECT_EQ(s.schedule(2)->id, 4u);
  EXPECT_EQ(pool[3].last_pe(), 2);
}
