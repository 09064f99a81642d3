// Integration tests: each policy runs small task sets for about a second on real threads; the measurements must be consistent.
//
// Run twice by CTest: as the process finds the machine (SCHED_FIFO where allowed) and
// with TAKT_NO_RT=1 (the fallback). Timing is never asserted beyond what holds on a
// loaded machine; structure is: every job accounted for, work / cores as a floor on
// responses, the injected overruns and failures counted where they were injected.
#include "../support/thread_count.hpp"
#include "analysis/generator.hpp"
#include "platform/signal_stop.hpp"
#include "run_support.hpp"

#include <gtest/gtest.h>

#include <iostream>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <thread>

namespace takt::testing {
namespace {

const nanoseconds kRun = kSanitized ? nanoseconds(1500ms) : nanoseconds(1200ms);

/// A short job finished after the long job it should have preempted. With SCHED_FIFO
/// that fails the test in any run: the short job's thread (or worker) outranks the long
/// one's once the policy preempts, so a stall delays both alike. Without it (and under
/// ThreadSanitizer), the kernel time-shares the CPUs, and a stall right after the short
/// job's release can let the long job end first: added to `failed`, the run's report
/// (expect_held_in_some_run).
void finished_after(std::string& failed, const platform::JobResult& j, nanoseconds long_finish) {
  const std::string what = "short job " + std::to_string(j.index) + " released at " +
                           std::to_string(j.release.count()) + " ns finished " +
                           std::to_string(static_cast<double>((*j.finish - long_finish).count()) / 1e6) +
                           " ms after the long job it should preempt; ";
  if (os::privileges().fifo && !kSanitized) {
    ADD_FAILURE() << what;
  } else {
    failed += what;
  }
}

std::string policy_name(const ::testing::TestParamInfo<model::Policy>& info) {
  std::string name(model::to_string(info.param));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

/// A small set from the rt-openmp generator (synchronous tasks of busy-wait strands),
/// on 2 cores at 30 % utilization, periods 4 ms to 128 ms.
model::TaskSet generated_set(std::uint64_t seed) {
  analysis::GeneratorOptions g;
  g.method = analysis::GeneratorMethod::rt_openmp;
  g.cores = 2;
  g.utilization = 0.6;
  g.seed = seed;
  g.timescale = 4ms;
  model::TaskSet set = analysis::generate(g).set;
  set.source = "<generated>";
  return set;
}

class EveryPolicy : public ::testing::TestWithParam<model::Policy> {};
INSTANTIATE_TEST_SUITE_P(Platform, EveryPolicy,
                         ::testing::Values(model::Policy::federated, model::Policy::federated_greedy,
                                           model::Policy::partitioned_dm, model::Policy::gedf_paws),
                         policy_name);

TEST_P(EveryPolicy, GeneratedSetIsAccountedForJobByJob) {
  const model::TaskSet set = generated_set(7);
  ASSERT_GE(set.tasks.size(), 2u);
  const Outcome o = run_set(set, GetParam(), kRun);
  expect_consistent(set, o, kRun);
  // Every strand of every finished job ran: partitioned-dm records each strand once,
  // gedf-paws at least one slice per strand (a leaf of the split). (federated and
  // federated-greedy grant this set's tasks shared cores on this machine: light,
  // sequential jobs, which record no strands.)
  std::uint64_t strands = 0;
  for (const auto& j : o.metrics.jobs) {
    if (j.status == platform::JobStatus::skipped || !j.finish) continue;
    for (const auto& s : set.tasks[j.task].segments) strands += static_cast<std::uint64_t>(s.strands);
  }
  if (GetParam() == model::Policy::partitioned_dm) {
    EXPECT_EQ(o.metrics.system.strands, strands);
  } else if (GetParam() == model::Policy::gedf_paws) {
    EXPECT_GE(o.metrics.system.strands, strands);
  }
  // Time executed per core adds up to at least the work of the finished jobs (90 %).
  nanoseconds executed{0}, work{0};
  for (const auto& c : o.metrics.system.cores) executed += c.job_time;
  for (const auto& j : o.metrics.jobs) {
    if (j.finish && j.status != platform::JobStatus::skipped) work += set.tasks[j.task].work();
  }
  EXPECT_GE(executed, work * 9 / 10);
}

/// A sequential task of 3 ms every 10 ms whose every fourth job (k % 4 == 3) runs 14 ms
/// instead: that job misses its deadline (finish ≥ 10k + 14 ms > 10k + 10 ms), and the
/// release after it (k % 4 == 0) finds it still running and is skipped. The other jobs
/// have 7 ms of slack, which a stall of this VM (up to ~10 ms, see docs/latency.md) can
/// use up; so the skip rule (overrun: skip) is checked on every job, from the recorded
/// times, and the injected pattern on most of them. A job that ran over a running one
/// fails the test in any run; a skip although the job before had finished 5 ms before
/// the release, and fewer than half of the releases after an injected overrun skipped,
/// can come from a stall, so a run with either is made again (expect_held_in_some_run).
TEST_P(EveryPolicy, InjectedOverrunsAreTheMisses) {
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 2}
tasks:
  - {name: overrun, period: 10ms, program: test-overrun, args: [3ms, 14ms, 4, 3], work: 3ms, span: 3ms}
  - {name: other, period: 20ms, offset: 5ms, program: segments, segments: [{length: 1ms}]}
)");
  expect_held_in_some_run(3, [&] {
    const Outcome o = run_set(set, GetParam(), kRun);
    expect_consistent(set, o, kRun);
    std::string failed;
    const platform::TaskMetrics& t = o.metrics.tasks[0];
    // The job and the last one that ran before it, in ms since the first release.
    auto times = [&](const platform::JobResult& j) {
      auto ms = [&](std::optional<nanoseconds> x) {
        return x ? std::to_string(static_cast<double>((*x - o.metrics.jobs[0].release).count()) / 1e6)
                 : std::string("-");
      };
      return "job " + std::to_string(j.index) + " release " + ms(j.release) + " start " + ms(j.start) +
             " finish " + ms(j.finish);
    };
    std::uint64_t injected = 0, skipped = 0, after_injected = 0, after_injected_skipped = 0;
    const platform::JobResult* last_ran = nullptr;
    for (const auto& j : o.metrics.jobs) {
      if (j.task != 0) continue;
      const std::string context = (last_ran ? times(*last_ran) + "; " : std::string()) + times(j);
      const bool at_end = j.index + 1 >= t.jobs;  // may be skipped because the run stopped
      if (j.index % 4 == 0 && j.index > 0) ++after_injected;
      if (j.status == platform::JobStatus::skipped) {
        ++skipped;
        if (j.index % 4 == 0 && j.index > 0) ++after_injected_skipped;
        // Skipped only when the job before it was still running at its release. Its
        // finish is stamped just before the release engine learns of it; a thread
        // preempted in between (no SCHED_FIFO, ThreadSanitizer, two builds beside the
        // test) made a job that finished 1.2 ms before the release count as running.
        // 5 ms of the 10 ms period still tell a wrong skip from that in most runs.
        if (!at_end) {
          EXPECT_NE(last_ran, nullptr) << "skipped before any job ran: " << context;
          if (last_ran != nullptr && *last_ran->finish + 5ms <= j.release) {
            failed += "skipped although the previous job had finished: " + context + "; ";
          }
        }
        continue;
      }
      // Ran: so the previous job had finished by its release.
      if (last_ran != nullptr) {
        EXPECT_LE(*last_ran->finish, j.release) << "ran over a running job: " << context;
      }
      if (j.index % 4 == 3) {
        ++injected;
        EXPECT_EQ(j.status, platform::JobStatus::missed) << context;
      }
      last_ran = &j;
    }
    if (injected <= 10u) {
      for (const auto& j : o.metrics.jobs) {
        if (j.task == 0 && j.index < 16)
          std::cerr << times(j) << " status " << static_cast<int>(j.status) << "\n";
      }
    }
    EXPECT_GT(injected, 10u);
    // The release after an injected overrun is skipped unless a stall shifted the pattern
    // (then the overrunning job itself was skipped): at least half of them. (80 % held on
    // a quiet machine, but under ThreadSanitizer without SCHED_FIFO, beside two builds,
    // 71 % and 65 % were seen; a skip rule that never skipped gives 0 %, and the rule
    // itself is checked job by job above, in every run where it ran a job over a
    // running one, in some run where it skipped wrongly.)
    if (after_injected_skipped * 2 < after_injected) {
      failed += std::to_string(after_injected_skipped) + " of " + std::to_string(after_injected) +
                " releases after an injected overrun skipped (half or more); ";
    }
    EXPECT_EQ(t.skipped, skipped);
    EXPECT_GE(t.misses, injected + skipped);
    return failed;
  });
}

/// A task whose third job throws: that job fails (counts as a miss, with its message),
/// the others run.
TEST_P(EveryPolicy, AThrowingJobFailsAndTheRunGoesOn) {
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 2}
tasks:
  - {name: thrower, period: 20ms, program: test-overrun, args: [1ms, 1ms, 1000, 999, 2], work: 1ms, span: 1ms}
)");
  const Outcome o = run_set(set, GetParam(), 400ms);
  expect_consistent(set, o, 400ms);
  const platform::TaskMetrics& t = o.metrics.tasks[0];
  EXPECT_EQ(t.failed, 1u);
  EXPECT_GE(t.misses, 1u);
  ASSERT_EQ(t.errors.size(), 1u);
  // The job that threw is job 2, or the first one released after it where a stall of the
  // VM made the engine skip job 2 (the program throws on the first job it runs from 2 on).
  std::uint64_t thrower = 2;
  while (thrower < o.metrics.jobs.size() && o.metrics.jobs[thrower].status == platform::JobStatus::skipped) {
    ++thrower;
  }
  ASSERT_LT(thrower, o.metrics.jobs.size());
  EXPECT_NE(t.errors[0].find("injected failure of job " + std::to_string(thrower)), std::string::npos)
      << t.errors[0];
  EXPECT_EQ(o.metrics.jobs[thrower].status, platform::JobStatus::failed);
  // The run goes on: every job released after the failed one ran to its end. A release
  // is skipped where the job before it still runs (the skip rule, tested above), which a
  // stall of the VM longer than the 20 ms period causes: once in a full `ctest -j2` run
  // 19 of the 20 jobs were released, and beside a process that took both CPUs for 40 to
  // 150 ms every 2 to 4 s (SCHED_FIFO 99, a stall made on purpose) fewer than 15 of the
  // 17 after the failed one were. A stall skips at most the releases it covers (8 for
  // 150 ms); a run that stopped after the failure has none.
  std::uint64_t released_after = 0, ran_after = 0;
  for (const platform::JobResult& j : o.metrics.jobs) {
    if (j.index <= thrower || j.status == platform::JobStatus::skipped) continue;
    ++released_after;
    if (j.finish.has_value() && j.status != platform::JobStatus::failed) ++ran_after;
  }
  EXPECT_EQ(ran_after, released_after);
  EXPECT_GE(released_after, 8u);
  EXPECT_EQ(t.released + t.skipped, 20u);
}

TEST(Federated, AParallelTaskRunsOnItsDedicatedCores) {
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 2}
tasks:
  - name: wide
    period: 20ms
    program: segments
    segments: [{length: 1ms}, {length: 2ms, strands: 10}, {length: 1ms}]
)");
  const Outcome o = run_set(set, model::Policy::federated, 600ms);
  expect_consistent(set, o, 600ms);
  ASSERT_TRUE(o.verdict.federated()->grants[0].high);
  EXPECT_EQ(o.verdict.federated()->grants[0].cores, 2);
  // The job's strands spread over both of its cores (steals happen).
  EXPECT_GT(o.metrics.system.steals, 0u);
  // The task's cluster is dedicated and its pool runs on the CPUs of its 2 cores, both of
  // which ran its jobs.
  ASSERT_EQ(o.details["clusters"].size(), 1u) << o.details.dump();
  EXPECT_EQ(o.details["clusters"][0]["kind"], "dedicated");
  const os::CpuSet mapped = platform::CoreMap::for_this_process(o.verdict.cores).all();
  EXPECT_EQ(o.details["clusters"][0]["cpus"], mapped.to_string());
  const auto& pool = o.details["clusters"][0]["pool"];
  EXPECT_EQ(pool["cpus"], mapped.to_string());
  // Job time on both of them and on no other CPU (the list has every CPU something was
  // recorded on: on a machine of more CPUs, the lane's too).
  int busy = 0;
  for (const auto& core : o.metrics.system.cores) {
    if (mapped.contains(core.cpu)) {
      EXPECT_GT(core.job_time.count(), 0) << "CPU " << core.cpu;
      ++busy;
    } else {
      EXPECT_EQ(core.job_time.count(), 0) << "CPU " << core.cpu << " outside " << mapped.to_string();
    }
  }
  EXPECT_EQ(busy, 2);
  EXPECT_EQ(pool["workers"], 2);
  EXPECT_EQ(pool["strategy"], "work_stealing");
  EXPECT_EQ(pool["totals"]["jobs"], o.metrics.tasks[0].released);
  // The 10 parallel strands of the middle segment are split in halves down to single
  // strands: a binary tree with 10 leaves has 9 inner nodes, one spawn each, so 9 spawns
  // per job (the first and last segments, one strand each, spawn nothing).
  EXPECT_EQ(pool["totals"]["spawns"].get<std::uint64_t>(), 9u * o.metrics.tasks[0].released);
  // Each job is 22 ms of work per 20 ms period on 2 workers: they are idle about 45 % of
  // the run (the pool's statistics are read after it, so their time is a little more
  // than 2 × 600 ms). The totals are the sum of the rows.
  ASSERT_EQ(pool["per_worker"].size(), 2u);
  std::uint64_t idle = 0;
  for (const auto& w : pool["per_worker"]) idle += w["idle_ns"].get<std::uint64_t>();
  EXPECT_EQ(pool["totals"]["idle_ns"].get<std::uint64_t>(), idle);
  EXPECT_GT(idle, 100'000'000u) << "2 workers, 45 % idle in 600 ms";
}

/// Two light tasks share one core (Σ C/D = 0.4 + 0.33 ≤ 1: admitted by the EDF density
/// test). The long job runs 8 ms of every 20 ms, so 40 % of the short task's releases
/// find it running; run to completion, those short jobs would wait up to 8 ms and miss
/// their 3 ms deadline. Under preemptive EDF the short job (earlier deadline) preempts
/// the long one at its release and finishes about 1 ms later.
TEST(Federated, ASharedCoreRanksEveryExecutorWithAJob) {
  // 256 light tasks with 100 ms deadlines, then 4 with 4 ms, all released at 0 on one
  // core: the lane (above the executors on that core) releases all of them before any
  // runs, and then EDF runs the 4 first. rank() kept 256 executors in a fixed array:
  // the 4 of earliest deadline stayed at the lowest level and ran after all the others.
  std::string text = "global: {cores: 1}\ntasks:\n";
  for (int k = 0; k < 260; ++k) {
    text += "  - {name: t" + std::to_string(k) + ", period: 100ms, deadline: " + (k < 256 ? "100ms" : "4ms") +
            ", program: segments, segments: [{length: 20us}]}\n";
  }
  const model::TaskSet set = model::parse_task_set(text);
  const Outcome o = run_set(set, model::Policy::federated, 50ms);
  expect_consistent(set, o, 50ms);
  if (!os::privileges().fifo || kSanitized)
    GTEST_SKIP() << "the executors time-share the core without SCHED_FIFO";
  nanoseconds first_loose = nanoseconds::max(), last_tight = nanoseconds::min();
  for (const platform::JobResult& j : o.metrics.jobs) {
    if (j.index != 0 || !j.start) continue;
    if (j.task < 256) {
      first_loose = std::min(first_loose, *j.start);
    } else {
      last_tight = std::max(last_tight, *j.start);
    }
  }
  EXPECT_LT(last_tight, first_loose) << "a job of 4 ms deadline started after one of 100 ms";
}

TEST(Federated, AMassReleaseOnASharedCoreIsRankedOncePerLanePass) {
  // 60 light tasks released together on one core, each with an earlier deadline than the
  // one before it in the file (the lane's release order): ranking at every release moved
  // every job released before down one level, 60·61/2 = 1830 sched_setscheduler calls
  // before the first job ran (~3 ms for 300 tasks). Ranked once after the lane's pass,
  // each executor's level is set once: 60 changes for the release at 0 (the 60 levels
  // 79..20 are distinct, fewer than 79 ranks).
  std::string text = "global: {cores: 1}\ntasks:\n";
  for (int k = 0; k < 60; ++k) {
    text += "  - {name: t" + std::to_string(k) + ", period: 200ms, deadline: " + std::to_string(150 - k) +
            "ms, program: segments, segments: [{length: 10us}]}\n";
  }
  const model::TaskSet set = model::parse_task_set(text);
  const Outcome o = run_set(set, model::Policy::federated, 50ms);
  expect_consistent(set, o, 50ms);
  if (!os::privileges().fifo) GTEST_SKIP() << "rank() sets SCHED_FIFO levels only with the privilege";
  EXPECT_LE(o.details["shared_core_level_changes"].get<std::uint64_t>(), 60u + 2u) << o.details.dump();
  EXPECT_GE(o.details["shared_core_level_changes"].get<std::uint64_t>(), 59u) << o.details.dump();
}

TEST(Federated, ASharedCoreRunsItsLightTasksByPreemptiveEdf) {
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 1}
tasks:
  - name: long
    period: 20ms
    program: segments
    segments: [{length: 8ms}]
  - name: short
    period: 10ms
    offset: 3ms
    deadline: 3ms
    program: segments
    segments: [{length: 1ms}]
)");
  for (model::Policy policy : {model::Policy::federated, model::Policy::federated_greedy}) {
    SCOPED_TRACE(std::string(model::to_string(policy)));
    auto round = [&] {
      const Outcome o = run_set(set, policy, kRun);
      expect_consistent(set, o, kRun);
      EXPECT_TRUE(o.verdict.schedulable);
      if (o.details["clusters"].size() != 1u) {
        ADD_FAILURE() << "one cluster expected: " << o.details["clusters"].dump();
        return std::string();
      }
      EXPECT_EQ(o.details["clusters"][0]["kind"], "shared");
      EXPECT_EQ(o.details["clusters"][0]["executors"], 2);
      // Every short job released 3 ms into a long job's period (while that job still has
      // about 5 of its 8 ms to run) finishes before the long job (finished_after() says
      // when that depends on timing). Run to completion, it would start only after the
      // long job had finished. (In the fallback the kernel time-shares the core, which
      // also lets it finish first.)
      std::map<nanoseconds, nanoseconds> long_finish;  // release -> finish
      for (const platform::JobResult& j : o.metrics.jobs) {
        if (j.task == 0 && j.finish) long_finish[j.release] = *j.finish;
      }
      std::size_t pairs = 0;
      std::string failed;
      for (const platform::JobResult& j : o.metrics.jobs) {
        if (j.task != 1 || !j.finish) continue;
        auto it = long_finish.find(j.release - 3ms);
        if (it == long_finish.end()) continue;  // released in the long task's idle half
        ++pairs;
        if (*j.finish >= it->second) finished_after(failed, j, it->second);
      }
      if (pairs < 20u)
        failed += std::to_string(pairs) + " short jobs released into a running long job (20 or more); ";
      // Non-preemptive, about 40 % of the short jobs would miss (48 of 120). In the
      // fallback, misses depend on what else runs.
      if (os::privileges().fifo && !kSanitized) failed += misses_above_a_tenth(o);
      return failed;
    };
    expect_held_in_some_run(3, round);
  }
}

/// Runs a 10 ms task beside a 1 ms one of period 2.5 ms on one core under `policy`:
/// each long job (or segment) shares its core with about four short ones (4 ms), which
/// made its measured time about 1.4 times its C when preemption counted, and the table
/// told the user to measure C again. Checks that it counts only the time it ran, and
/// that no core's job time exceeds the run; returns the long task's metrics.
platform::TaskMetrics expect_a_preempted_job_counts_only_the_time_it_ran(model::Policy policy,
                                                                         std::string_view global) {
  const model::TaskSet set = model::parse_task_set(std::string("global: ") + std::string(global) + R"(
tasks:
  - {name: long, period: 20ms, program: segments, segments: [{length: 10ms}]}
  - {name: short, period: 2500us, program: segments, segments: [{length: 1ms}]}
)");
  const Outcome o = run_set(set, policy, kRun);
  expect_consistent(set, o, kRun);
  const platform::TaskMetrics& long_task = o.metrics.tasks[0];
  EXPECT_GT(long_task.executed.count, 0u);
  // The median job: every job counted with its preemption reads about 1.4 C, while a
  // stall of the VM charged to one job's CPU time (where the VM charges it) moves only
  // the mean (150 ms over 60 jobs of 10 ms: +0.25).
  EXPECT_LT(long_task.executed.p50, 11500us)
      << "median executed; mean " << long_task.executed.mean.count() << " ns";
  const nanoseconds run = o.metrics.run.end - o.metrics.run.origin;
  for (const platform::CoreMetrics& c : o.metrics.system.cores) {
    EXPECT_LE(c.job_time, run) << "cpu " << c.cpu;
  }
  return long_task;
}

/// A light job that a job of an earlier deadline preempts on its shared core executed
/// only the time it ran: its thread's CPU time, not start → finish.
TEST(Federated, APreemptedLightJobCountsOnlyTheTimeItRan) {
  (void)expect_a_preempted_job_counts_only_the_time_it_ran(model::Policy::federated, "{cores: 1}");
}

TEST(FederatedGreedy, RunsJobsByTheCentralizedGreedyExecutor) {
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 2}
tasks:
  - name: wide
    period: 20ms
    program: segments
    segments: [{length: 1ms}, {length: 2ms, strands: 10}, {length: 1ms}]
)");
  const Outcome o = run_set(set, model::Policy::federated_greedy, 600ms);
  expect_consistent(set, o, 600ms);
  EXPECT_EQ(o.details["clusters"][0]["pool"]["strategy"], "centralized_greedy");
  EXPECT_EQ(o.details["clusters"][0]["pool"]["totals"]["jobs"], o.metrics.tasks[0].released);
}

/// A long parallel job occupies both cores with 2 ms strands; a short job with an
/// earlier deadline is released 5 ms into each of its periods. No core is idle, so the
/// long job is preempted at a spawn or sync point (PAWS, cooperative preemption).
TEST(GedfPaws, AnEarlierDeadlinePreemptsTheLatestRunningJob) {
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 2}
tasks:
  - name: long
    period: 100ms
    program: segments
    segments: [{length: 2ms, strands: 40}]
  - name: short
    period: 20ms
    offset: 5ms
    deadline: 10ms
    program: segments
    segments: [{length: 1ms}]
)");
  auto round = [&] {
    const Outcome o = run_set(set, model::Policy::gedf_paws, kRun);
    expect_consistent(set, o, kRun);
    EXPECT_GT(o.details["preemptions_requested"].get<std::uint64_t>(), 0u);
    EXPECT_GT(o.details["preemptions"].get<std::uint64_t>(), 0u);
    EXPECT_GT(o.metrics.system.preemptions, 0u);
    EXPECT_EQ(o.details["pool"]["strategy"], "priority_aware");
    // A long job runs 40 strands of 2 ms on 2 workers, about 40 ms,
    // so the short jobs released 5 and 25 ms into its period find it running. Preempted
    // within a strand of its release, such a short job finishes long before the long job;
    // not preempted, it would wait until the long job's strands were all done.
    std::map<nanoseconds, std::pair<nanoseconds, nanoseconds>> long_run;  // release -> (start, finish)
    for (const platform::JobResult& j : o.metrics.jobs) {
      if (j.task == 0 && j.start && j.finish) long_run[j.release] = {*j.start, *j.finish};
    }
    std::size_t inside = 0;
    std::string failed;
    for (const platform::JobResult& j : o.metrics.jobs) {
      if (j.task != 1 || !j.finish) continue;
      auto it = long_run.upper_bound(j.release);
      if (it == long_run.begin()) continue;
      --it;  // the long job released last at or before this short job
      // It still had more to run than a strand (2 ms) and the short job (1 ms), with a
      // margin: released later, the short job may end after it although it preempted it.
      // Without SCHED_FIFO, or under ThreadSanitizer, the workers share their CPUs with
      // whatever else runs (another test under ctest -j2): a strand and the short job can
      // take twice as long, so the long job must have had 10 ms left (a clean-clone run
      // under ThreadSanitizer without SCHED_FIFO saw a short job end 3.5 ms after the long
      // job that had 4.1 ms left at its release). The margin grows with how much slower
      // than its 40 ms the long job ran, for the same reason: without SCHED_FIFO, beside
      // 2 to 4 busy-looping processes on the two CPUs, the long jobs ran 2.1 to 3.4 times
      // longer and short jobs took up to 16.6 ms; with the fixed 10 ms, one short job
      // ended 0.15 ms after a long job that had had 15.6 ms left (1 of 8 runs). A stall
      // right after the short job's release still can (beside a process that took both
      // CPUs for 40 to 150 ms every 2 to 4 s, a short job ended 0.2 ms after a long job
      // that had had 16.6 ms left): there the check must hold in one of 3 runs.
      const nanoseconds base = os::privileges().fifo && !kSanitized ? 4ms : 10ms;
      const double slowdown =
          std::max(1.0, static_cast<double>((it->second.second - it->second.first).count()) /
                            static_cast<double>(nanoseconds(40ms).count()));
      const auto margin = std::chrono::duration_cast<nanoseconds>(base * slowdown);
      if (j.release + margin >= it->second.second) continue;
      ++inside;
      if (*j.finish >= it->second.second) finished_after(failed, j, it->second.second);
    }
    if (inside < 10u) {
      failed += std::to_string(inside) +
                " short jobs released into a running long job (10 or more; about 24 expected); ";
    }
    // Preempted within a strand (2 ms) of its release, a short job meets its 10 ms
    // deadline; not preempted, the 24 of 60 released into a long job would miss. The long
    // task (12 jobs of 40 ms, D = 100 ms) may miss 1; a stall of 150 ms can make 2 miss,
    // and the run is made again. In the fallback, misses depend on what else runs.
    if (os::privileges().fifo && !kSanitized) failed += misses_above_a_tenth(o);
    return failed;
  };
  expect_held_in_some_run(3, round);
}

/// A topology that a load-balancer spreads over per-PE pipes (no pull, no steal): a job
/// waits in one core's own pipe, so that core's worker must be woken. The pool woke one
/// sleeping worker, any; when it was the other, the job waited until its core's worker
/// woke by its timeout (1 ms, doubling while idle up to a second): every second job of
/// `a` started about 7.5 ms late under gedf-paws (30 % missed their 5 ms deadline), and a
/// heavy federated task's job waited up to 62 ms. Now every worker is woken where they
/// see different work (policies::wake_workers_for).
const char* const kPerPeTopology = R"(
topology:
  pipes: {admitted: one, local: per-pe}
  entry: admitted
  instances:
    lb: {component: load-balancer, inputs: admitted, outputs: "local[*]"}
  pes: {terminal: "local[pe]"}
)";

/// The jobs of `o` that started more than `late` after they were released, as a report
/// ("" where at most `allowed` of them did).
std::string late_starts(const Outcome& o, nanoseconds late, std::size_t allowed) {
  std::size_t count = 0, started = 0;
  for (const platform::JobResult& j : o.metrics.jobs) {
    if (!j.start) continue;
    ++started;
    if (*j.start - j.release > late) ++count;
  }
  if (started < 10 || count > allowed) {
    return std::to_string(count) + " of " + std::to_string(started) + " jobs started more than " +
           std::to_string(late.count() / 1'000'000) + " ms late; ";
  }
  return "";
}

TEST(GedfPaws, AJobInOneCoresOwnPipeWakesThatCore) {
  // Sparse releases (the pool idles 40 ms at a time, so a worker's timeout grows to
  // 16 ms and more): before the fix 3 to 6 of the 45 jobs started 25 to 31 ms late, in
  // every run; woken, none starts 10 ms late (one is allowed, for a stall of the VM).
  const model::TaskSet set = model::parse_task_set(std::string(R"(
global: {cores: 2}
tasks:
  - {name: a, period: 40ms, deadline: 20ms, program: segments, segments: [{length: 500us}]}
  - {name: b, period: 80ms, deadline: 20ms, program: segments, segments: [{length: 500us}]}
)") + kPerPeTopology);
  expect_held_in_some_run(3, [&] {
    const Outcome o = run_set(set, model::Policy::gedf_paws, kRun);
    expect_consistent(set, o, kRun);
    return late_starts(o, 10ms, 1);
  });
}

TEST(Federated, AHeavyJobInOneCoresOwnPipeWakesThatCore) {
  // One heavy task on both cores (a cluster of 2): the lane woke the cluster only where
  // its first core's pipe had work, and then one worker, any.
  const model::TaskSet set = model::parse_task_set(std::string(R"(
global: {cores: 2}
tasks:
  - name: render
    period: 20ms
    program: segments
    segments: [{length: 1ms}, {length: 2ms, strands: 11}, {length: 1ms}]
)") + kPerPeTopology);
  for (const model::Policy policy : {model::Policy::federated, model::Policy::federated_greedy}) {
    SCOPED_TRACE(std::string(model::to_string(policy)));
    expect_held_in_some_run(3, [&] {
      const Outcome o = run_set(set, policy, kRun);
      expect_consistent(set, o, kRun);
      // Before the fix 19 to 44 of the 180 jobs started more than 3 ms late in each run.
      return late_starts(o, 3ms, 9);
    });
  }
}

/// A strand that gedf-paws preempts is handed back to the topology as a task of its own
/// (rule F). It carried priority 0, so a filter that passes every job (priority_at_least:
/// 1; both tasks have priority 1 or none, the largest int) dropped it: each preempted
/// long job never finished (6 of 6 missed, abandoned). It carries its job's priority now.
TEST(GedfPaws, AHandedBackStrandCarriesItsJobsPriorityThroughAFilter) {
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 1}
tasks:
  - {name: long, period: 50ms, program: segments, segments: [{length: 1ms, strands: 20}]}
  - {name: short, period: 5ms, priority: 1, program: segments, segments: [{length: 300us}]}
topology:
  pipes: {admitted: one, ordered: one, kept: one}
  entry: admitted
  instances:
    o: {component: edf, input: admitted, output: ordered}
    f: {component: filter, input: ordered, output: kept, params: {priority_at_least: 1}}
  pes: {terminal: kept}
)");
  expect_held_in_some_run(3, [&] {
    const Outcome o = run_set(set, model::Policy::gedf_paws, kRun);
    expect_consistent(set, o, kRun);
    std::string failed;
    // A short job released into a long one preempts it (24 times in 300 ms here).
    if (o.details["preemptions"].get<std::uint64_t>() == 0) failed += "no preemption; ";
    // Every long job released 60 ms before the end (20 ms of work, preempted by a
    // short job of 0.3 ms every 5 ms) finished.
    for (const platform::JobResult& j : o.metrics.jobs) {
      if (j.task == 0 && j.release + 60ms <= kRun && !j.finish) {
        ADD_FAILURE() << "long job " << j.index << " released at " << j.release.count()
                      << " ns never finished";
      }
    }
    return failed;
  });
}

/// A task's `priority:` reaches its jobs (sched::Task::priority): a topology ordering by
/// fixed priority runs b (priority 1) before a (priority 2, the earlier deadline), where
/// EDF runs a first. Both are released 1 ms into a 6 ms job of `blocker` (earliest
/// deadline: nothing preempts it) on the one core, so both wait in the queue for it.
TEST(GedfPaws, ATasksPriorityReachesItsJobsInTheTopology) {
  for (const std::string order : {"fixed-priority", "edf"}) {
    SCOPED_TRACE(order);
    const model::TaskSet set = model::parse_task_set(
        "global: {cores: 1, policy: gedf-paws}\n"
        "tasks:\n"
        "  - {name: blocker, period: 100ms, deadline: 10ms, program: segments, segments: [{length: 6ms}]}\n"
        "  - {name: a, period: 100ms, offset: 1ms, deadline: 20ms, priority: 2, program: segments, "
        "segments: [{length: 1ms}]}\n"
        "  - {name: b, period: 100ms, offset: 1ms, deadline: 30ms, priority: 1, program: segments, "
        "segments: [{length: 1ms}]}\n"
        "topology:\n"
        "  pipes: {admitted: one, global: one}\n"
        "  entry: admitted\n"
        "  instances:\n"
        "    order: {component: " +
        order +
        ", input: admitted, output: global}\n"
        "  pes: {terminal: global}\n");
    // a and b wait in the queue only while the blocker runs: a release lane or a VM
    // stalled for 5 ms or more leaves the core idle at their release, and the first
    // queued starts first whatever the order. So a run where the order did not show is
    // made again; an ordering that ignores priority fails in every run.
    expect_held_in_some_run(3, [&] {
      const Outcome o = run_set(set, model::Policy::gedf_paws, 50ms);
      std::map<std::uint32_t, nanoseconds> start;
      for (const auto& j : o.metrics.jobs) {
        if (j.index == 0 && j.start) start[j.task] = *j.start;
      }
      EXPECT_EQ(start.size(), 3u);
      if (start.size() != 3u) return std::string("not every task's first job started");
      if (order == "fixed-priority" && start[2] >= start[1])
        return std::string("b (priority 1) after a (priority 2)");
      if (order == "edf" && start[1] >= start[2])
        return std::string("EDF: a (deadline 20 ms) after b (30 ms)");
      return std::string();
    });
  }
}

/// 24 jobs released 0.6 ms apart, each with an earlier deadline than the one before:
/// each preempts a running job at its next spawn, and the preempted root strand is
/// handed back. The pool let more strands be handed back than gedf-paws keeps entries
/// for (16): the 17th was written through a null entry (SIGSEGV, this process).
TEST(GedfPaws, MoreHandBacksThanItsEntriesAreRefusedNotFatal) {
  std::string text = "global: {cores: 2}\ntasks:\n";
  for (int k = 0; k < 24; ++k) {
    text += "  - {name: t" + std::to_string(k) + ", period: 1s, offset: " + std::to_string(k * 600) +
            "us, deadline: " + std::to_string(200 - k) +
            "ms, program: segments, segments: [{length: 1ms}, {length: 100us, strands: 2}]}\n";
  }
  const model::TaskSet set = model::parse_task_set(text);
  // The case the test is for: hand-backs beyond the 16 entries were refused (counted),
  // and the run went on. In SCHED_FIFO the jobs preempt as released (16 handed back, 6
  // refused in each of 5 runs here); a stall of the machine during the releases makes the
  // release lane release the overdue jobs together, which then run by EDF with a few
  // preemptions and no refusal, so the count is checked in one of 3 runs. In SCHED_OTHER
  // the kernel's time-sharing decides how many are out at once (0 refused in 1 of 3
  // runs), so there the count is only reported.
  expect_held_in_some_run(3, [&] {
    const Outcome o = run_set(set, model::Policy::gedf_paws, 100ms);
    expect_consistent(set, o, 100ms);
    const auto preemptions = o.details["preemptions"].get<std::uint64_t>();
    const auto refused = o.details["pool"]["totals"]["refused_yields"].get<std::uint64_t>();
    const auto handed_back = o.details["strands_handed_back"].get<std::uint64_t>();
    const std::string counts = std::to_string(preemptions) + " preemptions, " + std::to_string(handed_back) +
                               " strands handed back, " + std::to_string(refused) + " refused";
    if (!os::privileges().fifo || kSanitized) {
      std::printf("(SCHED_OTHER: %s)\n", counts.c_str());
      return preemptions > 0 ? std::string() : counts;
    }
    return preemptions > 0 && refused > 0 ? std::string() : counts + "; " + longest_start_delay(o);
  });
}

/// RT-OpenMP's dispatcher waits for each segment's release offset (Algorithm 1, line 4),
/// so a job ends no earlier than its last segment's offset plus its length; the strand
/// table puts every strand on the core the analysis chose.
TEST(PartitionedDm, SegmentsStartAtTheirDecomposedReleases) {
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 2, policy: partitioned-dm}
tasks:
  - name: a
    period: 20ms
    program: segments
    segments: [{length: 1ms}, {length: 500us, strands: 4}, {length: 1ms}]
  - name: c
    period: 10ms
    program: segments
    segments: [{length: 300us}]
)");
  const Outcome o = run_set(set, model::Policy::partitioned_dm, 600ms);
  expect_consistent(set, o, 600ms);
  const auto* table = o.verdict.partitioned_dm();
  ASSERT_NE(table, nullptr);
  nanoseconds last_offset{0};
  for (const auto& s : table->strands) {
    if (s.task == 0 && s.segment == 3) last_offset = s.release;
  }
  ASSERT_GT(last_offset, 1ms);
  for (const auto& j : o.metrics.jobs) {
    if (j.task == 0 && j.finish) {
      EXPECT_GE(*j.finish - j.release, last_offset + 900us) << "job " << j.index;
    }
  }
  // One thread per (task, core with its strands); the team sizes follow the table.
  std::set<int> cores_of_a;
  for (const auto& s : table->strands) {
    if (s.task == 0) cores_of_a.insert(s.core);
  }
  EXPECT_EQ(o.details["teams"][0]["threads"].size(), cores_of_a.size());
  EXPECT_EQ(o.details["teams"][0]["segments"].size(), 3u);
}

/// A segment that a segment of higher priority (a task of shorter deadline) preempts on
/// its core executed only the time it ran: its thread's CPU time, not begin -> end.
TEST(PartitionedDm, APreemptedSegmentCountsOnlyTheTimeItRan) {
  const platform::TaskMetrics long_task = expect_a_preempted_job_counts_only_the_time_it_ran(
      model::Policy::partitioned_dm, "{cores: 1, policy: partitioned-dm}");
  EXPECT_EQ(long_task.executed_wall_clock, 0u) << "every segment is timed by its thread's CPU time";
}

/// Blocks its job until opened; says which thread runs it.
class GateTask final : public Task {
 public:
  void init(const TaskArgs&) override {}
  void run(const Job&) override {
    thread = std::this_thread::get_id();
    started.store(true);
    while (!open.load()) std::this_thread::sleep_for(1ms);
  }
  std::atomic<bool> started{false}, open{false};
  std::thread::id thread;
};

/// CLOCK_MONOTONIC, but once `hold` is set, the first now() on `thread` sleeps 300 ms.
/// `waiter` is the last thread that waited on the clock (only release lanes do).
class HoldingClock final : public platform::ReleaseClock {
 public:
  nanoseconds now() override {
    if (hold.load() && std::this_thread::get_id() == thread.load() && !held.exchange(true)) {
      std::this_thread::sleep_for(300ms);
    }
    return platform::ReleaseClock::monotonic().now();
  }
  void wait(std::atomic<std::uint32_t>& word, std::uint32_t seen, nanoseconds deadline) override {
    waiter.store(std::this_thread::get_id());
    platform::ReleaseClock::monotonic().wait(word, seen, deadline);
  }
  void notify(std::atomic<std::uint32_t>& word) noexcept override {
    platform::ReleaseClock::monotonic().notify(word);
  }
  std::atomic<bool> hold{false}, held{false};
  std::atomic<std::thread::id> thread, waiter;
};

TEST(PartitionedDm, ShutdownJoinsALaneThatLeftItsJobAfterTheRunGaveUpOnIt) {
  // The run gives up on the lane inside its job (the run loop's drain limit); the job
  // then finishes before shutdown() looks. shutdown() returned true at once, without
  // joining the lane, which was still in the release engine: the run loop then read the
  // events under it and destroyed the engine and the recorder it was using.
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 1, policy: partitioned-dm}
tasks:
  - {name: gate, period: 100ms, program: gate, work: 1ms, span: 1ms}
)");
  analysis::AnalysisOptions options;
  options.policy = model::Policy::partitioned_dm;
  const analysis::AnalysisResult verdict = analysis::analyse(set, options);
  ASSERT_TRUE(verdict.schedulable);
  const platform::CoreMap cores = platform::CoreMap::for_this_process(verdict.cores);
  GateTask gate;
  Task* const tasks[] = {&gate};
  HoldingClock clock;
  platform::ReleaseConfig config;
  config.duration = 1s;
  platform::ReleaseEngine engine({platform::PeriodicTask{"gate", 100ms, 100ms, 0ns, 1, 1ms}}, config, clock);
  const platform::RealtimeSettings realtime;  // no SCHED_FIFO, with or without privileges
  auto policy = policies::make_policy(model::Policy::partitioned_dm);
  const sched::TopologySpec topology = policy->default_topology();
  platform::RunContext ctx{set, verdict, cores, engine.tasks(), tasks, engine, realtime, topology};
  platform::Recorder recorder({4, 1024});
  (void)policy->plan(ctx);
  ctx.recorder = &recorder;
  policy->prepare(ctx);
  ctx.overdue = [&] {
    if (!gate.started.load()) return false;
    engine.abandon();  // as the run loop's limit: stop, and give up on the lane
    return true;
  };
  engine.start(platform::ReleaseClock::monotonic().now() + 10ms);
  policy->run(ctx);  // returns with the lane inside job 0
  clock.thread.store(gate.thread);
  clock.hold = true;  // the lane's first look at the clock after the job: 300 ms
  gate.open = true;
  while (engine.jobs_in_flight() > 0) std::this_thread::sleep_for(1ms);
  auto lane_returned = [&] {
    const auto threads = recorder.threads();
    return !threads.empty() && threads[0].closed;  // it closes its recorder on the way out
  };
  const bool joined = policy->shutdown();
  const bool returned = lane_returned();
  // Whatever happened, do not leave the lane running on this test's objects.
  for (int i = 0; i < 200 && !lane_returned(); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(lane_returned());
  EXPECT_TRUE(joined);
  EXPECT_TRUE(returned) << "shutdown() returned while the lane was still in the release engine";
  EXPECT_TRUE(clock.held.load()) << "the lane was not held: the test did not set up its case";
}

TEST_P(EveryPolicy, ShutdownJoinsALaneTheRunGaveUpOnOutsideAJob) {
  // The run loop gives up on the release lane (its drain limit) while the lane is
  // still in the release engine but in no job: the lane's next look at the clock takes
  // 300 ms. No job is in flight, so shutdown() went on at once: federated and
  // gedf-paws returned true without joining their lanes, and run_task_set() then
  // destroyed the engine and the recorder the lane was still using.
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 1}
tasks:
  - {name: gate, period: 20ms, program: gate, work: 1ms, span: 1ms}
)");
  analysis::AnalysisOptions options;
  options.policy = GetParam();
  const analysis::AnalysisResult verdict = analysis::analyse(set, options);
  ASSERT_TRUE(verdict.schedulable);
  const platform::CoreMap cores = platform::CoreMap::for_this_process(verdict.cores);
  GateTask gate;
  gate.open = true;  // each job returns at once
  Task* const tasks[] = {&gate};
  HoldingClock clock;
  platform::ReleaseConfig config;
  config.duration = 1s;
  platform::ReleaseEngine engine({platform::PeriodicTask{"gate", 20ms, 20ms, 0ns, 1, 1ms}}, config, clock);
  const platform::RealtimeSettings realtime;  // no SCHED_FIFO, with or without privileges
  auto policy = policies::make_policy(GetParam());
  const sched::TopologySpec topology = policy->default_topology();
  platform::RunContext ctx{set, verdict, cores, engine.tasks(), tasks, engine, realtime, topology};
  platform::Recorder recorder({8, 1024});
  (void)policy->plan(ctx);
  ctx.recorder = &recorder;
  policy->prepare(ctx);
  ctx.overdue = [&] {
    // Once the first job has finished and the lane waits for the next release.
    if (!gate.started.load() || engine.jobs_in_flight() > 0 || clock.waiter.load() == std::thread::id()) {
      return false;
    }
    clock.thread.store(clock.waiter.load());
    clock.hold = true;  // the lane's next look at the clock: 300 ms
    engine.abandon();   // as the run loop's limit: stop, and give up on the lane
    return true;
  };
  engine.start(platform::ReleaseClock::monotonic().now() + 10ms);
  policy->run(ctx);  // returns with the lane still in the release engine
  auto lane_returned = [&] {
    for (const auto& t : recorder.threads()) {
      // partitioned-dm's lane is its one team's first member ("<team> cpu N"), here
      // the only thread; the others name theirs "lane ...". It closes its recorder on
      // the way out.
      if (t.name.starts_with("lane") || GetParam() == model::Policy::partitioned_dm) return t.closed;
    }
    return false;
  };
  ASSERT_EQ(engine.jobs_in_flight(), 0u);
  const bool joined = policy->shutdown();
  const bool returned = lane_returned();
  // Whatever happened, do not leave the lane running on this test's objects.
  for (int i = 0; i < 200 && !lane_returned(); ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(lane_returned());
  EXPECT_TRUE(clock.held.load()) << "the lane was not held: the test did not set up its case";
  EXPECT_TRUE(joined);
  EXPECT_TRUE(returned) << "shutdown() returned while the lane was still in the release engine";
}

/// Each job runs until the test opens the gate (3 s at most, so that no thread is left
/// running for good). Counts, over every object in the process, the jobs that ended
/// and the finalize calls.
class HeldTask final : public Task {
 public:
  void run(const Job&) override {
    const nanoseconds until = os::monotonic_now() + 3s;
    while (!open.load() && os::monotonic_now() < until) std::this_thread::sleep_for(1ms);
    jobs_ended.fetch_add(1);
  }
  void finalize() override { finalized.fetch_add(1); }
  static inline std::atomic<bool> open{false};
  static inline std::atomic<int> jobs_ended{0};
  static inline std::atomic<int> finalized{0};
};

void register_held_program() {
  register_test_programs();
  if (!programs().contains("test-held")) {
    programs().add<HeldTask>("test-held",
                             "runs each job until the test opens it; counts jobs and finalize calls");
  }
}

/// Overwrites the memory that a returned run_task_set() and a destroyed policy left
/// behind (the stack below the caller's frame and recently freed heap blocks, which
/// the next allocations of their sizes reuse), so that a thread still using it fails
/// at once instead of by chance. The blocks stay allocated.
[[gnu::noinline]] void scrub_freed_memory() {
  volatile unsigned char frame[256 * 1024];
  for (std::size_t i = 0; i < sizeof frame; ++i) frame[i] = 0xa5;
  for (std::size_t size = 16; size <= 4096; size += 16) {
    for (int k = 0; k < 32; ++k) std::memset(std::malloc(size), 0xa5, size);
  }
}

TEST_P(EveryPolicy, DestroyingThePolicyAfterARunLeftAJobRunningIsSafe) {
  // The run gives up on job 0 while it runs (drain 0 after its deadline; partitioned-dm,
  // whose lane runs the job itself, by the stall limit after about 0.5 s) and returns
  // with jobs_left_running. Destroying the policy then freed the object its threads
  // still use (federated's executors and its pools' work sources, gedf-paws's pool,
  // whose work source and yield policy it is), and partitioned-dm's team thread read
  // the RunContext, a local of run_task_set(): once the job ended, they crashed. In a
  // child process, where the threads left running stay.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  register_held_program();
  const model::Policy policy = GetParam();
  EXPECT_EXIT(
      {
        const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 1}
tasks:
  - {name: held, period: 20ms, program: test-held, work: 1ms, span: 1ms}
)");
        analysis::AnalysisOptions options;
        options.policy = policy;
        const analysis::AnalysisResult verdict = analysis::analyse(set, options);
        auto p = policies::make_policy(policy);
        platform::RunOptions run = quiet_run(10ms);  // job 0 only
        run.drain = 0ns;
        run.start_delay = 10ms;
        run.lock_memory = false;
        const platform::RunResult r = platform::run_task_set(set, verdict, *p, run);
        if (!r.jobs_left_running || HeldTask::jobs_ended.load() != 0) {
          std::fputs("the run left no job running: the test did not set up its case\n", stderr);
          std::_Exit(2);
        }
        p.reset();
        scrub_freed_memory();
        HeldTask::open = true;  // the job ends; its threads go on with what the run left them
        while (HeldTask::jobs_ended.load() == 0) std::this_thread::sleep_for(1ms);
        std::this_thread::sleep_for(200ms);
        std::fputs("survived\n", stderr);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "survived");
}

TEST_P(EveryPolicy, AnErrorAfterPrepareStopsTheRunAndJoinsThePolicyBeforeItLeaves) {
  // Installing the run's SignalStop throws when another one is installed (a second run
  // in the process). Only plan() and prepare() were guarded: run_task_set threw with
  // the policy's threads running, freed the engine, the recorder and the tasks under
  // them without finalising the tasks, and destroying the policy then read the freed
  // engine.
  register_held_program();
  HeldTask::finalized = 0;
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 1}
tasks:
  - {name: held, period: 20ms, program: test-held, work: 1ms, span: 1ms}
)");
  analysis::AnalysisOptions options;
  options.policy = GetParam();
  const analysis::AnalysisResult verdict = analysis::analyse(set, options);
  struct Inert final : platform::Stoppable {
    void request_stop() noexcept override {}
    void abandon() noexcept override {}
  } inert;
  // ThreadSanitizer's runtime starts a thread of its own at the process's first
  // pthread_create, which would count as one the policy left behind when this test is the
  // first of its process (ctest runs each alone): create one thread before counting.
  std::thread([] {}).join();
  const std::size_t threads_before = settled_thread_count();
  auto policy = policies::make_policy(GetParam());
  {
    const platform::SignalStop other(inert);
    platform::RunOptions run = quiet_run(100ms);
    run.lock_memory = false;
    run.handle_signals = true;
    try {
      platform::run_task_set(set, verdict, *policy, run);
      ADD_FAILURE() << "expected takt::Error";
    } catch (const takt::Error& e) {
      // It says what to change.
      const std::string what = e.what();
      EXPECT_NE(what.find("one run at a time in a process"), std::string::npos) << what;
      EXPECT_NE(what.find("RunOptions::handle_signals = false"), std::string::npos) << what;
    }
  }
  EXPECT_EQ(HeldTask::finalized.load(), 1) << "the task was not finalised";
  // A joined thread may be listed a moment longer (thread_count.hpp): one still running
  // stays.
  EXPECT_LE(thread_count_once([&](std::size_t n) { return n <= threads_before; }), threads_before)
      << "the policy's threads outlived run_task_set()";
  policy.reset();
}

TEST(PartitionedDm, AProgramThatCannotRunStrandsIsRefusedNamingThePolicies) {
  register_test_programs();
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 2}
tasks:
  - {name: wide, period: 20ms, program: test-overrun, args: [1ms], segments: [{length: 1ms, strands: 2}]}
)");
  analysis::AnalysisOptions options;
  options.policy = model::Policy::partitioned_dm;
  const analysis::AnalysisResult verdict = analysis::analyse(set, options);
  auto policy = policies::make_policy(model::Policy::partitioned_dm);
  platform::RunOptions run = quiet_run(100ms);
  try {
    platform::run_task_set(set, verdict, *policy, run);
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("task 'wide'"), std::string::npos) << what;
    EXPECT_NE(what.find("SynchronousTask"), std::string::npos) << what;
    EXPECT_NE(what.find("federated, federated-greedy or gedf-paws"), std::string::npos) << what;
  }
}

TEST(RunLoop, UnknownProgramIsBadInputBeforeAnythingRuns) {
  register_test_programs();
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 1}
tasks:
  - {name: x, period: 10ms, program: no-such-program, work: 1ms, span: 1ms}
)");
  const analysis::AnalysisResult verdict = analysis::analyse(set);
  auto policy = policies::make_policy(model::Policy::federated);
  platform::RunOptions run;
  run.table = nullptr;
  run.messages = nullptr;
  run.handle_signals = false;
  try {
    platform::run_task_set(set, verdict, *policy, run);
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown program 'no-such-program'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace takt::testing
