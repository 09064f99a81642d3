// Smoke tests of the latency micro-benchmarks: sample counts and ordered statistics (no timing targets here).
#include "bench/latency/latency_bench.hpp"

#include "os/cpu.hpp"
#include "os/realtime.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <map>
#include <set>

using namespace std::chrono_literals;

namespace {
std::vector<int> cpus() { return takt::os::allowed_cpus().cpus(); }

void expect_ordered(const takt::platform::LatencyStats& s) {
  EXPECT_GE(s.min_us, 0.0);
  EXPECT_LE(s.min_us, s.p25_us);
  EXPECT_LE(s.p25_us, s.p50_us);
  EXPECT_LE(s.p50_us, s.p75_us);
  EXPECT_LE(s.p75_us, s.p95_us);
  EXPECT_LE(s.p95_us, s.p99_us);
  EXPECT_LE(s.p99_us, s.max_us);
}
}  // namespace

TEST(LatencyBench, DirectSchedulingLatencyHasOneSamplePerReleasedJob) {
  // 200 ms at 1 ms: releases at 0.3, 1.3, ..., 199.3 ms on each core = 200 per core,
  // each either released (one latency sample) or skipped (a stalled job was running).
  // Each lane runs its own core's job: every CPU starts jobs, and only the allowed ones.
  auto m = takt::bench::measure_scheduling_latency(cpus(), false, false, 200ms, 1000us);
  EXPECT_EQ(m.released + m.skipped, 200u * cpus().size());
  EXPECT_EQ(m.stats.samples, m.released);
  EXPECT_GT(m.released, 0u);
  expect_ordered(m.stats);
  std::uint64_t started = 0;
  for (const auto& [cpu, jobs] : m.started_on) {
    EXPECT_NE(std::find(cpus().begin(), cpus().end(), cpu), cpus().end()) << "cpu " << cpu;
    started += jobs;
  }
  EXPECT_EQ(started, m.released);
  EXPECT_EQ(m.started_on.size(), cpus().size());
}

TEST(LatencyBench, HandoffSchedulingLatencyMeasuresTheWorker) {
  // One task, released by the lane on the first CPU and handed to the worker pinned to
  // the last: each sample ends when the worker starts the job, so every start is the
  // worker's CPU (with two CPUs or more, never the lane's).
  auto m = takt::bench::measure_scheduling_latency(cpus(), false, true, 100ms, 1000us);
  EXPECT_EQ(m.released + m.skipped, 100u);
  EXPECT_EQ(m.stats.samples, m.released);
  EXPECT_GT(m.released, 0u);
  expect_ordered(m.stats);
  EXPECT_EQ(m.started_on, (std::map<int, std::uint64_t>{{cpus().back(), m.released}}));
}

TEST(LatencyBench, BarrierLatencyHasOneSamplePerRound) {
  // Rounds every 200 µs: 100 ms → 500 rounds.
  auto s = takt::bench::measure_barrier_latency(cpus(), 2, false, 0ns, 100ms);
  EXPECT_EQ(s.samples, 500u);
  expect_ordered(s);
}

TEST(LatencyBench, OpenMpBarrierLatencyHasOneSamplePerRoundAndLeavesTheCallerAsItWas) {
  // The same 500 rounds in 100 ms with libgomp's barrier; the calling thread is one of the
  // OpenMP team, pinned to a CPU during it: its CPUs and SCHED_OTHER come back.
  const takt::os::CpuSet before = takt::os::allowed_cpus();
  auto s = takt::bench::measure_openmp_barrier_latency(cpus(), 2, false, 100ms);
  EXPECT_EQ(s.samples, 500u);
  EXPECT_EQ(takt::os::allowed_cpus().to_string(), before.to_string());
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
}

TEST(LatencyBench, TaktBarrierRowsAreComparedWithOpenMpOfTheSameTeamSize) {
  // takt p50 10 us, p95 30 us; libgomp's p50 20 us, p95 15 us: 0.5x and 2.0x. A row of
  // another team size, the scheduling rows and the OpenMP row itself get no ratio.
  auto row = [](const char* benchmark, const char* variant, unsigned threads, double p50, double p95) {
    takt::bench::LatencyResult r;
    r.benchmark = benchmark;
    r.variant = variant;
    r.threads = threads;
    r.stats.samples = 100;
    r.stats.p50_us = p50;
    r.stats.p95_us = p95;
    return r;
  };
  const auto openmp = row("barrier_latency", "openmp", 2, 20, 15);
  auto own = row("barrier_latency", "sleep", 2, 10, 30);
  own.note = "a note";
  takt::bench::compare_with_openmp(own, openmp);
  EXPECT_DOUBLE_EQ(own.ratio_p50_openmp, 0.5);
  EXPECT_DOUBLE_EQ(own.ratio_p95_openmp, 2.0);
  EXPECT_EQ(own.note, "a note; p50 0.50x, p95 2.00x OpenMP's");
  for (auto other :
       {row("barrier_latency", "sleep", 4, 10, 30), row("scheduling_latency", "direct", 2, 10, 30),
        row("barrier_latency", "openmp", 2, 10, 30)}) {
    takt::bench::compare_with_openmp(other, openmp);
    EXPECT_EQ(other.ratio_p50_openmp, 0.0) << other.benchmark << " " << other.variant << " " << other.threads;
    EXPECT_TRUE(other.note.empty());
  }
  // The JSON has the ratios on takt's barrier rows, null where there was none.
  takt::bench::LatencyReport report;
  auto& c = report.conditions.emplace_back();
  c.name = "SCHED_OTHER";
  c.ran = true;
  c.results = {own, row("barrier_latency", "sleep", 4, 10, 30), openmp};
  const auto results = takt::bench::to_json(report)["conditions"][0]["results"];
  EXPECT_DOUBLE_EQ(results[0]["ratio_p95_to_openmp"].get<double>(), 2.0);
  EXPECT_TRUE(results[1]["ratio_p50_to_openmp"].is_null());
  EXPECT_FALSE(results[2].contains("ratio_p50_to_openmp"));
}

TEST(LatencyBench, ReportAndJsonCarryTheTableIIColumns) {
  takt::bench::LatencyBenchOptions o;
  o.seconds = 100ms;
  o.fifo = false;  // SCHED_OTHER only: the smoke test does not take the cores at real-time priority
  o.cyclictest = false;
  auto report = takt::bench::run_latency_bench(o);
  ASSERT_EQ(report.conditions.size(), 1u);
  EXPECT_EQ(report.conditions[0].name, "SCHED_OTHER");
  auto j = takt::bench::to_json(report);
  const auto& results = j["conditions"][0]["results"];
  ASSERT_GE(results.size(), 4u);
  for (const auto& r : results) {
    for (const char* key :
         {"p25_us", "p50_us", "p75_us", "p95_us", "max_us", "samples", "benchmark", "variant"}) {
      EXPECT_TRUE(r.contains(key)) << key;
    }
  }
  EXPECT_EQ(j["paper_table_ii"]["scheduling_latency"]["p50_us"], 9.9);
  EXPECT_FALSE(j["conditions"][0]["cyclictest"]["ran"].get<bool>());
  EXPECT_NE(takt::bench::format_table(report).find("barrier_latency"), std::string::npos);
}

TEST(LatencyBench, BarrierRowsAreTheTargetTeamOneThreadPerCoreAndTwoPerCore) {
  using takt::bench::barrier_teams;
  auto rows = [](unsigned cores) {
    std::vector<std::pair<unsigned, bool>> out;
    for (const auto& t : barrier_teams(cores)) out.emplace_back(t.threads, t.spin);
    return out;
  };
  using Rows = std::vector<std::pair<unsigned, bool>>;
  // One core: 2 sleeping threads share it (no spinning, no second team).
  EXPECT_EQ(rows(1), (Rows{{2, false}}));
  // Two cores: the 2-thread team is also the one-per-core team.
  EXPECT_EQ(rows(2), (Rows{{2, false}, {2, true}, {4, false}}));
  // Sixteen cores: a 16-thread team, as RT-OpenMP's 12 threads on 12 cores.
  EXPECT_EQ(rows(16), (Rows{{2, false}, {2, true}, {16, false}, {16, true}, {32, false}}));
}

TEST(LatencyBench, EveryMeasurementIsACheckpointAndOnlyTheEndIsComplete) {
  takt::bench::LatencyBenchOptions o;
  o.seconds = 50ms;
  o.fifo = false;
  o.cyclictest = false;
  std::vector<std::size_t> rows;
  auto report = takt::bench::run_latency_bench(o, [&](const takt::bench::LatencyReport& partial) {
    EXPECT_FALSE(partial.complete);
    EXPECT_FALSE(takt::bench::to_json(partial)["complete"].get<bool>());
    rows.push_back(partial.conditions.at(0).results.size());
  });
  // Two scheduling rows, the barrier teams, then OpenMP's barrier for each team size; one
  // checkpoint after each.
  const auto teams = takt::bench::barrier_teams(static_cast<unsigned>(cpus().size()));
  std::set<unsigned> sizes;
  for (const auto& t : teams) sizes.insert(t.threads);
  const std::size_t expected = 2 + teams.size() + sizes.size();
  ASSERT_EQ(rows.size(), expected);
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i], i + 1);
  EXPECT_TRUE(report.complete);
  EXPECT_TRUE(takt::bench::to_json(report)["complete"].get<bool>());
}

TEST(LatencyBench, TheTargetsAtTheirLimits) {
  // Release latency: p50 and p99 within 1.5x of the floor's. Floor p50 10 us, p99 20 us.
  takt::platform::CyclictestResult floor;
  floor.ran = true;
  floor.tool = "cyclictest";
  floor.latency.p50_us = 10;
  floor.latency.p99_us = 20;
  auto scheduling = [](double p50, double p99) {
    takt::bench::LatencyResult r;
    r.stats.samples = 100;
    r.stats.p50_us = p50;
    r.stats.p99_us = p99;
    return r;
  };
  takt::bench::LatencyResult r = scheduling(15, 30);  // 1.5x and 1.5x: met
  takt::bench::judge_scheduling_latency(r, floor, 0);
  EXPECT_DOUBLE_EQ(r.ratio_p50, 1.5);
  EXPECT_DOUBLE_EQ(r.ratio_p99, 1.5);
  EXPECT_EQ(r.target, "p50 and p99 within 1.5x of cyclictest");
  EXPECT_TRUE(r.target_met);
  r = scheduling(15.1, 30);  // p50 1.51x: not met
  takt::bench::judge_scheduling_latency(r, floor, 0);
  EXPECT_FALSE(r.target_met);
  r = scheduling(15, 30.2);  // p99 1.51x: not met
  takt::bench::judge_scheduling_latency(r, floor, 0);
  EXPECT_FALSE(r.target_met);
  r = scheduling(10, 20);  // met, but one release was skipped: not met
  takt::bench::judge_scheduling_latency(r, floor, 1);
  EXPECT_FALSE(r.target_met);
  r = scheduling(10, 20);  // no floor: no target, a note
  takt::bench::judge_scheduling_latency(r, takt::platform::CyclictestResult{}, 0);
  EXPECT_TRUE(r.target.empty());
  EXPECT_NE(r.note.find("no cyclictest floor to compare with"), std::string::npos);

  // Barrier: p95 at most 20 us with 2 threads; no target for other team sizes.
  auto barrier = [](unsigned threads, double p95) {
    takt::bench::LatencyResult b;
    b.threads = threads;
    b.stats.samples = 100;
    b.stats.p95_us = p95;
    takt::bench::judge_barrier_latency(b);
    return b;
  };
  EXPECT_TRUE(barrier(2, 20.0).target_met);
  EXPECT_FALSE(barrier(2, 20.1).target_met);
  EXPECT_EQ(barrier(2, 20.0).target, "p95 <= 20 us for 2 threads");
  EXPECT_TRUE(barrier(4, 5.0).target.empty());
}

TEST(LatencyBench, ATargetWithoutSamplesIsNotMet) {
  // One release per second in 0.1 s: the first falls at 0.3 s, after the end, so the
  // scheduling rows have no sample; with a floor to compare with they used to say "met".
  takt::bench::LatencyBenchOptions o;
  o.seconds = 100ms;
  o.period = std::chrono::microseconds(1'000'000);
  o.fifo = false;
  auto report = takt::bench::run_latency_bench(o);
  const auto& c = report.conditions.at(0);
  if (!c.cyclictest.ran) GTEST_SKIP() << "no floor here: " << c.cyclictest.reason;
  int scheduling_rows = 0;
  for (const auto& r : c.results) {
    if (r.benchmark != "scheduling_latency") continue;
    ++scheduling_rows;
    EXPECT_EQ(r.stats.samples, 0u);
    EXPECT_FALSE(r.target.empty());
    EXPECT_FALSE(r.target_met) << r.variant;
    EXPECT_NE(r.note.find("no samples"), std::string::npos) << r.note;
  }
  EXPECT_EQ(scheduling_rows, 2);
}

namespace {
/// Measurements of 50 ms in SCHED_OTHER only, without cyclictest or a PM QoS request.
takt::bench::LatencyBenchOptions short_other_only() {
  takt::bench::LatencyBenchOptions o;
  o.seconds = 50ms;
  o.fifo = false;
  o.cyclictest = false;
  o.pm_qos = false;
  return o;
}
}  // namespace

TEST(LatencyBench, AStopEndsTheRunBetweenMeasurementsAndKeepsThoseMade) {
  // Asked to stop once two measurements are done (as SIGINT would be): the run ends
  // there, the report has both and says it was stopped; the JSON says it is partial.
  takt::bench::LatencyBenchOptions o = short_other_only();
  int measured = 0;
  o.stop_requested = [&] { return measured >= 2; };
  auto report = takt::bench::run_latency_bench(o, [&](const takt::bench::LatencyReport&) { ++measured; });
  EXPECT_TRUE(report.stopped);
  EXPECT_FALSE(report.complete);
  ASSERT_EQ(report.conditions.size(), 1u);
  EXPECT_EQ(report.conditions[0].results.size(), 2u);
  report.stopped_by = "SIGINT";
  const auto j = takt::bench::to_json(report);
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["stopped_by"], "SIGINT");
  const std::string table = takt::bench::format_table(report);
  EXPECT_NE(table.find("stopped by SIGINT: only the measurements made until then"), std::string::npos)
      << table;
}

TEST(LatencyBench, AConditionAStopReachesBeforeItsFirstMeasurementIsNotRun) {
  // A stop between the condition's start (its memory locked) and its first measurement:
  // it said ran: true (and printed an empty block) with nothing measured in it. The first
  // question is asked before the condition begins, the next inside it.
  takt::bench::LatencyBenchOptions o = short_other_only();
  int asked = 0;
  o.stop_requested = [&asked] { return ++asked > 1; };
  const auto report = takt::bench::run_latency_bench(o);
  ASSERT_EQ(report.conditions.size(), 1u);
  EXPECT_FALSE(report.conditions[0].ran);
  EXPECT_EQ(report.conditions[0].reason, "stopped before it");
  EXPECT_TRUE(report.conditions[0].results.empty());
  EXPECT_NE(takt::bench::format_table(report).find("not run: stopped before it"), std::string::npos);
}
