// Tests of the release engine on a simulated clock: release times, limits, both overrun policies, stopping.
#include "platform/release_engine.hpp"
#include "platform/job_runner.hpp"
#include "platform/metrics.hpp"
#include "simulated_clock.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <vector>

using namespace std::chrono_literals;
using std::chrono::nanoseconds;
using namespace takt::platform;
using takt::platform::testing::SimulatedClock;

namespace {

PeriodicTask periodic(std::string name, nanoseconds period, nanoseconds deadline, nanoseconds offset = 0ns) {
  return PeriodicTask{std::move(name), period, deadline, offset, 1};
}

/// Runs every released job for exec(task, job) of simulated time, starting at once
/// (as if each task had its own idle core), recording start and finish on CPU 0.
class SimulatedExecutor final : public ReleaseSink {
 public:
  using ExecTime = std::function<nanoseconds(std::uint32_t, std::uint64_t)>;
  SimulatedExecutor(SimulatedClock& clock, ReleaseEngine& engine, ThreadRecorder* recorder, ExecTime exec)
      : clock_(clock), engine_(engine), recorder_(recorder), exec_(std::move(exec)) {}

  void release(const Release& r) override {
    releases.push_back(r);
    const nanoseconds start = clock_.now();
    record(EventKind::start, r, start);
    clock_.at(start + exec_(r.task, r.job), [this, r] {
      record(EventKind::finish, r, clock_.now());
      engine_.finished(r.task, r.job, clock_.now());
    });
  }

  /// After each pass that released jobs: the number released so far, and when.
  void pass_done() override { passes.push_back({releases.size(), clock_.now()}); }

  std::vector<Release> releases;
  std::vector<std::pair<std::size_t, nanoseconds>> passes;

 private:
  void record(EventKind kind, const Release& r, nanoseconds at) {
    Event e;
    e.kind = kind;
    e.time = at;
    e.release = r.release;
    e.task = r.task;
    e.job = r.job;
    e.cpu = 0;
    recorder_->record(e);
  }

  SimulatedClock& clock_;
  ReleaseEngine& engine_;
  ThreadRecorder* recorder_;
  ExecTime exec_;
};

struct Simulation {
  Simulation(std::vector<PeriodicTask> tasks, ReleaseConfig config, SimulatedExecutor::ExecTime exec,
             nanoseconds origin = 0ns)
      : specs(tasks),
        engine(std::move(tasks), config, clock),
        recorder({2, 4096}),
        lane(recorder.attach("lane")),
        executor(clock, engine, lane, std::move(exec)) {
    engine.start(origin);
  }

  RunMetrics run() {
    engine.run(executor, lane);
    RunInfo info;
    info.origin = engine.origin();
    info.end = clock.now();
    info.overrun = engine.config().overrun;
    info.stopped = engine.stop_requested();
    info.abandoned = engine.abandoned();
    return compute_metrics(specs, recorder, info, std::nullopt, std::nullopt);
  }

  std::vector<Event> events_of(EventKind kind) const {
    std::vector<Event> out;
    for (const Event& e : recorder.events()) {
      if (e.kind == kind) out.push_back(e);
    }
    return out;
  }

  std::vector<PeriodicTask> specs;
  SimulatedClock clock;
  ReleaseEngine engine;
  Recorder recorder;
  ThreadRecorder* lane;
  SimulatedExecutor executor;
};

nanoseconds one_ms(std::uint32_t, std::uint64_t) { return 1ms; }

}  // namespace

TEST(ReleaseEngine, PassDoneFollowsEveryPassThatReleasedJobsOnce) {
  // Three tasks due together at 0, 10 and 20 ms, a fourth at 5 and 15 ms: one
  // pass_done() after all the jobs due at once (federated ranks a shared core then),
  // one for each pass of a single release, none for the passes that release nothing
  // (waiting for the last jobs to finish).
  ReleaseConfig config;
  config.jobs_per_task = 3;
  Simulation sim({periodic("a", 10ms, 10ms), periodic("b", 10ms, 10ms), periodic("c", 10ms, 10ms),
                  periodic("d", 10ms, 10ms, 5ms)},
                 config, one_ms);
  sim.run();
  using Pass = std::pair<std::size_t, nanoseconds>;
  EXPECT_EQ(sim.executor.passes,
            (std::vector<Pass>{{3, 0ms}, {4, 5ms}, {7, 10ms}, {8, 15ms}, {11, 20ms}, {12, 25ms}}));
}

TEST(ReleaseEngine, ReleasesJobKAtOriginPlusOffsetPlusKPeriods) {
  ReleaseConfig config;
  config.jobs_per_task = 4;
  Simulation sim({periodic("a", 10ms, 10ms), periodic("b", 15ms, 12ms, 2ms)}, config, one_ms, 100ms);
  RunMetrics m = sim.run();

  std::map<std::uint32_t, std::vector<nanoseconds>> released;
  for (const auto& r : sim.executor.releases) {
    released[r.task].push_back(r.release);
    EXPECT_EQ(r.eligible, r.release);
    EXPECT_FALSE(r.late);
    EXPECT_EQ(r.deadline, r.release + (r.task == 0 ? 10ms : 12ms));
  }
  EXPECT_EQ(released[0], (std::vector<nanoseconds>{100ms, 110ms, 120ms, 130ms}));
  EXPECT_EQ(released[1], (std::vector<nanoseconds>{102ms, 117ms, 132ms, 147ms}));
  // Releases come in time order across tasks, each at its exact time (simulated: no wake-up latency).
  for (std::size_t i = 1; i < sim.executor.releases.size(); ++i) {
    EXPECT_LE(sim.executor.releases[i - 1].release, sim.executor.releases[i].release);
  }
  for (const Event& e : sim.events_of(EventKind::release)) EXPECT_EQ(e.time, e.release);
  EXPECT_EQ(sim.engine.planned_releases(), 8u);
  EXPECT_EQ(m.jobs_total, 8u);
  EXPECT_EQ(m.misses_total, 0u);
  // The run ends when the last job (b #3, released at 147 ms) has finished.
  EXPECT_EQ(sim.clock.now(), 148ms);
}

TEST(ReleaseEngine, DurationLimitReleasesOnlyBeforeTheEnd) {
  ReleaseConfig config;
  config.duration = 35ms;
  Simulation sim({periodic("a", 10ms, 10ms), periodic("b", 10ms, 10ms, 5ms)}, config, one_ms);
  EXPECT_EQ(sim.engine.planned_releases(), 7u);  // a: 0,10,20,30   b: 5,15,25 (35 is not before 35)
  RunMetrics m = sim.run();
  EXPECT_EQ(m.tasks[0].jobs, 4u);
  EXPECT_EQ(m.tasks[1].jobs, 3u);
  EXPECT_EQ(sim.engine.counts(0).released, 4u);
  EXPECT_FALSE(sim.engine.counts(0).in_flight);
}

TEST(ReleaseEngine, NoLimitMeansNoPlan) {
  SimulatedClock clock;
  ReleaseEngine engine({periodic("a", 10ms, 10ms)}, ReleaseConfig{}, clock);
  EXPECT_FALSE(engine.planned_releases().has_value());
}

// Task: T = D = 10 ms; every job takes 1 ms except job 3, which takes 25 ms (30 → 55 ms).
nanoseconds job3_overruns(std::uint32_t, std::uint64_t k) { return k == 3 ? 25ms : 1ms; }

TEST(ReleaseEngine, SkipPolicyDropsReleasesThatFindTheJobRunning) {
  ReleaseConfig config;
  config.overrun = OverrunPolicy::skip;
  config.jobs_per_task = 8;
  Simulation sim({periodic("t", 10ms, 10ms)}, config, job3_overruns);
  RunMetrics m = sim.run();

  // Releases at 40 and 50 ms find job 3 running (until 55): skipped. 60 and 70 run.
  std::vector<std::uint64_t> released;
  for (const auto& r : sim.executor.releases) released.push_back(r.job);
  EXPECT_EQ(released, (std::vector<std::uint64_t>{0, 1, 2, 3, 6, 7}));
  auto skips = sim.events_of(EventKind::skip);
  ASSERT_EQ(skips.size(), 2u);
  EXPECT_EQ(skips[0].release, 40ms);
  EXPECT_EQ(skips[1].release, 50ms);
  EXPECT_EQ(sim.engine.counts(0).skipped, 2u);
  EXPECT_EQ(sim.engine.counts(0).late, 0u);

  // Metrics, derived by hand: 8 jobs (6 released + 2 skipped); misses = job 3
  // (finished 55 > deadline 40) + the 2 skipped = 3; ratio 3/8.
  const TaskMetrics& t = m.tasks[0];
  EXPECT_EQ(t.jobs, 8u);
  EXPECT_EQ(t.released, 6u);
  EXPECT_EQ(t.skipped, 2u);
  EXPECT_EQ(t.misses, 3u);
  EXPECT_DOUBLE_EQ(t.miss_ratio, 0.375);
  // Responses 1,1,1,25,1,1 ms: mean 30/6 = 5 ms, p99 (rank 6 of 6) 25 ms, relative 5/10.
  EXPECT_EQ(t.response.count, 6u);
  EXPECT_EQ(t.response.min, 1ms);
  EXPECT_EQ(t.response.max, 25ms);
  EXPECT_EQ(t.response.mean, 5ms);
  EXPECT_EQ(t.response.p99, 25ms);
  EXPECT_DOUBLE_EQ(t.mean_relative_response, 0.5);
  const JobResult& j3 = m.jobs[3];
  EXPECT_EQ(j3.index, 3u);
  EXPECT_EQ(j3.status, JobStatus::missed);
  EXPECT_EQ(j3.tardiness(), 15ms);
  EXPECT_EQ(m.jobs[4].status, JobStatus::skipped);
  EXPECT_EQ(m.jobs[4].index, 4u);
}

/// A job that finished before the next release but is reported after it (its thread
/// took the finish time and was then preempted, for example by the lane itself): the
/// skip rule goes by the finish time, so the lane waits up to 1 ms for the report.
TEST(ReleaseEngine, SkipPolicyWaitsBrieflyForAFinishNotYetReported) {
  for (const nanoseconds report_delay : {nanoseconds(300us), nanoseconds(1500us)}) {
    SCOPED_TRACE(report_delay.count());
    SimulatedClock clock;
    ReleaseConfig config;
    config.overrun = OverrunPolicy::skip;
    config.jobs_per_task = 3;
    ReleaseEngine engine({periodic("t", 10ms, 10ms)}, config, clock);
    // Job 0 runs 9.9 ms (finish 9.9 ms, before job 1's release at 10 ms); job 1 and 2
    // run 1 ms. Each finish is reported report_delay after it happened.
    struct LateReport : ReleaseSink {
      SimulatedClock* clock;
      ReleaseEngine* engine;
      nanoseconds delay;
      std::vector<Release> releases;
      std::vector<nanoseconds> released_at;
      void release(const Release& r) override {
        releases.push_back(r);
        released_at.push_back(clock->now());
        const nanoseconds finish = clock->now() + (r.job == 0 ? nanoseconds(9900us) : nanoseconds(1ms));
        clock->at(finish + delay, [this, r, finish] { engine->finished(r.task, r.job, finish); });
      }
    } sink;
    sink.clock = &clock;
    sink.engine = &engine;
    sink.delay = report_delay;
    engine.start(0ns);
    engine.run(sink, nullptr);
    if (report_delay < 1ms) {
      // Reported at 10.2 ms: job 1 is released then, on time (not late), deadline 20 ms.
      ASSERT_EQ(sink.releases.size(), 3u);
      EXPECT_EQ(sink.releases[1].job, 1u);
      EXPECT_EQ(sink.released_at[1], 10200us);
      EXPECT_FALSE(sink.releases[1].late);
      EXPECT_EQ(sink.releases[1].eligible, 10ms);
      EXPECT_EQ(sink.releases[1].deadline, 20ms);
      EXPECT_EQ(engine.counts(0).skipped, 0u);
    } else {
      // Not reported by 11 ms: job 1 is skipped (the rule cannot wait longer).
      ASSERT_EQ(sink.releases.size(), 2u);
      EXPECT_EQ(sink.releases[1].job, 2u);
      EXPECT_EQ(engine.counts(0).skipped, 1u);
    }
  }
}

TEST(ReleaseEngine, WaitPolicyReleasesLateWithReleaseBasedDeadlines) {
  ReleaseConfig config;
  config.overrun = OverrunPolicy::wait;
  config.jobs_per_task = 8;
  Simulation sim({periodic("t", 10ms, 10ms)}, config, job3_overruns);
  RunMetrics m = sim.run();

  // Job 4 (nominal 40) becomes eligible when job 3 finishes at 55 and runs 55 → 56;
  // job 5 (nominal 50) waits for job 4: eligible 56, runs 56 → 57; job 6 is on time.
  ASSERT_EQ(sim.executor.releases.size(), 8u);
  const Release& r4 = sim.executor.releases[4];
  EXPECT_EQ(r4.job, 4u);
  EXPECT_TRUE(r4.late);
  EXPECT_EQ(r4.release, 40ms);
  EXPECT_EQ(r4.eligible, 55ms);
  EXPECT_EQ(r4.deadline, 50ms) << "the deadline stays release-based";
  const Release& r5 = sim.executor.releases[5];
  EXPECT_TRUE(r5.late);
  EXPECT_EQ(r5.eligible, 56ms);
  EXPECT_EQ(r5.deadline, 60ms);
  EXPECT_FALSE(sim.executor.releases[6].late);
  EXPECT_EQ(sim.executor.releases[6].eligible, 60ms);
  EXPECT_EQ(sim.engine.counts(0).late, 2u);
  EXPECT_EQ(sim.engine.counts(0).skipped, 0u);
  auto releases = sim.events_of(EventKind::release);
  ASSERT_EQ(releases.size(), 8u);
  EXPECT_NE(releases[4].flags & event_flag::late, 0);
  EXPECT_EQ(releases[4].aux, 55ms);

  // Metrics by hand: responses 1,1,1,25,16,7,1,1 ms; misses: job 3 (55 > 40) and
  // job 4 (56 > 50) → 2 of 8; mean 53/8 = 6.625 ms; sorted 1,1,1,1,1,7,16,25: p50
  // (rank 4) = 1 ms, p99 (rank 8) = 25 ms; mean relative 0.6625.
  const TaskMetrics& t = m.tasks[0];
  EXPECT_EQ(t.jobs, 8u);
  EXPECT_EQ(t.late, 2u);
  EXPECT_EQ(t.misses, 2u);
  EXPECT_DOUBLE_EQ(t.miss_ratio, 0.25);
  EXPECT_EQ(t.response.mean, 6625us);
  EXPECT_EQ(t.response.p50, 1ms);
  EXPECT_EQ(t.response.p99, 25ms);
  EXPECT_EQ(t.response.max, 25ms);
  EXPECT_DOUBLE_EQ(t.mean_relative_response, 0.6625);
  EXPECT_EQ(m.jobs[4].status, JobStatus::missed);
  EXPECT_EQ(m.jobs[4].tardiness(), 6ms);
  EXPECT_EQ(m.jobs[4].response(), 16ms);
  EXPECT_EQ(m.jobs[5].status, JobStatus::met);
  EXPECT_EQ(m.jobs[5].response(), 7ms);
  // Release latency is measured from the eligible time: 0 here (the simulated executor starts at once).
  EXPECT_EQ(m.jobs[4].release_latency(), 0ns);
}

TEST(ReleaseEngine, StopEndsReleasingAndWaitsForTheRunningJob) {
  ReleaseConfig config;  // no limit: runs until stopped
  config.drain = 100ms;
  Simulation sim({periodic("t", 10ms, 20ms)}, config,
                 [](std::uint32_t, std::uint64_t k) { return k == 3 ? 20ms : 1ms; });
  sim.clock.at(35ms, [&] { sim.engine.request_stop(); });
  RunMetrics m = sim.run();
  EXPECT_EQ(sim.engine.counts(0).released, 4u);  // 0, 10, 20, 30
  EXPECT_EQ(sim.clock.now(), 50ms) << "the lane waited for job 3 (30 → 50)";
  EXPECT_EQ(m.tasks[0].met, 4u);
  EXPECT_EQ(m.tasks[0].abandoned, 0u);
}

TEST(ReleaseEngine, DrainTimeLimitsTheWaitThenTheJobIsAbandoned) {
  ReleaseConfig config;
  config.drain = 5ms;
  Simulation sim({periodic("t", 10ms, 20ms)}, config,
                 [](std::uint32_t, std::uint64_t k) { return k == 3 ? 20ms : 1ms; });
  sim.clock.at(35ms, [&] { sim.engine.request_stop(); });
  RunMetrics m = sim.run();
  EXPECT_EQ(sim.clock.now(), 40ms) << "stop at 35 + drain 5";
  EXPECT_TRUE(sim.engine.counts(0).in_flight);
  // Job 3's deadline (30 + 20 = 50) is after the end (40): no outcome yet.
  EXPECT_EQ(m.jobs.back().status, JobStatus::abandoned);
  EXPECT_EQ(m.tasks[0].abandoned, 1u);
  EXPECT_EQ(m.tasks[0].jobs, 4u);
  EXPECT_DOUBLE_EQ(m.tasks[0].miss_ratio, 0.0) << "0 misses of 3 jobs with an outcome";
}

TEST(ReleaseEngine, UnfinishedJobPastItsDeadlineCountsAsMissed) {
  ReleaseConfig config;
  config.drain = 5ms;
  Simulation sim({periodic("t", 10ms, 8ms)}, config,
                 [](std::uint32_t, std::uint64_t k) { return k == 3 ? 20ms : 1ms; });
  sim.clock.at(35ms, [&] { sim.engine.request_stop(); });
  RunMetrics m = sim.run();
  EXPECT_EQ(sim.clock.now(), 40ms);
  EXPECT_EQ(m.jobs.back().status, JobStatus::unfinished);  // deadline 38 ≤ end 40
  EXPECT_EQ(m.tasks[0].misses, 1u);
  EXPECT_DOUBLE_EQ(m.tasks[0].miss_ratio, 0.25);
}

TEST(ReleaseEngine, AbandonStopsWaitingAtOnce) {
  ReleaseConfig config;
  config.drain = 1s;
  Simulation sim({periodic("t", 10ms, 20ms)}, config,
                 [](std::uint32_t, std::uint64_t k) { return k == 3 ? 200ms : 1ms; });
  sim.clock.at(35ms, [&] { sim.engine.request_stop(); });
  sim.clock.at(37ms, [&] { sim.engine.abandon(); });
  sim.run();
  EXPECT_EQ(sim.clock.now(), 37ms);
  EXPECT_TRUE(sim.engine.abandoned());
}

TEST(ReleaseEngine, AReleaseDueAtTheStopIsCountedAsSkipped) {
  ReleaseConfig config;
  Simulation sim({periodic("t", 10ms, 10ms)}, config, one_ms);
  // The stop lands at exactly 40 ms, before the lane handles the release due then.
  sim.clock.at(40ms, [&] { sim.engine.request_stop(); });
  RunMetrics m = sim.run();
  auto skips = sim.events_of(EventKind::skip);
  ASSERT_EQ(skips.size(), 1u);
  EXPECT_EQ(skips[0].release, 40ms);
  EXPECT_NE(skips[0].flags & event_flag::at_stop, 0);
  EXPECT_EQ(m.tasks[0].jobs, 5u);  // 4 released + 1 skipped: every due release is accounted for
}

TEST(ReleaseEngine, RejectsBadTimingAndLanes) {
  SimulatedClock clock;
  EXPECT_THROW(ReleaseEngine({periodic("a", 0ms, 1ms)}, {}, clock), takt::Error);
  EXPECT_THROW(ReleaseEngine({periodic("a", 1ms, 0ms)}, {}, clock), takt::Error);
  EXPECT_THROW(ReleaseEngine({periodic("a", 1ms, 1ms, -1ms)}, {}, clock), takt::Error);
  ReleaseConfig zero_jobs;
  zero_jobs.jobs_per_task = 0;
  EXPECT_THROW(ReleaseEngine({periodic("a", 1ms, 1ms)}, zero_jobs, clock), takt::Error);

  ReleaseConfig config;
  config.jobs_per_task = 1;
  ReleaseEngine engine({periodic("a", 1ms, 1ms), periodic("b", 1ms, 1ms)}, config, clock);
  struct Nothing : ReleaseSink {
    ReleaseEngine* e;
    void release(const Release& r) override { e->finished(r.task, r.job, 0ns); }
  } sink;
  sink.e = &engine;
  const std::uint32_t a[] = {0};
  EXPECT_THROW(engine.run_lane(a, sink, nullptr), takt::Error) << "not started";
  engine.start(0ns);
  EXPECT_THROW(engine.start(0ns), takt::Error);
  engine.run_lane(a, sink, nullptr);
  const std::uint32_t again[] = {1, 0};
  EXPECT_THROW(engine.run_lane(again, sink, nullptr), takt::Error) << "task a is in two lanes";
  const std::uint32_t out_of_range[] = {7};
  EXPECT_THROW(engine.run_lane(out_of_range, sink, nullptr), takt::Error);
}

namespace {
/// A task whose job k takes duration(k) of simulated time, and throws for job `fails`.
struct TimedTask : takt::Task {
  TimedTask(SimulatedClock& c, std::function<nanoseconds(std::uint64_t)> d, std::uint64_t fails)
      : clock(c), duration(std::move(d)), fail_at(fails) {}
  void run(const takt::Job& job) override {
    clock.advance(duration(job.index));
    if (job.index == fail_at) throw std::runtime_error("sensor unplugged");
  }
  SimulatedClock& clock;
  std::function<nanoseconds(std::uint64_t)> duration;
  std::uint64_t fail_at;
};
}  // namespace

TEST(ReleaseEngine, InlineLaneRunsJobsOnItsThreadWithTheSameOverrunRule) {
  SimulatedClock clock;
  ReleaseConfig config;
  config.jobs_per_task = 6;
  std::vector<PeriodicTask> specs{periodic("t", 10ms, 10ms)};
  ReleaseEngine engine(specs, config, clock);
  Recorder recorder({1, 1024});
  ThreadRecorder* rec = recorder.attach("lane");
  TimedTask task(
      clock, [](std::uint64_t k) { return k == 1 ? 25ms : 2ms; }, 4);
  takt::Task* tasks[] = {&task};
  InlineSink sink(engine, tasks, rec);
  engine.start(0ns);
  engine.run(sink, rec);
  // Job 1 runs 10 → 35: releases 20 and 30 found it running (skip), 40 and 50 run.
  EXPECT_EQ(engine.counts(0).released, 4u);
  EXPECT_EQ(engine.counts(0).skipped, 2u);
  RunInfo info;
  info.end = clock.now();
  RunMetrics m = compute_metrics(specs, recorder, info, std::nullopt, std::nullopt);
  const TaskMetrics& t = m.tasks[0];
  EXPECT_EQ(t.jobs, 6u);
  EXPECT_EQ(t.failed, 1u);  // job 4 threw
  EXPECT_EQ(t.misses, 4u);  // job 1 (35 > 20), 2 skipped, job 4 failed
  ASSERT_EQ(t.errors.size(), 1u);
  EXPECT_EQ(t.errors[0], "job 4: sensor unplugged");
  EXPECT_EQ(m.system.job_errors, 1u);
  EXPECT_EQ(m.jobs[1].response(), 25ms);
  EXPECT_EQ(m.jobs[4].status, JobStatus::failed);
  EXPECT_EQ(m.jobs[5].status, JobStatus::met);
  EXPECT_EQ(recorder.progress().jobs_done, 4u);
  EXPECT_EQ(recorder.progress().misses, 2u);  // job 1 late, job 4 failed (skips are not jobs done)
}

TEST(ReleaseEngine, AnInlineLaneStopsReleasingAtTheJobDuringWhichTheStopCame) {
  // overrun: wait, T = 10 ms, every job runs 15 ms on the lane's own thread: the backlog
  // grows, so after each job the next release is already due. The stop comes at 30 ms,
  // as job 2 starts (it runs 30 -> 45 ms). The release due by then (job 3 at 30 ms) is
  // skipped at the stop, nothing later is released. Before the fix the lane read the
  // stop flag only when a release was not yet due, i.e. never: it released all 50. Then
  // it counted releases up to the moment it saw the stop (45 ms, after the job), so job 4
  // (due at 40 ms, after the stop) was skipped too.
  SimulatedClock clock;
  ReleaseConfig config;
  config.jobs_per_task = 50;
  config.overrun = OverrunPolicy::wait;
  std::vector<PeriodicTask> specs{periodic("t", 10ms, 10ms)};
  ReleaseEngine engine(specs, config, clock);
  Recorder recorder({1, 1024});
  ThreadRecorder* rec = recorder.attach("lane");
  TimedTask task(
      clock,
      [&engine](std::uint64_t k) {
        if (k == 2) engine.request_stop();
        return nanoseconds(15ms);
      },
      999);
  takt::Task* tasks[] = {&task};
  InlineSink sink(engine, tasks, rec);
  engine.start(0ns);
  engine.run(sink, rec);
  EXPECT_EQ(engine.counts(0).released, 3u);  // jobs 0, 1, 2
  EXPECT_EQ(engine.counts(0).skipped, 1u);   // job 3, due at 30 ms
  EXPECT_EQ(engine.stop_time(), 30ms);
  EXPECT_EQ(clock.now(), 45ms);
}

namespace {
/// Polls abandon_if_stalled() every 20 ms of simulated time, as the run loop does,
/// until it fires; keeps what it returned.
struct StallPoller {
  StallPoller(SimulatedClock& c, ReleaseEngine& e) : clock(c), engine(e) { schedule(); }
  void schedule() {
    clock.at(clock.now() + 20ms, [this] {
      stall = engine.abandon_if_stalled();
      if (!stall) schedule();
    });
  }
  SimulatedClock& clock;
  ReleaseEngine& engine;
  std::optional<Stall> stall;
};
}  // namespace

TEST(ReleaseEngine, AReleasePendingUnderWaitBehindAJobThatDoesNotEndIsAbandonedAfterThePatience) {
  // overrun: wait, T = D = 10 ms, 5 jobs: the last nominal release is at 40 ms. Job 0
  // runs 1000 s. Without the backstop the lane waits for it to release job 1, and the
  // run lasts 5 x 1000 s. Patience = max(D, C) + drain + 0.5 s = 10 + 5 + 500 = 515 ms,
  // counted from 40 ms (no release or finish since then): the first poll past 555 ms,
  // at 560 ms, abandons the run; jobs 1-4 were due and never released: skipped at the stop.
  ReleaseConfig config;
  config.overrun = OverrunPolicy::wait;
  config.jobs_per_task = 5;
  config.drain = 5ms;
  Simulation sim({periodic("t", 10ms, 10ms)}, config,
                 [](std::uint32_t, std::uint64_t k) { return k == 0 ? nanoseconds(1000s) : 1ms; });
  StallPoller poller(sim.clock, sim.engine);
  RunMetrics m = sim.run();
  ASSERT_TRUE(poller.stall.has_value());
  EXPECT_EQ(poller.stall->task, 0u);
  EXPECT_EQ(poller.stall->job, 0u);
  EXPECT_EQ(poller.stall->patience, 515ms);
  EXPECT_EQ(poller.stall->quiet, 520ms);  // 560 - 40
  EXPECT_EQ(sim.clock.now(), 560ms);
  EXPECT_TRUE(sim.engine.stalled());
  EXPECT_TRUE(sim.engine.abandoned());
  EXPECT_EQ(sim.engine.counts(0).released, 1u);
  EXPECT_EQ(sim.engine.counts(0).skipped, 4u);
  EXPECT_EQ(m.tasks[0].jobs, 5u);
  EXPECT_EQ(m.jobs[0].status, JobStatus::unfinished);
  EXPECT_TRUE(sim.engine.unconsidered_releases(sim.engine.stop_time(), 100).empty())
      << "the lane accounted for them";
  EXPECT_EQ(sim.engine.stop_time(), 560ms);
}

TEST(ReleaseEngine, ABacklogThatKeepsFinishingJobsIsNotAStall) {
  // The same set with every job taking 300 ms (declared work 0): the backlog runs
  // 0 -> 1.5 s, far past the last release at 40 ms, but a job finishes every 300 ms,
  // less than the 515 ms patience: nothing is abandoned.
  ReleaseConfig config;
  config.overrun = OverrunPolicy::wait;
  config.jobs_per_task = 5;
  config.drain = 5ms;
  Simulation sim({periodic("t", 10ms, 10ms)}, config, [](std::uint32_t, std::uint64_t) { return 300ms; });
  StallPoller poller(sim.clock, sim.engine);
  RunMetrics m = sim.run();
  EXPECT_FALSE(poller.stall.has_value());
  EXPECT_FALSE(sim.engine.stalled());
  EXPECT_EQ(sim.engine.counts(0).released, 5u);
  EXPECT_EQ(m.tasks[0].late, 4u);
}

TEST(ReleaseEngine, TheDeclaredWorkLengthensThePatience) {
  // Jobs of 700 ms, 3 of them (last release at 20 ms): with a declared work of 0 the
  // patience is 515 ms, exceeded at 540 ms, inside job 0; with C = 700 ms it is
  // 700 + 5 + 500 = 1205 ms, more than the 700 ms between finishes: the backlog runs.
  for (const nanoseconds work : {0ns, nanoseconds(700ms)}) {
    SCOPED_TRACE(work.count());
    ReleaseConfig config;
    config.overrun = OverrunPolicy::wait;
    config.jobs_per_task = 3;
    config.drain = 5ms;
    PeriodicTask task = periodic("t", 10ms, 10ms);
    task.work = work;
    Simulation sim({task}, config, [](std::uint32_t, std::uint64_t) { return 700ms; });
    StallPoller poller(sim.clock, sim.engine);
    sim.run();
    EXPECT_EQ(poller.stall.has_value(), work == 0ns);
    EXPECT_EQ(sim.engine.counts(0).released, work == 0ns ? 1u : 3u);
  }
}

TEST(ReleaseEngine, AnInlineLaneInsideAJobThatDoesNotEndIsAbandonedAndItsDueReleasesAccountedFor) {
  // A lane that runs its jobs (partitioned-dm) is inside job 0 and can neither release
  // nor end. T = D = 10 ms, 5 jobs (last release at 40 ms), drain 0: patience 510 ms. The
  // run loop's poll, simulated inside the job: at 500 ms nothing yet (quiet 460 ms), at
  // 600 ms (quiet 560 ms) the run is abandoned, and the releases of jobs 1-4, which the
  // lane never considered, come back as skips at the stop.
  SimulatedClock clock;
  ReleaseConfig config;
  config.jobs_per_task = 5;
  config.drain = 0ns;
  std::vector<PeriodicTask> specs{periodic("t", 10ms, 10ms)};
  ReleaseEngine engine(specs, config, clock);
  Recorder recorder({1, 1024});
  ThreadRecorder* rec = recorder.attach("lane");
  std::optional<Stall> at_500, at_600;
  std::vector<Event> unconsidered;
  std::size_t capped = 0;
  std::uint64_t capped_left_out = 0;
  TimedTask task(
      clock,
      [&](std::uint64_t k) {
        if (k != 0) return nanoseconds(1ms);
        clock.advance(500ms);
        at_500 = engine.abandon_if_stalled();
        clock.advance(100ms);
        at_600 = engine.abandon_if_stalled();
        unconsidered = engine.unconsidered_releases(engine.stop_time(), 100);
        std::uint64_t left_out = 0;
        capped = engine.unconsidered_releases(engine.stop_time(), 3, &left_out).size();
        capped_left_out = left_out;
        return nanoseconds(0);
      },
      999);
  takt::Task* tasks[] = {&task};
  InlineSink sink(engine, tasks, rec);
  engine.start(0ns);
  engine.run(sink, rec);
  EXPECT_FALSE(at_500.has_value());
  ASSERT_TRUE(at_600.has_value());
  EXPECT_EQ(at_600->patience, 510ms);
  EXPECT_EQ(at_600->quiet, 560ms);
  ASSERT_EQ(unconsidered.size(), 4u);
  EXPECT_EQ(capped, 3u);
  EXPECT_EQ(capped_left_out, 1u);
  for (std::size_t i = 0; i < unconsidered.size(); ++i) {
    EXPECT_EQ(unconsidered[i].kind, EventKind::skip);
    EXPECT_EQ(unconsidered[i].job, i + 1);
    EXPECT_EQ(unconsidered[i].release, nanoseconds(10ms) * static_cast<int>(i + 1));
    EXPECT_NE(unconsidered[i].flags & event_flag::at_stop, 0);
  }
}

TEST(ReleaseEngine, NoStallBeforeTheLastReleaseNorWithoutLimitsNorAfterAStop) {
  // Job 0 runs 2 s, T = D = 10 ms, drain 5 ms (patience 515 ms); polled at 1900 ms,
  // 1.9 s without a release or finish: (0) in a 10 s run that is before the last
  // release; (1) a run without limits has no last release; (2) a 3-job run under "wait"
  // (job 1's release pending) stopped at 1899 ms is under the stop's drain rule (the
  // lane waits until 1904 ms).
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    ReleaseConfig config;
    config.drain = 5ms;
    if (variant == 0) config.duration = 10s;
    if (variant == 2) {
      config.jobs_per_task = 3;
      config.overrun = OverrunPolicy::wait;
    }
    Simulation sim({periodic("t", 10ms, 10ms)}, config,
                   [](std::uint32_t, std::uint64_t k) { return k == 0 ? nanoseconds(2s) : 1ms; });
    bool polled = false;
    std::optional<Stall> seen;
    sim.clock.at(1900ms, [&] {
      polled = true;
      seen = sim.engine.abandon_if_stalled();
    });
    if (variant == 1) sim.clock.at(2500ms, [&] { sim.engine.request_stop(); });
    if (variant == 2) sim.clock.at(1899ms, [&] { sim.engine.request_stop(); });
    sim.run();
    EXPECT_TRUE(polled);
    EXPECT_FALSE(seen.has_value());
    EXPECT_FALSE(sim.engine.stalled());
  }
}

TEST(ReleaseEngine, ALaneThatEndedAtAStopLeavesNoUnconsideredReleasesUpToTheStopTime) {
  // T = 1 ms, stopped at 35.5 ms: the lane released jobs 0-35 and ended. The run loop
  // notices the stop up to 20 ms later; counting unconsidered releases up to then would
  // add jobs 36-55 as skipped although no lane was stuck. Up to stop_time() there are none.
  ReleaseConfig config;
  config.drain = 5ms;
  Simulation sim({periodic("t", 1ms, 1ms)}, config, [](std::uint32_t, std::uint64_t) { return 100us; });
  sim.clock.at(35500us, [&] { sim.engine.request_stop(); });
  sim.run();
  EXPECT_EQ(sim.engine.stop_time(), 35500us);
  EXPECT_EQ(sim.engine.counts(0).released, 36u);
  EXPECT_TRUE(sim.engine.unconsidered_releases(sim.engine.stop_time(), 1000).empty());
  EXPECT_EQ(sim.engine.unconsidered_releases(sim.engine.stop_time() + 20ms, 1000).size(), 20u);
}
