// Tests of the metrics: a hand-built event stream with known outcomes gives exactly the metrics derived by
// hand.
#include "platform/metrics.hpp"
#include "platform/metrics_json.hpp"
#include "platform/metrics_table.hpp"
#include "platform/open_strands.hpp"
#include "platform/percentile.hpp"
#include "platform/run_report.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <string>
#include <thread>

#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace std::chrono_literals;
using std::chrono::nanoseconds;
using namespace takt::platform;

TEST(Percentile, NearestRank) {
  // 1..8: p50 has rank ⌈0.5·8⌉ = 4 → 4; p99 has rank ⌈7.92⌉ = 8 → 8; p25 rank 2 → 2.
  std::vector<int> v{1, 2, 3, 4, 5, 6, 7, 8};
  std::span<const int> s(v);
  EXPECT_EQ(nearest_rank(s, 50), 4);
  EXPECT_EQ(nearest_rank(s, 99), 8);
  EXPECT_EQ(nearest_rank(s, 25), 2);
  EXPECT_EQ(nearest_rank(s, 100), 8);
  // 100 values 1..100: p99 is exactly the 99th value.
  std::vector<int> w(100);
  for (int i = 0; i < 100; ++i) w[i] = i + 1;
  EXPECT_EQ(nearest_rank(std::span<const int>(w), 99), 99);
  EXPECT_EQ(nearest_rank(std::span<const int>(w), 95), 95);
  std::vector<int> one{7};
  EXPECT_EQ(nearest_rank(std::span<const int>(one), 1), 7);
  // 7/100 · 100 is 7.000000000000001 in doubles: ⌈⌉ of that is 8, but the rank is 7.
  // The 1e-9 taken off before the ceiling keeps such products on their whole number.
  EXPECT_EQ(nearest_rank(std::span<const int>(w), 7), 7);
  EXPECT_EQ(nearest_rank(std::span<const int>(w), 29), 29);  // 28.999999999999996: ⌈⌉ is 29 either way
}

TEST(Percentile, SummarizeDurations) {
  DurationStats s = summarize({30us, 10us, 20us});
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.min, 10us);
  EXPECT_EQ(s.mean, 20us);
  EXPECT_EQ(s.p50, 20us);
  EXPECT_EQ(s.p99, 30us);
  EXPECT_EQ(s.max, 30us);
  EXPECT_EQ(summarize({}).count, 0u);
  // The mean is rounded to the nearest nanosecond, halves away from zero: 1.5 ns -> 2 ns,
  // (1 + 1 + 2)/3 = 1.33 ns -> 1 ns.
  EXPECT_EQ(summarize({1ns, 2ns}).mean, 2ns);
  EXPECT_EQ(summarize({1ns, 1ns, 2ns}).mean, 1ns);
}

namespace {

Event ev(EventKind kind, std::uint32_t task, std::uint64_t job, nanoseconds time, nanoseconds release,
         int cpu, std::uint8_t flags = 0, std::uint64_t arg = 0, nanoseconds aux = 0ns) {
  Event e;
  e.kind = kind;
  e.task = task;
  e.job = job;
  e.time = time;
  e.release = release;
  e.cpu = static_cast<std::int16_t>(cpu);
  e.flags = flags;
  e.arg = arg;
  e.aux = aux;
  return e;
}

// Task A: T = D = 10 ms. Task B: T = 20 ms, D = 15 ms. Origin 0, the run ends at 45 ms.
//   A#0 released 0, starts 0.05 on cpu 0, finishes 4        → met, response 4, latency 50 µs
//   B#0 released 0, starts 0.1 on cpu 1, strand 1 on cpu 1 (0.1 → 3.1), strand 2 stolen
//       to cpu 0 (1.0 → 2.0), finishes 3.2                   → met, response 3.2, latency 100 µs
//   A#1 released 10, starts 10.2 on cpu 0, finishes 22       → missed (deadline 20), tardiness 2
//   A#2 skipped at 20                                         → counts as a missed job
//   B#1 released 20, starts 20.03 on cpu 1, fails at 30       → failed (a miss), latency 30 µs
//   A#3 released 30, starts 30.01, still running at 45        → unfinished (deadline 40 ≤ 45): miss
//   B#2 released 40, starts 40.02, still running at 45        → abandoned (deadline 55 > 45)
std::vector<Event> scenario() {
  using E = EventKind;
  std::vector<Event> v{
      ev(E::release, 0, 0, 0us, 0us, 0, 0, 0, 0us),
      ev(E::release, 1, 0, 0us, 0us, 0, 0, 0, 0us),
      ev(E::start, 0, 0, 50us, 0us, 0),
      ev(E::start, 1, 0, 100us, 0us, 1),
      ev(E::strand_begin, 1, 0, 100us, 0us, 1, 0, 1),
      ev(E::steal, 1, 0, 1000us, 0us, 0, 0, 1),
      ev(E::preemption, 0, 0, 1000us, 0us, 0, 0, 0),
      ev(E::strand_begin, 1, 0, 1000us, 0us, 0, 0, 2),
      ev(E::strand_end, 1, 0, 2000us, 0us, 0, 0, 2),
      ev(E::strand_end, 1, 0, 3100us, 0us, 1, 0, 1),
      ev(E::finish, 1, 0, 3200us, 0us, 1),
      ev(E::finish, 0, 0, 4000us, 0us, 0),
      ev(E::release, 0, 1, 10000us, 10000us, 0, 0, 0, 10000us),
      ev(E::start, 0, 1, 10200us, 10000us, 0),
      ev(E::release, 1, 1, 20000us, 20000us, 0, 0, 0, 20000us),
      ev(E::skip, 0, 2, 20000us, 20000us, 0),
      ev(E::start, 1, 1, 20030us, 20000us, 1),
      ev(E::finish, 0, 1, 22000us, 10000us, 0),
      ev(E::migration, 1, 1, 25000us, 20000us, 1, event_flag::thread_moved, 0),
      ev(E::finish, 1, 1, 30000us, 20000us, 1, event_flag::failed),
      ev(E::release, 0, 3, 30000us, 30000us, 0, 0, 0, 30000us),
      ev(E::start, 0, 3, 30010us, 30000us, 0),
      ev(E::release, 1, 2, 40000us, 40000us, 0, 0, 0, 40000us),
      ev(E::start, 1, 2, 40020us, 40000us, 1),
  };
  return v;
}

std::vector<PeriodicTask> scenario_tasks() {
  // Declared work: A 5 ms, B 8 ms.
  return {PeriodicTask{"A", 10ms, 10ms, 0ms, 1, 5ms}, PeriodicTask{"B", 20ms, 15ms, 0ms, 2, 8ms}};
}

MetricsInput scenario_input() {
  static const auto tasks = scenario_tasks();
  static const auto events = scenario();
  MetricsInput in;
  in.tasks = tasks;
  in.events = events;
  in.run.origin = 0ns;
  in.run.end = 45ms;
  in.run.policy = "test";
  in.errors = {JobError{1, 1, "disk full"}};
  in.job_errors = 1;
  SystemSample before, after;
  before.context_switches = {10, 2};
  after.context_switches = {25, 5};
  before.process_cpu_time = 1s;
  after.process_cpu_time = 1s + 30ms;
  before.cpu_busy = {100ms, 200ms};
  after.cpu_busy = {130ms, 215ms};
  in.before = before;
  in.after = after;
  return in;
}

RunMetrics scenario_metrics() { return compute_metrics(scenario_input()); }

}  // namespace

TEST(Metrics, PerJobOutcomesFromAKnownStream) {
  RunMetrics m = scenario_metrics();
  ASSERT_EQ(m.jobs.size(), 7u);
  auto job = [&](std::uint32_t t, std::uint64_t k) -> const JobResult& {
    for (const auto& j : m.jobs)
      if (j.task == t && j.index == k) return j;
    throw std::logic_error("no such job");
  };
  EXPECT_EQ(job(0, 0).status, JobStatus::met);
  EXPECT_EQ(job(0, 0).response(), 4ms);
  EXPECT_EQ(job(0, 0).release_latency(), 50us);
  EXPECT_EQ(job(0, 0).tardiness(), 0ns);
  EXPECT_EQ(job(1, 0).status, JobStatus::met);
  EXPECT_EQ(job(1, 0).response(), 3200us);
  EXPECT_EQ(job(0, 1).status, JobStatus::missed);
  EXPECT_EQ(job(0, 1).deadline, 20ms);
  EXPECT_EQ(job(0, 1).tardiness(), 2ms);
  EXPECT_EQ(job(0, 1).response(), 12ms);
  EXPECT_EQ(job(0, 2).status, JobStatus::skipped);
  EXPECT_EQ(job(1, 1).status, JobStatus::failed);
  EXPECT_EQ(job(0, 3).status, JobStatus::unfinished);
  EXPECT_EQ(job(1, 2).status, JobStatus::abandoned);
  EXPECT_EQ(job(1, 2).start_cpu, 1);
  // Executed time: start → finish for jobs without strands, the strand segments otherwise.
  EXPECT_EQ(job(0, 0).executed, 3950us);
  EXPECT_EQ(job(1, 0).executed, 4000us);  // strand 1 on cpu 1 (3 ms) + strand 2 on cpu 0 (1 ms)
  EXPECT_EQ(job(0, 1).executed, 11800us);
  EXPECT_EQ(job(1, 1).executed, 9970us);  // failed, but it ran
  EXPECT_EQ(job(0, 3).executed, 0us);     // unfinished: no finish, no strands
}

TEST(Metrics, PerTaskNumbersDerivedByHand) {
  RunMetrics m = scenario_metrics();
  const TaskMetrics& a = m.tasks[0];
  EXPECT_EQ(a.name, "A");
  EXPECT_EQ(a.jobs, 4u);
  EXPECT_EQ(a.released, 3u);
  EXPECT_EQ(a.met, 1u);
  EXPECT_EQ(a.skipped, 1u);
  EXPECT_EQ(a.unfinished, 1u);
  EXPECT_EQ(a.misses, 3u);  // A#1 late, A#2 skipped, A#3 unfinished
  EXPECT_DOUBLE_EQ(a.miss_ratio, 0.75);
  // Responses of finished jobs: 4 and 12 ms.
  EXPECT_EQ(a.response.count, 2u);
  EXPECT_EQ(a.response.min, 4ms);
  EXPECT_EQ(a.response.mean, 8ms);
  EXPECT_EQ(a.response.p99, 12ms);
  EXPECT_EQ(a.response.max, 12ms);
  EXPECT_DOUBLE_EQ(a.mean_relative_response, 0.8);  // (4/10 + 12/10) / 2
  // Release latencies 50, 200, 10 µs: sorted 10, 50, 200 → p50 (rank 2) 50, p99 200.
  EXPECT_EQ(a.release_latency.count, 3u);
  EXPECT_EQ(a.release_latency.p50, 50us);
  EXPECT_EQ(a.release_latency.p99, 200us);
  // Executed per finished job: 3.95 and 11.8 ms, mean 7.875 ms = 1.575 x the declared 5 ms.
  EXPECT_EQ(a.executed.count, 2u);
  EXPECT_EQ(a.executed.mean, 7875us);
  EXPECT_EQ(a.declared_work, 5ms);
  EXPECT_DOUBLE_EQ(a.work_ratio, 1.575);

  const TaskMetrics& b = m.tasks[1];
  EXPECT_EQ(b.jobs, 3u);
  EXPECT_EQ(b.failed, 1u);
  EXPECT_EQ(b.abandoned, 1u);
  EXPECT_EQ(b.misses, 1u);
  EXPECT_DOUBLE_EQ(b.miss_ratio, 0.5);  // 1 miss of 2 jobs with an outcome
  EXPECT_EQ(b.response.count, 1u);      // the failed job has no response time
  EXPECT_DOUBLE_EQ(b.mean_relative_response, 3.2 / 15.0);
  EXPECT_EQ(b.executed.count, 1u);      // B#0's 4 ms; the failed B#1 does not count
  EXPECT_DOUBLE_EQ(b.work_ratio, 0.5);  // 4 ms of the declared 8 ms
  ASSERT_EQ(b.errors.size(), 1u);
  EXPECT_EQ(b.errors[0], "job 1: disk full");

  EXPECT_EQ(m.jobs_total, 7u);
  EXPECT_EQ(m.misses_total, 4u);
  EXPECT_DOUBLE_EQ(m.miss_ratio, 4.0 / 6.0);
}

TEST(Metrics, FailedJobsWithoutAKeptMessageAreCountedUnderTheMessages) {
  // 5 jobs failed, 1 message kept (each thread keeps its first 4): the table lists it and
  // says how many more failed; it listed the kept ones alone until 2026-11-29.
  MetricsInput in = scenario_input();
  in.job_errors = 5;
  const std::string t = format_table(compute_metrics(in));
  EXPECT_NE(t.find("5 job(s) failed:\n  B: job 1: disk full\n  ... and 4 more (the first 4 messages of each "
                   "thread are kept)\n"),
            std::string::npos)
      << t;
  in.job_errors = 1;
  EXPECT_EQ(format_table(compute_metrics(in)).find("more (the first"), std::string::npos);
}

TEST(Recorder, KeptJobErrorsComeInJobOrder) {
  // Thread by thread they read 9, 15, 0, 3 under gedf-paws (any worker runs any job).
  Recorder recorder({2, 64});
  ThreadRecorder* first = recorder.attach("w0");
  ThreadRecorder* second = recorder.attach("w1");
  first->job_error(0, 9, "nine");
  first->job_error(0, 15, "fifteen");
  second->job_error(0, 0, "zero");
  second->job_error(0, 3, "three");
  std::vector<std::uint64_t> jobs;
  for (const JobError& e : recorder.errors()) jobs.push_back(e.job);
  EXPECT_EQ(jobs, (std::vector<std::uint64_t>{0, 3, 9, 15}));
}

TEST(Metrics, ExecutedTimeIsKnownOnlyForJobsThatFinishedBeforeTheFirstDrop) {
  // The recorder dropped its first event at 10 ms: A#0 (finished 4 ms) and B#0 (3.2 ms)
  // have all their events; A#1 (finished 22 ms) may have lost strand events.
  MetricsInput in = scenario_input();
  in.first_drop = 10ms;
  in.events_dropped = 3;
  const RunMetrics m = compute_metrics(in);
  for (const auto& j : m.jobs) {
    SCOPED_TRACE(std::to_string(j.task) + "#" + std::to_string(j.index));
    EXPECT_EQ(j.executed_known, j.finish && *j.finish < 10ms);
    if (!j.executed_known) {
      EXPECT_EQ(j.executed, 0ns);
    }
  }
  const TaskMetrics& a = m.tasks[0];
  EXPECT_EQ(a.executed.count, 1u);                                      // A#0's 3.95 ms
  EXPECT_EQ(a.executed_unknown, 1u);                                    // A#1
  EXPECT_DOUBLE_EQ(a.work_ratio, 0.79);                                 // 3.95 / 5
  EXPECT_EQ(m.tasks[1].executed.count, 1u);                             // B#0's 4 ms
  EXPECT_TRUE(metrics_to_json(m)["jobs"][1]["executed_ns"].is_null());  // A#1
  const std::string t = format_table(m);
  EXPECT_NE(t.find("work/C counts only the jobs that finished before the first dropped event: 2 of 3"),
            std::string::npos)
      << t;
  // A thread without a recorder slot lost every event: no job's executed time is known.
  in.first_drop.reset();
  in.events_unattached = 1;
  EXPECT_EQ(compute_metrics(in).tasks[0].executed.count, 0u);
}

TEST(Metrics, AJobWhoseFinishMayHaveBeenDroppedHasNoOutcome) {
  // A#3 and B#2 have no finish. Job events were dropped, but the ledger covers the
  // first 3 jobs of A and all of B: B#2 still has an outcome (abandoned), A#3's finish
  // may be among the dropped events, so it is "unknown", not an unfinished job (a miss).
  MetricsInput in = scenario_input();
  in.events_dropped = 2;
  in.first_job_drop = 31ms;
  in.ledger_jobs = {3, 3};
  const RunMetrics m = compute_metrics(in);
  const TaskMetrics& a = m.tasks[0];
  EXPECT_EQ(a.jobs, 4u);
  EXPECT_EQ(a.unknown, 1u);
  EXPECT_EQ(a.unfinished, 0u);
  EXPECT_EQ(a.misses, 2u);                    // A#1 late, A#2 skipped
  EXPECT_DOUBLE_EQ(a.miss_ratio, 2.0 / 3.0);  // of the 3 jobs with an outcome
  EXPECT_EQ(m.tasks[1].abandoned, 1u);
  EXPECT_EQ(m.tasks[1].unknown, 0u);
  EXPECT_EQ(m.misses_total, 3u);
  EXPECT_DOUBLE_EQ(m.miss_ratio, 3.0 / 5.0);
  EXPECT_EQ(m.jobs[3].status, JobStatus::unknown);
  const nlohmann::json j = metrics_to_json(m);
  EXPECT_EQ(j["tasks"][0]["unknown"], 1);
  EXPECT_EQ(j["jobs"][3]["status"], "unknown");
  const std::string t = format_table(m);
  EXPECT_NE(t.find("1 job(s) beyond the job ledger have no known outcome"), std::string::npos) << t;
  // Without a dropped job event, the same job is unfinished.
  in.first_job_drop.reset();
  EXPECT_EQ(compute_metrics(in).tasks[0].unfinished, 1u);
}

TEST(Metrics, JobsTheEngineDecidedOnWhoseEventsWereAllDroppedAreStillCounted) {
  // The release engine released A#0, #1, #3, #4, #6 and skipped A#2 and #5 (7 jobs), and
  // released B#0 .. #2, but no event of A#4 .. A#6 survived (beyond the ledger of 3
  // jobs, once the buffers were full). They vanished from A's numbers (4 jobs). Now the
  // engine's counts say there were 7: of the 3 vanished, the engine skipped one more than
  // the recorded skip events show (A#5: skipped, a miss), the other 2 were released and
  // have no known outcome.
  MetricsInput in = scenario_input();
  in.events_dropped = 9;
  in.first_job_drop = 31ms;
  in.ledger_jobs = {3, 3};
  in.engine_counts = {ReleaseCounts{5, 2, 0, false}, ReleaseCounts{3, 0, 0, false}};
  const RunMetrics m = compute_metrics(in);
  const TaskMetrics& a = m.tasks[0];
  EXPECT_EQ(a.jobs, 7u);
  EXPECT_EQ(a.released, 5u);
  EXPECT_EQ(a.skipped, 2u);
  EXPECT_EQ(a.unknown, 3u);                   // A#3 (no finish, beyond the ledger), A#4, A#6
  EXPECT_EQ(a.misses, 3u);                    // A#1 late, A#2 and A#5 skipped
  EXPECT_DOUBLE_EQ(a.miss_ratio, 3.0 / 4.0);  // of the 4 jobs with an outcome
  EXPECT_EQ(m.tasks[1].jobs, 3u);             // B's 3 jobs all have events: nothing added
  EXPECT_EQ(m.jobs_total, 10u);
  EXPECT_EQ(m.misses_total, 4u);              // A's 3 and B#1, which failed
  // No per-job entries for the vanished jobs (a long run can have millions).
  EXPECT_EQ(m.jobs.size(), 7u);
  EXPECT_NE(format_table(m).find("3 job(s) beyond the job ledger have no known outcome"), std::string::npos);
  // Without the engine's counts only the jobs with an event are known (4 of A).
  in.engine_counts.clear();
  EXPECT_EQ(compute_metrics(in).tasks[0].jobs, 4u);
}

TEST(Metrics, AJobRunByOneThreadCountsItsThreadsCpuTimeNotTheTimeOthersPreemptedIt) {
  // A#1 ran 10.2 → 22 ms on cpu 0 (11.8 ms), but its thread's CPU time in it was 6 ms: a
  // job with an earlier deadline preempted it on its shared core for the rest. Its
  // executed time, work/C and cpu 0's job time counted the whole 11.8 ms.
  std::vector<Event> events = scenario();
  for (Event& e : events) {
    if (e.kind == EventKind::finish && e.task == 0 && e.job == 1) {
      e.flags |= event_flag::cpu_timed;
      e.arg = 6'000'000;
    }
  }
  MetricsInput in = scenario_input();
  in.events = events;
  const RunMetrics m = compute_metrics(in);
  EXPECT_EQ(m.jobs[1].executed, 6ms);              // A#1
  EXPECT_EQ(m.tasks[0].executed.mean, 4975us);     // (3.95 + 6) / 2
  EXPECT_DOUBLE_EQ(m.tasks[0].work_ratio, 0.995);  // of the declared 5 ms
  EXPECT_EQ(m.system.cores[0].job_time, 10950us);  // 3.95 + 1 + 6
}

TEST(Metrics, AStrandSegmentTimedByItsThreadsCpuTimeCountsThatTime) {
  // partitioned-dm records each segment's CPU time (a cpu_timed strand_end, in aux). B#0's
  // strand 1 was on cpu 1 from 0.1 to 3.1 ms, but its thread ran 2 ms of it: a thread of
  // higher priority preempted it for the rest. The whole 3 ms counted, and the table told
  // the user to measure C again.
  const RunMetrics before = scenario_metrics();
  std::vector<Event> events = scenario();
  for (Event& e : events) {
    if (e.kind == EventKind::strand_end && e.task == 1 && e.job == 0 && e.arg == 1) {
      e.flags |= event_flag::cpu_timed;
      e.aux = 2ms;
    }
  }
  MetricsInput in = scenario_input();
  in.events = events;
  RunMetrics m = compute_metrics(in);
  auto b0 = [](const RunMetrics& r) {
    for (const JobResult& j : r.jobs) {
      if (j.task == 1 && j.index == 0) return j;
    }
    return JobResult{};
  };
  EXPECT_EQ(b0(before).executed, 4ms);  // 3 + 1 ms of wall-clock segments
  EXPECT_EQ(b0(m).executed, 3ms);       // 2 ms of CPU time + strand 2's 1 ms of wall clock
  EXPECT_FALSE(b0(m).executed_cpu_time) << "strand 2 is still wall-clock time";
  EXPECT_EQ(m.tasks[1].executed_wall_clock, 1u);
  ASSERT_EQ(m.system.cores.size(), 2u);
  EXPECT_EQ(m.system.cores[1].job_time, before.system.cores[1].job_time - 1ms);
  // Both segments timed by CPU time: the job's executed time is CPU time throughout.
  for (Event& e : events) {
    if (e.kind == EventKind::strand_end && e.task == 1 && e.job == 0 && e.arg == 2) {
      e.flags |= event_flag::cpu_timed;
      e.aux = 500us;
    }
  }
  in.events = events;
  m = compute_metrics(in);
  EXPECT_EQ(b0(m).executed, 2500us);
  EXPECT_TRUE(b0(m).executed_cpu_time);
  EXPECT_EQ(m.tasks[1].executed_wall_clock, 0u);
  EXPECT_EQ(metrics_to_json(m)["tasks"][1]["executed_wall_clock"], 0);
  EXPECT_EQ(metrics_to_json(before)["tasks"][1]["executed_wall_clock"], 1);
}

TEST(Metrics, AStrandWhoseThreadMovedToAnotherCpuInsideItStillCounts) {
  // An unpinned thread began B#0's strand 1 on cpu 1 at 0.1 ms; the OS moved it to cpu 0
  // (the recorder notes the move), where the strand ended at 3.1 ms. The segment's 3 ms
  // were lost (its end was looked up on cpu 0 only): B#0 executed 1 ms, not 4 ms.
  std::vector<Event> events = scenario();
  for (Event& e : events) {
    if (e.kind == EventKind::strand_end && e.task == 1 && e.job == 0 && e.arg == 1) e.cpu = 0;
  }
  MetricsInput in = scenario_input();
  in.events = events;
  const RunMetrics m = compute_metrics(in);
  const auto b0 = std::find_if(m.jobs.begin(), m.jobs.end(),
                               [](const JobResult& j) { return j.task == 1 && j.index == 0; });
  ASSERT_NE(b0, m.jobs.end()) << "B#0 is in the metrics";
  EXPECT_EQ(b0->executed, 4ms);  // 3 ms of strand 1 + 1 ms of strand 2
  ASSERT_EQ(m.system.cores.size(), 2u);
  EXPECT_EQ(m.system.cores[1].job_time, scenario_metrics().system.cores[1].job_time)
      << "the segment counts on the CPU it began on";
}

TEST(OpenStrands, AnEndOnAnotherCpuEndsTheOneOpenSegmentOfItsStrandOnly) {
  // Events of strand 7 of B#0.
  auto ev_at = [](EventKind kind, int cpu, nanoseconds t) { return ev(kind, 1, 0, t, 0ns, cpu, 0, 7); };
  OpenStrands open;
  open.begin(ev_at(EventKind::strand_begin, 1, 100us));
  const auto moved = open.end(ev_at(EventKind::strand_end, 0, 300us));
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->begin, 100us);
  EXPECT_EQ(moved->cpu, 1);
  EXPECT_TRUE(open.still_open().empty());
  // Two open segments of the strand (an end was dropped): an end on a third CPU ends
  // neither, since which one it ends is not known; one on a CPU of them ends that one.
  open.begin(ev_at(EventKind::strand_begin, 0, 400us));
  open.begin(ev_at(EventKind::strand_begin, 1, 500us));
  EXPECT_FALSE(open.end(ev_at(EventKind::strand_end, 2, 600us)));
  EXPECT_EQ(open.still_open().size(), 2u);
  const auto same_cpu = open.end(ev_at(EventKind::strand_end, 1, 700us));
  ASSERT_TRUE(same_cpu);
  EXPECT_EQ(same_cpu->begin, 500us);
  // Another strand's segment is never taken.
  Event other = ev_at(EventKind::strand_end, 1, 800us);
  other.arg = 8;
  EXPECT_FALSE(open.end(other));
}

TEST(Metrics, SystemNumbersDerivedByHand) {
  RunMetrics m = scenario_metrics();
  const SystemMetrics& s = m.system;
  EXPECT_EQ(s.migrations, 1u);
  EXPECT_EQ(s.thread_migrations, 1u);
  EXPECT_EQ(s.steals, 1u);
  EXPECT_EQ(s.preemptions, 1u);
  EXPECT_EQ(s.strands, 2u);
  EXPECT_EQ(s.context_switches.voluntary, 15);
  EXPECT_EQ(s.context_switches.involuntary, 3);
  EXPECT_EQ(s.process_cpu_time, 30ms);
  // All six started jobs: latencies 10, 20, 30, 50, 100, 200 µs → p50 (rank 3) 30, p99 (rank 6) 200.
  EXPECT_EQ(s.release_latency.count, 6u);
  EXPECT_EQ(s.release_latency.min, 10us);
  EXPECT_EQ(s.release_latency.p50, 30us);
  EXPECT_EQ(s.release_latency.p99, 200us);
  EXPECT_EQ(s.release_latency.max, 200us);
  // Job time per core: cpu 0 = A#0 (3.95 ms) + B#0's strand 2 (1 ms) + A#1 (11.8 ms) = 16.75 ms;
  // cpu 1 = B#0's strand 1 (3 ms) + B#1 (9.97 ms) = 12.97 ms. B#0 recorded strands, so its
  // start → finish does not count again; unfinished jobs do not count.
  ASSERT_EQ(s.cores.size(), 2u);
  EXPECT_EQ(s.cores[0].cpu, 0);
  EXPECT_EQ(s.cores[0].job_time, 16750us);
  EXPECT_EQ(s.cores[1].job_time, 12970us);
  EXPECT_EQ(s.cores[0].busy, 30ms);
  EXPECT_EQ(s.cores[1].busy, 15ms);
  EXPECT_EQ(s.events_recorded, scenario().size());
}

TEST(Metrics, JsonHasEveryDocumentedField) {
  RunMetrics m = scenario_metrics();
  nlohmann::json j = metrics_to_json(m);
  EXPECT_EQ(j["format"], "takt-run-metrics");
  EXPECT_EQ(j["run"]["policy"], "test");
  EXPECT_DOUBLE_EQ(j["run"]["duration_s"].get<double>(), 0.045);
  for (const char* key : {"overrun", "privileges", "stopped", "abandoned", "stalled", "signal"}) {
    EXPECT_TRUE(j["run"].contains(key)) << key;
  }
  EXPECT_TRUE(j["run"]["error"].is_null());
  EXPECT_EQ(j["totals"]["jobs"], 7);
  EXPECT_EQ(j["totals"]["misses"], 4);
  const auto& a = j["tasks"][0];
  EXPECT_EQ(a["name"], "A");
  EXPECT_DOUBLE_EQ(a["period_ms"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(a["miss_ratio"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(a["response_ms"]["mean"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(a["response_ms"]["p99"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(a["mean_relative_response"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(a["release_latency_us"]["p50"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(a["executed_ms"]["mean"].get<double>(), 7.875);
  EXPECT_DOUBLE_EQ(a["declared_work_ms"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(a["work_ratio"].get<double>(), 1.575);
  for (const char* key : {"jobs", "released", "met", "misses", "skipped", "late", "failed", "unfinished",
                          "abandoned", "unknown", "errors"}) {
    EXPECT_TRUE(a.contains(key)) << key;
  }
  const auto& s = j["system"];
  EXPECT_EQ(s["migrations"], 1);
  EXPECT_EQ(s["context_switches"]["voluntary"], 15);
  EXPECT_DOUBLE_EQ(s["release_latency_us"]["p99"].get<double>(), 200.0);
  EXPECT_DOUBLE_EQ(s["cores"][0]["job_time_ms"].get<double>(), 16.75);
  EXPECT_DOUBLE_EQ(s["cores"][1]["busy_ms"].get<double>(), 15.0);
  ASSERT_EQ(j["jobs"].size(), 7u);
  const auto& j1 = j["jobs"][1];  // A#1
  EXPECT_EQ(j1["task"], "A");
  EXPECT_EQ(j1["index"], 1);
  EXPECT_EQ(j1["status"], "missed");
  EXPECT_EQ(j1["response_ns"], 12'000'000);
  EXPECT_EQ(j1["tardiness_ns"], 2'000'000);
  EXPECT_EQ(j1["release_latency_ns"], 200'000);
  EXPECT_TRUE(j["jobs"][3]["finish_ns"].is_null());  // A#3 unfinished
  EXPECT_EQ(j["jobs"][0]["executed_ns"], 3'950'000);
  EXPECT_FALSE(metrics_to_json(m, false).contains("jobs"));
}

// Every benchmark's document starts from one header: its name, the provenance it was
// given (not one taken now: a run's writes all carry its start), complete, and
// stopped_by only when a signal is named.
TEST(Metrics, BenchmarkHeader) {
  const nlohmann::json start{
      {"takt_version", "9.9.9"}, {"date", "2026-01-02T03:04:05Z"}, {"command", {"takt"}}};
  const nlohmann::json stopped = benchmark_header("layout", start, false, "SIGTERM");
  EXPECT_EQ(stopped, (nlohmann::json{{"benchmark", "layout"},
                                     {"takt_version", "9.9.9"},
                                     {"date", "2026-01-02T03:04:05Z"},
                                     {"command", {"takt"}},
                                     {"complete", false},
                                     {"stopped_by", "SIGTERM"}}));
  const nlohmann::json done = benchmark_header("cpus", start, true);
  EXPECT_EQ(done["complete"], true);
  EXPECT_FALSE(done.contains("stopped_by"));
  // Without a provenance (a report made by hand in a test): the rest only.
  EXPECT_EQ(benchmark_header("latency", nlohmann::json(), true),
            (nlohmann::json{{"benchmark", "latency"}, {"complete", true}}));
  // The first write of a run: complete false and a provenance of now.
  const nlohmann::json first = benchmark_started("sched");
  EXPECT_EQ(first["benchmark"], "sched");
  EXPECT_EQ(first["complete"], false);
  EXPECT_TRUE(first.contains("takt_version") && first.contains("date") && first.contains("command"));
  EXPECT_FALSE(first.contains("stopped_by"));
}

TEST(Metrics, JsonFileIsWrittenWhole) {
  const auto path = std::filesystem::temp_directory_path() / "takt_metrics_test.json";
  write_json_file(path, metrics_to_json(scenario_metrics()));
  std::ifstream in(path);
  nlohmann::json back = nlohmann::json::parse(in);
  EXPECT_EQ(back["totals"]["jobs"], 7);
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".partial"));
  EXPECT_THROW(write_json_file("/nonexistent-folder/x.json", back), takt::Error);
}

/// An empty scratch folder named `name` and this process's id, under the temporary folder.
std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(TextFile, ALinkStaysALinkAndTheFileItNamesIsReplaced) {
  namespace fs = std::filesystem;
  const fs::path dir = fresh_dir("takt_text_file_");
  write_text_file(dir / "target.json", "old\n");
  fs::create_symlink("target.json", dir / "link.json");
  write_text_file(dir / "link.json", "new\n");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir / "link.json")));
  EXPECT_EQ(read_all(dir / "target.json"), "new\n");
  EXPECT_FALSE(fs::exists(dir / "link.json.partial"));
  EXPECT_FALSE(fs::exists(dir / "target.json.partial"));
  fs::remove_all(dir);
}

namespace {

void raise_sigint(const std::filesystem::path&) { ::raise(SIGINT); }

volatile sig_atomic_t handled = 0;
bool handled_in_hook = false;
void count_signal(int) { handled = 1; }
void raise_sigint_and_look(const std::filesystem::path&) {
  ::raise(SIGINT);
  handled_in_hook = handled == 1;
}

/// Runs `child` in a forked process; returns its wait status.
template <typename F>
int in_child(F child) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    child();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

}  // namespace

// A file that is there is replaced as a shell's > would write it: with its permissions,
// its owner and its other names (hard links). Until 2026-11-29 the rename of FILE.partial
// left a private 0600 task set 0644 (readable by everyone), a 0755 file 0644, a hard
// link with the old text, and a root-owned file owned by the user who wrote it.
TEST(TextFile, AReplacedFileKeepsItsPermissionsAndItsHardLinks) {
  namespace fs = std::filesystem;
  const fs::path dir = fresh_dir("takt_text_mode_");
  for (const fs::perms mode : {fs::perms(0600), fs::perms(0755), fs::perms(0640)}) {
    write_text_file(dir / "set.yaml", "old\n");
    fs::permissions(dir / "set.yaml", mode);
    write_text_file(dir / "set.yaml", "new\n");
    EXPECT_EQ(fs::status(dir / "set.yaml").permissions(), mode) << static_cast<int>(mode);
    EXPECT_EQ(read_all(dir / "set.yaml"), "new\n");
  }
  write_text_file(dir / "a.yaml", "old\n");
  fs::create_hard_link(dir / "a.yaml", dir / "b.yaml");
  write_text_file(dir / "a.yaml", "new\n");
  EXPECT_EQ(read_all(dir / "b.yaml"), "new\n") << "the other name of the file";
  EXPECT_EQ(fs::hard_link_count(dir / "a.yaml"), 2u);
  EXPECT_FALSE(fs::exists(dir / "a.yaml.partial"));
  fs::remove_all(dir);
}

TEST(TextFile, AWriteProtectedFileIsRefusedAndAnotherUsersFileKeepsItsOwner) {
  // Root may write any file: a child becomes user nobody, in a folder anyone may write.
  namespace fs = std::filesystem;
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become another user";
  const fs::path dir = fresh_dir("takt_text_owner_");
  fs::permissions(dir, fs::perms::all);
  write_text_file(dir / "protected.yaml", "keep\n");
  fs::permissions(dir / "protected.yaml", fs::perms(0444));
  write_text_file(dir / "shared.yaml", "old\n");
  fs::permissions(dir / "shared.yaml", fs::perms(0666));
  const int status = in_child([&] {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    for (int step = 0; step < 2; ++step) {
      try {
        if (step == 0) {
          check_writable(dir / "protected.yaml");
        } else {
          write_text_file(dir / "protected.yaml", "lost\n");
        }
        ::_exit(3 + step);
      } catch (const takt::Error& e) {
        if (std::string(e.what()).find("Permission denied; the file is write-protected (make it writable, "
                                       "chmod u+w") == std::string::npos) {
          ::_exit(5);
        }
      }
    }
    write_text_file(dir / "shared.yaml", "new\n");
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "2: cannot become nobody; 3, 4: the protected file was not refused (check, "
         "write); 5: the message";
  EXPECT_EQ(read_all(dir / "protected.yaml"), "keep\n");
  EXPECT_EQ(read_all(dir / "shared.yaml"), "new\n");
  struct stat shared {};
  ASSERT_EQ(::stat((dir / "shared.yaml").c_str(), &shared), 0);
  EXPECT_EQ(shared.st_uid, 0u) << "root's file stays root's";
  EXPECT_EQ(shared.st_mode & 07777, 0666u);
  EXPECT_FALSE(fs::exists(dir / "shared.yaml.partial"));
  // Root replaces another user's file through FILE.partial, giving it that owner and mode.
  write_text_file(dir / "theirs.yaml", "old\n");
  ASSERT_EQ(::chown((dir / "theirs.yaml").c_str(), 65534, 65534), 0);
  fs::permissions(dir / "theirs.yaml", fs::perms(0640));
  struct stat first {};
  ASSERT_EQ(::stat((dir / "theirs.yaml").c_str(), &first), 0);
  write_text_file(dir / "theirs.yaml", "new\n");
  struct stat theirs {};
  ASSERT_EQ(::stat((dir / "theirs.yaml").c_str(), &theirs), 0);
  EXPECT_EQ(theirs.st_uid, 65534u);
  EXPECT_EQ(theirs.st_gid, 65534u);
  EXPECT_EQ(theirs.st_mode & 07777, 0640u);
  EXPECT_NE(theirs.st_ino, first.st_ino) << "replaced by the rename, not written in place";
  EXPECT_EQ(read_all(dir / "theirs.yaml"), "new\n");
  fs::remove_all(dir);
}

// A command without a handler (takt generate, convert, analyze) ended by Ctrl-C while
// it writes: the signal takes effect once the file is in place. Before, SIGINT's default
// action ended takt with FILE.partial beside the old FILE.
TEST(TextFile, ASignalWithoutAHandlerEndsTheProcessAfterTheFileIsInPlace) {
  namespace fs = std::filesystem;
  const fs::path dir = fresh_dir("takt_text_file_signal_");
  write_text_file(dir / "out.yaml", "old\n");
  const int status = in_child([&] {
    ::signal(SIGINT, SIG_DFL);
    while_temporary_exists_for_testing.store(&raise_sigint);
    write_text_file(dir / "out.yaml", "new contents\n");
    ::_exit(3);  // not reached: the held-back SIGINT ends the process at the end of the write
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_EQ(read_all(dir / "out.yaml"), "new contents\n");
  EXPECT_FALSE(fs::exists(dir / "out.yaml.partial"));
  fs::remove_all(dir);
}

// A command with a handler (takt run, profile, bench) gets its signal at once, as before.
TEST(TextFile, ASignalWithAHandlerIsNotHeldBack) {
  namespace fs = std::filesystem;
  const fs::path dir = fresh_dir("takt_text_file_handler_");
  const int status = in_child([&] {
    ::signal(SIGINT, &count_signal);
    while_temporary_exists_for_testing.store(&raise_sigint_and_look);
    write_text_file(dir / "out.json", "{}\n");
    ::_exit(handled_in_hook ? 0 : 4);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the handler ran only after the write";
  EXPECT_EQ(read_all(dir / "out.json"), "{}\n");
  fs::remove_all(dir);
}

TEST(TextFile, AFifoIsWrittenInPlace) {
  namespace fs = std::filesystem;
  const fs::path fifo = fs::temp_directory_path() / ("takt_text_file_fifo_" + std::to_string(::getpid()));
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read_all(fifo); });
  write_text_file(fifo, "through the fifo\n");
  reader.join();
  EXPECT_EQ(got, "through the fifo\n");
  EXPECT_TRUE(fs::is_fifo(fs::status(fifo)));
  EXPECT_FALSE(fs::exists(fifo.string() + ".partial"));
  fs::remove(fifo);
}

TEST(TextFile, OnlyAFileReplacedWholeTakesABenchmarksCheckpoints) {
  // A plain file (or none yet) is replaced whole at each write: a benchmark writes it as
  // it goes. A FIFO, a device or takt's own standard output takes each write after the
  // last: it gets the final document only (with --json /dev/stdout every checkpoint
  // went to the output, several JSON documents in a row).
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("takt_checkpoints_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_TRUE(takt::platform::takes_checkpoints(dir / "new.json"));
  std::ofstream(dir / "old.json") << "{}\n";
  EXPECT_TRUE(takt::platform::takes_checkpoints(dir / "old.json"));
  fs::create_symlink(dir / "old.json", dir / "link.json");
  EXPECT_TRUE(takt::platform::takes_checkpoints(dir / "link.json"));
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_FALSE(takt::platform::takes_checkpoints(dir / "fifo"));
  EXPECT_FALSE(takt::platform::takes_checkpoints("/dev/null"));
  // What standard output goes to, here a plain file: written through the stream.
  std::FILE* saved = ::fdopen(::dup(STDOUT_FILENO), "w");
  ASSERT_NE(saved, nullptr);
  std::fflush(stdout);
  const int out = ::open((dir / "stdout.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(out, 0);
  ::dup2(out, STDOUT_FILENO);
  const bool stdout_takes = takt::platform::takes_checkpoints(dir / "stdout.txt");
  std::fflush(stdout);
  ::dup2(::fileno(saved), STDOUT_FILENO);
  ::close(out);
  std::fclose(saved);
  EXPECT_FALSE(stdout_takes);
  fs::remove_all(dir);
}

TEST(TextFile, AFifoWhoseReaderLeavesEarlyIsAnErrorNotADeath) {
  // The reader reads 10 bytes and closes: the next write raised SIGPIPE, which ended
  // takt with nothing said (its trace and table unwritten). Now the write fails with
  // EPIPE and the error names it. In a child process: without the fix it dies.
  namespace fs = std::filesystem;
  const fs::path fifo = fs::temp_directory_path() / ("takt_text_file_early_" + std::to_string(::getpid()));
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EXIT(
      {
        std::thread reader([&] {
          const int fd = ::open(fifo.c_str(), O_RDONLY);
          char ten[10];
          if (fd >= 0 && ::read(fd, ten, sizeof ten) > 0) ::close(fd);
        });
        int code = 1;
        try {
          write_text_file(fifo, std::string(std::size_t{1} << 20, 'x'));  // more than the pipe holds
        } catch (const takt::Error& e) {
          if (std::string(e.what()).find("Broken pipe") != std::string::npos) code = 0;
        }
        reader.join();
        std::_Exit(code);
      },
      ::testing::ExitedWithCode(0), "");
  fs::remove(fifo);
}

TEST(TextFile, AFileDescriptorLinkToAPipeIsWrittenThrough) {
  // /dev/stdout of a pipeline (`takt run ... --json /dev/stdout | jq`) or a shell's
  // >(...) is /proc/self/fd/N, a link that reads back as "pipe:[N]": followed as a
  // relative path, it named nothing and the output was refused before the run.
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const std::filesystem::path link = "/proc/self/fd/" + std::to_string(p[1]);
  EXPECT_NO_THROW(check_writable(link));
  EXPECT_NO_THROW(write_text_file(link, "through the pipe\n"));
  ::close(p[1]);
  std::string got;
  char buf[64];
  for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  ::close(p[0]);
  EXPECT_EQ(got, "through the pipe\n");
}

TEST(TextFile, StandardOutputThatIsAPipeOrASocketIsWrittenThroughTheStream) {
  // `takt ... --json /dev/stdout | jq`: the JSON went to the pipe through a descriptor of
  // its own, before what stdout still buffered (the table), and a socket as standard
  // output (a service's) could not be opened at all. Both now go through the stream, in
  // order. In a child whose standard output is the pipe or socket.
  for (const bool socket : {false, true}) {
    SCOPED_TRACE(socket ? "socket" : "pipe");
    int fds[2];
    ASSERT_EQ(socket ? ::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) : ::pipe(fds), 0);
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      ::dup2(fds[1], STDOUT_FILENO);
      ::close(fds[1]);
      std::fputs("table first, ", stdout);  // no newline: still in the stream's buffer
      int code = 0;
      try {
        write_text_file("/dev/stdout", "json after\n");
      } catch (...) {
        code = 1;
      }
      std::fflush(stdout);
      std::_Exit(code);
    }
    ASSERT_GT(pid, 0);
    ::close(fds[1]);
    std::string got;
    char buf[256];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "write_text_file threw";
    EXPECT_EQ(got, "table first, json after\n");
  }
}

TEST(TextFile, AFifoThatNoProcessReadsIsAnErrorAfterTheWait) {
  // open() of a FIFO without a reader waited for ever (after a run, holding back the
  // table printed after the file). Now the writer waits kFifoReaderWait for a reader.
  namespace fs = std::filesystem;
  const fs::path fifo = fs::temp_directory_path() / ("takt_text_file_lonely_" + std::to_string(::getpid()));
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  try {
    write_text_file(fifo, "nobody reads this\n");
    ADD_FAILURE() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("it is a FIFO that no process reads (waited 10 s); start its reader first"),
              std::string::npos)
        << e.what();
  }
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, kFifoReaderWait);
  EXPECT_LT(waited, kFifoReaderWait + std::chrono::seconds(5));
  EXPECT_TRUE(fs::is_fifo(fs::status(fifo)));
  fs::remove(fifo);
}

TEST(TextFile, AFolderIsRefusedBeforeAnythingIsWritten) {
  namespace fs = std::filesystem;
  const fs::path dir = fresh_dir("takt_text_file_dir_");
  try {
    write_text_file(dir, "x");
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("it is a folder; give a file name"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir.string() + ".partial"));
  fs::remove_all(dir);
}

/// The message of check_writable(path), or "" when it passes.
std::string writable_problem(const std::filesystem::path& path) {
  try {
    takt::platform::check_writable(path);
  } catch (const takt::Error& e) {
    return e.what();
  }
  return "";
}

TEST(TextFile, AnImmutableOrAppendOnlyFileIsRefusedBeforeTheRun) {
  // Such a file cannot be replaced by a rename: the check passed it, and the run failed
  // only when it wrote its results at the end (kept in FILE.partial).
  namespace fs = std::filesystem;
  const fs::path dir = fresh_dir("takt_text_file_attr_");
  const fs::path file = dir / "kept.json";
  std::ofstream(file) << "old\n";
  for (const auto& [flag, name] :
       {std::pair{FS_IMMUTABLE_FL, "immutable"}, std::pair{FS_APPEND_FL, "append-only"}}) {
    SCOPED_TRACE(name);
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    int flags = 0;
    const bool readable = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
    int with = flags | static_cast<int>(flag);
    if (!readable || ::ioctl(fd, FS_IOC_SETFLAGS, &with) != 0) {
      ::close(fd);
      fs::remove_all(dir);
      GTEST_SKIP() << "the file system or this process cannot set file attributes (CAP_LINUX_IMMUTABLE)";
    }
    const std::string problem = writable_problem(file);
    ::ioctl(fd, FS_IOC_SETFLAGS, &flags);  // off again, so the file can go
    ::close(fd);
    EXPECT_NE(problem.find("cannot write '" + file.string() + "': the file is " + name), std::string::npos)
        << problem;
    EXPECT_NE(problem.find(std::string("chattr -") + name[0]), std::string::npos) << problem;
  }
  // Without the attribute it passes again.
  EXPECT_EQ(writable_problem(file), "");
  fs::remove_all(dir);
}

TEST(TextFile, AnOutputPathIsCheckedWithoutLeavingAFileBehind) {
  namespace fs = std::filesystem;
  const fs::path dir = fresh_dir("takt_text_file_check_");
  // A folder, a missing folder, a path below a file.
  EXPECT_NE(writable_problem(dir).find("it is a folder; give a file name"), std::string::npos);
  const std::string missing = writable_problem(dir / "none" / "x.json");
  EXPECT_NE(missing.find("cannot write '" + (dir / "none" / "x.json").string() + "'"), std::string::npos)
      << missing;
  EXPECT_NE(missing.find("the folder '" + (dir / "none").string() + "' does not exist"), std::string::npos)
      << missing;
  EXPECT_FALSE(fs::exists(dir / "none"));
  std::ofstream(dir / "plain") << "text\n";
  EXPECT_NE(writable_problem(dir / "plain" / "x.json").find("is not a folder"), std::string::npos);
  // A new file may be written: nothing is left behind.
  EXPECT_EQ(writable_problem(dir / "new.json"), "");
  EXPECT_FALSE(fs::exists(dir / "new.json"));
  EXPECT_FALSE(fs::exists(dir / "new.json.partial"));
  // An existing file, a temporary file left over from before: both kept as they were.
  EXPECT_EQ(writable_problem(dir / "plain"), "");
  EXPECT_EQ(read_all(dir / "plain"), "text\n");
  std::ofstream(dir / "left.json.partial") << "half";
  EXPECT_EQ(writable_problem(dir / "left.json"), "");
  EXPECT_EQ(read_all(dir / "left.json.partial"), "half");
  EXPECT_FALSE(fs::exists(dir / "left.json"));
  // A folder left where the temporary file goes: named, with what to do.
  fs::create_directories(dir / "out.json.partial");
  const std::string left = writable_problem(dir / "out.json");
  EXPECT_NE(left.find("'" + (dir / "out.json.partial").string() +
                      "', where takt writes it first, is a folder; "
                      "remove it"),
            std::string::npos)
      << left;
  try {
    write_text_file(dir / "out.json", "x");
    ADD_FAILURE() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("is a folder; remove it"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "out.json"));
  // A FIFO there would block the check's open: refused the same way.
  ASSERT_EQ(::mkfifo((dir / "pipe.json.partial").c_str(), 0600), 0);
  EXPECT_NE(writable_problem(dir / "pipe.json").find("is not a plain file; remove it"), std::string::npos);
  // A FIFO without a reader: checked without waiting for one.
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_EQ(writable_problem(dir / "fifo"), "");
  // A folder that may not be written (root may write anywhere).
  if (::geteuid() != 0) {
    fs::create_directories(dir / "locked");
    fs::permissions(dir / "locked", fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_NE(writable_problem(dir / "locked" / "x.json").find("Permission denied"), std::string::npos);
    fs::permissions(dir / "locked", fs::perms::owner_all);
  }
  fs::remove_all(dir);
}

TEST(TextFile, ALinkOrAFifoAtThePartialNameIsRefusedNeitherFollowedNorWaitedOn) {
  // Next to an existing file, too: the check used to stop at "the file may be written".
  namespace fs = std::filesystem;
  const fs::path dir = fresh_dir("takt_text_file_partial_");
  std::ofstream(dir / "victim.txt") << "precious\n";
  std::ofstream(dir / "z.json") << "old\n";
  fs::create_symlink("victim.txt", dir / "z.json.partial");
  const std::string remedy = "'" + (dir / "z.json.partial").string() +
                             "', where takt writes it first, is a symbolic link; remove it";
  EXPECT_NE(writable_problem(dir / "z.json").find(remedy), std::string::npos)
      << writable_problem(dir / "z.json");
  try {
    write_text_file(dir / "z.json", "new\n");
    ADD_FAILURE() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find(remedy), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_all(dir / "victim.txt"), "precious\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "z.json")));
  EXPECT_EQ(read_all(dir / "z.json"), "old\n");

  // A FIFO. A reader holds it open, so that a write into it would not wait (and the test
  // would not hang) but go into the pipe.
  std::ofstream(dir / "y.json") << "old\n";
  ASSERT_EQ(::mkfifo((dir / "y.json.partial").c_str(), 0600), 0);
  const int reader = ::open((dir / "y.json.partial").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  EXPECT_NE(writable_problem(dir / "y.json").find("y.json.partial', where takt writes it first, is not a "
                                                  "plain file; remove it"),
            std::string::npos)
      << writable_problem(dir / "y.json");
  EXPECT_THROW(write_text_file(dir / "y.json", "new\n"), takt::Error);
  ::close(reader);
  ASSERT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "y.json")));
  EXPECT_EQ(read_all(dir / "y.json"), "old\n");

  // A plain file left there is replaced, not written through: another name of it (a hard
  // link) keeps its contents.
  std::ofstream(dir / "other.txt") << "other\n";
  fs::create_hard_link(dir / "other.txt", dir / "h.json.partial");
  EXPECT_EQ(writable_problem(dir / "h.json"), "");
  write_text_file(dir / "h.json", "new\n");
  EXPECT_EQ(read_all(dir / "h.json"), "new\n");
  EXPECT_EQ(read_all(dir / "other.txt"), "other\n");
  EXPECT_FALSE(fs::exists(dir / "h.json.partial"));
  fs::remove_all(dir);
}

TEST(TextFile, ALinkToAFileNotThereYetStaysALinkAndTheFileIsCreated) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("takt_text_file_dangling_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  fs::create_symlink("sub/tgt.json", dir / "dl.json");
  fs::create_symlink("dl.json", dir / "chain.json");  // a link to the link
  EXPECT_EQ(writable_problem(dir / "chain.json"), "");
  EXPECT_FALSE(fs::exists(dir / "sub" / "tgt.json"));
  EXPECT_FALSE(fs::exists(dir / "sub" / "tgt.json.partial"));
  EXPECT_EQ(write_target(dir / "chain.json"), dir / "sub" / "tgt.json");
  write_text_file(dir / "chain.json", "new\n");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir / "chain.json")));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir / "dl.json")));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "sub" / "tgt.json")));
  EXPECT_EQ(read_all(dir / "sub" / "tgt.json"), "new\n");
  EXPECT_FALSE(fs::exists(dir / "sub" / "tgt.json.partial"));
  EXPECT_FALSE(fs::exists(dir / "dl.json.partial"));
  // Links that go round in a loop name no file.
  fs::create_symlink("b.json", dir / "a.json");
  fs::create_symlink("a.json", dir / "b.json");
  EXPECT_NE(writable_problem(dir / "a.json").find("its symbolic links go round in a loop"), std::string::npos)
      << writable_problem(dir / "a.json");
  EXPECT_THROW(write_text_file(dir / "a.json", "x"), takt::Error);
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir / "a.json")));
  EXPECT_FALSE(fs::exists(dir / "a.json.partial"));
  fs::remove_all(dir);
}

TEST(Metrics, TableShowsTasksTotalsAndSystem) {
  std::string t = format_table(scenario_metrics());
  EXPECT_NE(t.find("policy test"), std::string::npos) << t;
  EXPECT_NE(t.find("A "), std::string::npos) << t;
  EXPECT_NE(t.find("75.00"), std::string::npos) << "A's miss ratio in %\n" << t;
  EXPECT_NE(t.find("total"), std::string::npos) << t;
  EXPECT_NE(t.find("p50 30.0 us, p99 200.0 us"), std::string::npos) << t;
  EXPECT_NE(t.find("migrations 1"), std::string::npos) << t;
  EXPECT_NE(t.find("15 voluntary, 3 involuntary"), std::string::npos) << t;
  EXPECT_NE(t.find("cpu 0: jobs ran 0.017 s"), std::string::npos) << t;
  EXPECT_NE(t.find("B: job 1: disk full"), std::string::npos) << t;
  EXPECT_NE(t.find("work/C"), std::string::npos) << t;
  EXPECT_NE(t.find("  0.50\n"), std::string::npos) << "B's work/C\n" << t;
  // A ran 1.575 x its C: a warning that names the task and the remedy; B (0.5) gets none.
  // A's jobs are timed start -> finish, by the wall clock, which counts preemption too:
  // the warning says so rather than blame C alone (it said "measure C on this machine").
  EXPECT_NE(t.find("warning: the jobs of A took 1.57x its declared work C = 5.000 ms on average (7.875 ms), "
                   "timed by the wall clock on 2 of its 2 jobs: this counts the time other threads or "
                   "processes ran on its cores, so it need not mean that C is too small"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("the jobs of B"), std::string::npos) << t;
  EXPECT_NE(t.find("takt profile --update FILE"), std::string::npos) << t;
  // A caller without a task-set file (takt demo) names its own remedy.
  t = format_table(scenario_metrics(), "takt demo --print-set > FILE, then takt profile --update FILE");
  EXPECT_NE(
      t.find("measure C on this machine (takt demo --print-set > FILE, then takt profile --update FILE)\n"),
      std::string::npos)
      << t;
}

TEST(Metrics, TheWorkWarningOfJobsTimedByCpuTimeTellsToMeasureC) {
  // A's two finished jobs ran on one thread each, 6 ms of CPU time: 1.2 x its C.
  std::vector<Event> events = scenario();
  for (Event& e : events) {
    if (e.kind == EventKind::finish && e.task == 0) {
      e.flags |= event_flag::cpu_timed;
      e.arg = 6'000'000;
    }
  }
  MetricsInput in = scenario_input();
  in.events = events;
  const std::string t = format_table(compute_metrics(in));
  EXPECT_NE(t.find("warning: the jobs of A executed 1.20x its declared work C = 5.000 ms on average "
                   "(6.000 ms of CPU time): the analysis assumed C and does not cover these jobs; measure C "
                   "on this machine (takt profile --update FILE)\n"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("wall clock"), std::string::npos) << t;
}

TEST(Metrics, EmptyRunIsAllZero) {
  std::vector<PeriodicTask> tasks{PeriodicTask{"A", 10ms, 10ms, 0ms, 1}};
  MetricsInput in;
  in.tasks = tasks;
  RunMetrics m = compute_metrics(in);
  ASSERT_EQ(m.tasks.size(), 1u);
  EXPECT_EQ(m.tasks[0].jobs, 0u);
  EXPECT_EQ(m.tasks[0].miss_ratio, 0.0);
  EXPECT_EQ(m.tasks[0].work_ratio, 0.0);  // no C declared, no job
  EXPECT_EQ(m.miss_ratio, 0.0);
  EXPECT_NO_THROW((void)format_table(m));
  // No sample: null in the JSON (as "-" in the table), not a 0 that reads as perfect.
  const nlohmann::json j = metrics_to_json(m);
  EXPECT_EQ(j["tasks"][0]["response_ms"]["count"], 0);
  EXPECT_TRUE(j["tasks"][0]["response_ms"]["min"].is_null());
  EXPECT_TRUE(j["tasks"][0]["response_ms"]["p99"].is_null());
  EXPECT_TRUE(j["tasks"][0]["mean_relative_response"].is_null());
  EXPECT_TRUE(j["tasks"][0]["work_ratio"].is_null());
  EXPECT_TRUE(j["system"]["release_latency_us"]["mean"].is_null());
}

TEST(Metrics, ARunStoppedBeforeItsFirstReleaseLastedNothing) {
  // The origin lies 50 ms after the start: a Ctrl-C in between ends the run before it.
  // It printed "run: -0.04 s" and duration_s -0.04.
  std::vector<PeriodicTask> tasks{PeriodicTask{"A", 10ms, 10ms, 0ms, 1}};
  MetricsInput in;
  in.tasks = tasks;
  in.run.origin = 1000ms;
  in.run.end = 960ms;
  in.run.stopped = true;
  const RunMetrics m = compute_metrics(in);
  EXPECT_EQ(m.run.duration(), 0ns);
  EXPECT_EQ(metrics_to_json(m)["run"]["duration_s"].get<double>(), 0.0);
  EXPECT_EQ(format_table(m).rfind("run: 0.00 s", 0), 0u) << format_table(m);
}

// One job of task 0, released at 0 and finished at 10 ms, in a run that ended at 5 ms.
RunInfo record_one_job(Recorder& recorder) {
  ThreadRecorder* rec = recorder.attach("lane");
  rec->job_start(0, 0, 0ns, 10us);
  rec->job_finish(0, 0, 0ns, 10ms, 2ms, false);
  RunInfo info;
  info.end = 5ms;
  return info;
}

TEST(RunReport, WritesEveryOutputEvenWhenOneFails) {
  std::vector<PeriodicTask> tasks{PeriodicTask{"A", 10ms, 10ms, 0ms, 1}};
  Recorder recorder({1, 64});
  const RunInfo info = record_one_job(recorder);
  const auto json = std::filesystem::temp_directory_path() / "takt_report_test.json";
  std::filesystem::remove(json);
  std::FILE* table = std::tmpfile();
  ReportOutputs outputs;
  outputs.json = json;
  outputs.trace = "/nonexistent-folder/trace.json";
  outputs.table = table;
  try {
    (void)report_run(tasks, recorder, info, std::nullopt, std::nullopt, outputs);
    FAIL() << "the trace cannot be written";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-folder/trace.json"), std::string::npos) << e.what();
  }
  std::ifstream in(json);
  nlohmann::json back = nlohmann::json::parse(in);
  EXPECT_EQ(back["totals"]["jobs"], 1) << "the JSON was written before the trace failed";
  EXPECT_GT(std::ftell(table), 0) << "the table was printed too";
  std::fclose(table);
}

TEST(RunReport, AJsonDocumentTooLargeForTheMemoryLeftIsNamedWithWhatToChange) {
  // A document is built whole before it is written; running out of memory there was
  // reported as "std::bad_alloc". The trace and the table are still written.
  std::vector<PeriodicTask> tasks{PeriodicTask{"A", 10ms, 10ms, 0ms, 1}};
  Recorder recorder({1, 64});
  const RunInfo info = record_one_job(recorder);
  const std::vector<Event> events = recorder.events();
  const RunMetrics metrics =
      compute_metrics(metrics_input(tasks, events, recorder, info, std::nullopt, std::nullopt));
  const auto dir = std::filesystem::temp_directory_path();
  ReportOutputs outputs;
  outputs.json = dir / "takt_report_oom.json";
  outputs.trace = dir / "takt_report_oom_trace.json";
  std::filesystem::remove(*outputs.trace);
  std::optional<nlohmann::json> written;
  const std::string failures = write_run_outputs(
      metrics, tasks, events, info.origin, outputs,
      [](const RunMetrics&) -> nlohmann::json { throw std::bad_alloc(); }, &written);
  EXPECT_EQ(failures,
            "--json " + outputs.json->string() +
                ": out of memory (an allocation failed) building it: it holds every job of the run (1 of "
                "them); give a shorter --duration (or fewer --jobs), leave this output out, or raise the "
                "limit on memory (ulimit -v)");
  EXPECT_FALSE(written.has_value());
  EXPECT_TRUE(std::filesystem::exists(*outputs.trace)) << "the trace is written after the JSON failed";
}
