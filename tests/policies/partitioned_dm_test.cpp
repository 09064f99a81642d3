// partitioned-dm's strand → thread assignment: the threads plan() counts are the threads prepare() creates (strands without a core under --force, a custom topology), and a topology that withholds strands is refused without leaving freed strands in the scheduler.
//
// Run twice by CTest, like takt_policies_tests: as the process finds the machine and with
// TAKT_NO_RT=1. The assignment tests call plan() and prepare() only (no thread starts, so
// the task set may have more cores than the machine); the run test runs on 2 cores.
#include "../support/quarantining_delete.hpp"  // operator delete, kept while a Quarantine lives
#include "os/cpu.hpp"
#include "platform/recorder.hpp"
#include "platform/release_engine.hpp"
#include "run_support.hpp"
#include "sched/topology_spec.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace takt::testing {
namespace {

analysis::AnalysisResult analyse_partitioned_dm(const model::TaskSet& set) {
  register_test_programs();
  analysis::AnalysisOptions options;
  options.policy = model::Policy::partitioned_dm;
  return analysis::analyse(set, options);
}

struct Assignment {
  std::size_t planned = 0;  ///< plan().threads
  std::size_t created = 0;  ///< the team threads prepare() set up (details' `teams[].threads`)
  nlohmann::json details;
};

/// plan() and prepare() of partitioned-dm on `set`, its logical cores mapped onto CPUs
/// 0..m−1; the recorder gets exactly the slots the run loop would give it (plan.threads
/// + 1). Nothing runs, so the CPUs need not exist.
Assignment plan_and_prepare(const model::TaskSet& set, bool fifo = false) {
  const analysis::AnalysisResult verdict = analyse_partitioned_dm(set);
  os::CpuSet cpus;
  for (int k = 0; k < verdict.cores.count; ++k) cpus.add(k);
  const platform::CoreMap cores = platform::CoreMap::map(verdict.cores, cpus, os::CpuSet{});
  std::vector<std::unique_ptr<Task>> objects;
  std::vector<Task*> pointers;
  std::vector<platform::PeriodicTask> timing;
  for (std::size_t i = 0; i < set.tasks.size(); ++i) {
    const model::Task& t = set.tasks[i];
    objects.push_back(programs().find(t.program).create());
    TaskArgs args;
    args.task = t.name;
    args.args = platform::program_arguments(t, set.source);
    args.cores = platform::granted_cores(verdict, i);
    objects.back()->init(args);
    pointers.push_back(objects.back().get());
    timing.push_back(platform::PeriodicTask{t.name, t.period, t.deadline, t.offset, args.cores, t.work()});
  }
  platform::ReleaseConfig config;
  config.duration = 1s;
  platform::ReleaseEngine engine(timing, config);
  platform::RealtimeSettings realtime;
  realtime.fifo = fifo;  // what prepare() is told; nothing runs, so nothing is raised
  auto policy = policies::make_policy(model::Policy::partitioned_dm);
  const sched::TopologySpec topology =
      set.topology ? sched::parse_topology(*set.topology, set.source) : policy->default_topology();
  platform::RunContext ctx{set, verdict, cores, engine.tasks(), pointers, engine, realtime, topology};
  const platform::RecordingPlan plan = policy->plan(ctx);
  platform::Recorder recorder({plan.threads + 1, 1024});
  ctx.recorder = &recorder;
  policy->prepare(ctx);
  Assignment out;
  out.planned = plan.threads;
  out.details = policy->details();
  for (const auto& team : out.details["teams"]) out.created += team["threads"].size();
  EXPECT_TRUE(policy->shutdown());
  policy.reset();
  for (auto& o : objects) o->finalize();
  return out;
}

/// On 4 cores, task a's 4 strands take every core; none of task b's 4 strands fits on
/// any (the analysis rejects the set; `takt run --force` runs it anyway).
constexpr const char* kStrandsWithoutACore = R"(
global: {cores: 4, policy: partitioned-dm}
tasks:
  - {name: a, period: 50ms, deadline: 5ms, program: segments, segments: [{length: 4ms, strands: 4}]}
  - {name: b, period: 50ms, deadline: 6ms, program: segments, segments: [{length: 3ms, strands: 4}]}
)";

TEST(PartitionedDm, PlanCountsTheThreadsOfStrandsWithoutACore) {
  // plan() put every strand without a core on core 0 (b: 1 thread), prepare() on core
  // (its number − 1) mod m (b: 4 threads): the recorder had 6 slots for 8 threads.
  const model::TaskSet set = model::parse_task_set(kStrandsWithoutACore);
  const analysis::AnalysisResult verdict = analyse_partitioned_dm(set);
  ASSERT_FALSE(verdict.schedulable);
  const auto* table = verdict.partitioned_dm();
  ASSERT_NE(table, nullptr);
  for (const auto& s : table->strands) {
    if (s.task == 1) {
      EXPECT_LT(s.core, 0) << "strand " << s.strand << " of b has a core";
    }
  }
  const Assignment a = plan_and_prepare(set);
  EXPECT_EQ(a.created, 8u);
  EXPECT_EQ(a.planned, a.created);
  ASSERT_EQ(a.details["teams"].size(), 2u);
  EXPECT_EQ(a.details["teams"][1]["threads"].size(), 4u) << a.details["teams"][1].dump();
}

TEST(PartitionedDm, PlanCountsTheThreadsOfTheCoresATopologyDeliversTo) {
  // First-fit puts all 4 strands on core 0; this topology hands every strand to the
  // next core that asks (they carry no cluster, so all go to `global`, which every core
  // pulls from), so the 4 strands get 4 threads. plan() counted the table's cores (1).
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 4, policy: partitioned-dm, fit: first-fit}
tasks:
  - {name: a, period: 50ms, program: segments, segments: [{length: 1ms, strands: 4}]}
topology:
  pipes: {admitted: one, local: per-pe, global: one}
  entry: admitted
  instances:
    place: {component: distributor, input: admitted, outputs: "local[*]", unassigned: global, params: {by: cluster}}
  pes: {terminal: "local[pe]", pull: [global]}
)");
  const analysis::AnalysisResult verdict = analyse_partitioned_dm(set);
  ASSERT_TRUE(verdict.schedulable);
  for (const auto& s : verdict.partitioned_dm()->strands) EXPECT_EQ(s.core, 0);
  const Assignment a = plan_and_prepare(set);
  EXPECT_EQ(a.created, 4u) << a.details.dump();
  EXPECT_EQ(a.planned, a.created);
}

TEST(PartitionedDm, StrandsWithoutACoreRunWithEveryEventRecorded) {
  // 2 cores: a's 2 strands take both, none of b's or c's fits. plan() counted 4 threads
  // (a: 2, b and c: 1 each on core 0), prepare() created 6: the recorder's 5 slots left
  // one thread without a recorder, whose strands and finishes were lost.
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 2, policy: partitioned-dm}
tasks:
  - {name: a, period: 50ms, deadline: 5ms, program: segments, segments: [{length: 4ms, strands: 2}]}
  - {name: b, period: 50ms, deadline: 6ms, program: segments, segments: [{length: 3ms, strands: 2}]}
  - {name: c, period: 50ms, deadline: 6ms, program: segments, segments: [{length: 3ms, strands: 2}]}
)");
  const nanoseconds duration = 600ms;
  const Outcome o = run_set(set, model::Policy::partitioned_dm, duration);
  ASSERT_FALSE(o.verdict.schedulable);
  const platform::RunMetrics& m = o.metrics;
  EXPECT_EQ(m.system.events_unattached, 0u);
  EXPECT_EQ(m.system.events_dropped, 0u);
  std::size_t threads = 0;
  for (const auto& team : o.details["teams"]) threads += team["threads"].size();
  EXPECT_EQ(threads, 6u) << o.details["teams"].dump();
  ASSERT_EQ(m.tasks.size(), set.tasks.size());
  for (std::size_t i = 0; i < set.tasks.size(); ++i) {
    SCOPED_TRACE("task " + set.tasks[i].name);
    EXPECT_EQ(m.tasks[i].jobs, planned(set.tasks[i], duration));
    EXPECT_EQ(m.tasks[i].jobs, m.tasks[i].released + m.tasks[i].skipped);
    EXPECT_EQ(m.tasks[i].met + m.tasks[i].misses, m.tasks[i].jobs);
  }
  // Every job that ran finished, and every strand of it was recorded.
  std::uint64_t strands = 0;
  for (const platform::JobResult& j : m.jobs) {
    if (j.status == platform::JobStatus::skipped) continue;
    EXPECT_TRUE(j.finish.has_value()) << "job " << j.index << " of task " << j.task << " unfinished";
    for (const auto& s : set.tasks[j.task].segments) strands += static_cast<std::uint64_t>(s.strands);
  }
  EXPECT_EQ(m.system.strands, strands);
}

TEST(PartitionedDm, ATopologyThatWithholdsStrandsIsRefusedAndThePolicyIsDestroyedSafely) {
  // The distributor sorts by cluster and has no `unassigned:` output; strands carry no
  // cluster, so it withholds them all. prepare() threw with the strands still in the
  // scheduler and freed them; destroying the policy then wrote into the freed strands
  // (heap-use-after-free under AddressSanitizer). The quarantine keeps every block
  // deleted from before the run until the policy is gone, filled with a pattern, which
  // shows such a use in any build: with the strands declared after the scheduler (so
  // freed before it), this test ends in SIGSEGV, the scheduler following a strand's
  // pointer that is now the pattern.
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 2, policy: partitioned-dm}
tasks:
  - {name: a, period: 10ms, program: segments, segments: [{length: 1ms, strands: 2}]}
topology:
  pipes: {admitted: one, local: per-pe}
  entry: admitted
  instances:
    place: {component: distributor, input: admitted, outputs: "local[*]", params: {by: cluster}}
  pes: {terminal: "local[pe]"}
)");
  const analysis::AnalysisResult verdict = analyse_partitioned_dm(set);
  ASSERT_TRUE(verdict.schedulable);
  auto policy = policies::make_policy(model::Policy::partitioned_dm);
  platform::RunOptions run = quiet_run(100ms);
  const Quarantine quarantine;
  try {
    platform::run_task_set(set, verdict, *policy, run);
    ADD_FAILURE() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("the topology gave 0 of the 2 strands to a core"), std::string::npos)
        << e.what();
  }
  (void)policy->details();
  policy.reset();  // destroys the scheduler, which still holds the withheld strands
  EXPECT_GT(quarantine.deleted(), 0u) << "the policy's memory went through operator delete";
  EXPECT_EQ(quarantine.overflowed(), 0u);
  EXPECT_EQ(quarantine.written_after_delete(), 0u) << "of " << quarantine.deleted() << " deleted blocks";
}

TEST(PartitionedDm, EachCoreGivesTheRanksOfItsStrandsDistinctLevels) {
  // 90 one-strand tasks, deadlines 100 ms + i us (R = 90 ranks, one per segment), spread
  // by worst-fit over 2 cores (45 each). Numbered across all cores, R = 90 > 79 levels
  // made ranks share levels (79 - floor((r - 1) * 78 / 89): ranks 1 and 2 both 79), on
  // the same core too, where the analysis assumes a strand is never delayed by a lower
  // rank. Each core now numbers its own ranks: 45 distinct levels, in rank order.
  std::string text = "global: {cores: 2, policy: partitioned-dm, fit: worst-fit}\ntasks:\n";
  for (int i = 0; i < 90; ++i) {
    text += "  - {name: t" + std::to_string(i) + ", period: 1s, deadline: " + std::to_string(100000 + i) +
            "us, program: segments, segments: [{length: 10us}]}\n";
  }
  const model::TaskSet set = model::parse_task_set(text);
  const Assignment a = plan_and_prepare(set);
  std::map<int, std::vector<std::pair<int, int>>> by_cpu;  // cpu -> (rank, level)
  for (const auto& team : a.details["teams"]) {
    for (const auto& thread : team["threads"]) {
      for (std::size_t j = 0; j < thread["sched_fifo"].size(); ++j) {
        if (thread["sched_fifo"][j].is_null()) continue;
        by_cpu[thread["cpu"].get<int>()].emplace_back(team["segments"][j]["rank"].get<int>(),
                                                      thread["sched_fifo"][j].get<int>());
      }
    }
  }
  ASSERT_EQ(by_cpu.size(), 2u);
  EXPECT_EQ(a.details["priority_ranks"], 90);
  EXPECT_EQ(a.details["max_ranks_per_core"], 45);
  for (auto& [cpu, pairs] : by_cpu) {
    SCOPED_TRACE("cpu " + std::to_string(cpu));
    ASSERT_EQ(pairs.size(), 45u);
    std::sort(pairs.begin(), pairs.end());
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      // The core's k-th highest rank runs at 79 - k: distinct, higher rank higher level.
      EXPECT_EQ(pairs[k].second, 79 - static_cast<int>(k)) << "rank " << pairs[k].first;
    }
  }
}

TEST(PartitionedDm, ACoreWithMoreRanksThanLevelsIsWarnedAboutUnderSchedFifo) {
  // 160 one-strand tasks by worst-fit on 2 cores: 80 ranks on each, one more than the
  // 79 levels. Under SCHED_FIFO two of a core's ranks share a level, which the analysis
  // does not count: the run warns. Without SCHED_FIFO there are no levels to share.
  std::string text = "global: {cores: 2, policy: partitioned-dm, fit: worst-fit}\ntasks:\n";
  for (int i = 0; i < 160; ++i) {
    text += "  - {name: t" + std::to_string(i) + ", period: 1s, deadline: " + std::to_string(100000 + i) +
            "us, program: segments, segments: [{length: 10us}]}\n";
  }
  const model::TaskSet set = model::parse_task_set(text);
  ::testing::internal::CaptureStderr();
  const Assignment fifo = plan_and_prepare(set, true);
  const std::string warned = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(fifo.details["max_ranks_per_core"], 80);
  EXPECT_NE(warned.find("partitioned-dm: a core runs strands of 80 priority ranks, more than the 79 SCHED_FIFO "
                        "levels"),
            std::string::npos)
      << warned;
  ::testing::internal::CaptureStderr();
  (void)plan_and_prepare(set, false);
  EXPECT_EQ(::testing::internal::GetCapturedStderr().find("priority ranks"), std::string::npos);
}

}  // namespace
}  // namespace takt::testing
