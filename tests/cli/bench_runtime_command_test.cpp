// Tests of `takt bench runtime`, run as a program: its JSON rows (every sample, in
// rounds, and takt's steals and sleeps per sample), the tail targets' bootstrap
// interval, the options it records (caller mode, --fib-n, --runtimes), the JSON kept by a
// run cut short, and its errors for an unknown kernel or runtime and a fib size out of
// range. (Its speed targets are not tested here: they are measurements, checked by
// running the benchmark, docs/benchmarks-runtime.md.)
#include "../support/command_test.hpp"
#include "../support/held_in_some_run.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <set>
#include <string>

namespace {

using takt::testing::expect_held_in_some_run;
using takt::testing::Outcome;

class BenchRuntime : public takt::testing::CommandTest {
 protected:
  /// Runs `takt bench runtime ARGS --json FILE` with the environment `env` (TAKT_NO_RT=1:
  /// the multiprogrammed load competes in SCHED_OTHER instead of preempting the tests
  /// that run beside this one); expects exit 0 and returns the JSON (and the outcome).
  nlohmann::json run(const std::string& args, const std::string& env = "TAKT_NO_RT=1",
                     Outcome* outcome = nullptr) {
    const std::string json = (dir_ / "runtime.json").string();
    Outcome r = takt("bench runtime " + args + " --json " + json, env);
    EXPECT_EQ(r.status, 0) << r.err;
    if (outcome != nullptr) *outcome = r;
    std::ifstream in(json);
    return nlohmann::json::parse(in);
  }
  nlohmann::json run_matmul(const std::string& extra) {
    return run("--quick --kernels matmul --workers 2 " + extra);
  }
};

TEST_F(BenchRuntime, NoLoadStartsWhenNoKernelRunsMultiprogrammed) {
  // fib-1worker runs isolated only: the load was started anyway (SCHED_FIFO threads on
  // every CPU) and the JSON named its policy as if it had measured something.
  nlohmann::json j = run("--quick --kernels fib-1worker --runtimes takt");
  EXPECT_EQ(j["multiprogrammed_load"]["policy"].get<std::string>().rfind("not started", 0), 0u) << j.dump();
  EXPECT_TRUE(j["multiprogrammed_load"]["measured_utilization"].is_null());
  for (const auto& row : j["rows"]) EXPECT_EQ(row["condition"], "isolated");
}

TEST_F(BenchRuntime, EveryRuntimeAndConditionGetsACorrectRowAndTheCallerModeIsRecorded) {
  nlohmann::json j = run_matmul("");
  EXPECT_EQ(j["benchmark"], "runtime");
  EXPECT_EQ(j["workers"], 2);
  EXPECT_TRUE(j["takt_caller_joins"].get<bool>());
  EXPECT_EQ(j["openmp_schedule"], "dynamic,1");  // RTWS's centralized queue, the default
  std::set<std::string> seen;
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["kernel"], "matmul");
    EXPECT_TRUE(row["correct"].get<bool>()) << row.dump();
    EXPECT_GT(row["median_ms"].get<double>(), 0.0);
    EXPECT_LE(row["median_ms"].get<double>(), row["p95_ms"].get<double>());
    EXPECT_LE(row["p95_ms"].get<double>(), row["max_ms"].get<double>());
    // --quick runs 50 matmul samples: 20 rounds of 2 or 3, every sample in the JSON.
    std::size_t samples = 0;
    for (const auto& round : row["rounds_ms"]) samples += round.size();
    EXPECT_EQ(row["rounds_ms"].size(), 20u);
    EXPECT_EQ(samples, row["repetitions"].get<std::size_t>());
    seen.insert(row["runtime"].get<std::string>() + "/" + row["condition"].get<std::string>());
  }
  auto tail_of = [&](const char* runtime) {  // p95 - median of the multiprogrammed row
    for (const auto& row : j["rows"]) {
      if (row["runtime"] == runtime && row["condition"] == "multiprogrammed") {
        return row["p95_ms"].get<double>() - row["median_ms"].get<double>();
      }
    }
    return -1.0;
  };
  auto row_of = [&](const char* runtime, const char* condition) -> const nlohmann::json& {
    for (const auto& row : j["rows"]) {
      if (row["runtime"] == runtime && row["condition"] == condition) return row;
    }
    static const nlohmann::json none;
    ADD_FAILURE() << "no row " << runtime << "/" << condition;
    return none;
  };
  // The targets' values come from the rows: the isolated one is takt's median over
  // oneTBB's, the multiprogrammed one takt's p95/median with oneTBB's as its limit, and
  // each passes when its value is at most its limit (both rows' results were right).
  bool isolated_target = false;
  for (const auto& target : j["targets"]) {
    const double value = target["value"].get<double>(), limit = target["limit"].get<double>();
    EXPECT_TRUE(target["results_correct"].get<bool>()) << target.dump();
    EXPECT_EQ(target["pass"].get<bool>(), value <= limit) << target.dump();
    const nlohmann::json& takt = row_of("takt", target["condition"].get<std::string>().c_str());
    const nlohmann::json& tbb = row_of("onetbb", target["condition"].get<std::string>().c_str());
    if (target["condition"] == "isolated") {
      isolated_target = true;
      EXPECT_EQ(target["name"], "matmul <= 1.1x oneTBB");
      EXPECT_DOUBLE_EQ(limit, 1.1);
      EXPECT_DOUBLE_EQ(value, takt["median_ms"].get<double>() / tbb["median_ms"].get<double>()) << target.dump();
    } else {
      EXPECT_DOUBLE_EQ(value, takt["p95_ms"].get<double>() / takt["median_ms"].get<double>()) << target.dump();
      EXPECT_DOUBLE_EQ(limit, tbb["p95_ms"].get<double>() / tbb["median_ms"].get<double>()) << target.dump();
    }
  }
  EXPECT_TRUE(isolated_target);
  // Each row's ratios: its median, p95 and maximum over the same statistic of oneTBB's
  // and OpenMP's row in the same condition.
  for (const auto& row : j["rows"]) {
    const std::string condition = row["condition"].get<std::string>();
    for (const char* other : {"onetbb", "openmp"}) {
      const nlohmann::json& o = row_of(other, condition.c_str());
      const std::string to = std::string("ratio_to_") + other;
      EXPECT_DOUBLE_EQ(row[to].get<double>(), row["median_ms"].get<double>() / o["median_ms"].get<double>());
      EXPECT_DOUBLE_EQ(row["p95_" + to].get<double>(),
                       row["p95_ms"].get<double>() / o["p95_ms"].get<double>());
      EXPECT_DOUBLE_EQ(row["max_" + to].get<double>(),
                       row["max_ms"].get<double>() / o["max_ms"].get<double>());
    }
  }
  bool tail_target = false;
  for (const auto& target : j["targets"]) {
    if (target["condition"] != "multiprogrammed") continue;
    tail_target = true;
    // Beside the ratios, each runtime's tail in ms, from its row.
    EXPECT_DOUBLE_EQ(target["tail_ms"]["takt"].get<double>(), tail_of("takt")) << target.dump();
    EXPECT_DOUBLE_EQ(target["tail_ms"]["onetbb"].get<double>(), tail_of("onetbb")) << target.dump();
    const double low = target["interval_95"][0].get<double>(), high = target["interval_95"][1].get<double>();
    EXPECT_LE(low, high) << target.dump();
    const std::string verdict = target["noise_verdict"].get<std::string>();
    EXPECT_EQ(verdict, high < 0  ? "smaller beyond the noise"
                       : low > 0 ? "larger beyond the noise"
                                 : "within the noise")
        << target.dump();
    // Under TAKT_NO_RT the load competes in SCHED_OTHER instead of preempting: the
    // target is reported as not applicable.
    EXPECT_FALSE(target["load_preempts"].get<bool>()) << target.dump();
    EXPECT_FALSE(target["applicable"].get<bool>()) << target.dump();
  }
  EXPECT_TRUE(tail_target);
  for (const char* runtime : {"takt", "onetbb", "openmp", "serial"}) {
    for (const char* condition : {"isolated", "multiprogrammed"}) {
      EXPECT_EQ(seen.count(std::string(runtime) + "/" + condition), 1u) << runtime << " " << condition;
    }
  }
}

TEST_F(BenchRuntime, OneRepetitionIsOneRoundAndGivesNoInterval) {
  // One sample per runtime: its p95 is its median, so the tail target cannot be decided.
  // Until 2026-11-29 it passed (1.000 vs 1.000) with an interval [+0.000, +0.000].
  nlohmann::json j = run_matmul("--repetitions 1");
  bool tail_target = false;
  for (const auto& target : j["targets"]) {
    if (target["condition"] != "multiprogrammed") continue;
    tail_target = true;
    EXPECT_EQ(target["noise_verdict"], "no interval from one round") << target.dump();
    EXPECT_TRUE(target["interval_95"].is_null()) << target.dump();
    EXPECT_FALSE(target["pass"].get<bool>()) << target.dump();
    EXPECT_FALSE(target["applicable"].get<bool>()) << target.dump();
    EXPECT_NE(
        target["not_applicable"].get<std::string>().find("1 repetition(s) of takt's and 1 of oneTBB's: with "
                                                         "one, p95 is the median"),
        std::string::npos)
        << target.dump();
  }
  EXPECT_TRUE(tail_target);
}

TEST_F(BenchRuntime, NoCallerJoinsIsRecorded) {
  nlohmann::json j = run_matmul("--no-caller-joins");
  EXPECT_FALSE(j["takt_caller_joins"].get<bool>());
  EXPECT_TRUE(j["takt_pinned"].get<bool>());
  EXPECT_FALSE(j["rows"].empty());
}

TEST_F(BenchRuntime, NoPinIsRecordedAndTheHelpShowsTheFlagsAsTheyAreTyped) {
  nlohmann::json j = run_matmul("--no-pin");
  EXPECT_FALSE(j["takt_pinned"].get<bool>());
  EXPECT_TRUE(j["takt_caller_joins"].get<bool>());
  // CLI11's "!--no-pin" flags printed as "--no-pin{false}", which reads like something to type.
  const Outcome help = takt("bench runtime --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--no-pin "), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("{false}"), std::string::npos) << help.out;
}

TEST_F(BenchRuntime, RuntimesSelectsTheRowsAndKeepsTheTargetsThatHaveBothRuntimes) {
  nlohmann::json j = run_matmul("--runtimes takt,onetbb");
  std::set<std::string> runtimes;
  for (const auto& row : j["rows"]) runtimes.insert(row["runtime"].get<std::string>());
  EXPECT_EQ(runtimes, (std::set<std::string>{"takt", "onetbb"}));
  EXPECT_EQ(j["runtimes"], nlohmann::json::array({"takt", "onetbb"}));
  std::set<std::string> targets;
  for (const auto& target : j["targets"]) targets.insert(target["name"].get<std::string>());
  EXPECT_EQ(targets, (std::set<std::string>{"matmul <= 1.1x oneTBB",
                                            "matmul multiprogrammed p95/median <= oneTBB's"}));
  // takt alone: no target, and the report says why (it printed "targets:" over nothing).
  Outcome r;
  j = run("--quick --kernels matmul --runtimes takt --repetitions 2", "TAKT_NO_RT=1", &r);
  EXPECT_TRUE(j["targets"].empty()) << j["targets"].dump();
  EXPECT_NE(r.out.find("targets: none among these runs (each compares takt with oneTBB or OpenMP on the same "
                       "kernel: give --runtimes with them)"),
            std::string::npos)
      << r.out;
}

TEST_F(BenchRuntime, ThreadsThatNeverSleepAreReported) {
  // OMP_WAIT_POLICY=active: libgomp's idle threads spin instead of sleeping, so each of
  // OpenMP's 2 rounds per condition ends with its threads running at the 500 ms limit;
  // takt's workers sleep after their idle spin.
  Outcome r;
  nlohmann::json j = run("--quick --kernels matmul --runtimes takt,openmp --repetitions 2",
                         "TAKT_NO_RT=1 OMP_WAIT_POLICY=active", &r);
  EXPECT_NE(r.out.find("warning: 2 of openmp's rounds ended with one of its threads still running"),
            std::string::npos)
      << r.out;
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["rounds_not_quiet"].get<int>(), row["runtime"] == "openmp" ? 2 : 0) << row.dump();
  }
}

TEST_F(BenchRuntime, NsPerSpawnIsOnTheOneWorkerRowsOnly) {
  // (median of fib-1worker − median of serial fib) / spawns, on the fib-1worker rows;
  // it was also copied onto takt's multi-worker fib rows, which did not measure it.
  nlohmann::json j = run("--quick --kernels fib,fib-1worker --runtimes takt,serial --repetitions 2");
  // --quick runs fib(25), which spawns fib(26) − 1 = 121,393 − 1 = 121,392 times; the
  // medians are in ms, so ns per spawn = (one-worker − serial) × 10^6 / 121,392 (e.g.
  // (5.0627 − 0.3662) ms: 38.69 ns).
  double serial_ms = -1;
  for (const auto& row : j["rows"]) {
    if (row["kernel"] == "fib" && row["runtime"] == "serial" && row["condition"] == "isolated") {
      serial_ms = row["median_ms"].get<double>();
    }
  }
  ASSERT_GT(serial_ms, 0) << j.dump();
  int one_worker_rows = 0;
  for (const auto& row : j["rows"]) {
    // takt's caller joins as worker 0 where the pool has 2 workers (fib), and blocks in
    // the pool of one (fib-1worker), although takt_caller_joins is true.
    if (row["runtime"] == "takt") {
      EXPECT_EQ(row["caller_joins"].get<bool>(), row["kernel"] == "fib") << row.dump();
    }
    if (row["kernel"] == "fib-1worker") {
      ++one_worker_rows;
      ASSERT_TRUE(row.contains("ns_per_spawn")) << row.dump();
      EXPECT_NEAR(row["ns_per_spawn"].get<double>(),
                  (row["median_ms"].get<double>() - serial_ms) * 1e6 / 121392, 1e-9)
          << row.dump();
    } else {
      EXPECT_FALSE(row.contains("ns_per_spawn")) << row.dump();
    }
  }
  EXPECT_GT(one_worker_rows, 0);
}

TEST_F(BenchRuntime, FewerWorkersThanCpusKeepEveryRuntimeOnTheFirstOnes) {
  // With --workers 1 every runtime (and the load) is on the first allowed CPU; before,
  // only takt's worker was, while oneTBB's and OpenMP's threads could use every CPU.
  nlohmann::json j = run("--quick --kernels matmul --workers 1 --runtimes takt,onetbb --repetitions 2",
                         "TAKT_NO_RT=1");
  const std::string cpus = j["cpus"].get<std::string>();
  const std::string first = cpus.substr(0, cpus.find_first_of(",-"));
  EXPECT_EQ(j["cpus_used"], first) << j.dump();
  EXPECT_NE(j["method"].get<std::string>().find("first `workers` allowed CPUs"), std::string::npos);
  for (const auto& row : j["rows"]) EXPECT_TRUE(row["correct"].get<bool>()) << row.dump();
}

TEST_F(BenchRuntime, TaktRowsCountTheStealsSleepsAndIdleTimeOfEverySample) {
  // The row's steals are counted over its timed runs, so they are the sum of the
  // per-sample counts; the counts are laid out like the samples. The idle time (µs, of
  // both workers) fits in the workers' time of the samples: at most 2 × each sample,
  // with 1 ms of slack per sample for the statistics read just outside the timed run.
  Outcome out;
  nlohmann::json j = run("--quick --kernels matmul --workers 2 --runtimes takt,serial", "TAKT_NO_RT=1", &out);
  int takt_rows = 0;
  for (const auto& row : j["rows"]) {
    if (row["runtime"] != "takt") {
      EXPECT_FALSE(row.contains("rounds_steals")) << row.dump();
      EXPECT_FALSE(row.contains("rounds_idle_us")) << row.dump();
      continue;
    }
    ++takt_rows;
    ASSERT_EQ(row["rounds_steals"].size(), row["rounds_ms"].size());
    ASSERT_EQ(row["rounds_sleeps"].size(), row["rounds_ms"].size());
    ASSERT_EQ(row["rounds_idle_us"].size(), row["rounds_ms"].size());
    std::uint64_t steals = 0;
    std::uint64_t idle_us = 0;
    double workers_us = 0;
    std::size_t samples = 0;
    for (std::size_t r = 0; r < row["rounds_ms"].size(); ++r) {
      EXPECT_EQ(row["rounds_steals"][r].size(), row["rounds_ms"][r].size());
      EXPECT_EQ(row["rounds_sleeps"][r].size(), row["rounds_ms"][r].size());
      EXPECT_EQ(row["rounds_idle_us"][r].size(), row["rounds_ms"][r].size());
      for (const auto& s : row["rounds_steals"][r]) steals += s.get<std::uint64_t>();
      for (const auto& s : row["rounds_idle_us"][r]) idle_us += s.get<std::uint64_t>();
      for (const auto& ms : row["rounds_ms"][r]) workers_us += 2 * 1000 * ms.get<double>();
      samples += row["rounds_ms"][r].size();
    }
    EXPECT_EQ(steals, row["steals"].get<std::uint64_t>()) << row.dump();
    // Worker 1 is idle from the statistics read before each run until it steals.
    EXPECT_GT(idle_us, 0u) << row.dump();
    EXPECT_LE(static_cast<double>(idle_us), workers_us + 1000.0 * static_cast<double>(samples)) << row.dump();
  }
  EXPECT_EQ(takt_rows, 2);  // isolated and multiprogrammed
  EXPECT_NE(out.out.find("takt's workers idle: median "), std::string::npos) << out.out;
}

TEST_F(BenchRuntime, FibNSetsTheSizeOfBothFibKernels) {
  // fib(12) = 144; every row is checked against the serial result ("correct").
  Outcome r;
  nlohmann::json j = run("--quick --kernels fib,fib-1worker --fib-n 12 --repetitions 2", "TAKT_NO_RT=1", &r);
  EXPECT_NE(r.out.find("fib(12) <= 0.5x oneTBB"), std::string::npos) << r.out;
  ASSERT_FALSE(j["rows"].empty());
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["size"], "n=12") << row.dump();
    EXPECT_TRUE(row["correct"].get<bool>()) << row.dump();
  }
}

TEST_F(BenchRuntime, ASignalEndsTheRunAfterTheRoundInFlightAndKeepsWhatWasMeasured) {
  // The JSON is rewritten after every kernel. SIGTERM as soon as the file first appears:
  // fib (takt alone, 150 runs of fib(25), about 0.3 s) is done, synthetic-2 (150 runs
  // of about 7 ms, in 30 rounds of 5) is under way. The round in flight is finished, the
  // rest not run; the JSON keeps fib's row and synthetic-2's rounds so far, says it is
  // not complete but stopped, and takt ends by the signal (143) after writing it. Before,
  // SIGTERM killed it: synthetic-2's rounds and the summary were lost.
  const std::string json = (dir_ / "cut.json").string();
  const std::string out = (dir_ / "out").string();
  const std::string status = (dir_ / "status").string();
  const std::string script =
      "TAKT_NO_RT=1 " + std::string(TAKT_BINARY) +
      " bench runtime --quick --kernels fib,synthetic-2 --runtimes takt --repetitions 150"
      " --json " +
      json + " >" + out + " 2>&1 & pid=$!; i=0; while [ ! -e " + json +
      " ] && [ $i -lt 6000 ]; do sleep 0.01; i=$((i+1)); done; kill -TERM $pid; wait $pid; "
      "echo $? >" +
      status;
  ASSERT_EQ(std::system(script.c_str()), 0);
  const std::string printed = takt::testing::slurp(out);
  // 143 = 128 + SIGTERM: ended by the signal (0 would mean it finished before the kill).
  EXPECT_EQ(takt::testing::slurp(status), "143\n") << printed;
  EXPECT_NE(printed.find("stopped early: the table and the targets are of the rounds measured"), std::string::npos)
      << printed;
  std::ifstream in(json);
  ASSERT_TRUE(in.good()) << "no JSON";
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_FALSE(j["complete"].get<bool>());
  EXPECT_TRUE(j["stopped"].get<bool>());
  EXPECT_EQ(j.value("stopped_by", ""), "SIGTERM") << "as the other benchmarks' JSON says it";
  ASSERT_GE(j["rows"].size(), 1u) << j["rows"].dump();
  ASSERT_LE(j["rows"].size(), 2u) << j["rows"].dump();
  EXPECT_EQ(j["rows"][0]["kernel"], "fib");
  EXPECT_EQ(j["rows"][0]["condition"], "isolated");
  EXPECT_EQ(j["rows"][0]["repetitions"], 150);
  if (j["rows"].size() == 2) {  // synthetic-2's rounds finished before the stop
    const auto& row = j["rows"][1];
    EXPECT_EQ(row["kernel"], "synthetic-2");
    EXPECT_EQ(row["condition"], "isolated");
    const int reps = row["repetitions"];
    EXPECT_LT(reps, 150);
    EXPECT_EQ(reps % 5, 0) << "whole rounds of 5";
    EXPECT_EQ(row["rounds_ms"].size() * 5, static_cast<std::size_t>(reps));
  }
}

TEST_F(BenchRuntime, AFinishedRunSaysItIsComplete) {
  nlohmann::json j = run("--quick --kernels fib --runtimes takt,onetbb --repetitions 3");
  EXPECT_TRUE(j["complete"].get<bool>());
  EXPECT_EQ(j["rows"].size(), 4u);  // two runtimes, two conditions
  EXPECT_TRUE(j.contains("targets"));
}

TEST_F(BenchRuntime, LoadPeriodSetsTheMultiprogrammedLoadAndIsRecorded) {
  // The share the load took, from its CPU time (loosely: other work shares the machine),
  // over a multiprogrammed phase of some 10-30 ms: the load does not make up the periods
  // a stall of the machine took from it, so its share is about 0.25·W/(W + S) for a
  // phase of W and a stall of S, below 0.02 where S > 11.5·W (115 ms for W = 10 ms); the
  // run is made again where it was.
  expect_held_in_some_run(3, [&] {
    Outcome r;
    nlohmann::json j =
        run("--quick --kernels fib --runtimes takt --repetitions 2 --load-period 2.5ms", "TAKT_NO_RT=1", &r);
    EXPECT_DOUBLE_EQ(j["multiprogrammed_load"]["period_ms"].get<double>(), 2.5);
    EXPECT_DOUBLE_EQ(j["multiprogrammed_load"]["utilization"].get<double>(), 0.25);
    EXPECT_NE(r.out.find("busy 25 % of every 2.5ms"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("; measured: "), std::string::npos) << r.out;
    const double measured = j["multiprogrammed_load"]["measured_utilization"].get<double>();
    return measured > 0.02 && measured < 0.5
               ? std::string()
               : "measured utilization " + std::to_string(measured) + " (0.02 to 0.5)";
  });
  // The default, 1 ms, as before the option.
  nlohmann::json j = run("--quick --kernels fib --runtimes takt --repetitions 2");
  EXPECT_DOUBLE_EQ(j["multiprogrammed_load"]["period_ms"].get<double>(), 1.0);
  // Too short a period, or no duration, is refused before anything runs.
  Outcome bad = takt("bench runtime --quick --load-period 50us");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("--load-period: must be at least 100us"), std::string::npos) << bad.err;
  bad = takt("bench runtime --quick --load-period 2s");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("--load-period 2s: at most 1s"), std::string::npos) << bad.err;
  bad = takt("bench runtime --quick --load-period 3");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("--load-period"), std::string::npos) << bad.err;
}

TEST_F(BenchRuntime, AFibNOutOfRangeIsAClearError) {
  Outcome r = takt("bench runtime --quick --fib-n 41");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--fib-n"), std::string::npos) << r.err;
}

TEST_F(BenchRuntime, MoreWorkersThanCpusIsAClearError) {
  // 4096 is more than the CPUs of any machine this runs on (CPU_SETSIZE is 1024).
  Outcome r = takt("bench runtime --quick --workers 4096");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--workers 4096: this process may use"), std::string::npos) << r.err;
}

TEST_F(BenchRuntime, AnUnknownRuntimeIsAClearError) {
  Outcome r = takt("bench runtime --quick --runtimes takt,tbb");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unknown runtime 'tbb'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("choose from takt, onetbb, openmp, serial"), std::string::npos) << r.err;
}

TEST_F(BenchRuntime, OpenMpSchedulesItsLoopsAsAskedAndSaysSo) {
  // The loops of OpenMP's matmul and synthetic kernels take --openmp-schedule (a chunked
  // schedule is the like-for-like comparison with oneTBB's and takt's loops); the results
  // stay right and the JSON and the header name the schedule.
  for (const std::string schedule : {"guided,1", "static,4", "auto"}) {
    nlohmann::json j =
        run(std::string("--quick --kernels matmul,synthetic-1 --runtimes openmp,serial --repetitions 2 "
                        "--openmp-schedule ") +
            schedule);
    EXPECT_EQ(j["openmp_schedule"], schedule);
    for (const auto& row : j["rows"]) {
      EXPECT_TRUE(row["correct"].get<bool>()) << schedule << " " << row.dump();
    }
    EXPECT_EQ(j["rows"].size(), 8u) << schedule;  // 2 kernels x 2 runtimes x 2 conditions
  }
  Outcome r = takt(
      "bench runtime --quick --kernels matmul --runtimes openmp --repetitions 1 --openmp-schedule guided",
      "TAKT_NO_RT=1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(
      r.out.find("OpenMP's loops (matmul, synthetic): schedule(guided,1); the targets against OpenMP are "
                 "stated for dynamic,1"),
      std::string::npos)
      << r.out;
  // "dynamic" is the default, dynamic,1, not a schedule of its own.
  EXPECT_EQ(run("--quick --kernels matmul --runtimes openmp --repetitions 1 --openmp-schedule dynamic")
                ["openmp_schedule"],
            "dynamic,1");
  for (const char* bad : {"guided,0", "auto,4", "dynamic,", "fastest", "static,x"}) {
    Outcome b = takt(std::string("bench runtime --quick --openmp-schedule ") + bad);
    EXPECT_EQ(b.status, 1) << bad;
    EXPECT_NE(b.err.find(std::string("--openmp-schedule: '") + bad + "' is no OpenMP schedule"),
              std::string::npos)
        << b.err;
  }
}

TEST_F(BenchRuntime, AnUnknownKernelIsAClearError) {
  Outcome r = takt("bench runtime --quick --kernels matmull");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unknown kernel 'matmull'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("choose from"), std::string::npos) << r.err;
}

}  // namespace
