// The profiler measures work, span and burdened span of kernels whose values are known analytically.
//
// The kernels busy-wait with os::spin_for (wall-clock time), so a node lasts its nominal
// length even when the shared machine preempts the test: noise can only add time. Each
// check therefore compares the least disturbed of 7 jobs (the minimum) with the analytic
// value, within 5 % (or 25 µs above). The profiler's workers run in SCHED_FIFO where the
// process may (root), which keeps most of that noise out to begin with.
#include "os/clock.hpp"
#include "os/cpu.hpp"
#include "profiler/profile.hpp"
#include "profiler/profile_output.hpp"
#include "takt/runtime.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <mutex>
#include <vector>

namespace {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

/// A task whose job is a function.
class FunctionTask final : public takt::Task {
 public:
  explicit FunctionTask(std::function<void()> body) : body_(std::move(body)) {}
  void run(const takt::Job&) override { body_(); }

 private:
  std::function<void()> body_;
};

takt::profiler::ProfileResult profile_of(std::function<void()> body, takt::profiler::Burden burden = {}) {
  FunctionTask task(std::move(body));
  takt::profiler::ProfileOptions options;
  options.jobs = 7;
  options.burden = burden;
  return takt::profiler::profile(task, "test", {}, options);
}

/// Within 5 % below and 5 % or 50 µs above, whichever is more: a span is the longest of
/// its path's strands, so a few µs of interrupt in any one of 16 leaves lengthen it (a
/// VM's exits, the host's stolen time: the 7 jobs take only ~30 ms, so one noisy stretch
/// can reach all of them), and 5 % of a 200 µs span is only 10 µs. The faults this
/// tells apart are a strand's length or more (a 200 µs leaf counted twice).
void expect_within_5_percent(nanoseconds measured, nanoseconds expected, const char* what) {
  const double ratio = static_cast<double>(measured.count()) / static_cast<double>(expected.count());
  EXPECT_GT(ratio, 0.95) << what << ": " << measured.count() << " ns measured, " << expected.count()
                         << " expected";
  EXPECT_LT(measured, std::max(expected * 105 / 100, expected + std::chrono::microseconds(50)))
      << what << ": " << measured.count() << " ns measured, " << expected.count() << " expected";
}

struct Segment {
  int nodes;           // m: strands that may run in parallel
  nanoseconds length;  // e: each strand's length
};

TEST(KnownDags, SynchronousTask) {
  // RTWS §IV.A's synchronous task: segments run one after the other, each a parallel
  // loop over m nodes of length e. work = Σ m·e = 4·300 + 1·500 + 3·200 + 2·400 µs
  // = 3,100 µs; span = Σ max strand = 300 + 500 + 200 + 400 µs = 1,400 µs.
  const std::vector<Segment> segments{{4, 300us}, {1, 500us}, {3, 200us}, {2, 400us}};
  auto result = profile_of([&] {
    for (const Segment& s : segments) {
      takt::parallel_for(0, s.nodes, 1, [&](int) { takt::os::spin_for(s.length); });
    }
  });
  expect_within_5_percent(result.work.min, 3100us, "work");
  expect_within_5_percent(result.span.min, 1400us, "span");
  // In the observed run every loop splits down to single nodes: m − 1 spawns per segment.
  EXPECT_EQ(result.spawns, 3u + 0u + 2u + 1u);
  EXPECT_NEAR(static_cast<double>(result.work.min.count()) / static_cast<double>(result.span.min.count()),
              3100.0 / 1400.0, 0.2);
}

void tree(int depth, nanoseconds leaf) {
  if (depth == 0) {
    takt::os::spin_for(leaf);
    return;
  }
  takt::Scope scope;
  scope.spawn([=] { tree(depth - 1, leaf); });
  tree(depth - 1, leaf);
  scope.sync();
}

TEST(KnownDags, BalancedBinaryForkTree) {
  // Depth 4: 16 leaves of 200 µs. work = 16 · 200 = 3,200 µs; span = one leaf = 200 µs.
  const takt::profiler::Burden burden{10us, 5us};
  auto result = profile_of([] { tree(4, 200us); }, burden);
  expect_within_5_percent(result.work.min, 3200us, "work");
  expect_within_5_percent(result.span.min, 200us, "span");
  EXPECT_EQ(result.spawns, 15u);
  EXPECT_EQ(result.syncs, 15u);
  // Every root-to-leaf path crosses 4 levels, each by a spawn edge + return edge (burden
  // 5 µs) or a continuation edge (10 µs): L + 4·5 µs ≤ L̂ ≤ L + 4·10 µs, in every job.
  ASSERT_EQ(result.per_job.size(), 7u);  // options.jobs
  for (const auto& job : result.per_job) {
    EXPECT_GE(job.dag.burdened_span - job.dag.span, 20us);
    EXPECT_LE(job.dag.burdened_span - job.dag.span, 40us);
  }
}

TEST(KnownDags, ChainHasSpanEqualToWork) {
  // Ten links; in each the parent runs 100 µs, then spawns a 200 µs child and syncs at
  // once: nothing runs in parallel, span = work = 10 · 300 µs = 3,000 µs.
  const takt::profiler::Burden burden{10us, 5us};
  auto result = profile_of(
      [] {
        for (int i = 0; i < 10; ++i) {
          takt::os::spin_for(100us);
          takt::Scope scope;
          scope.spawn([] { takt::os::spin_for(200us); });
          scope.sync();
        }
      },
      burden);
  expect_within_5_percent(result.work.min, 3000us, "work");
  expect_within_5_percent(result.span.min, 3000us, "span");
  expect_within_5_percent(result.span.min, result.work.min, "span against work");
  EXPECT_EQ(result.spawns, 10u);
  // Each link adds a return edge (5 µs) on the path through the child or a continuation
  // edge (10 µs) on the path through the empty continuation.
  ASSERT_EQ(result.per_job.size(), 7u);  // options.jobs
  for (const auto& job : result.per_job) {
    EXPECT_GE(job.dag.burdened_span - job.dag.span, 50us);
    EXPECT_LE(job.dag.burdened_span - job.dag.span, 100us);
  }
  // The values for a task set: a noisy maximum of the span may exceed the work's, but
  // what is written is capped at the work (the task-set format requires L ≤ C).
  const takt::profiler::WrittenValues written = takt::profiler::written_values(result);
  EXPECT_LE(written.span, written.work);
  EXPECT_GE(written.burdened_span, written.span);
}

TEST(WrittenValues, RoundedUpToTheMicrosecondWithLAtMostCAndLHatAtLeastL) {
  // What takt profile --update writes: each chosen value rounded up to the µs, then the
  // span capped at the work (the format requires L ≤ C) and the burdened span raised to
  // the span (L̂ ≥ L). By hand:
  //   C 3000.2 µs → 3001 µs; L 3000.9 µs → 3001 µs (= C, no cap); L̂ 2999 µs → 3001 µs;
  //   C 10 ms → 10 ms; L 12.0001 ms → 12.001 ms, capped to 10 ms; L̂ 10.5 ms stays.
  takt::profiler::ProfileResult r;
  r.chosen_work = 3000200ns;
  r.chosen_span = 3000900ns;
  r.chosen_burdened_span = 2999us;
  auto v = takt::profiler::written_values(r);
  EXPECT_EQ(v.work, 3001us);
  EXPECT_EQ(v.span, 3001us);
  EXPECT_EQ(v.burdened_span, 3001us);
  r.chosen_work = 10ms;
  r.chosen_span = 12000100ns;
  r.chosen_burdened_span = 10500us;
  v = takt::profiler::written_values(r);
  EXPECT_EQ(v.work, 10ms);
  EXPECT_EQ(v.span, 10ms);
  EXPECT_EQ(v.burdened_span, 10500us);
}

TEST(KnownDags, SerialCodeIsOneStrand) {
  // No spawn at all: one strand, span = work.
  auto result = profile_of([] { takt::os::spin_for(500us); });
  expect_within_5_percent(result.span.min, 500us, "span");
  expect_within_5_percent(result.work.min, 500us, "work");
  EXPECT_EQ(result.spawns, 0u);
  EXPECT_EQ(result.strands, 1u);
  EXPECT_EQ(result.burdened_span.min, result.span.min);
}

TEST(KnownDags, CodeInsideCallOnLargeStackIsSerial) {
  // Spawns inside call_on_large_stack run inline on a pool (on a Scope made inside and
  // on one of the calling strand's), so the DAG is one strand: span = work = 3 ms. The
  // profiler's span run has no large stack and ran them in parallel: span 1 ms.
  auto result = profile_of([] {
    takt::Scope outer;
    takt::call_on_large_stack([&outer] {
      outer.spawn([] { takt::os::spin_for(1ms); });
      takt::Scope inner;
      inner.spawn([] { takt::os::spin_for(1ms); });
      takt::os::spin_for(1ms);
      inner.sync();
    });
    outer.sync();
  });
  expect_within_5_percent(result.work.min, 3ms, "work");
  expect_within_5_percent(result.span.min, 3ms, "span");
  EXPECT_EQ(result.spawns, 0u);
}

TEST(KnownDags, EveryRunSeesTheSameJobCores) {
  // A task may split its work by job.cores (docs/writing-tasks.md). The measurement,
  // work and span runs gave it 1 and the T_P runs P, so each measured another DAG than
  // the others (and than the task's init was told: the CPUs profiled on).
  struct CoresTask final : takt::Task {
    std::mutex mutex;
    std::vector<unsigned> seen;
    void run(const takt::Job& job) override {
      std::lock_guard lock(mutex);
      seen.push_back(job.cores);
    }
  } task;
  takt::profiler::ProfileOptions options;
  options.jobs = 3;
  options.burden = takt::profiler::Burden{};  // given: no calibration (it needs two CPUs)
  (void)takt::profiler::profile(task, "cores", {}, options);
  const auto cpus = static_cast<unsigned>(takt::os::allowed_cpus().size());
  ASSERT_GE(task.seen.size(), 1u + 3 * 2);  // the measurement, then per job work, span and T_P runs
  for (unsigned cores : task.seen) EXPECT_EQ(cores, cpus);
}

}  // namespace

namespace {

TEST(Profile, AStopKeepsTheJobsMeasuredBeforeIt) {
  // Each job runs the task twice (the work run and the observed span run) after the one
  // run of takt::measure; a stop asked once 3 jobs are done ends the profile there: 3
  // jobs of 10, each of 200 µs of work, and the text says so.
  int runs = 0;
  FunctionTask task([&] {
    ++runs;
    takt::os::spin_for(200us);
  });
  takt::profiler::ProfileOptions options;
  options.jobs = 10;
  options.burden = takt::profiler::Burden{};
  options.stop_requested = [&] { return runs >= 1 + 2 * 3; };
  const takt::profiler::ProfileResult r = takt::profiler::profile(task, "test", {}, options);
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.jobs, 3u);
  EXPECT_EQ(r.jobs_requested, 10u);
  EXPECT_EQ(r.per_job.size(), 3u);
  EXPECT_EQ(runs, 7);
  EXPECT_GE(r.work.min, 200us);
  EXPECT_GE(r.chosen_work, 200us);
  EXPECT_NE(takt::profiler::profile_text(r).find("3 job(s) (stopped after 3 of 10)"), std::string::npos)
      << takt::profiler::profile_text(r);
  const nlohmann::json j = takt::profiler::profile_json(r);
  EXPECT_EQ(j["jobs"], 3);
  EXPECT_EQ(j["jobs_requested"], 10);
  EXPECT_EQ(j["stopped"], true);
}

TEST(Profile, AStopBeforeTheFirstJobMeasuresNothingAndCalibratesNothing) {
  int runs = 0;
  FunctionTask task([&] { ++runs; });
  takt::profiler::ProfileOptions options;
  options.jobs = 10;  // no burden given: a calibration would come next
  options.stop_requested = [] { return true; };
  const takt::profiler::ProfileResult r = takt::profiler::profile(task, "test", {}, options);
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.jobs, 0u);
  EXPECT_TRUE(r.per_job.empty());
  EXPECT_FALSE(r.calibration.has_value());
  EXPECT_EQ(runs, 1);  // takt::measure's run only
}

/// A task that records the times of every job it is given.
class TimesTask final : public takt::Task {
 public:
  void run(const takt::Job& job) override { jobs.push_back(job); }
  std::vector<takt::Job> jobs;
};

TEST(Profile, JobsCarryThePeriodAndDeadlineGivenAndConsistentTimes) {
  // takt::Job: deadline = release + relative deadline; the profiler's jobs had release =
  // now and the rest 0. With the task's period and deadline given (takt profile --update),
  // every job carries them; without, both are 0 and the deadline is the release.
  TimesTask task;
  takt::profiler::ProfileOptions options;
  options.jobs = 2;
  options.burden = takt::profiler::Burden{};
  options.period = 20ms;
  options.relative_deadline = 15ms;
  (void)takt::profiler::profile(task, "test", {}, options);
  ASSERT_GE(task.jobs.size(), 5u);  // measure's run, then the work and the span run of each job
  for (const takt::Job& job : task.jobs) {
    EXPECT_EQ(job.period, 20ms);
    EXPECT_EQ(job.relative_deadline, 15ms);
    EXPECT_GT(job.release.count(), 0);
    EXPECT_EQ(job.deadline, job.release + 15ms);
  }
  TimesTask alone;
  options.period = options.relative_deadline = 0ns;
  (void)takt::profiler::profile(alone, "test", {}, options);
  ASSERT_FALSE(alone.jobs.empty());
  for (const takt::Job& job : alone.jobs) {
    EXPECT_EQ(job.period, 0ns);
    EXPECT_EQ(job.deadline, job.release);
  }
}

TEST(Profile, APercentileBelow100PicksTheNearestRankOfTheSortedJobs) {
  // takt profile --percentile 60 over 5 jobs: the nearest rank is ⌈0.6·5⌉ = 3, the third
  // smallest value. The jobs busy-wait 4, 1, 5, 2 and 3 ms in that order (one serial
  // strand: work = span), so the third smallest is the last job's 3 ms (noise only adds:
  // os::spin_for is wall-clock), where the third job in order would give 5 ms. The
  // profiler calls the task once for takt::measure, then twice per job (the work run and
  // the observed span run).
  const int nominal_ms[] = {4, 1, 5, 2, 3};
  int calls = 0;
  FunctionTask task([&] {
    const int job = calls == 0 ? 0 : (calls - 1) / 2;
    ++calls;
    takt::os::spin_for(std::chrono::milliseconds(nominal_ms[job]));
  });
  takt::profiler::ProfileOptions options;
  options.jobs = 5;
  options.burden = takt::profiler::Burden{};
  options.percentile = 60;
  const takt::profiler::ProfileResult r = takt::profiler::profile(task, "test", {}, options);
  ASSERT_EQ(r.per_job.size(), 5u);
  EXPECT_EQ(calls, 11);
  std::vector<nanoseconds> work, span;
  for (const auto& j : r.per_job) {
    work.push_back(j.work);
    span.push_back(j.dag.span);
  }
  std::sort(work.begin(), work.end());
  std::sort(span.begin(), span.end());
  EXPECT_EQ(r.chosen_work, work[2]);
  EXPECT_EQ(r.chosen_span, span[2]);
  EXPECT_GE(r.chosen_work, 3ms);
  EXPECT_GE(r.per_job[4].work, 3ms);
  EXPECT_GE(r.per_job[2].work, 5ms);
  EXPECT_NE(takt::profiler::profile_text(r).find("for the task set (p60 over the jobs)"), std::string::npos)
      << takt::profiler::profile_text(r);
}

TEST(Profile, WithoutAStopEveryJobIsMeasured) {
  FunctionTask task([] {});
  takt::profiler::ProfileOptions options;
  options.jobs = 4;
  options.burden = takt::profiler::Burden{};
  options.stop_requested = [] { return false; };
  const takt::profiler::ProfileResult r = takt::profiler::profile(task, "test", {}, options);
  EXPECT_FALSE(r.stopped);
  EXPECT_EQ(r.jobs, 4u);
  EXPECT_EQ(r.jobs_requested, 4u);
  EXPECT_EQ(takt::profiler::profile_text(r).find("stopped"), std::string::npos);
}

}  // namespace
