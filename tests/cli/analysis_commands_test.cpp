// Tests of `takt analyze`, `takt generate`, `takt convert` and `takt bench analyze`, run as programs.
#include "model/task_set_parser.hpp"
#include "takt/version.hpp"

#include "../support/command_test.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using takt::testing::Outcome;

class Commands : public takt::testing::CommandTest {};

}  // namespace

TEST_F(Commands, AnalyzeExitCodes) {
  EXPECT_EQ(takt("analyze " + example("01-one-task.yaml")).status, 0);
  Outcome no = takt("analyze " + example("07-unschedulable.yaml"));
  EXPECT_EQ(no.status, 2);
  EXPECT_NE(no.out.find("NOT SCHEDULABLE"), std::string::npos);
  EXPECT_NE(no.out.find("task 'wide'"), std::string::npos) << no.out;
  EXPECT_NE(no.out.find("short by 3"), std::string::npos) << no.out;
  Outcome bad = takt("analyze " + write("bad.yaml", "tasks:\n  - name: a\n    period: 10\n").string());
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("bad.yaml:3:13:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("no unit"), std::string::npos) << bad.err;
  EXPECT_EQ(takt("analyze /nonexistent/file.yaml").status, 1);
  EXPECT_EQ(takt("analyze " + example("01-one-task.yaml") + " --policy edf").status, 1);
}

TEST_F(Commands, AnalyzeJsonGivesEveryTaskItsGrant) {
  Outcome r = takt("analyze " + example("04-work-stealing-overhead.yaml") + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["policy"], "federated");
  EXPECT_TRUE(j["schedulable"].get<bool>());
  ASSERT_EQ(j["tasks"].size(), 3u);
  EXPECT_EQ(j["tasks"][0]["name"], "cholesky");
  EXPECT_EQ(j["tasks"][0]["cores"], 3);
  EXPECT_EQ(j["tasks"][0]["core_ids"], nlohmann::json::array({0, 1, 2}));
  EXPECT_EQ(j["tasks"][1]["cores"], 4);
  EXPECT_EQ(j["tasks"][1]["core_ids"], nlohmann::json::array({3, 4, 5, 6}));
  // rtws §V.B for cholesky: C/n + δL̂ = 60/3 + 1.5·5.2 = 27.8 ms; the variance term
  // (1.5/ln 2)²/(2·(40 − 27.8) ms) = 4.683/2.44e7 ns = 1.9e-7 ns adds nothing visible.
  EXPECT_NEAR(j["tasks"][0]["expected_response_bound_ns"].get<double>(), 27.8e6, 1e-3);
  EXPECT_EQ(j["tasks"][2]["kind"], "shared");
  // L̂ = 5.2 ms is what cholesky's count used; a shared task's used none: null (it read 0).
  EXPECT_EQ(j["tasks"][0]["span_used_ns"], 5200000);
  EXPECT_TRUE(j["tasks"][2]["span_used_ns"].is_null()) << j["tasks"][2].dump();

  Outcome dm = takt("analyze " + example("rt-openmp-fig2.yaml") + " --json");
  ASSERT_EQ(dm.status, 0);
  auto d = nlohmann::json::parse(dm.out);
  ASSERT_EQ(d["partitioned_dm"]["strands"].size(), 7u);
  EXPECT_EQ(d["partitioned_dm"]["strands"][6]["task"], "task2");
  EXPECT_EQ(d["partitioned_dm"]["strands"][6]["core"], 1);
  EXPECT_EQ(d["partitioned_dm"]["strands"][6]["priority"], 4);
  EXPECT_EQ(d["tasks"][0]["name"], "task1");

  Outcome no = takt("analyze " + example("07-unschedulable.yaml") + " --json");
  EXPECT_EQ(no.status, 2);
  auto n = nlohmann::json::parse(no.out);
  EXPECT_FALSE(n["schedulable"].get<bool>());
  ASSERT_FALSE(n["reasons"].empty());
  EXPECT_EQ(n["reasons"][0]["task"], "wide");
  EXPECT_EQ(n["reasons"][0]["margin"], -3);
}

TEST_F(Commands, DeltaAndFitWhereThePolicyDoesNotUseThemAreBadInput) {
  // They were ignored without a word (and left out of the JSON).
  const std::string file =
      write("set.yaml", "global: {cores: 2}\ntasks: [{name: a, period: 10ms, work: 2ms, span: 1ms}]\n").string();
  for (const std::string command : {"analyze", "run --jobs 1 --no-cyclictest"}) {
    for (const std::string policy : {"gedf-paws", "partitioned-dm"}) {
      Outcome r = takt(command + " " + file + " --policy " + policy + " --delta 1.5");
      EXPECT_EQ(r.status, 1) << command << " " << policy;
      EXPECT_NE(r.err.find("--delta is δ of the federated core grant (rtws eq. 3), which the " + policy +
                           " policy does not use"),
                std::string::npos)
          << r.err;
    }
    Outcome fit = takt(command + " " + file + " --policy gedf-paws --fit first-fit");
    EXPECT_EQ(fit.status, 1) << command;
    EXPECT_NE(fit.err.find("which the gedf-paws policy does not do; leave --fit out"), std::string::npos)
        << fit.err;
  }
  // Where the policy uses them (the file's policy, federated by default): accepted.
  EXPECT_EQ(takt("analyze " + file + " --delta 1.5 --fit first-fit").status, 0);
  EXPECT_EQ(takt("analyze " + file + " --policy federated-greedy --delta 1.5").status, 0);
  EXPECT_EQ(takt("analyze " + example("rt-openmp-fig2.yaml") + " --policy partitioned-dm --fit first-fit").status,
            0);
}

TEST_F(Commands, TheFilesOwnDeltaAndFitUnusedByThePolicyAreNamedNotRefused) {
  // In the file they went unused without a word; one file may be run under several
  // policies (--policy), so they are a note, not an error.
  const std::string file = write("set.yaml",
                                 "global: {cores: 2, policy: gedf-paws, delta: 1.5, fit: first-fit}\n"
                                 "tasks: [{name: a, period: 10ms, work: 2ms, span: 1ms}]\n")
                               .string();
  Outcome r = takt("analyze " + file);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("note: the task set's delta (1.5, " + file +
                       ":1:46) is not used: it is δ of the federated "
                       "core grant, and the policy is gedf-paws"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("note: the task set's fit (" + file + ":1:56) is not used"), std::string::npos)
      << r.err;
  // Under a policy that uses them: no note.
  Outcome federated = takt("analyze " + file + " --policy federated");
  EXPECT_EQ(federated.status, 0) << federated.err;
  EXPECT_EQ(federated.err.find("is not used"), std::string::npos) << federated.err;
}

TEST_F(Commands, DeltaBelowOneIsBadInput) {
  // L = D = 10 ms: no number of cores meets the deadline, yet eq. 3 with δ = 0.5 would
  // admit the task with E[R] ≤ 9 ms.
  const std::string file =
      write("span.yaml", "global: {cores: 8}\ntasks: [{name: a, period: 10ms, work: 20ms, span: 10ms}]\n")
          .string();
  for (const std::string command : {"analyze", "run"}) {
    Outcome r = takt(command + " " + file + " --delta 0.5");
    EXPECT_EQ(r.status, 1) << command << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("--delta 0.5 is below 1: δ must be at least 1"), std::string::npos) << r.err;
    Outcome bad = takt(command + " " + file + " --delta abc");  // the message names the option
    EXPECT_EQ(bad.status, 1) << command;
    EXPECT_NE(
        bad.err.find(
            "--delta: expects a decimal number of at least 1: 'abc' is not a non-negative decimal number"),
        std::string::npos)
        << bad.err;
  }
  Outcome in_file =
      takt("analyze " +
           write("delta.yaml",
                 "global: {cores: 8, delta: 0.5}\ntasks: [{name: a, period: 10ms, work: 20ms, span: 10ms}]\n")
               .string());
  EXPECT_EQ(in_file.status, 1);
  EXPECT_NE(in_file.err.find("delta.yaml:1:27: delta 0.5 is below 1"), std::string::npos) << in_file.err;
  EXPECT_EQ(takt("analyze " + file + " --delta 1").status, 2);
}

TEST_F(Commands, GedfPawsLabelsDensitySumsAsDensities) {
  // C = 2 ms, D = 5 ms, T = 10 ms twice: the tests compare Σ C/D = 0.8, not Σu = 0.4.
  const std::string constrained =
      "global: {cores: 2, policy: gedf-paws}\n"
      "tasks:\n"
      "  - {name: a, period: 10ms, deadline: 5ms, work: 2ms, span: 1ms}\n"
      "  - {name: b, period: 10ms, deadline: 5ms, work: 2ms, span: 1ms}\n";
  Outcome r = takt("analyze " + write("constrained.yaml", constrained).string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(
      r.out.find("GFB test (paws §2; densities C/D since some task has D < T): Σ C/D = 0.800, max C/D = "
                 "0.400, m − (m−1)·max C/D = 1.600 — holds"),
      std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find("capacity bound 2.618 (Li et al.; densities C/D since some task has D < T): Σ C/D = 0.800"),
      std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("Σu"), std::string::npos) << r.out;
  // D = T: the same sums are the utilizations.
  const std::string implicit =
      "global: {cores: 2, policy: gedf-paws}\n"
      "tasks:\n"
      "  - {name: a, period: 5ms, work: 2ms, span: 1ms}\n"
      "  - {name: b, period: 5ms, work: 2ms, span: 1ms}\n";
  r = takt("analyze " + write("implicit.yaml", implicit).string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("GFB test (paws §2): U = 0.800, u_max = 0.400"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("capacity bound 2.618 (Li et al.): Σu = 0.800"), std::string::npos) << r.out;
}

TEST_F(Commands, GedfPawsAdmitsByGfbAloneAndReportsTheCapacityBound) {
  // m = 8, T = D = 10 ms, C = 30 ms, L = 1 ms: u = 3 > 1 fails GFB; Σu = 3 ≤ 8/2.618 = 3.056
  // and L ≤ D/2.618 = 3.82 ms meet the capacity bound, which is proved for fully preemptive
  // global EDF only and so no longer admits the set under the cooperative gedf-paws.
  const std::string one =
      "global: {cores: 8, policy: gedf-paws}\n"
      "tasks:\n"
      "  - {name: p, period: 10ms, work: 30ms, span: 1ms}\n";
  Outcome r = takt("analyze " + write("cap.yaml", one).string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(
      r.out.find("capacity bound 2.618 (Li et al.): Σu = 3.000 ≤ m/2.618 = 3.056 — holds (information "
                 "only: proved for fully preemptive global EDF, which gedf-paws is not; the verdict below "
                 "is the GFB test's)"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("verdict: NOT SCHEDULABLE under gedf-paws\n  - task 'p': GFB: u_max ≤ 1:"),
            std::string::npos)
      << r.out;
  r = takt("analyze " + write("cap.yaml", one).string() + " --json");
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["schedulable"].get<bool>());
  EXPECT_TRUE(j["gedf_paws"]["capacity_augmentation"]["holds"].get<bool>());
  EXPECT_FALSE(j["gedf_paws"]["gfb"]["holds"].get<bool>());
  ASSERT_EQ(j["reasons"].size(), 1u);
  EXPECT_EQ(j["reasons"][0]["test"], "GFB: u_max ≤ 1");
}

TEST_F(Commands, GedfPawsCapacityBoundSaysWhichConditionFails) {
  // m = 8, D = T = 10 ms, C = 20, 4 and 5 ms: Σu = 2.9 ≤ 8/2.618 = 3.056 holds, but task
  // c's L = 5 ms > D/2.618 = 3.82 ms fails the bound; the line read "Σu = 2.900, m/2.618 =
  // 3.056 — does not hold", which looked like the sum failing.
  const std::string set =
      "global: {cores: 8, policy: gedf-paws}\n"
      "tasks:\n"
      "  - {name: a, period: 10ms, work: 20ms, span: 1ms}\n"
      "  - {name: b, period: 10ms, work: 4ms, span: 1ms}\n"
      "  - {name: c, period: 10ms, work: 5ms, span: 5ms}\n";
  Outcome r = takt("analyze " + write("span.yaml", set).string());
  EXPECT_NE(
      r.out.find("capacity bound 2.618 (Li et al.): Σu = 2.900 ≤ m/2.618 = 3.056; L > D/2.618 for 'c' — "
                 "does not hold"),
      std::string::npos)
      << r.out;
  r = takt("analyze " + write("span.yaml", set).string() + " --json");
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["gedf_paws"]["capacity_augmentation"]["holds"].get<bool>());
  EXPECT_TRUE(j["gedf_paws"]["capacity_augmentation"]["utilization_holds"].get<bool>());
  EXPECT_FALSE(j["tasks"][2]["span_within_capacity_bound"].get<bool>());
  // Σu = 3.5 > 3.056: the sum fails, every span is within.
  const std::string heavy =
      "global: {cores: 8, policy: gedf-paws}\n"
      "tasks:\n"
      "  - {name: a, period: 10ms, work: 35ms, span: 1ms}\n";
  r = takt("analyze " + write("sum.yaml", heavy).string());
  EXPECT_NE(r.out.find("Σu = 3.500 > m/2.618 = 3.056 — does not hold"), std::string::npos) << r.out;
}

TEST_F(Commands, AnalyzeOverridesPolicyAndCores) {
  Outcome r = takt("analyze " + example("rt-openmp-fig2.yaml") + " --policy gedf-paws --cores 1 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["policy"], "gedf-paws");
  EXPECT_EQ(j["cores"]["count"], 1);
  Outcome ff = takt("analyze " + example("rt-openmp-fig2.yaml") + " --fit first-fit");
  EXPECT_NE(ff.out.find("first-fit"), std::string::npos);
}

TEST_F(Commands, AnalyzeSaysWhenTheCoresComeFromTheMachineAlsoWithJson) {
  // The note went to stderr in text mode only: with --json nothing said that the
  // verdict was for this machine's CPUs.
  const std::string file =
      write("nocores.yaml", "tasks:\n  - {name: a, period: 10ms, work: 1ms, span: 1ms}\n").string();
  for (const char* json : {"", " --json"}) {
    SCOPED_TRACE(json);
    Outcome r = takt("analyze " + file + json);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("note: the task set names no cores; analysing for the "), std::string::npos)
        << r.err;
  }
  Outcome j = takt("analyze " + file + " --json");
  EXPECT_TRUE(nlohmann::json::accept(j.out)) << "stdout stays one JSON document: " << j.out;
}

TEST_F(Commands, PartitionedDmTableShowsTheSegmentsItDecomposed) {
  // The decomposition divides the segments (C = 2 strands x 1 ms = 2 ms, P = 1 ms; slack
  // 5 - 2.5 = 2.5 ms, heavy threshold 2.5 x 2 / 2.5 = 2.000), but the C and P columns
  // showed the measured work: and span: (4 ms, 3 ms), beside a slack they do not give.
  const std::string file =
      write("pm.yaml",
            "global: {cores: 2, policy: partitioned-dm}\n"
            "tasks:\n"
            "  - {name: a, period: 5ms, work: 4ms, span: 3ms, segments: [{length: 1ms, strands: 2}]}\n"
            "  - {name: b, period: 10ms, work: 2ms, span: 2ms}\n")
          .string();
  Outcome r = takt("analyze " + file);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("a     2ms  1ms  5ms   2.5ms         2.000"), std::string::npos) << r.out;
  // A sequential task given by work = span is the one segment <2 ms, 1> (slack 10 - 5 =
  // 5 ms, threshold 2.5 x 2 / 5 = 1.000); C and P must not read 0 for its lack of segments.
  EXPECT_NE(r.out.find("b     2ms  2ms  10ms  5ms           1.000"), std::string::npos) << r.out;
}

TEST_F(Commands, FederatedGivesNoResponseBoundToATaskWithoutItsCores) {
  // Two tasks each need n = ceil((20 + 10 - 1.5 x 1)/(10 - 1.5 x 1)) = 4 of the 4 cores:
  // a gets them, b does not. The bound E[R] <= C/n + delta L = 20/4 + 1.5 = 6.5 ms holds on
  // n cores; b was listed with it as if it ran on them.
  const std::string file = write("er.yaml",
                                 "global: {cores: 4, delta: 1.5}\n"
                                 "tasks:\n"
                                 "  - {name: a, period: 10ms, work: 20ms, span: 1ms}\n"
                                 "  - {name: b, period: 10ms, work: 20ms, span: 1ms}\n")
                               .string();
  Outcome r = takt("analyze " + file);
  ASSERT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.out.find("  a     6.5ms   10ms  0.650\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("  b     6.5ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no bound for b (not granted its cores)"), std::string::npos) << r.out;
}

TEST_F(Commands, CoreCountsBeyondTheLimitAreBadInput) {
  // Exit 1 with a message, not an internal error (exit 3) or a position in generated text.
  Outcome a = takt("analyze " + example("01-one-task.yaml") + " --cores 2000000000");
  EXPECT_EQ(a.status, 1) << a.err;
  EXPECT_NE(a.err.find("--cores: expects a whole number from 1 to 65536, not '2000000000'"),
            std::string::npos)
      << a.err;
  Outcome g = takt("generate --method paws --cores 2000000000 --utilization 1");
  EXPECT_EQ(g.status, 1) << g.err;
  EXPECT_NE(g.err.find("--cores: expects a whole number from 1 to 65536, not '2000000000'"),
            std::string::npos)
      << g.err;
  EXPECT_EQ(g.err.find("<generated>"), std::string::npos) << g.err;
}

TEST_F(Commands, GenerateIsReproducibleAndValid) {
  for (const char* method : {"paws", "rt-openmp", "rtws", "synthetic"}) {
    SCOPED_TRACE(method);
    const std::string args =
        std::string("generate --method ") + method + " --cores 4 --utilization 50% --seed 9";
    Outcome a = takt(args + " -o " + (dir_ / "a.yaml").string());
    ASSERT_EQ(a.status, 0) << a.err;
    Outcome b = takt(args + " -o " + (dir_ / "b.yaml").string());
    ASSERT_EQ(b.status, 0);
    EXPECT_EQ(takt::testing::slurp(dir_ / "a.yaml"), takt::testing::slurp(dir_ / "b.yaml"));
    EXPECT_NE(takt::testing::slurp(dir_ / "a.yaml").find("# generated by takt generate --method"), std::string::npos);
    auto set = takt::model::parse_task_set_file((dir_ / "a.yaml").string());
    EXPECT_EQ(set.global.cores->count, 4);
    // 50 % of 4 cores.
    EXPECT_LE(set.total_utilization(), 2.0 + 1e-3);
    EXPECT_GE(set.total_utilization(), 1.9);
    // The generated file is accepted by analyze (exit 0 or 2, not 1).
    Outcome an = takt("analyze " + (dir_ / "a.yaml").string());
    EXPECT_TRUE(an.status == 0 || an.status == 2) << an.err;
    // JSON output parses as a task set too.
    Outcome js = takt(args + " --json -o " + (dir_ / "c.json").string());
    ASSERT_EQ(js.status, 0) << js.err;
    EXPECT_EQ(takt::model::parse_task_set_file((dir_ / "c.json").string()).tasks.size(), set.tasks.size());
    // ... and names the same global keys as the YAML: it wrote fit and overrun always,
    // so analyze and run of a paws set said its fit was not used.
    const auto global = nlohmann::json::parse(takt::testing::slurp(dir_ / "c.json"))["global"];
    const std::string yaml = takt::testing::slurp(dir_ / "a.yaml");
    EXPECT_EQ(global.contains("fit"), yaml.find("\n  fit: ") != std::string::npos) << global;
    EXPECT_EQ(global.contains("overrun"), yaml.find("\n  overrun: ") != std::string::npos) << global;
    EXPECT_EQ(global.contains("fit"), std::string(method) == "rt-openmp") << global;  // partitioned-dm's
    Outcome note = takt("analyze " + (dir_ / "c.json").string());
    EXPECT_EQ(note.err.find("is not used"), std::string::npos) << note.err;
  }
  EXPECT_EQ(takt("generate --method nosuch --cores 2 --utilization 1").status, 1);
  EXPECT_EQ(takt("generate --method paws --cores 2 --utilization abc").status, 1);
  // Decimal only (std::stod took "inf", hex floats and a leading space).
  for (const char* odd : {"inf", "0x1p1", "' 1'", "1e0", "1..5", "."}) {
    Outcome r = takt(std::string("generate --method paws --cores 2 --utilization ") + odd);
    EXPECT_EQ(r.status, 1) << odd;
    EXPECT_NE(r.err.find("is not a positive decimal number (digits with at most one '.', no exponent)"),
              std::string::npos)
        << odd << ": " << r.err;
  }
  EXPECT_EQ(takt("generate --method paws --cores 2 --utilization 1.5").status, 0);
  EXPECT_EQ(takt("generate --method paws --cores 2 --utilization 60%").status, 0);
}

TEST_F(Commands, GenerateRtwsFromAProfileFile) {
  fs::path profiles = write("p.yaml",
                            "programs:\n  - {name: fib-30, program: fib, args: [30], work: 20ms, span: 1ms, "
                            "burdened_span: 1.2ms}\n");
  Outcome r =
      takt("generate --method rtws --cores 8 --utilization 4 --seed 2 --programs " + profiles.string());
  ASSERT_EQ(r.status, 0) << r.err;
  auto set = takt::model::parse_task_set(r.out, "out.yaml");
  ASSERT_TRUE(set.global.delta.has_value());  // burdened spans given: δ = 1.5
  EXPECT_EQ(set.global.delta->to_string(), "1.5");
  for (const auto& t : set.tasks) {
    EXPECT_EQ(t.program, "fib");
    EXPECT_EQ(t.args, std::vector<std::string>{"30"});
  }
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  // A program takt run cannot resolve: the set is written, with a warning naming it (it
  // was written without a word, and takt run refused it later); a shared object's path
  // is not checked here.
  profiles = write("p2.yaml", "programs:\n  - {name: a, program: fibb, args: [30], work: 20ms, span: 1ms}\n");
  r = takt("generate --method rtws --cores 8 --utilization 4 --seed 2 --programs " + profiles.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("takt generate: warning: program 'fibb' of " + profiles.string() +
                       " is neither a known program (cholesky, fib, "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("takt run refuses it"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("program: fibb"), std::string::npos) << r.out;
  profiles = write("p3.yaml", "programs:\n  - {name: b, program: ./libmine.so, work: 20ms, span: 1ms}\n");
  r = takt("generate --method rtws --cores 8 --utilization 4 --seed 2 --programs " + profiles.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("program: ./libmine.so"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

TEST_F(Commands, ConvertRtpt) {
  fs::path rtpt = write("set.rtpt",
                        "0 3\n"
                        "synthetic_task 2 1 0 600000 4 0 200000\n"
                        "0 1400000 0 800000 0 10000000 0 10000000 0 0 100\n"
                        "./heat 1024\n"
                        "0 20000000 0 2000000 0 10000000 0 10000000 0 0 100\n");
  Outcome r = takt("convert " + rtpt.string() + " -o " + (dir_ / "set.yaml").string());
  ASSERT_EQ(r.status, 0) << r.err;
  auto set = takt::model::parse_task_set_file((dir_ / "set.yaml").string());
  ASSERT_EQ(set.tasks.size(), 2u);
  EXPECT_EQ(set.tasks[0].segments.size(), 2u);
  EXPECT_EQ(set.tasks[1].program, "./heat");
  EXPECT_EQ(set.global.cores->cpus, (std::vector<int>{0, 1, 2, 3}));
  Outcome analyzed = takt("analyze " + (dir_ / "set.yaml").string() + " --json");
  EXPECT_EQ(analyzed.status, 0) << analyzed.out;
  Outcome bad = takt("convert " + write("bad.rtpt", "0 3\nprog\n1 2\n").string());
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("bad.rtpt:3:1:"), std::string::npos) << bad.err;
  // The header explains the duration only where one is written (100 iterations x 10 ms
  // here; none with 0 iterations, where it explained a key that was not there).
  EXPECT_NE(takt::testing::slurp(dir_ / "set.yaml").find("# duration = the longest iterations x period"),
            std::string::npos);
  EXPECT_NE(takt::testing::slurp(dir_ / "set.yaml").find("\n  duration: 1s\n"), std::string::npos);
  Outcome none =
      takt("convert " +
           write("zero.rtpt", "0 1\nheat 64\n0 2000000 0 500000 0 10000000 0 10000000 0 0 0\n").string());
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_EQ(none.out.find("duration"), std::string::npos) << none.out;
}

TEST_F(Commands, ConvertReportsErrorsAtTheRtptLine) {
  // Segments whose critical path (0.8 ms) exceeds the deadline (0.7 ms) of the timing line:
  // the error names the .rtpt file and line 2, not the converted text.
  fs::path rtpt = write("long.rtpt",
                        "0 3\n"
                        "synthetic_task 2 1 0 600000 4 0 200000\n"
                        "0 1400000 0 500000 0 700000 0 700000 0 0 1\n");
  Outcome r = takt("convert " + rtpt.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("long.rtpt:2:1: task 'synthetic_task-1': the critical path of its segments"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("<converted>"), std::string::npos) << r.err;
}

TEST_F(Commands, LargeStrandTablesStayWithinMemory) {
  // 400,000 strands on 16 cores. Built as one JSON tree the strand table took about 2 KB a
  // row and the old `analyze --json` died with std::bad_alloc under this 400 MB limit; the
  // rows now go out one at a time, and the text table has one row per task, segment and core.
  std::string text = "global: {cores: 16, policy: partitioned-dm}\ntasks:\n";
  for (int i = 0; i < 4; ++i) {
    text +=
        "  - {name: t" + std::to_string(i) + ", period: 10s, segments: [{length: 1us, strands: 100000}]}\n";
  }
  const fs::path set = write("large.yaml", text);
  const fs::path json_out = dir_ / "large.json", text_out = dir_ / "large.txt";
  auto limited = [&](const std::string& args, const fs::path& out) {
    const std::string command = "ulimit -v 400000; " + std::string(TAKT_BINARY) + " " + args + " >" +
                                out.string() + " 2>" + (dir_ / "stderr").string();
    const int raw = std::system(command.c_str());
    return takt::testing::exit_status(raw);
  };
  ASSERT_EQ(limited("analyze " + set.string() + " --json", json_out), 0) << takt::testing::slurp(dir_ / "stderr");
  auto j = nlohmann::json::parse(std::ifstream(json_out));
  ASSERT_EQ(j["partitioned_dm"]["strands"].size(), 400000u);
  EXPECT_EQ(j["partitioned_dm"]["strands"][399999]["strand"], 100000);
  ASSERT_EQ(limited("analyze " + set.string(), text_out), 0) << takt::testing::slurp(dir_ / "stderr");
  // 4 tasks × 16 cores rows, each listing the count: "6250 strands: 1, 17, 33, ...".
  const std::string table = takt::testing::slurp(text_out);
  EXPECT_NE(table.find("6250 strands: 1, 17, 33, ..."), std::string::npos);
  EXPECT_LT(table.size(), 20000u);
}

TEST_F(Commands, BenchAnalyzeWritesJson) {
  // A small run: the benchmark itself (1,000 tasks, 64 cores) is `takt bench analyze`.
  Outcome r = takt("bench analyze --tasks 30 --cores 8 --repetitions 1 --json " + (dir_ / "b.json").string());
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(takt::testing::slurp(dir_ / "b.json"));
  EXPECT_EQ(j["benchmark"], "analyze");
  ASSERT_EQ(j["results"].size(), 8u);
  for (const auto& row : j["results"]) {
    EXPECT_EQ(row["tasks"], 30);
    EXPECT_GT(row["total_s"].get<double>(), 0);
    // Only partitioned-dm places strands: the others' count is null (it was 0), and "-"
    // in the table.
    if (row["policy"] == "partitioned-dm") {
      EXPECT_GT(row["strands"].get<int>(), 30) << row.dump();
    } else {
      EXPECT_TRUE(row["strands"].is_null()) << row.dump();
    }
  }
  EXPECT_NE(r.out.find("rt-openmp  federated                -"), std::string::npos) << r.out;
}

TEST_F(Commands, BenchAnalyzeKilledKeepsTheRowsItPrinted) {
  // SIGKILL (no handler runs) as soon as the first row is printed: the file holds that
  // row, marked complete: false. The JSON was written only at the end, so a run killed,
  // or one long at a large --tasks, kept nothing.
  const std::string json = (dir_ / "killed.json").string();
  const takt::testing::Interrupted r = signal_takt_when(
      {"bench", "analyze", "--tasks", "60", "--cores", "8", "--repetitions", "60", "--json", json},
      [](const std::string& out, std::chrono::steady_clock::duration) {
        return out.find("\nrt-openmp  federated ") != std::string::npos;
      },
      SIGKILL);
  ASSERT_TRUE(r.signalled) << "the first row was never printed before the end: " << r.outcome.out;
  auto j = nlohmann::json::parse(takt::testing::slurp(json));
  EXPECT_FALSE(j["complete"].get<bool>());
  EXPECT_EQ(j["rows_planned"], 8);  // 2 sets x 4 policies: the file says how many are missing
  ASSERT_GE(j["results"].size(), 1u) << j.dump();
  EXPECT_EQ(j["results"][0]["set"], "rt-openmp");
  EXPECT_EQ(j["results"][0]["policy"], "federated");
  EXPECT_GT(j["results"][0]["total_s"].get<double>(), 0);
}

TEST_F(Commands, BenchAnalyzeKeepsItsRowsWhenASetCannotBeGenerated) {
  // One task on 4 cores at 50 %: the paws set's periods fall below the task's span. The
  // error named a deadline in the generated text and no JSON was written: the
  // rt-openmp rows measured before it were lost.
  const std::string json = (dir_ / "few.json").string();
  Outcome r = takt("bench analyze --tasks 1 --cores 4 --repetitions 1 --json " + json);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("the paws set of 1 tasks scaled to 50% of 4 cores is no valid task set"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("give more --tasks or fewer --cores"), std::string::npos) << r.err;
  auto j = nlohmann::json::parse(takt::testing::slurp(json));
  EXPECT_FALSE(j["complete"].get<bool>());
  EXPECT_EQ(j["results"].size(), 4u);
  for (const auto& row : j["results"]) EXPECT_EQ(row["set"], "rt-openmp");
  ASSERT_EQ(j["not_measured"].size(), 4u);
  EXPECT_NE(j["not_measured"][0]["reason"].get<std::string>().find("no valid task set"), std::string::npos);
}

TEST_F(Commands, BenchAnalyzeKeepsItsRowsWhenASetCannotBeAnalysedUnderAPolicy) {
  // 1,000 tasks on 1,024 cores: the paws set is a valid task set, but partitioned-dm
  // would place more than 10^6 strands. That error ended takt after 6 rows, and every
  // row measured was lost; now that row alone is left out (with the reason), the last
  // row is still measured, and the exit code says bad input.
  const std::string json = (dir_ / "wide.json").string();
  Outcome r = takt("bench analyze --tasks 1000 --cores 1024 --repetitions 1 --json " + json);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("the paws set of 1000 tasks on 1024 cores cannot be analysed under partitioned-dm"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("more than 1000000 strands"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the rows measured are written to " + json), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("partial: a set could not be analysed under a policy after 7 of 8 rows"),
            std::string::npos)
      << r.out;
  auto j = nlohmann::json::parse(takt::testing::slurp(json));
  EXPECT_FALSE(j["complete"].get<bool>());
  EXPECT_FALSE(j.contains("stopped_by"));
  ASSERT_EQ(j["results"].size(), 7u);
  EXPECT_EQ(j["results"][6]["set"], "paws");
  EXPECT_EQ(j["results"][6]["policy"], "gedf-paws");
  ASSERT_EQ(j["not_measured"].size(), 1u);
  EXPECT_EQ(j["not_measured"][0]["set"], "paws");
  EXPECT_EQ(j["not_measured"][0]["policy"], "partitioned-dm");
  EXPECT_NE(j["not_measured"][0]["reason"].get<std::string>().find("more than 1000000 strands"),
            std::string::npos);
}

TEST_F(Commands, BenchAnalyzeCtrlCWritesTheRowsMeasuredMarkedPartialAndEndsBySigint) {
  // Rows of 60 runs each; SIGINT as soon as the first row is printed (each row is
  // flushed as it is measured): that row is written, the one in flight is cut short and
  // left out, and the rest are named as not measured. Before, SIGINT's default action
  // ended takt and nothing was written.
  const std::string json = (dir_ / "cut.json").string();
  const takt::testing::Interrupted r = signal_takt_when(
      {"bench", "analyze", "--tasks", "60", "--cores", "8", "--repetitions", "60", "--json", json},
      [](const std::string& out, std::chrono::steady_clock::duration) {
        return out.find("\nrt-openmp  federated ") != std::string::npos;
      });
  const Outcome& o = r.outcome;
  ASSERT_TRUE(r.signalled) << "the first row was never printed before the end: " << o.out << o.err;
  EXPECT_EQ(o.status, 128 + SIGINT) << o.err;  // ended by the signal, after writing
  EXPECT_NE(o.err.find("takt bench analyze: stopping"), std::string::npos) << o.err;
  auto j = nlohmann::json::parse(takt::testing::slurp(json));
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["stopped_by"], "SIGINT");
  const std::size_t done = j["results"].size();
  ASSERT_GE(done, 1u);
  ASSERT_LT(done, 8u);
  EXPECT_EQ(j["results"][0]["set"], "rt-openmp");
  EXPECT_EQ(j["results"][0]["policy"], "federated");
  for (const auto& row : j["results"]) EXPECT_GT(row["total_s"].get<double>(), 0);
  EXPECT_EQ(j["not_measured"].size(), 8u - done);
  EXPECT_EQ(j["not_measured"].back()["set"], "paws");
  EXPECT_EQ(j["not_measured"].back()["policy"], "gedf-paws");
  EXPECT_TRUE(j["slowest_total_s"].is_number());
  EXPECT_NE(o.out.find("partial: stopped by SIGINT after " + std::to_string(done) + " of 8 rows"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.err.find("takt bench analyze: stopped by SIGINT: " + std::to_string(done) +
                       " of 8 rows measured and written to " + json + "; not measured: "),
            std::string::npos)
      << o.err;
}

TEST_F(Commands, BenchAnalyzeCompleteRunSaysSo) {
  Outcome r = takt("bench analyze --tasks 10 --cores 4 --repetitions 1 --json " + (dir_ / "b.json").string());
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(takt::testing::slurp(dir_ / "b.json"));
  EXPECT_EQ(j["complete"], true);
  EXPECT_FALSE(j.contains("stopped_by"));
  EXPECT_FALSE(j.contains("not_measured"));
  EXPECT_EQ(j["results"].size(), 8u);
}

TEST_F(Commands, AWordThatIsNoCommandIsNamedWithTheCommandsThereAre) {
  Outcome r = takt("nosuch");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("'nosuch' is not a command of takt; the commands are: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("analyze"), std::string::npos) << r.err;
  r = takt("bench nosuch");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("'nosuch' is not a command of takt bench"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("runtime"), std::string::npos) << r.err;
  r = takt("bench");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("takt bench needs a command: "), std::string::npos) << r.err;
  // A word after a command with an action is its argument, not a command.
  EXPECT_EQ(takt("analyze " + example("01-one-task.yaml")).status, 0);
  // Unless that command takes no argument and has commands of its own (takt demo and
  // takt demo runtime): CLI11 only said the word "was not expected".
  r = takt("demo runtim");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("'runtim' is not a command of takt demo; the commands are: runtime"), std::string::npos)
      << r.err;
  // takt demo's own options before `runtime`: only takt demo runtime runs, so they were
  // ignored (exit 0, no file written).
  const fs::path json = dir_ / "demo.json";
  r = takt("demo --json " + json.string() + " runtime --fib 5");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(
      r.err.find("--json before 'runtime' is an option of `takt demo`, which does not run; write it after "
                 "'runtime'"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Run 'takt demo runtime --help'"), std::string::npos) << r.err;
  r = takt("demo --print-set runtime --fib 5");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(
      r.err.find("--print-set is an option of `takt demo`, which does not run; `takt demo runtime` has no "
                 "such option"),
      std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(json));
  EXPECT_EQ(takt("demo runtime --fib 5 --json " + json.string()).status, 0);
  EXPECT_TRUE(fs::exists(json));
}

TEST_F(Commands, AFolderOrAnUnreadableFileAsInputIsNamedAsSuch) {
  Outcome r = takt("analyze " + dir_.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("it is a folder; give the path of a file"), std::string::npos) << r.err;
  r = takt("convert " + dir_.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(".rtpt file '" + dir_.string() + "': it is a folder"), std::string::npos) << r.err;
  r = takt("analyze " + (dir_ / "missing.yaml").string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("No such file or directory; check the path"), std::string::npos) << r.err;
}

TEST_F(Commands, OutputThatCannotBeWrittenIsAnErrorNotSuccess) {
  // /dev/full accepts the open and fails every write (ENOSPC): the results are lost, so
  // the command must not exit 0.
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const fs::path rtpt =
      write("set.rtpt", "0 1\nsynthetic_task 1 1 0 100000\n0 100000 0 100000 0 1000000 0 1000000 0 0 1\n");
  Outcome r = takt("convert " + rtpt.string() + " -o /dev/full");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("writing '/dev/full' failed"), std::string::npos) << r.err;
  r = takt("demo runtime --fib 5 --json /dev/full");
  EXPECT_EQ(r.status, 1) << r.err;
  // Standard output redirected to /dev/full.
  const fs::path err = dir_ / "full.err";
  const std::string command = std::string(TAKT_BINARY) +
                              " generate --method rtws --cores 2 --utilization 1.2 >/dev/full 2>" +
                              err.string();
  const int raw = std::system(command.c_str());
  EXPECT_EQ(takt::testing::exit_status(raw), 1);
  EXPECT_NE(takt::testing::slurp(err).find("writing to standard output failed"), std::string::npos)
      << takt::testing::slurp(err);
  EXPECT_NE(takt::testing::slurp(err).find(", or give -o FILE"), std::string::npos) << takt::testing::slurp(err);
  EXPECT_NE(takt::testing::slurp(err).find("folder with space"), std::string::npos)
      << takt::testing::slurp(err);
  // Closed (>&-): no matter of space.
  const int closed = std::system(
      (std::string(TAKT_BINARY) + " generate --method rtws --cores 2 --utilization 1.2 >&- 2>" + err.string())
          .c_str());
  EXPECT_EQ(takt::testing::exit_status(closed), 1);
  EXPECT_NE(
      takt::testing::slurp(err).find("(Bad file descriptor); it is closed: leave it open or redirect it to a "
                                     "file, or give -o FILE"),
      std::string::npos)
      << takt::testing::slurp(err);
  // A command without -o is not told to use one (analyze was told "-o, --json": it has
  // neither a file option for its output).
  const int analyze = std::system(
      (std::string(TAKT_BINARY) + " analyze " + example("07-unschedulable.yaml") + " >/dev/full 2>" + err.string())
          .c_str());
  // The report of a set that is not schedulable was lost: 1, not the verdict's 2 (kept
  // until 2026-11-29, while a report too long for stdio's buffer gave 1), --json too.
  EXPECT_EQ(takt::testing::exit_status(analyze), 1);
  EXPECT_NE(takt::testing::slurp(err).find("writing to standard output failed"), std::string::npos)
      << takt::testing::slurp(err);
  EXPECT_EQ(takt::testing::slurp(err).find("give -o"), std::string::npos) << takt::testing::slurp(err);
  const int analyze_json =
      std::system((std::string(TAKT_BINARY) + " analyze " + example("07-unschedulable.yaml") +
                   " --json >/dev/full 2>" + err.string())
                      .c_str());
  EXPECT_EQ(takt::testing::exit_status(analyze_json), 1);
  // More than stdio's buffer (a report of about 8 KB): fmt::print throws midway,
  // which ended takt as "takt: internal error: cannot write to file" (exit 3) until
  // 2026-11-28.
  const fs::path big = dir_ / "big.yaml";
  ASSERT_EQ(takt("generate --method rtws --cores 512 --utilization 400 -o " + big.string()).status, 0);
  const int midway =
      std::system((std::string(TAKT_BINARY) + " analyze " + big.string() + " >&- 2>" + err.string()).c_str());
  EXPECT_EQ(takt::testing::exit_status(midway), 1) << takt::testing::slurp(err);
  EXPECT_NE(takt::testing::slurp(err).find("writing to standard output failed (Bad file descriptor)"),
            std::string::npos)
      << takt::testing::slurp(err);
  EXPECT_EQ(takt::testing::slurp(err).find("internal error"), std::string::npos) << takt::testing::slurp(err);
  // --help and --version too.
  for (const char* args : {"--help", "--version", "run --help", "bench runtime --help"}) {
    const int status =
        std::system((std::string(TAKT_BINARY) + " " + args + " >/dev/full 2>" + err.string()).c_str());
    EXPECT_EQ(takt::testing::exit_status(status), 1) << args;
    EXPECT_NE(takt::testing::slurp(err).find("writing to standard output failed"), std::string::npos)
        << args << ": " << takt::testing::slurp(err);
    // No file option takes the help or the version: none is suggested.
    EXPECT_EQ(takt::testing::slurp(err).find("-o FILE"), std::string::npos)
        << args << ": " << takt::testing::slurp(err);
  }
}

TEST_F(Commands, AStandardErrorThatCannotBeWrittenLosesTheMessagesNotTheResults) {
  // stderr on /dev/full (every write fails, ENOSPC) or closed (2>&-): a message takt
  // cannot write is lost; the command still ends as it would, with its results written.
  // Until 2026-11-28 fmt::print threw there, and the error report's own print ended takt
  // with std::terminate (SIGABRT, exit 134; nothing written).
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  auto status_of = [](const std::string& args) {
    const int raw = std::system((std::string(TAKT_BINARY) + " " + args).c_str());
    return takt::testing::exit_status(raw);
  };
  for (const char* err : {"2>/dev/full", "2>&-"}) {
    SCOPED_TRACE(err);
    // An error: its message is lost, its exit code is not.
    EXPECT_EQ(status_of("analyze " + example("10-run.yaml") + " --policy nonesuch >/dev/null " + err), 1);
    // Messages on the way (takt generate's summary), then the result.
    const fs::path set = dir_ / "generated.yaml";
    fs::remove(set);
    EXPECT_EQ(status_of("generate --method rtws --cores 2 --utilization 1.2 -o " + set.string() + " " + err),
              0);
    EXPECT_TRUE(fs::exists(set));
    // takt run prints its CPUs and privileges on stderr before the first release.
    const fs::path json = dir_ / "run.json";
    fs::remove(json);
    EXPECT_EQ(status_of("run " + example("10-run.yaml") + " --duration 100ms --no-cyclictest --json " +
                        json.string() + " >/dev/null " + err),
              0);
    ASSERT_TRUE(fs::exists(json));
    // /dev/null on a closed stderr's number is no standard stream to write --json through.
    EXPECT_EQ(status_of("demo runtime --fib 5 --json /dev/null >/dev/null " + std::string(err)), 0);
    EXPECT_GT(nlohmann::json::parse(takt::testing::slurp(json))["totals"]["jobs"].get<int>(), 0);
  }
}

TEST_F(Commands, AnOutputOnAClosedStandardOutputIsRefusedBeforeTheRun) {
  // `--json /dev/stdout >&-`: standard output closed, so /dev/stdout is the read-only
  // /dev/null takt puts in its place; the run went ahead and the JSON was lost at the
  // end. Now it is refused first, naming the stream; /dev/null itself is still fine there.
  const fs::path err = dir_ / "closed.err";
  const std::string base =
      std::string(TAKT_BINARY) + " run " + example("10-run.yaml") + " --duration 100ms --no-cyclictest";
  for (const char* out : {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}) {
    const int raw = std::system((base + " --json " + out + " >&- 2>" + err.string()).c_str());
    EXPECT_EQ(takt::testing::exit_status(raw), 1) << out;
    const std::string e = takt::testing::slurp(err);
    EXPECT_NE(e.find(std::string("--json: cannot write '") + out +
                     "': it is takt's standard output, which is closed (started with 1>&-) or not open for "
                     "writing; give a file"),
              std::string::npos)
        << e;
    EXPECT_EQ(e.find(" task(s) under "), std::string::npos) << "refused before the run: " << e;
  }
  const int raw = std::system((base + " --trace /dev/stderr 2>&- >/dev/null").c_str());
  EXPECT_EQ(takt::testing::exit_status(raw), 1);
  // A closed standard input holds the same read-only /dev/null: the JSON went there, lost.
  const int in = std::system((base + " --json /dev/stdin <&- >/dev/null 2>" + err.string()).c_str());
  EXPECT_EQ(takt::testing::exit_status(in), 1);
  EXPECT_NE(
      takt::testing::slurp(err).find("--json: cannot write '/dev/stdin': it is takt's standard input, which "
                                     "is closed (started with 0<&-)"),
      std::string::npos)
      << takt::testing::slurp(err);
  // It runs (and fails at the end only because its table cannot be printed).
  (void)std::system((base + " --json /dev/null >&- 2>" + err.string()).c_str());
  const std::string e = takt::testing::slurp(err);
  EXPECT_NE(e.find(" task(s) under "), std::string::npos) << e;
  EXPECT_EQ(e.find("which is closed"), std::string::npos) << e;
}

TEST_F(Commands, AnOutputFileOfTheKernelsProcOrSysInterfaceIsRefused) {
  // Writing results into /proc or /sys would change a kernel setting (--json
  // /proc/sys/kernel/hostname renamed the machine, exit 0). /proc/self/comm, takt's own
  // name, is the harmless one to try: without the check takt renames only itself.
  const Outcome r = takt("demo runtime --fib 5 --json /proc/self/comm");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(
      r.err.find("--json: cannot write '/proc/self/comm': it is a file of the kernel's /proc interface, "
                 "not one to hold results"),
      std::string::npos)
      << r.err;
  // Standard output reached through /proc/self/fd (a file here: takt() redirects it) is still fine;
  // so is a pipe (bash's >(...), a /dev/fd link to a pipe).
  EXPECT_EQ(takt("demo runtime --fib 5 --json /dev/stdout").status, 0);
  const fs::path err = dir_ / "pipe.err";
  const int piped =
      std::system(("bash -c '" + std::string(TAKT_BINARY) +
                   " demo runtime --fib 5 --json >(cat > /dev/null) >/dev/null 2>" + err.string() + "'")
                      .c_str());
  EXPECT_EQ(takt::testing::exit_status(piped), 0) << takt::testing::slurp(err);
}

TEST_F(Commands, WholeNumberOptionsSayWhatTheyExpect) {
  Outcome r = takt("analyze " + example("01-one-task.yaml") + " --cores 0");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--cores: expects a whole number from 1 to 65536, not '0'"), std::string::npos)
      << r.err;
  // Beyond the range (and beyond int: CLI11 said "Could not convert").
  for (const char* many : {"65537", "3000000000"}) {
    r = takt("analyze " + example("01-one-task.yaml") + " --cores " + many);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(std::string("--cores: expects a whole number from 1 to 65536, not '") + many + "'"),
              std::string::npos)
        << r.err;
  }
  r = takt("analyze " + example("01-one-task.yaml") + " --cores abc");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("not 'abc'"), std::string::npos) << r.err;
  r = takt("generate --method rtws --cores 2 --utilization 1 --seed -1");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--seed: expects a whole number of at least 0, not '-1'"), std::string::npos) << r.err;
  r = takt("generate --method rtws --cores 2 --utilization 1 --seed 99999999999999999999");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("is too large"), std::string::npos) << r.err;
  EXPECT_EQ(takt("analyze " + example("01-one-task.yaml") + " --cores 3").status, 0);
  // An int option beyond int: CLI11 said "Could not convert: --tasks = 3000000000".
  // INT_MAX = 2147483647; run's --jobs is 64-bit signed, profile's unsigned.
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"bench analyze --tasks 3000000000", "--tasks: '3000000000' is too large: at most 2147483647"},
           {"bench analyze --repetitions 3000000000",
            "--repetitions: '3000000000' is too large: at most 2147483647"},
           {"bench runtime --repetitions 3000000000",
            "--repetitions: '3000000000' is too large: at most 2147483647"},
           {"run " + example("10-run.yaml") + " --jobs 9223372036854775808",
            "--jobs: '9223372036854775808' is too large: at most 9223372036854775807"},
           // Below the smallest 64-bit number is below the minimum, not "too large".
           {"bench analyze --tasks -99999999999999999999",
            "--tasks: expects a whole number of at least 1, not '-99999999999999999999'"}}) {
    r = takt(args);
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("Could not convert"), std::string::npos) << r.err;
  }
}

TEST_F(Commands, AnalyzeRejectsATopologyThatTaktRunCouldNotBuild) {
  // The analysis itself ignores `topology:`, but a set whose topology cannot be read
  // must not be called schedulable and then fail in `takt run`.
  const std::string tasks =
      "global: {cores: 2, policy: gedf-paws}\n"
      "tasks:\n"
      "  - {name: a, period: 10ms, program: segments, segments: [{length: 1ms}]}\n";
  Outcome r = takt("analyze " + write("no-entry.yaml", tasks + "topology:\n  pipes: {a: one}\n").string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no-entry.yaml:5:3: the topology has no entry pipe"), std::string::npos) << r.err;
  r = takt("analyze " + write("not-a-map.yaml", tasks + "topology: 5\n").string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("a topology must be a map"), std::string::npos) << r.err;
  r = takt("analyze " + write("fine.yaml", tasks + "topology:\n"
                                                   "  pipes: {admitted: one}\n"
                                                   "  entry: admitted\n"
                                                   "  instances: {}\n"
                                                   "  pes: {terminal: admitted}\n")
                            .string());
  EXPECT_EQ(r.status, 0) << r.err;
  // An entry the policy's work cannot take, as `takt run` refuses it (2026-11-29: analyze
  // said schedulable): by pe under gedf-paws; by cluster under partitioned-dm.
  const std::string by_pe =
      "topology:\n"
      "  pipes: {admitted: per-pe, merged: one}\n"
      "  entry: \"admitted[pe]\"\n"
      "  instances: {m: {component: mux, inputs: \"admitted[*]\", output: merged}}\n"
      "  pes: {terminal: merged}\n";
  r = takt("analyze " + write("by-pe.yaml", tasks + by_pe).string());
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(
      r.err.find("by-pe.yaml:6:10: the entry 'admitted[pe]' routes each job by its pe, but gedf-paws admits "
                 "each job bound to no PE; write the entry as one pipe"),
      std::string::npos)
      << r.err;
  r = takt("analyze " + write("by-pe.yaml", tasks + by_pe).string() + " --policy partitioned-dm");
  EXPECT_EQ(r.status, 0) << r.err;
  std::string by_cluster = by_pe;
  by_cluster.replace(by_cluster.find("per-pe"), 6, "per-cluster");
  by_cluster.replace(by_cluster.find("admitted[pe]"), 12, "admitted[cluster]");
  r = takt("analyze " + write("by-cluster.yaml", tasks + by_cluster).string() + " --policy partitioned-dm");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(
      r.err.find("the entry 'admitted[cluster]' routes each job by its cluster, but partitioned-dm admits "
                 "each strand bound to its core (pe) and to no cluster"),
      std::string::npos)
      << r.err;
  r = takt("analyze " + write("by-cluster.yaml", tasks + by_cluster).string());
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST_F(Commands, OptionsThatWouldBeIgnoredAreErrors) {
  // An empty value would read as if the option were absent.
  Outcome r = takt("analyze " + example("01-one-task.yaml") + " --policy ''");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--policy was given an empty value"), std::string::npos) << r.err;
  // Written --name= with nothing after the '=', CLI11 took the next word as the value:
  // the JSON went to a file named '--no-cyclictest', the YAML to one named '--json'.
  for (const std::string& args :
       {"run " + example("10-run.yaml") + " --json= --no-cyclictest --jobs 1",
        std::string("generate --method paws --cores 2 --utilization 1 --output= --json"),
        "analyze " + example("01-one-task.yaml") + " --policy= --json"}) {
    SCOPED_TRACE(args);
    r = takt(args);
    EXPECT_EQ(r.status, 1);
    const std::size_t equals = args.find('=');
    const std::string option = args.substr(args.rfind("--", equals), equals - args.rfind("--", equals));
    EXPECT_NE(r.err.find(option + " was given an empty value ('" + option + "=')"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("--help' for the options"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists("--no-cyclictest"));
  EXPECT_FALSE(std::filesystem::exists("--json"));
  // An option of another generator method.
  r = takt("generate --method paws --cores 2 --utilization 1 --type 2");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--type applies to --method synthetic only"), std::string::npos) << r.err;
  r = takt("generate --method rtws --cores 2 --utilization 1 --timescale 2ms");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--timescale applies to --method rt-openmp only"), std::string::npos) << r.err;
  EXPECT_EQ(takt("generate --method synthetic --cores 2 --utilization 1 --type 2").status, 0);
  // bench sched: a run of no part, and an option of a part skipped (until 2026-11-29 the
  // first wrote complete: true with no data, the others were ignored).
  const struct {
    const char* args;
    const char* message;
  } sched[] = {
      {"--skip-per-stage --skip-scaling --skip-baselines",
       "--skip-per-stage, --skip-scaling and --skip-baselines leave nothing to measure"},
      {"--skip-scaling --pes 2,4", "--pes applies to the scaling part, which --skip-scaling leaves out"},
      {"--skip-scaling --topology gedf-paws",
       "--topology applies to the scaling part, which --skip-scaling leaves out"},
      {"--skip-scaling --skip-idle",
       "--skip-idle applies to the scaling part, which --skip-scaling leaves out"},
      {"--skip-per-stage --depths 1",
       "--depths applies to the per-stage part, which --skip-per-stage leaves out"},
  };
  for (const auto& c : sched) {
    SCOPED_TRACE(c.args);
    r = takt(std::string("bench sched --quick --repeats 1 ") + c.args);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST_F(Commands, EveryListOptionRefusesAValueNamedTwice) {
  // Until 2026-11-29 bench policies ran a repeated cell twice, bench sched dropped a
  // repeated PE count, profile --cpus 0,0 profiled on CPU 0 alone, and profile --parallel
  // refused: every list option refuses now, before anything runs.
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"bench policies --no-cyclictest --utilization 30,30",
       "--utilization names 30 twice; give each utilization once"},
      {"bench policies --no-cyclictest --workload fine,fine",
       "--workload names fine twice; give each workload once"},
      {"bench sched --quick --pes 2,2", "--pes names 2 twice; give each PE count once"},
      {"bench sched --quick --topology gedf-paws,gedf-paws", "--topology names gedf-paws twice"},
      {"bench sched --quick --depths 1,1", "--depths names 1 twice; give each depth once"},
      {"bench runtime --quick --kernels fib,fib", "--kernels names fib twice; give each kernel once"},
      {"bench runtime --quick --runtimes takt,takt", "--runtimes names takt twice; give each runtime once"},
      {"profile fib 5 --jobs 1 --parallel 1,1", "--parallel names 1 twice; give each worker count once"},
      {"profile fib 5 --jobs 1 --cpus 0,0", "it names CPU 0 twice; name each CPU once"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const Outcome r = takt(c.args);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
}

TEST_F(Commands, CommandLineErrorsStartWithTheErrorPrefixAndNameTheHelpToRead) {
  const std::string set = example("01-one-task.yaml");
  const std::pair<std::string, std::string> cases[] = {
      {"run " + set + " --duration 1s --jobs 3", "--duration excludes --jobs"},
      {"run " + set + " --cores 0", "--cores: expects a whole number from 1 to 65536, not '0'"},
      {"run " + set + " --nosuch", "`takt run` has no option --nosuch"},
      {"run", "file is required"},
      // CLI11's own words, said as takt says the others (they were "At Most 1 required but
      // received 2", "The following arguments were not expected: x --polcy", "1 required
      // TEXT missing", "Could not convert: --force = maybe").
      {"run " + set + " --cores 1 --cores 2", "--cores was given 2 times; give it once"},
      {"run " + set + " --polcy x", "`takt run` has no option --polcy; did you mean --policy?"},
      {"run " + set + " --kernels fib", "`takt run` has no option --kernels (`takt bench runtime` has)"},
      {"run " + set + " extra", "`takt run` takes no argument 'extra' there"},
      {"run " + set + " --policy", "--policy needs a value; give one after it"},
      {"run " + set + " --force=maybe",
       "--force is a flag: write it alone (or --force=true, --force=false), "
       "not 'maybe'"},
      {"--cores 1 run " + set, "--cores is an option of `takt run`; write it after 'run'"},
      // From a review: words after -- are arguments; a negative number is an argument; an
      // empty word is named as such; a leading 0 would be read as octal by CLI11 (010 was 8,
      // below a minimum of 10 that the check had let through).
      {"run " + set + " -- --cores 2",
       "`takt run` takes no argument '--cores' there (the words after -- are arguments, not options)"},
      {"run " + set + " -5", "`takt run` takes no argument '-5' there"},
      {"run " + set + " ''", "`takt run` takes no argument '' (an empty word) there"},
      {"run " + set + " --cores 02",
       "--cores: '02' has a leading 0, which would read as an octal number; write it "
       "without"},
      // A duration's message names its option.
      {"run " + set + " --duration 1", "--duration: '1' has no unit"},
      {"run " + set + " --duration -1s", "--duration: '-1s'"},
      {"run " + set + " --duration 0s", "--duration: must be positive, not '0s'"},
  };
  for (const auto& [args, message] : cases) {
    Outcome r = takt(args);
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_EQ(r.err.rfind("takt: error: ", 0), 0u) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_NE(r.err.find("'takt run --help'"), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  // Checked against the machine once the command runs, told like the others: no file
  // written, the help line.
  for (const auto& [args, message] :
       {std::pair<std::string, std::string>{"runtime --workers 65536",
                                            "--workers 65536: this process may use "},
        {"policies --cores 65536 --json " + (dir_ / "p.json").string(), "--cores 65536 is more than the "}}) {
    const Outcome o = takt("bench " + args);
    EXPECT_EQ(o.status, 1) << args;
    EXPECT_EQ(o.err.rfind("takt: error: " + message, 0), 0u) << o.err;
    EXPECT_NE(o.err.find("Run 'takt bench " + args.substr(0, args.find(' ')) + " --help'"), std::string::npos)
        << o.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "p.json")) << "refused before its placeholder was written";
  // A nested command names its own help; an unknown option before any command, takt's.
  Outcome r = takt("bench runtime --nosuch");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("`takt bench runtime` has no option --nosuch"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("takt: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("'takt bench runtime --help'"), std::string::npos) << r.err;
  for (const auto& [args, message] :
       {std::pair<std::string, std::string>{"demo --duration 1", "--duration: '1'"},
        {"profile fib 5 --burden-spawn -1us --burden-sync 1us", "--burden-spawn: '-1us'"},
        {"profile fib 5 --burden-spawn 1us --burden-sync 1", "--burden-sync: '1' has no unit"},
        {"generate --method rt-openmp --cores 2 --utilization 1 --timescale 2",
         "--timescale: '2' has no unit"},
        // The minimum, while the command line is read (it failed later, without the help line).
        {"generate --method rt-openmp --cores 2 --utilization 1 --timescale 0s",
         "--timescale: must be at least 2.048us (the minimum period is 2^11 = 2048 time units, and a unit is "
         "at least 1 ns), not '0s'"},
        {"generate --method rt-openmp --cores 2 --utilization 1 --timescale 2047ns",
         "--timescale: must be at least 2.048us"},
        // An option followed by another option of the command: CLI11 took '--json' as -o's
        // value and wrote YAML to a file named '--json'.
        {"generate --method paws --cores 2 --utilization 1 -o --json",
         "-o needs a value, but '--json' follows it, an option of `takt generate`; give the value right "
         "after -o"},
        // A check of takt demo's option given before `runtime` names takt demo's help.
        {"demo --duration abc runtime", "--duration: 'abc' is not a duration"},
        {"profile fib 5 --priority 010", "--priority: '010' has a leading 0"}}) {
    r = takt(args);
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_EQ(r.err.rfind("takt: error: " + message, 0), 0u) << args << ": " << r.err;
    const std::string command = args.substr(0, args.find(' '));
    EXPECT_NE(r.err.find("Run 'takt " + command + " --help'"), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_EQ(takt("generate --method rt-openmp --cores 2 --utilization 1 --timescale 2048ns").status, 0);
  r = takt("generate --help");
  EXPECT_NE(r.out.find("DURATION>=2.048us"), std::string::npos) << "the minimum is shown: " << r.out;
  // A flag written --name= is the flag (CLI11 reads it so): not refused as an empty value.
  EXPECT_EQ(takt("analyze " + set + " --json=").status, 0);
  r = takt("--cores=2");
  EXPECT_EQ(r.err.rfind("takt: error: takt has no option --cores; a command comes first", 0), 0u) << r.err;
  r = takt("--nosuch");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(
      r.err.rfind("takt: error: takt has no option --nosuch; a command comes first (takt COMMAND [OPTIONS])",
                  0),
      0u)
      << r.err;
  EXPECT_NE(r.err.find("'takt --help'"), std::string::npos) << r.err;
  // --help and --version are no errors.
  r = takt("run --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--duration"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;
  r = takt("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("takt ", 0), 0u) << r.out;
  // Words after --version: CLI11 printed the version and ignored them (exit 0), so
  // `takt --version run set.yaml` ran nothing and said nothing of it.
  r = takt("--version run set.yaml");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind(
                "takt: error: --version takes nothing after it, not 'run'; write `takt --version` alone", 0),
            0u)
      << r.err;
  // Every command that has the option (until 2026-11-29 one: `takt demo --jobs` named
  // `takt profile` alone, though `takt run` has it too).
  const Outcome demo = takt("demo --jobs 5");
  EXPECT_EQ(demo.status, 1);
  EXPECT_NE(demo.err.find("`takt demo` has no option --jobs (`takt profile` and `takt run` have)"),
            std::string::npos)
      << demo.err;
}

TEST_F(Commands, BenchPoliciesWritesItsMarkdownTablesWhole) {
  // One short cell (half a second): the --markdown file holds exactly the tables printed
  // on stdout, written through a temporary file that is renamed into place (none is left).
  const fs::path md = dir_ / "tables.md";
  write("tables.md", "an older file\n");
  // A reader that opened the older file before sees it whole to the end: the new file
  // took its name, the older one was not cut short and written over in place (as a plain
  // fopen("w") did).
  std::ifstream before(md);
  ASSERT_TRUE(before);
  Outcome r = takt(
      "bench policies --utilization 30 --workload fine --sets 1 --min-jobs 1 --no-cyclictest --markdown " +
      md.string());
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream in(md);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("| 30% | gedf-paws |"), std::string::npos) << text;
  EXPECT_EQ(text, r.out);
  EXPECT_FALSE(fs::exists(dir_ / "tables.md.partial"));
  const std::string older((std::istreambuf_iterator<char>(before)), std::istreambuf_iterator<char>());
  EXPECT_EQ(older, "an older file\n");
}

TEST_F(Commands, BenchPoliciesStoppedBySigtermWritesTheSetsRunAndEndsByTheSignal) {
  // A stop that was asked for is no error ("takt: error: ... stopped by signal 15", exit
  // 1, before): the sets run are written, and takt ends by the signal (143).
  const fs::path json = dir_ / "policies.json";
  const std::string err = (dir_ / "err").string(), status = (dir_ / "status").string();
  const std::string script = "TAKT_NO_RT=1 " + std::string(TAKT_BINARY) +
                             " bench policies --utilization 30 --workload fine --sets 20 --no-cyclictest --json " +
                             json.string() + " >/dev/null 2>" + err + " & pid=$!; sleep 2; kill -TERM $pid; wait $pid; echo $? >" +
                             status;
  ASSERT_EQ(std::system(script.c_str()), 0);
  const std::string e = takt::testing::slurp(dir_ / "err");
  EXPECT_EQ(takt::testing::slurp(dir_ / "status"), "143\n") << e;
  EXPECT_NE(e.find("takt bench policies: stopped by SIGTERM; the tables and files hold the sets run"),
            std::string::npos)
      << e;
  EXPECT_EQ(e.find("error"), std::string::npos) << e;
  std::ifstream in(json);
  ASSERT_TRUE(in.good());
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_FALSE(j["complete"].get<bool>());
}

TEST_F(Commands, EveryOutputFileOptionIsCheckedBeforeTheCommandWorks) {
  const fs::path rtpt =
      write("set.rtpt", "0 1\nsynthetic_task 1 1 0 100000\n0 100000 0 100000 0 1000000 0 1000000 0 0 1\n");
  const std::string missing = (dir_ / "none" / "out").string();
  const std::pair<std::string, std::string> cases[] = {
      {"generate --method rtws --cores 2 --utilization 1 -o " + missing, "--output"},
      {"convert " + rtpt.string() + " -o " + dir_.string(), "--output"},
      {"profile fib 20 --jobs 1 --profiles " + missing, "--profiles"},
      {"profile --update " + missing, "--update"},
      {"demo runtime --json " + missing, "--json"},
      {"bench analyze --tasks 30 --cores 8 --repetitions 1 --json " + missing, "--json"},
      {"bench runtime --quick --json " + missing, "--json"},
      {"bench cpus --json " + missing, "--json"},
      {"bench latency --json " + missing, "--json"},
      {"bench sched --json " + missing, "--json"},
      {"bench policies --json " + missing, "--json"},
      {"bench policies --markdown " + missing, "--markdown"},
  };
  for (const auto& [args, option] : cases) {
    Outcome r = takt(args);
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_EQ(r.err.rfind("takt: error: " + option + ": cannot write '", 0), 0u) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_FALSE(fs::exists(dir_ / "none"));
}

TEST_F(Commands, ATaskSetFifoSaysThatReadingItWaitsForAWriter) {
  // A FIFO as the task-set file: open() waits until a program opens it for writing, and
  // takt sat there with nothing said. Now a line says so first; here the writer comes
  // 300 ms later and the set is read. A pipe of a shell's <(...) gets no such line.
  const fs::path set = write("set.yaml", takt::testing::slurp(example("01-one-task.yaml")));
  const fs::path fifo = dir_ / "set.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const Outcome r =
      takt("analyze " + fifo.string(), "(sleep 0.3; cat " + set.string() + " > " + fifo.string() + ") & ");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("takt: the task-set file '" + fifo.string() +
                       "' is a FIFO: reading it waits until a program opens it for writing (Ctrl-C stops)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("1 task(s), policy federated"), std::string::npos) << r.out;
  // With no writer, Ctrl-C ends the wait (and takt, by the signal).
  const takt::testing::Interrupted stopped =
      signal_takt_after({"run", fifo.string(), "--jobs", "1"}, std::chrono::milliseconds(300));
  ASSERT_TRUE(stopped.signalled);
  EXPECT_EQ(stopped.outcome.status, 128 + SIGINT) << stopped.outcome.err;
  EXPECT_LT(stopped.after_signal, std::chrono::seconds(5));
  EXPECT_NE(stopped.outcome.err.find("is a FIFO: reading it waits"), std::string::npos)
      << stopped.outcome.err;
  const Outcome piped = takt("analyze /dev/stdin", "cat " + set.string() + " |");
  EXPECT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.err.find("is a FIFO"), std::string::npos) << piped.err;
}

TEST_F(Commands, FileOptionsThatNameTheSameFileAreRefusedBeforeAnythingRuns) {
  // Two outputs on one file: the second would replace the first (takt run wrote the trace
  // over the metrics and exited 0). An output on an input destroys the input.
  const std::string set_text = takt::testing::slurp(example("10-run.yaml"));
  const fs::path set = write("set.yaml", set_text);
  const fs::path out = dir_ / "out.json";
  const fs::path rtpt =
      write("a.rtpt", "0 1\nsynthetic_task 1 1 0 100000\n0 100000 0 100000 0 1000000 0 1000000 0 0 1\n");
  const std::string rtpt_text = takt::testing::slurp(rtpt);
  const fs::path programs = write("pr.yaml",
                                  "programs:\n  - {name: fib-30, program: fib, args: [30], work: 20ms, span: "
                                  "1ms, burdened_span: 1.2ms}\n");
  const std::string programs_text = takt::testing::slurp(programs);
  fs::create_directories(dir_ / "sub");
  const std::string file = set.string();
  struct Case {
    std::string args, message, help;
  };
  const Case cases[] = {
      {"run " + file + " --jobs 1 --json " + out.string() + " --trace " + out.string(),
       "--json '" + out.string() + "' and --trace '" + out.string() + "' name the same file", "takt run"},
      // Another spelling of the same path.
      {"run " + file + " --jobs 1 --json " + out.string() + " --trace " +
           (dir_ / "sub" / ".." / "out.json").string(),
       "name the same file", "takt run"},
      {"demo --json " + out.string() + " --trace " + out.string(), "name the same file", "takt demo"},
      {"profile fib 5 --update " + file + " --profiles " + file, "--update '" + file + "' and --profiles",
       "takt profile"},
      {"run " + file + " --jobs 1 --json " + file,
       "--json: '" + file +
           "' is the task-set file this command reads; writing it would destroy it: give "
           "--json another file",
       "takt run"},
      {"run " + file + " --jobs 1 --trace " + (dir_ / "sub" / ".." / "set.yaml").string(),
       "is the task-set file this command reads ('" + file + "')", "takt run"},
      {"generate --method rtws --cores 2 --utilization 1 --programs " + programs.string() + " -o " +
           programs.string(),
       "--output: '" + programs.string() + "' is the --programs file this command reads", "takt generate"},
      {"convert " + rtpt.string() + " -o " + rtpt.string(),
       "--output: '" + rtpt.string() + "' is the .rtpt file this command reads", "takt convert"},
  };
  for (const Case& c : cases) {
    Outcome r = takt(c.args);
    EXPECT_EQ(r.status, 1) << c.args;
    EXPECT_EQ(r.err.rfind("takt: error: ", 0), 0u) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find("Run '" + c.help + " --help'"), std::string::npos) << c.args << ": " << r.err;
    EXPECT_EQ(r.out, "") << c.args;
  }
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(takt::testing::slurp(set), set_text);
  EXPECT_EQ(takt::testing::slurp(rtpt), rtpt_text);
  EXPECT_EQ(takt::testing::slurp(programs), programs_text);

  // Standard input, a pipe here (`cmd | takt ...`): the results would go back into
  // takt's own input.
  for (const auto& [args, option] :
       {std::pair{"run " + file + " --jobs 1 --json /dev/stdin", std::string("--json")},
        std::pair{std::string("generate --method paws --cores 2 --utilization 1 -o /dev/stdin"),
                  std::string("--output")}}) {
    Outcome r = takt(args, "true |");
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_NE(r.err.find(option + ": '/dev/stdin' is this command's standard input, a pipe: what takt wrote "
                                  "there would go back into its own input"),
              std::string::npos)
        << args << ": " << r.err;
  }
  // Standard input that is not a pipe (here a file) is no such case: it is written.
  write("in.yaml", "");
  Outcome from_file = takt("generate --method paws --cores 2 --utilization 1 -o /dev/stdin",
                           "exec <" + (dir_ / "in.yaml").string() + ";");
  EXPECT_EQ(from_file.status, 0) << from_file.err;
  EXPECT_NE(takt::testing::slurp(dir_ / "in.yaml").find("tasks:"), std::string::npos);

  // The same existing file through a hard link and through a symbolic link.
  write("old.json", "{}\n");
  fs::create_hard_link(dir_ / "old.json", dir_ / "hard.json");
  fs::create_symlink(dir_ / "old.json", dir_ / "soft.json");
  for (const char* other : {"hard.json", "soft.json"}) {
    Outcome r = takt("run " + file + " --jobs 1 --json " + (dir_ / "old.json").string() + " --trace " +
                     (dir_ / other).string());
    EXPECT_EQ(r.status, 1) << other;
    EXPECT_NE(r.err.find("name the same file"), std::string::npos) << other << ": " << r.err;
  }
  EXPECT_EQ(takt::testing::slurp(dir_ / "old.json"), "{}\n");
  // A link to a file not there yet, and that file: both write it.
  fs::create_symlink("new.json", dir_ / "dangling.json");
  Outcome d = takt("run " + file + " --jobs 1 --json " + (dir_ / "dangling.json").string() + " --trace " +
                   (dir_ / "new.json").string());
  EXPECT_EQ(d.status, 1);
  EXPECT_NE(d.err.find("name the same file"), std::string::npos) << d.err;
  EXPECT_FALSE(fs::exists(dir_ / "new.json"));
  // An input that is not there is reported missing, not as one an output would destroy.
  const std::string none = (dir_ / "none.yaml").string();
  for (const std::string& args : {"run " + none + " --jobs 1 --json " + none,
                                  "generate --method rtws --cores 2 --utilization 1 --programs " + none +
                                      " -o " + none}) {
    Outcome m = takt(args);
    EXPECT_EQ(m.status, 1) << args;
    EXPECT_NE(m.err.find(none), std::string::npos) << args << ": " << m.err;
    EXPECT_NE(m.err.find("No such file or directory"), std::string::npos) << args << ": " << m.err;
    EXPECT_EQ(m.err.find("destroy"), std::string::npos) << args << ": " << m.err;
    EXPECT_FALSE(fs::exists(none)) << args;
  }
  // A device takes several outputs (written in place); distinct files pass the check.
  Outcome r = takt("demo --duration 200ms --no-cyclictest --json /dev/null --trace /dev/null");
  EXPECT_EQ(r.status, 0) << r.err;
  // --print-set runs nothing: the options of a run are refused with it, not ignored.
  Outcome printed = takt("demo --print-set --json " + (dir_ / "d.json").string());
  EXPECT_EQ(printed.status, 1);
  EXPECT_NE(printed.err.find("--json excludes --print-set"), std::string::npos) << printed.err;
  EXPECT_FALSE(fs::exists(dir_ / "d.json"));
  r = takt("convert " + rtpt.string() + " -o " + (dir_ / "a.yaml").string());
  EXPECT_EQ(r.status, 0) << r.err;
}

// Limits of the machine are bad input with a message that names the limit, not a silent
// death (SIGXFSZ) or an "internal error".
TEST_F(Commands, AFileOverTheFileSizeLimitIsAWriteErrorAndLeavesNoPartialFile) {
  // Four 1,024-byte blocks; a 64-core PAWS set is longer. SIGXFSZ used to end takt with
  // nothing said and FILE.partial beside the old file.
  const std::filesystem::path out = dir_ / "big.yaml";
  std::ofstream(out) << "old\n";
  Outcome o = takt("generate --method paws --cores 64 --utilization 32 -o " + out.string(), "ulimit -f 4;");
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_NE(o.err.find("writing '" + out.string() + "' failed: File too large (the limit on file sizes, ulimit -f)"),
            std::string::npos)
      << o.err;
  EXPECT_FALSE(std::filesystem::exists(out.string() + ".partial"));
  EXPECT_EQ(takt::testing::slurp(out), "old\n");
}

TEST_F(Commands, OutOfMemoryIsBadInputThatSaysSo) {
  // Two billion tasks under a 3 GB address-space limit: the allocation fails. It was
  // reported as "internal error: std::bad_alloc", exit 3 (a bug in takt).
  // The JSON is written all the same, naming the rows not measured and why (it was lost).
  const fs::path json = dir_ / "analyze.json";
  Outcome o =
      takt("bench analyze --tasks 2000000000 --repetitions 1 --json " + json.string(), "ulimit -v 3000000;");
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_NE(o.err.find("takt: error: out of memory (an allocation failed)"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("ulimit -v"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("the rows measured are written to " + json.string()), std::string::npos) << o.err;
  const nlohmann::json j = nlohmann::json::parse(takt::testing::slurp(json));
  EXPECT_FALSE(j["complete"].get<bool>());
  ASSERT_EQ(j["not_measured"].size(), 8u) << j.dump();  // 2 sets x 4 policies
  EXPECT_NE(j["not_measured"][0]["reason"].get<std::string>().find("out of memory"), std::string::npos);
  EXPECT_FALSE(j.contains("stopped_by"));
}

TEST_F(Commands, AThreadThatCannotStartIsNamedWithTheLimitToRaise) {
  // RLIMIT_NPROC binds only a user without CAP_SYS_RESOURCE: run takt as nobody, allowed
  // one process (itself). It said "internal error: Resource temporarily unavailable".
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run takt as another user";
  if (std::system("command -v prlimit >/dev/null && command -v setpriv >/dev/null") != 0) {
    GTEST_SKIP() << "prlimit or setpriv (util-linux) missing";
  }
  std::filesystem::permissions(dir_, std::filesystem::perms::all, std::filesystem::perm_options::add);
  // (env -u: where the suite runs with TAKT_NO_RT set, takt would start no probe thread.)
  Outcome o = takt("profile fib 10 --jobs 1",
                   "env -u TAKT_NO_RT prlimit --nproc=1 setpriv --reuid=65534 --regid=65534 --clear-groups");
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_NE(o.err.find("takt: error: cannot start the thread that probes the real-time privileges ("),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("raise the limit on threads (ulimit -u"), std::string::npos) << o.err;
}

TEST_F(Commands, BenchLatencyKeepsItsMeasurementsWhereOpenMpGivesASmallerTeam) {
  // OMP_THREAD_LIMIT=1: libgomp gives a team of 1 where 2 threads are asked for, so its
  // barrier row cannot be measured. The error ended the command with no table and a
  // JSON of "complete": false that looked like a run that was killed; now that row says
  // why, the others are measured, printed and written, and the exit code is 1.
  const std::string file = (dir_ / "latency.json").string();
  Outcome r = takt("bench latency --seconds 0.1 --no-fifo --no-cyclictest --no-pm-qos --json " + file,
                   "TAKT_NO_RT=1 OMP_THREAD_LIMIT=1");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(
      r.err.find("takt: error: SCHED_OTHER: barrier_latency openmp, 2 threads, not measured: OpenMP gave "
                 "a team of 1 threads where 2 were asked for (OMP_THREAD_LIMIT or OMP_DYNAMIC?)"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("NOT MEASURED: OpenMP gave a team of 1 threads"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(takt::testing::slurp(file));
  EXPECT_TRUE(j["complete"].get<bool>());
  int measured = 0, unmeasured = 0;
  for (const auto& row : j["conditions"][0]["results"]) {
    if (row["variant"] == "openmp") {
      ++unmeasured;
      EXPECT_NE(row["error"].get<std::string>().find("OMP_THREAD_LIMIT"), std::string::npos) << row.dump();
      EXPECT_TRUE(row["p50_us"].is_null()) << row.dump();
    } else {
      ++measured;
      EXPECT_FALSE(row.contains("error")) << row.dump();
      EXPECT_GT(row["samples"].get<int>(), 0) << row.dump();
    }
  }
  EXPECT_GE(unmeasured, 1);
  EXPECT_GE(measured, 3);  // two scheduling rows and at least one barrier row (one CPU: only one)
  // libgomp's row of each team size comes right after takt's rows of that size, not after
  // all of them: the VM's speed drifts, and the ratios compare neighbouring measurements.
  const auto& rows = j["conditions"][0]["results"];
  for (std::size_t k = 0; k < rows.size(); ++k) {
    if (rows[k]["variant"] != "openmp") continue;
    ASSERT_GT(k, 0u);
    EXPECT_EQ(rows[k - 1]["benchmark"], "barrier_latency") << rows.dump();
    EXPECT_EQ(rows[k - 1]["threads"], rows[k]["threads"]) << rows.dump();
    for (std::size_t later = k + 1; later < rows.size(); ++later) {
      EXPECT_NE(rows[later]["threads"], rows[k]["threads"]) << "a takt row of that size after OpenMP's\n"
                                                            << rows.dump();
    }
  }
}

TEST_F(Commands, EveryBenchmarkAndRunJsonSaysWhereItCameFrom) {
  // Results compared over time need the version, the date and the exact command: latency,
  // policies, cpus and sched wrote none of them (policies' options were only in a
  // sentence), runtime a local date without a zone, analyze no date.
  const std::vector<std::pair<std::string, std::string>> commands{
      {"analyze", "bench analyze --tasks 30 --cores 8 --repetitions 1"},
      {"cpus", "bench cpus --seconds 0.01"},
      {"latency", "bench latency --seconds 0.1 --no-fifo --no-cyclictest"},
      {"sched", "bench sched --quick --repeats 1 --depths 1 --skip-scaling --skip-baselines"},
      {"policies", "bench policies --utilization 30 --workload fine --sets 1 --min-jobs 1 --no-cyclictest"},
      {"runtime", "bench runtime --quick --kernels fib-1worker --runtimes takt serial"},
      {"run", "run " + example("10-run.yaml") + " --duration 0.2s --no-cyclictest --trace " +
                  (dir_ / "t.json").string()},
  };
  const auto before = std::chrono::system_clock::now() - std::chrono::seconds(2);
  for (const auto& [name, args] : commands) {
    const std::string file = (dir_ / (name + ".json")).string();
    Outcome r = takt(args + " --json " + file, "TAKT_NO_RT=1");
    ASSERT_EQ(r.status, 0) << args << "\n" << r.err;
    const auto j = nlohmann::json::parse(takt::testing::slurp(file));
    EXPECT_EQ(j["takt_version"], takt::version) << name;
    // UTC, ISO 8601 to the second, at or after the test started and not in the future.
    const std::string date = j["date"].get<std::string>();
    std::tm t{};
    ASSERT_NE(strptime(date.c_str(), "%Y-%m-%dT%H:%M:%SZ", &t), nullptr) << date;
    EXPECT_EQ(date.size(), 20u) << date;
    const auto when = std::chrono::system_clock::from_time_t(timegm(&t));
    EXPECT_GE(when, before - std::chrono::seconds(1)) << date;
    EXPECT_LE(when, std::chrono::system_clock::now()) << date;
    // The command as given, word for word: the program, then every argument.
    std::istringstream words(args + " --json " + file);
    std::vector<std::string> expected{TAKT_BINARY};
    for (std::string w; words >> w;) expected.push_back(w);
    EXPECT_EQ(j["command"].get<std::vector<std::string>>(), expected) << name;
    if (name != "run") {
      EXPECT_EQ(j["benchmark"], name);
    } else {  // the trace carries them in its otherData
      const auto trace = nlohmann::json::parse(takt::testing::slurp(dir_ / "t.json"));
      EXPECT_EQ(trace["otherData"]["takt_version"], takt::version);
      EXPECT_EQ(trace["otherData"]["command"], j["command"]);
      EXPECT_EQ(trace["otherData"]["date"].get<std::string>().size(), 20u);
    }
    if (name == "policies") {  // the options that shape the cells, as values
      EXPECT_EQ(j["options"]["utilizations_percent"], nlohmann::json::array({30})) << j["options"];
      EXPECT_EQ(j["options"]["workloads"], nlohmann::json::array({"fine"})) << j["options"];
      EXPECT_EQ(j["options"]["sets"], 1);
      EXPECT_EQ(j["options"]["min_jobs"], 1);
      EXPECT_EQ(j["options"]["cores"], 2);
      EXPECT_TRUE(j["options"]["cyclictest_s"].is_null()) << j["options"];
    }
  }
}

TEST_F(Commands, OptionValuesACommandRefusesAsItRunsNameItsHelpLikeTheOthers) {
  // running.md: an option value out of range is reported with the line naming the
  // command's help. Values checked once the command runs (not by CLI11) had no such line.
  const std::string set = example("10-run.yaml");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"run " + set + " --delta 0.5", "--delta 0.5 is below 1"},
      {"analyze " + set + " --delta abc",
       "--delta: expects a decimal number of at least 1: 'abc' is not a non-negative decimal number"},
      // The reason stays: a valid size, but too many decimals (a review found the message
      // said it must be at least 1).
      {"analyze " + set + " --delta 1.1234567890123456789012",
       "--delta: expects a decimal number of at least 1: '1.1234567890123456789012' has more than 12 "
       "decimals"},
      {"run " + set + " --policy foo", "unknown policy 'foo'; use one of federated"},
      {"analyze " + set + " --fit best-fit", "unknown --fit 'best-fit'; use first-fit or worst-fit"},
      {"analyze " + set + " --policy gedf-paws --fit first-fit",
       "--fit chooses how tasks are packed onto cores"},
      {"generate --method paws --cores 2 --utilization 300%",
       "--utilization 300% (6 cores) is more than --cores 2"},
      {"generate --method synthetic --cores 2 --utilization 1 --type 4",
       "--type: expects a whole number from 0 to 3, not '4'"},
      {"generate --method paws --cores 2 --utilization 1 --type 2",
       "--type applies to --method synthetic only"},
      {"generate --method nope --cores 2 --utilization 1", "unknown --method 'nope'"},
      {"bench runtime --kernels fib,nosuch",
       "--kernels: unknown kernel 'nosuch'; choose from fib, fib-1worker"},
      {"bench runtime --runtimes nosuch",
       "--runtimes: unknown runtime 'nosuch'; choose from takt, onetbb, openmp, serial"},
      {"bench policies --workload nosuch",
       "--workload: unknown workload 'nosuch'; choose from rt-openmp, fine"},
      {"bench latency --no-fifo --no-other", "--no-fifo and --no-other leave nothing to measure"},
  };
  for (const auto& [args, message] : cases) {
    Outcome r = takt(args);
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_NE(r.err.find("takt: error: " + message), std::string::npos) << args << ": " << r.err;
    // The command's words: "run", "generate", ..., or "bench runtime".
    const std::size_t words = args.rfind("bench ", 0) == 0 ? args.find(' ', 6) : args.find(' ');
    const std::string command = args.substr(0, words);
    EXPECT_NE(r.err.find("Run 'takt " + command + " --help' for the options and what they take."),
              std::string::npos)
        << args << ": " << r.err;
  }
}
