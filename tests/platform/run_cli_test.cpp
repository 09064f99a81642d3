// `takt run` and `takt demo` run as programs: every policy end to end, bad input, an unschedulable set, SIGTERM.
#include "../support/child_process.hpp"
#include "../support/command_test.hpp"
#include "os/cpu.hpp"
#include "os/realtime.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

extern char** environ;

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

using takt::testing::Outcome;

class RunCommand : public takt::testing::CommandTest {
 protected:
  static nlohmann::json read_json(const fs::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
  }

  /// One gedf-paws task (a 1 ms strand every 10 ms) on two cores under a topology of
  /// these `pipes`, `instances` (YAML flow mappings) and PE `terminal`, run for 100 ms
  /// without real-time privileges.
  Outcome run_under_topology(const std::string& name, const std::string& pipes, const std::string& instances,
                             const std::string& terminal) {
    const fs::path set = write(name + ".yaml",
                               "global: {cores: 2, policy: gedf-paws}\n"
                               "tasks:\n"
                               "  - {name: a, period: 10ms, program: segments, segments: "
                               "[{length: 1ms}]}\n"
                               "topology:\n"
                               "  pipes: " +
                                   pipes +
                                   "\n"
                                   "  entry: admitted\n"
                                   "  instances:\n" +
                                   instances + "  pes: {terminal: " + terminal + "}\n");
    return takt("run --no-cyclictest " + set.string() + " --duration 100ms", "TAKT_NO_RT=1");
  }

  /// A set of one task on one core (one 1 ms strand every 10 ms).
  fs::path write_one_core_set() {
    return write("one.yaml",
                 "global: {cores: 1}\n"
                 "tasks:\n"
                 "  - {name: a, period: 10ms, program: segments, segments: [{length: 1ms}]}\n");
  }

  /// The metrics JSON of a run: every released job accounted for, totals add up.
  static void expect_accounted(const nlohmann::json& m) {
    std::uint64_t jobs = 0, misses = 0;
    for (const auto& t : m["tasks"]) {
      EXPECT_EQ(t["jobs"].get<std::uint64_t>(), t["released"].get<std::uint64_t>() + t["skipped"].get<std::uint64_t>());
      EXPECT_EQ(t["met"].get<std::uint64_t>() + t["misses"].get<std::uint64_t>() +
                    t["abandoned"].get<std::uint64_t>() + t["unknown"].get<std::uint64_t>(),
                t["jobs"].get<std::uint64_t>());
      jobs += t["jobs"].get<std::uint64_t>();
      misses += t["misses"].get<std::uint64_t>();
    }
    EXPECT_EQ(m["totals"]["jobs"].get<std::uint64_t>(), jobs);
    EXPECT_EQ(m["totals"]["misses"].get<std::uint64_t>(), misses);
    EXPECT_EQ(m["jobs"].size(), jobs);
  }
};

TEST_F(RunCommand, EveryPolicyRunsTheExampleWithAndWithoutRealtimePrivileges) {
  for (const char* env : {"", "TAKT_NO_RT=1"}) {
    for (const char* policy : {"federated", "federated-greedy", "partitioned-dm", "gedf-paws"}) {
      SCOPED_TRACE(std::string(policy) + " " + env);
      const fs::path json = dir_ / "run.json", trace = dir_ / "trace.json";
      const Outcome r = takt("run --no-cyclictest " + example("10-run.yaml") + " --policy " + policy +
                                 " --duration 400ms --json " + json.string() + " --trace " + trace.string(),
                             env);
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_NE(r.out.find("policy " + std::string(policy)), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("total"), std::string::npos) << r.out;
      const nlohmann::json m = read_json(json);
      EXPECT_EQ(m["run"]["policy"], policy);
      EXPECT_EQ(m["policy"]["name"], policy);
      expect_accounted(m);
      // 400 ms: 40 jobs of filter (10 ms), 20 of planner (20 ms), 80 of control (5 ms).
      EXPECT_EQ(m["totals"]["jobs"], 140);
      if (std::string(env).empty() && !takt::os::realtime_forced_off()) {
        // What this machine allows (the same check takt makes). Where the suite itself
        // runs with TAKT_NO_RT set, takt inherits it: the other branch's lines.
        EXPECT_NE(r.err.find(takt::os::privileges().fifo ? "real-time: SCHED_FIFO" : "real-time: not available"),
                  std::string::npos)
            << r.err;
      } else {
        EXPECT_NE(r.err.find("TAKT_NO_RT is set"), std::string::npos) << r.err;
        EXPECT_NE(m["run"]["privileges"].get<std::string>().find("TAKT_NO_RT"), std::string::npos);
      }
      const nlohmann::json t = read_json(trace);
      EXPECT_FALSE(t["traceEvents"].empty());
    }
  }
}

TEST_F(RunCommand, AnUnschedulableSetExitsWithTwoAndTheReasonUnlessForced) {
  const Outcome r = takt("run " + example("07-unschedulable.yaml"));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("NOT SCHEDULABLE under federated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("task 'wide': federated core count"), std::string::npos) << r.err;
  // Its tasks name no program, so --force would not run it either: not offered alone
  // (it said "pass --force to run it anyway", then --force failed).
  EXPECT_NE(r.err.find("--force runs it anyway, but only when every task names a program, and these name "
                       "none: 'heavy', 'wide'"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("pass --force"), std::string::npos) << r.err;
  // Forced (on 2 cores, which every machine running the tests allows), it gets as far
  // as the tasks, which name no program: bad input.
  const Outcome forced = takt("run --no-cyclictest " + example("07-unschedulable.yaml") + " --cores 2 --force");
  EXPECT_EQ(forced.status, 1) << forced.err;
  EXPECT_NE(forced.err.find("task 'heavy' names no program"), std::string::npos) << forced.err;
}

TEST_F(RunCommand, ForcedOverloadRunsAndCountsTheMisses) {
  // Two sequential tasks of 8 ms every 10 ms on one core (Σ C/D = 1.6): the analysis
  // cannot place the second; forced, both share the core and releases that find the
  // previous job still running are skipped (overrun: skip).
  const fs::path set = write("over.yaml", R"(
global: {cores: 1}
tasks:
  - {name: a, period: 10ms, program: segments, segments: [{length: 8ms}]}
  - {name: b, period: 10ms, program: segments, segments: [{length: 8ms}]}
)");
  // Without --force: every task names a program, so --force is offered.
  const Outcome refused = takt("run " + set.string() + " --duration 300ms --no-progress");
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_NE(refused.err.find("pass --force to run it anyway and measure the misses"), std::string::npos)
      << refused.err;
  const fs::path json = dir_ / "over.json";
  const Outcome r =
      takt("run --no-cyclictest " + set.string() + " --force --duration 300ms --no-progress --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("running it anyway (--force)"), std::string::npos) << r.err;
  const nlohmann::json m = read_json(json);
  expect_accounted(m);
  EXPECT_EQ(m["tasks"][0]["jobs"], 30);
  EXPECT_EQ(m["tasks"][1]["jobs"], 30);
  EXPECT_GT(m["totals"]["misses"].get<int>(), 20);
  EXPECT_GT(m["tasks"][0]["skipped"].get<int>() + m["tasks"][1]["skipped"].get<int>(), 0);
}

TEST_F(RunCommand, BuiltInProgramsRunByName) {
  // Every built-in program of docs/programs.md can be named, not only segments.
  const fs::path set = write("builtin.yaml", R"(
global: {cores: 2}
tasks:
  - {name: f, period: 20ms, program: fib, args: [18], work: 1ms, span: 100us}
  - {name: m, period: 50ms, program: matmul, args: [64], work: 1ms, span: 100us}
)");
  const fs::path json = dir_ / "builtin.json";
  const Outcome r =
      takt("run --no-cyclictest " + set.string() + " --duration 300ms --no-progress --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json m = read_json(json);
  expect_accounted(m);
  EXPECT_EQ(m["tasks"][0]["jobs"], 15);
  EXPECT_EQ(m["tasks"][1]["jobs"], 6);
  EXPECT_EQ(m["tasks"][0]["failed"], 0);
  EXPECT_EQ(m["tasks"][1]["failed"], 0);
}

TEST_F(RunCommand, ASetThatNamesNoCoresRunsOnTheCpusThisProcessMayUseAndSaysSo) {
  const fs::path set = write("nocores.yaml",
                             "tasks:\n  - {name: a, period: 10ms, program: segments, segments: "
                             "[{length: 100us}]}\n");
  const std::string cpus = std::to_string(takt::os::allowed_cpus().size());
  Outcome r = takt("run --no-cyclictest " + set.string() + " --jobs 2 --no-progress");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(
      r.err.find("takt run: the task set names no cores; using the " + cpus + " CPU(s) this process may use"),
      std::string::npos)
      << r.err;
  // --cores says how many: nothing is assumed.
  r = takt("run --no-cyclictest " + set.string() + " --jobs 2 --no-progress --cores 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("names no cores"), std::string::npos) << r.err;
}

TEST_F(RunCommand, BadProgramsAreBadInputWithAClearMessage) {
  const fs::path unknown = write("unknown.yaml", R"(
global: {cores: 1}
tasks:
  - {name: x, period: 10ms, program: fibonacci, work: 1ms, span: 1ms}
)");
  Outcome r = takt("run " + unknown.string());
  EXPECT_EQ(r.status, 1);
  // Named where the task's program is written (line 4, column 29: the key `program`), and the task.
  EXPECT_NE(r.err.find("takt: error: " + unknown.string() +
                       ":4:29: task 'x': unknown program 'fibonacci'; known programs:"),
            std::string::npos)
      << r.err;

  const fs::path missing = write("missing.yaml", R"(
global: {cores: 1}
tasks:
  - {name: x, period: 10ms, program: ./libnot-there.so, work: 1ms, span: 1ms}
)");
  r = takt("run " + missing.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("cannot load the shared object"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("libnot-there.so"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(missing.string() + ":4:29: task 'x': "), std::string::npos) << r.err;

#ifdef TAKT_NO_ENTRY_SO
  const fs::path no_entry = write("no_entry.yaml", std::string("global: {cores: 1}\ntasks:\n  - {name: x, period: 10ms, "
                                                               "program: ") +
                                                       TAKT_NO_ENTRY_SO + ", work: 1ms, span: 1ms}\n");
  r = takt("run " + no_entry.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("takt_task_entry"), std::string::npos) << r.err;
#endif
}

TEST_F(RunCommand, ATaskFirstReleasedAfterTheEndIsNamedBeforeTheRun) {
  // Its offset (10 s) lies beyond the 200 ms run: the table only showed 0 jobs, and the
  // release latency "p50 0.0 us ... over 0 jobs" where there was none.
  const fs::path set = write("late.yaml", R"(
global: {cores: 1}
tasks:
  - {name: late, period: 10ms, offset: 10s, program: segments, segments: [{length: 1ms}]}
  - {name: early, period: 10ms, offset: 150ms, program: segments, segments: [{length: 1ms}]}
)");
  Outcome r = takt("run --no-cyclictest " + set.string() + " --duration 200ms");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("takt run: 2 task(s) under federated for 200ms,"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("takt run: warning: task 'late' is first released at its offset 10s, at or after the "
                       "run's end (200ms): it releases no job; run longer (--duration) or lower its offset"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("task 'early' is first released"), std::string::npos) << r.err;
  const fs::path alone = write("alone.yaml", R"(
global: {cores: 1}
tasks:
  - {name: late, period: 10ms, offset: 10s, program: segments, segments: [{length: 1ms}]}
)");
  r = takt("run --no-cyclictest " + alone.string() + " --duration 200ms");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("release latency (release -> first instruction): - (no job started)"),
            std::string::npos)
      << r.out;
  // A run of jobs has no end to be released after; it names their count (1 job, not
  // "1 jobs").
  const fs::path soon = write("soon.yaml", R"(
global: {cores: 1}
tasks:
  - {name: soon, period: 10ms, offset: 300ms, program: segments, segments: [{length: 1ms}]}
)");
  r = takt("run --no-cyclictest " + soon.string() + " --jobs 1");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("for 1 job per task,"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("is first released at its offset"), std::string::npos) << r.err;
}

TEST_F(RunCommand, APeriodTooShortToReleaseIsBadInputBeforeAnythingRuns) {
  // 1 ns passes the analysis (C = D = T = 1 ns on one core), but a release costs the
  // release thread microseconds: a 1 s run of it took 44 s before this check. 10 us is
  // the shortest period accepted.
  const fs::path storm = write("storm.yaml",
                               "global: {cores: 1}\n"
                               "tasks:\n"
                               "  - {name: storm, period: 1ns, program: segments, segments: [{length: 1ns}]}\n");
  EXPECT_EQ(takt("analyze " + storm.string()).status, 0);
  const Outcome r = takt("run --no-cyclictest " + storm.string() + " --duration 1s");
  EXPECT_EQ(r.status, 1);
  // At the period's place in the file, as every validation error (it had none until
  // 2026-11-29).
  EXPECT_NE(r.err.find(storm.string() + ":3:19: task 'storm': its period 1ns is shorter than 10us"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("lengthen the period"), std::string::npos) << r.err;
  const fs::path shortest = write("shortest.yaml",
                                  "global: {cores: 1}\n"
                                  "tasks:\n"
                                  "  - {name: fast, period: 10us, program: segments, segments: [{length: 1us}]}\n");
  EXPECT_EQ(takt("run --no-cyclictest " + shortest.string() + " --duration 100ms").status, 0);
}

TEST_F(RunCommand, AnOutputPathThatCannotBeWrittenIsRefusedBeforeAnythingRuns) {
  // These ran the whole duration (here 30 s) and only then failed.
  const std::string run = "run --no-cyclictest " + example("10-run.yaml") + " --duration 30s --no-progress";
  const fs::path existing = write("existing.json", "kept\n");
  // A link where the file is written first, next to an existing file: it was followed
  // (victim.txt got the metrics and z.json became a link to it).
  const fs::path victim = write("victim.txt", "precious\n");
  const fs::path z = write("z.json", "old\n");
  fs::create_symlink(victim, dir_ / "z.json.partial");
  const std::pair<std::string, std::string> cases[] = {
      {run + " --json " + dir_.string(), "--json: cannot write '" + dir_.string() + "': it is a folder"},
      {run + " --json " + (dir_ / "none" / "m.json").string(),
       "--json: cannot write '" + (dir_ / "none" / "m.json").string() + "': the folder '" +
           (dir_ / "none").string() + "' does not exist"},
      {run + " --json " + (dir_ / "new.json").string() + " --trace " + (dir_ / "none" / "t.json").string(),
       "--trace: cannot write '" + (dir_ / "none" / "t.json").string() + "'"},
      {run + " --json " + existing.string() + " --trace " + (existing / "t.json").string(),
       "'" + existing.string() + "' is not a folder"},
      {"demo --duration 30s --trace " + dir_.string(), "--trace: cannot write '" + dir_.string() + "'"},
      {run + " --json " + z.string(),
       "--json: cannot write '" + z.string() + "': '" + z.string() +
           ".partial', where takt writes it first, is a symbolic link; remove it"},
  };
  for (const auto& [args, message] : cases) {
    const auto start = std::chrono::steady_clock::now();
    const Outcome r = takt(args);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s) << args;
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_EQ(r.err.rfind("takt: error: ", 0), 0u) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  // Nothing was left behind, and the file that was there is as it was.
  EXPECT_FALSE(fs::exists(dir_ / "new.json"));
  EXPECT_FALSE(fs::exists(dir_ / "new.json.partial"));
  EXPECT_FALSE(fs::exists(dir_ / "none"));
  EXPECT_EQ(takt::testing::slurp(existing), "kept\n");
  EXPECT_EQ(takt::testing::slurp(victim), "precious\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(z)));
  EXPECT_EQ(takt::testing::slurp(z), "old\n");
}

TEST_F(RunCommand, SegmentsArgsThatContradictTheSegmentsAreBadInputBeforeTheAnalysis) {
  // Unschedulable as written (C = 30 ms in a period of 20 ms on one core): the mismatch
  // was found only after the analysis, so takt run said NOT SCHEDULABLE (exit 2), where
  // takt analyze named the mismatch (exit 1).
  const fs::path set = write("mismatch.yaml", "global: {cores: 1}\ntasks:\n  - {name: a, period: 20ms, program: "
                                              "segments, args: [15ms], segments: [{length: 15ms, strands: 2}]}\n");
  const Outcome r = takt("run --no-cyclictest --no-progress " + set.string() + " --jobs 1");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("task 'a': its args: and its segments: ([15ms*2]) describe different segments"),
            std::string::npos)
      << r.err;
}

TEST_F(RunCommand, AnOutputThatIsATasksSharedObjectIsRefused) {
  // `--json task.so` overwrote the task's own shared object with the metrics.
  const fs::path so = dir_ / "task.so";
  fs::copy_file(TAKT_THROWING_SO, so);
  const std::string before = takt::testing::slurp(so);
  const fs::path set = write("so.yaml", "global: {cores: 1}\ntasks:\n  - {name: s, period: 10ms, program: ./task.so, "
                                        "work: 1ms, span: 1ms}\n");
  for (const std::string option : {"--json", "--trace"}) {
    const Outcome r = takt("run --no-cyclictest --no-progress " + set.string() + " --jobs 2 " + option + " " +
                           so.string());
    EXPECT_EQ(r.status, 1) << option << ": " << r.err;
    EXPECT_NE(r.err.find(option + " '" + so.string() +
                         "' is the shared object of task 's' (program: ./task.so); writing it would destroy it"),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(takt::testing::slurp(so), before);
}

TEST_F(RunCommand, ATopologyThatWithholdsEveryJobIsNamedInAWarning) {
  // gedf-paws jobs carry no PE; a distributor by PE without an `unassigned:` output
  // withholds them, so no job ever runs. The run says which instance did it.
  const Outcome r =
      run_under_topology("withheld", "{admitted: one, local: per-pe}",
                         "    place: {component: distributor, input: admitted, outputs: \"local[*]\", "
                         "params: {by: pe}}\n",
                         "\"local[pe]\"");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("the topology's distributor 'place' withheld a job"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Add an `unassigned:` output"), std::string::npos) << r.err;
}

TEST_F(RunCommand, AnEntryIndexedByPeIsRefusedBeforeTheRunByThePoliciesThatAdmitUnboundJobs) {
  // federated, federated-greedy and gedf-paws admit each job bound to no PE, so an entry
  // indexed by pe cannot route it: the first release threw on the release lane and the
  // process ended by std::terminate (exit 134, no JSON) until 2026-11-29. Now the run is
  // refused before it starts, naming the task, the policy and what to write. By cluster
  // it runs (gedf-paws: one cluster, 0; federated: a cluster per heavy task or core).
  auto set_with_entry = [&](const std::string& entry) {
    return write("entry.yaml",
                 "global: {cores: 2}\n"
                 "tasks:\n"
                 "  - {name: a, period: 10ms, program: segments, segments: [{length: 1ms}]}\n"
                 "topology:\n"
                 "  name: routed\n"
                 "  pipes: {admitted: " +
                     std::string(entry == "admitted"       ? "one"
                                 : entry == "admitted[pe]" ? "per-pe"
                                                           : "per-cluster") +
                     ", ordered: one}\n"
                     "  entry: \"" +
                     entry +
                     "\"\n"
                     "  instances:\n"
                     "    merge: {component: mux, inputs: \"" +
                     std::string(entry == "admitted" ? "admitted" : "admitted[*]") +
                     "\", output: ordered}\n"
                     "  pes: {terminal: ordered}\n");
  };
  // partitioned-dm admits each strand bound to its core and to no cluster: an entry
  // indexed by cluster cannot route it. The message said "task 0 has cluster -1 ...
  // give the task a value from 0 to 0" (no strand has a cluster to give) until
  // 2026-11-29. By pe, or one pipe, it runs.
  const std::string unbound = " admits each job bound to no PE, in cluster 0; write the entry as one pipe";
  const struct {
    std::string policy, refused, message;
  } cases[] = {
      {"gedf-paws", "admitted[pe]", "cannot take the jobs of task 'a': gedf-paws" + unbound},
      {"federated", "admitted[pe]", "cannot take the jobs of task 'a': federated" + unbound},
      {"federated-greedy", "admitted[pe]", "cannot take the jobs of task 'a': federated-greedy" + unbound},
      {"partitioned-dm", "admitted[cluster]",
       "cannot take the strands of partitioned-dm, which admits each strand bound to its core (pe) and to no "
       "cluster; write the entry as one pipe"},
  };
  const fs::path json = dir_ / "entry.json";
  for (const auto& c : cases) {
    for (const std::string entry : {"admitted[pe]", "admitted[cluster]", "admitted"}) {
      const Outcome r = takt("run --no-cyclictest " + set_with_entry(entry).string() + " --policy " +
                                 c.policy + " --duration 100ms --json " + json.string(),
                             "TAKT_NO_RT=1");
      if (entry == c.refused) {
        EXPECT_EQ(r.status, 1) << c.policy << ": " << r.err;
        EXPECT_NE(r.err.find("takt: error: the entry of topology 'routed' (" + entry + ") " + c.message),
                  std::string::npos)
            << c.policy << ": " << r.err;
        EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(json)) << c.policy << ": refused before the run";
      } else {
        ASSERT_EQ(r.status, 0) << c.policy << ", " << entry << ": " << r.err;
        EXPECT_EQ(read_json(json)["tasks"][0]["jobs"], 10) << c.policy << ", " << entry;
        fs::remove(json);
      }
    }
  }
}

TEST_F(RunCommand, MemoryThatLockingWouldNearlyExhaustIsLeftUnlockedWithAWarning) {
  // Thread stacks of nine tenths of the memory available (ulimit -s): the thread of the
  // task's executor, there at the lock, would make more resident than seven eighths of
  // it when locked, and mlockall populated such stacks until the kernel's out-of-memory
  // killer ended takt with no message. Now memory is left unlocked, one
  // warning says why, and the run and its outputs say so.
  if (!takt::os::privileges().mlock || takt::os::realtime_forced_off()) {
    GTEST_SKIP() << "this process may not lock its memory: the run would not try";
  }
  const std::uint64_t available = takt::os::measure_memory_for_locking().available;
  if (available == 0) GTEST_SKIP() << "the memory available is not known here";
  const std::uint64_t stack_kib = available / 10 * 9 / 1024;
  const fs::path json = dir_ / "unlocked.json";
  const Outcome r = takt(
      "run --no-cyclictest " + write_one_core_set().string() + " --duration 100ms --json " + json.string(),
      "ulimit -s " + std::to_string(stack_kib) + " &&");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("takt: warning: memory is not locked: locking would make "), std::string::npos)
      << r.err;
  EXPECT_NE(
      r.err.find("each with a stack of " + std::to_string((stack_kib + 1023) / 1024) + " MiB, ulimit -s)"),
      std::string::npos)
      << r.err;
  // In the order of a run's steps: the run's first line, the warning, then the line of
  // what the run got (it was printed before the first line until 2026-11-29).
  const std::size_t first = r.err.find("takt run: 1 task(s) under");
  const std::size_t warning = r.err.find("takt: warning: memory is not locked");
  const std::size_t got = r.err.find("takt run: real-time:");
  EXPECT_LT(first, warning) << r.err;
  EXPECT_LT(warning, got) << r.err;
  EXPECT_NE(got, std::string::npos) << r.err;
  const nlohmann::json m = read_json(json);
  EXPECT_NE(m["run"]["privileges"].get<std::string>().find(
                "mlockall no (not for this process: too little memory to lock it)"),
            std::string::npos)
      << m["run"]["privileges"];
  EXPECT_EQ(m["tasks"][0]["jobs"], 10);
}

TEST_F(RunCommand, AFilterThatLetsNoJobThroughIsNamedInAWarning) {
  // Every job passes the filter on its way to the dispatcher, and no job is bound to PE
  // 7: none ever runs. The run said nothing about why (only misses) until 2026-11-28.
  auto run_filtered = [&](const std::string& criteria) {
    return run_under_topology(
        "filtered", "{admitted: one, kept: one}",
        "    only: {component: filter, input: admitted, output: kept, params: {" + criteria + "}}\n", "kept");
  };
  const Outcome r = run_filtered("pes: [7]");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("the topology's filter 'only' let none of the "), std::string::npos) << r.err;
  // A filter that lets the jobs through is not named.
  const Outcome ok = run_filtered("relative_deadline_at_most: 1s");
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(ok.err.find("let none of the"), std::string::npos) << ok.err;
  EXPECT_EQ(ok.err.find("held jobs back"), std::string::npos) << ok.err;
}

TEST_F(RunCommand, ATaskWhoseJobsAFilterHoldsBackIsNamedInAWarning) {
  // The filter passes b (priority 3) and holds back a (no priority: the largest int):
  // a never runs. The filter let some jobs through, so the warning for a filter that
  // lets none through stayed quiet, and the run showed only a's misses (2026-11-29).
  const fs::path set =
      write("partial.yaml",
            "global: {cores: 2, policy: gedf-paws}\n"
            "tasks:\n"
            "  - {name: a, period: 10ms, program: segments, segments: [{length: 500us}]}\n"
            "  - {name: b, period: 20ms, priority: 3, program: segments, segments: [{length: "
            "1ms}]}\n"
            "topology:\n"
            "  pipes: {admitted: one, kept: one}\n"
            "  entry: admitted\n"
            "  instances:\n"
            "    f: {component: filter, input: admitted, output: kept, params: {priority_at_most: "
            "3}}\n"
            "  pes: {terminal: kept}\n");
  const Outcome r = takt("run --no-cyclictest " + set.string() + " --duration 100ms", "TAKT_NO_RT=1");
  EXPECT_EQ(r.status, 0) << r.err;
  // a's first job waits in the filter's input for ever: 1 released, the rest skipped.
  EXPECT_NE(r.err.find("takt: warning: none of the 1 released job(s) of task 'a' started, and the topology's "
                       "filter(s) 'f' (1 of "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" held back) held jobs back: if the task's jobs do not match"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("of task 'b' started"), std::string::npos) << r.err;
}

TEST_F(RunCommand, AReleaseGateInATopologyForwardsEveryReleasedJob) {
  // release-gate forwards a task once TIME has reached its release. The platform sent
  // no TIME: the gate's time stayed at 0, every job (released at an absolute monotonic
  // time) was held for ever, and every one counted unfinished. The lanes now send the
  // time before each admission, and every job is met.
  const std::string gate = "    gate: {component: release-gate, input: admitted, output: released}\n";
  const std::string sets[] = {
      "global: {cores: 2, policy: gedf-paws}\n"
      "tasks:\n"
      "  - {name: a, period: 10ms, program: segments, segments: [{length: 1ms}]}\n"
      "topology:\n"
      "  pipes: {admitted: one, released: one, ordered: one, global: one, local: per-pe}\n"
      "  entry: admitted\n"
      "  instances:\n" +
          gate +
          "    order: {component: edf, input: released, output: ordered}\n"
          "    place: {component: distributor, input: ordered, outputs: \"local[*]\", unassigned: global, "
          "params: {by: pe}}\n"
          "  pes: {terminal: \"local[pe]\", pull: [global], steal: local}\n",
      "global: {cores: 2, policy: federated}\n"
      "tasks:\n"
      "  - {name: a, period: 10ms, program: segments, segments: [{length: 1ms}]}\n"
      "topology:\n"
      "  pipes: {admitted: one, released: one, ordered: one, ready: per-cluster}\n"
      "  entry: admitted\n"
      "  instances:\n" +
          gate +
          "    order: {component: edf, input: released, output: ordered}\n"
          "    place: {component: advanced-balancer, inputs: ordered, outputs: \"ready[*]\"}\n"
          "  pes: {terminal: \"ready[cluster]\"}\n",
      // partitioned-dm places the strands once, before the run: the gate is told the
      // latest strand release (the second segment's, 2 ms into the job), or it held
      // that segment's strands and the run was refused.
      "global: {cores: 2, policy: partitioned-dm}\n"
      "tasks:\n"
      "  - {name: a, period: 10ms, program: segments, segments: [{length: 1ms}, {length: 1ms, strands: 2}]}\n"
      "topology:\n"
      "  pipes: {admitted: one, released: one, queued: per-pe, ready: per-pe}\n"
      "  entry: admitted\n"
      "  instances:\n" +
          gate +
          "    place: {component: distributor, input: released, outputs: \"queued[*]\", params: {by: pe}}\n"
          "    order: {component: fixed-priority, per: pe, input: \"queued[#]\", output: \"ready[#]\"}\n"
          "  pes: {terminal: \"ready[pe]\"}\n"};
  for (const std::string& text : sets) {
    SCOPED_TRACE(text);
    const fs::path set = write("gated.yaml", text);
    const fs::path json = dir_ / "gated.json";
    const Outcome r =
        takt("run --no-cyclictest " + set.string() + " --jobs 5 --json " + json.string(), "TAKT_NO_RT=1");
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json m = read_json(json);
    expect_accounted(m);
    EXPECT_EQ(m["tasks"][0]["jobs"], 5);
    // No job was left unfinished (a gate that held them left all 5 so); whether each met
    // its 10 ms deadline, or a stall skipped a release, is the VM's latency, not tested here.
    EXPECT_EQ(m["tasks"][0]["unfinished"], 0) << m["tasks"][0].dump();
    EXPECT_EQ(m["tasks"][0]["unknown"], 0) << m["tasks"][0].dump();
    EXPECT_EQ(m["tasks"][0]["failed"], 0) << m["tasks"][0].dump();
    EXPECT_EQ(m["tasks"][0]["abandoned"], 0) << m["tasks"][0].dump();
  }
}

TEST_F(RunCommand, APartitionedDmTopologyThatWithholdsStrandsIsRefused) {
  // Strands carry no cluster; a distributor by cluster without an `unassigned:` output
  // withholds them all. The run is refused before it starts, and takt exits normally
  // (the withheld strands were freed while the scheduler still held them, which
  // AddressSanitizer reports as a heap-use-after-free when the policy goes).
  const fs::path set = write("withheld-strands.yaml",
                             "global: {cores: 2, policy: partitioned-dm}\n"
                             "tasks:\n"
                             "  - {name: a, period: 10ms, program: segments, segments: [{length: 1ms, strands: 2}]}\n"
                             "topology:\n"
                             "  pipes: {admitted: one, local: per-pe}\n"
                             "  entry: admitted\n"
                             "  instances:\n"
                             "    place: {component: distributor, input: admitted, outputs: \"local[*]\", "
                             "params: {by: cluster}}\n"
                             "  pes: {terminal: \"local[pe]\"}\n");
  const Outcome r = takt("run --no-cyclictest " + set.string() + " --duration 100ms", "TAKT_NO_RT=1");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("takt: error: the topology gave 0 of the 2 strands to a core; a partitioned-dm topology "
                       "must deliver every strand to some processing element"),
            std::string::npos)
      << r.err;
}

#ifdef TAKT_THROWING_SO
TEST_F(RunCommand, AThrowingSharedObjectTaskFailsItsJobsAndTheRunGoesOn) {
  // The fixture throws on odd jobs and on job 4 (not a std::exception).
  const fs::path set = write("throwing.yaml", std::string("global: {cores: 1}\ntasks:\n  - {name: t, period: 10ms, program: ") +
                                                  TAKT_THROWING_SO + ", work: 1ms, span: 1ms}\n");
  const fs::path json = dir_ / "throwing.json";
  const Outcome r = takt("run --no-cyclictest " + set.string() + " --jobs 10 --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json m = read_json(json);
  expect_accounted(m);
  // Jobs 1, 3, 5, 7, 9 and 4 fail, the other 4 run to their end (met, or missed where
  // the VM stalled one). A stall longer than the 10 ms period skips the releases it
  // covers (the skip rule): beside a process that took both CPUs for 40 to 150 ms (a
  // stall made on purpose), job 1 was skipped and 5 failed. So the jobs released decide
  // which fail; job 0 is always released (no job before it runs). The run goes on after
  // the first failure: a job that does not throw runs to its end after it (of 2, 6 and 8,
  // all three skipped only by a stall from before 20 ms to after 80 ms).
  EXPECT_EQ(m["tasks"][0]["jobs"], 10);
  std::uint64_t throwing = 0, others = 0, others_after_a_failure = 0;
  std::string first_error;
  for (const auto& j : m["jobs"]) {
    if (j["status"] == "skipped") continue;
    const std::uint64_t index = j["index"].get<std::uint64_t>();
    if (index % 2 == 1 || index == 4) {
      ++throwing;
      EXPECT_EQ(j["status"], "failed") << j.dump();
      if (first_error.empty())
        first_error = index == 4 ? "job 4" : "odd job " + std::to_string(index) + " throws";
    } else {
      ++others;
      if (throwing > 0) ++others_after_a_failure;
      EXPECT_NE(j["status"], "failed") << j.dump();
      EXPECT_FALSE(j["finish_ns"].is_null()) << j.dump();
    }
  }
  EXPECT_EQ(m["tasks"][0]["failed"].get<std::uint64_t>(), throwing);
  EXPECT_GE(throwing, 1u) << m["jobs"].dump();
  EXPECT_GE(others, 1u) << m["jobs"].dump();
  EXPECT_GE(others_after_a_failure, 1u) << m["jobs"].dump();
  if (first_error != "job 4") {
    EXPECT_NE(m["tasks"][0]["errors"][0].get<std::string>().find(first_error), std::string::npos)
        << m["tasks"][0]["errors"].dump();
  }
}
#endif

#ifdef TAKT_ENDLESS_SO
TEST_F(RunCommand, AJobThatNeverEndsNoLongerHoldsTheRunAfterItsLastRelease) {
  // Job 0 of the fixture never returns. partitioned-dm runs it on the lane's own thread,
  // which can then neither release nor end; under overrun "wait" (federated) the lane
  // waits for it to release job 1. Both ran until killed. Now, 3 jobs of T = D = 10 ms:
  // the last release is at 20 ms, the patience max(D, C) + drain + 0.5 s = 10 ms + 1 s
  // + 0.5 s, so the run is abandoned at about 1.53 s, and jobs 1 and 2, never released,
  // are skipped.
  for (const std::string policy_and_overrun :
       {"policy: partitioned-dm", "policy: federated, overrun: wait"}) {
    SCOPED_TRACE(policy_and_overrun);
    const fs::path set =
        write("endless.yaml", "global: {cores: 1, " + policy_and_overrun +
                                  "}\ntasks:\n  - {name: e, period: 10ms, program: " + TAKT_ENDLESS_SO +
                                  ", work: 1ms, span: 1ms}\n");
    const fs::path json = dir_ / "endless.json";
    const Outcome r =
        takt("run --no-cyclictest " + set.string() + " --jobs 3 --json " + json.string(), "TAKT_NO_RT=1 timeout 60");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("job 0 of task 'e' still runs, and no job has been released or finished for"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.out.find("running jobs abandoned (no job released or finished after the last release)"),
              std::string::npos)
        << r.out;
    const nlohmann::json m = read_json(json);
    expect_accounted(m);
    EXPECT_TRUE(m["run"]["stalled"].get<bool>());
    EXPECT_TRUE(m["run"]["abandoned"].get<bool>());
    EXPECT_FALSE(m["run"]["stopped"].get<bool>());
    EXPECT_GT(m["run"]["duration_s"].get<double>(), 1.5);
    EXPECT_LT(m["run"]["duration_s"].get<double>(), 30.0);
    const nlohmann::json& t = m["tasks"][0];
    EXPECT_EQ(t["jobs"], 3);
    EXPECT_EQ(t["released"], 1);
    EXPECT_EQ(t["skipped"], 2);
    EXPECT_EQ(t["unfinished"], 1) << "job 0's deadline passed long before the end";
  }
}
#endif

TEST_F(RunCommand, ABusyThreadAmongManyNeverLosesItsJobsOutcomes) {
  // One shared core: a 100 us task and 250 idle ones, each with its executor thread. The
  // event buffers were split evenly over the 252 recording threads (192 MiB in all,
  // about 16,600 events each); the executor that ran the fast task's jobs filled its
  // buffer after about 8,000 jobs, and every later job lost its start and finish and
  // was reported unfinished, so missed (thousands of the 15,000 here). The job ledger
  // keeps every planned job's release, start and finish.
  std::string text =
      "global: {cores: 1, policy: federated}\ntasks:\n"
      "  - {name: fast, period: 100us, program: segments, segments: [{length: 5us}]}\n";
  for (int i = 0; i < 250; ++i) {
    text += "  - {name: idle" + std::to_string(i) +
            ", period: 10s, program: segments, segments: [{length: 10us}]}\n";
  }
  const fs::path set = write("busy.yaml", text);
  const fs::path json = dir_ / "busy.json";
  const Outcome r =
      takt("run --no-cyclictest " + set.string() + " --duration 1500ms --json " + json.string(), "TAKT_NO_RT=1");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json m = read_json(json);
  expect_accounted(m);
  const nlohmann::json& fast = m["tasks"][0];
  EXPECT_EQ(fast["jobs"], 15000);
  EXPECT_EQ(fast["unfinished"], 0) << "every job's finish is recorded";
  EXPECT_EQ(fast["unknown"], 0);
  EXPECT_EQ(fast["met"].get<std::uint64_t>() + fast["misses"].get<std::uint64_t>(), 15000u);
  EXPECT_EQ(r.out.find("no known outcome"), std::string::npos) << r.out;
}

TEST_F(RunCommand, AFailedWriteToStandardOutputIsAnErrorAlsoWhenAJobIsLeftRunning) {
  // Job 0 never ends: the run gives up on it and ends the process without waiting
  // (std::_Exit), which skipped the check of standard output: exit 0, table lost.
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  const fs::path set = write("long.yaml",
                             "global: {cores: 1, policy: federated}\ntasks:\n  - {name: long, period: 100ms, "
                             "program: " TAKT_ENDLESS_SO ", work: 1ms, span: 1ms}\n");
  const fs::path err = dir_ / "stderr";
  const std::string command = std::string("TAKT_NO_RT=1 timeout 60 ") + TAKT_BINARY + " run " + set.string() +
                              " --duration 250ms >/dev/full 2>" + err.string();
  const int raw = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(raw));
  EXPECT_EQ(WEXITSTATUS(raw), 1);
  const std::string e = takt::testing::slurp(err);
  EXPECT_NE(e.find("a job released before the end had not finished (abandoned"), std::string::npos) << e;
  EXPECT_NE(e.find("writing to standard output failed"), std::string::npos) << e;
}

TEST_F(RunCommand, SighupStopsTheRunAsSigtermDoesAndTheResultsAreWritten) {
  // The terminal closed or the ssh connection dropped: SIGHUP ended takt by its default
  // action, with no table and no JSON. It now stops the run as SIGTERM does.
  const fs::path json = dir_ / "hup.json";
  const takt::testing::Interrupted r = signal_takt_after(
      {"run", example("10-run.yaml"), "--duration", "20s", "--no-progress", "--no-cyclictest", "--json",
       json.string()},
      std::chrono::milliseconds(1500), SIGHUP);
  ASSERT_TRUE(r.signalled);
  EXPECT_EQ(r.outcome.status, 128 + SIGHUP) << r.outcome.err;  // ended by the signal, after writing
  EXPECT_LT(r.after_signal, std::chrono::seconds(10));
  ASSERT_TRUE(fs::exists(json)) << r.outcome.err;
  const nlohmann::json m = read_json(json);
  EXPECT_EQ(m["run"]["stopped"], true);
  EXPECT_EQ(m["run"]["signal"], SIGHUP);
  EXPECT_NE(r.outcome.out.find("stopped early"), std::string::npos) << r.outcome.out;
}

TEST_F(RunCommand, SigtermStopsTheRunAndTheResultsAreWritten) {
  const fs::path json = dir_ / "stopped.json", trace = dir_ / "stopped_trace.json";
  int err[2];
  ASSERT_EQ(pipe(err), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, err[0]);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> args = {TAKT_BINARY, "run", example("10-run.yaml"), "--duration", "60s",
                                   "--json", json.string(), "--trace", trace.string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, TAKT_BINARY, &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(err[1]);
  // Wait for the run to start (its second message line), let it release some jobs.
  std::string seen;
  const auto until = std::chrono::steady_clock::now() + 10s;
  char buf[256];
  while (seen.find("real-time:") == std::string::npos && std::chrono::steady_clock::now() < until) {
    pollfd p{err[0], POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    ssize_t n = read(err[0], buf, sizeof buf);
    if (n <= 0) break;
    seen.append(buf, static_cast<std::size_t>(n));
  }
  ASSERT_NE(seen.find("real-time:"), std::string::npos) << seen;
  std::this_thread::sleep_for(400ms);
  kill(pid, SIGTERM);
  int signal = 0;
  const int code = takt::testing::wait_exit(pid, 10s, &signal);
  close(err[0]);
  if (code == takt::testing::kChildTimedOut) FAIL() << "takt run did not end after SIGTERM";
  // Its results written, takt ends by the signal, as a shell expects of an interrupted
  // program (a script that ran it stops too); it exited 0 before.
  EXPECT_EQ(code, takt::testing::kChildSignalled);
  EXPECT_EQ(signal, SIGTERM);
  const nlohmann::json m = read_json(json);
  EXPECT_TRUE(m["run"]["stopped"].get<bool>());
  EXPECT_EQ(m["run"]["signal"], SIGTERM);
  expect_accounted(m);
  EXPECT_GT(m["totals"]["jobs"].get<int>(), 20);
  EXPECT_LT(m["run"]["duration_s"].get<double>(), 30.0);
  EXPECT_TRUE(fs::exists(trace));
  // A stopped run ends without measuring the machine's floor (which would hold the
  // user for another 2 s after asking it to stop).
  EXPECT_FALSE(m.contains("cyclictest")) << m["cyclictest"].dump();
}

TEST_F(RunCommand, DemoRuntimeStoppedDuringFibKeepsFibAndEndsByTheSignal) {
  // SIGINT while fib(37) runs on the pool (about a second): fib ends, UTS is not run, fib's
  // result is printed and written, and takt ends by the signal. Before, SIGINT's default
  // action ended it, and its output, buffered when redirected, was lost.
  const fs::path json = dir_ / "demo.json";
  const takt::testing::Interrupted r = signal_takt_when(
      {"demo", "runtime", "--fib", "37", "--json", json.string()},
      [](const std::string& out, auto) { return out.find("static memory:") != std::string::npos; });
  const takt::testing::Outcome& o = r.outcome;
  ASSERT_TRUE(r.signalled) << o.out << o.err;
  EXPECT_EQ(o.status, 128 + SIGINT) << o.err;
  EXPECT_NE(o.out.find("fib(37) = 24157817"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("stopped by SIGINT: UTS not run"), std::string::npos) << o.out;
  const nlohmann::json j = read_json(json);
  EXPECT_EQ(j["fib"]["value"], 24157817);
  EXPECT_EQ(j["stopped_by"], "SIGINT");
  EXPECT_FALSE(j.contains("uts"));
}

TEST_F(RunCommand, DemoRuntimeStoppedWhileSizingThePoolWritesWhatItMeasuredAndEndsByTheSignal) {
  // SIGINT during fib(38)'s serial measurement run (about 3 s here), sent once the first
  // line is out: the run ends, nothing else runs, the sizing so far is printed and
  // written, and takt ends by the signal. Until 2026-11-28 the signal's default action
  // ended takt there, with no output and no JSON.
  const fs::path json = dir_ / "demo.json";
  const takt::testing::Interrupted r = signal_takt_when(
      {"demo", "runtime", "--fib", "38", "--json", json.string()}, [](const std::string& out, auto) {
        return out.find("takt demo: a work-stealing pool") != std::string::npos;
      });
  const takt::testing::Outcome& o = r.outcome;
  ASSERT_TRUE(r.signalled) << o.out << o.err;
  EXPECT_EQ(o.status, 128 + SIGINT) << o.err;
  EXPECT_NE(o.out.find("stopped by SIGINT: UTS's measurement run, fib and UTS not run"), std::string::npos)
      << o.out;
  const nlohmann::json j = read_json(json);
  EXPECT_EQ(j["stopped_by"], "SIGINT");
  EXPECT_EQ(j["measurement"]["fib_depth"], 38);  // fib(n) spawns to depth n (docs/programs.md)
  EXPECT_FALSE(j.contains("fib"));
  EXPECT_FALSE(j.contains("uts"));
}

TEST_F(RunCommand, DemoRunsTheBuiltInSetAndSaysWhichPrivilegesItHad) {
  const fs::path json = dir_ / "demo.json";
  const Outcome r = takt("demo --duration 500ms --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("real-time privileges:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("under federated scheduling"), std::string::npos) << r.out;
  const nlohmann::json m = read_json(json);
  EXPECT_EQ(m["run"]["policy"], "federated");
  expect_accounted(m);
  EXPECT_GT(m["totals"]["jobs"].get<int>(), 0);
  // The release latency is reported next to the machine's floor from the same
  // invocation: cyclictest on both CPUs for 2 s, 1 ms apart, or takt's timer probe where
  // cyclictest cannot run.
  EXPECT_NE(r.out.find("machine floor, measured after the run for 2 s: "), std::string::npos) << r.out;
  ASSERT_TRUE(m.contains("cyclictest")) << m.dump();
  EXPECT_TRUE(m["cyclictest"]["ran"].get<bool>()) << m["cyclictest"].dump();
  EXPECT_GT(m["cyclictest"]["samples"].get<int>(), 1000) << m["cyclictest"].dump();
  EXPECT_LE(m["cyclictest"]["p50_us"].get<double>(), m["cyclictest"]["max_us"].get<double>());

  const Outcome no_rt = takt("demo --duration 300ms --no-cyclictest", "TAKT_NO_RT=1");
  ASSERT_EQ(no_rt.status, 0) << no_rt.err;
  EXPECT_NE(no_rt.out.find("switched off by TAKT_NO_RT"), std::string::npos) << no_rt.out;
  EXPECT_EQ(no_rt.out.find("machine floor"), std::string::npos) << no_rt.out;
}

TEST_F(RunCommand, DemoClosesWithThePrivilegesTheRunHad) {
  // As another user with RLIMIT_MEMLOCK at 64 KiB, mlockall of the whole process is
  // refused. The probe (an mlock of one page) said yes: the run said "mlockall no", and
  // the demo's closing line, printed from the probe, "mlockall yes". Now the probe
  // compares the mappings with the limit, and both lines say no and why.
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run takt as another user";
  if (std::system("command -v setpriv >/dev/null") != 0) GTEST_SKIP() << "setpriv (util-linux) missing";
  fs::permissions(dir_, fs::perms::all, fs::perm_options::add);
  // (env -u: where the suite runs with TAKT_NO_RT set, the probe would not run at all.)
  const Outcome r =
      takt("demo --duration 200ms --no-cyclictest",
           "env -u TAKT_NO_RT prlimit --memlock=65536 setpriv --reuid=65534 --regid=65534 --clear-groups");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::size_t run_line = r.err.find("takt run: real-time: not available (");
  ASSERT_NE(run_line, std::string::npos) << r.err;
  const std::size_t were = r.out.find("real-time privileges were: ");
  ASSERT_NE(were, std::string::npos) << r.out;
  const std::string closing = r.out.substr(were, r.out.find('\n', were) - were);
  EXPECT_NE(r.err.find("mlockall no (RLIMIT_MEMLOCK 64 KiB is below the ", run_line), std::string::npos) << r.err;
  EXPECT_NE(closing.find("mlockall no (RLIMIT_MEMLOCK 64 KiB is below the "), std::string::npos) << closing;
  EXPECT_NE(closing.find("raise it, e.g. ulimit -l unlimited"), std::string::npos) << closing;
}

TEST_F(RunCommand, UnderTasksetThePrivilegesSayWhySchedDeadlineIsRefused) {
  // As root on two or more CPUs, `taskset -c 0 takt run` may use SCHED_FIFO but not
  // SCHED_DEADLINE (the kernel admits it only for threads allowed on every CPU of their
  // root domain). The line said "SCHED_DEADLINE no" without a reason.
  if (::geteuid() != 0 || !takt::os::privileges().deadline) {
    GTEST_SKIP()
        << "needs SCHED_DEADLINE allowed on every CPU (root with CAP_SYS_NICE): else it is refused for "
           "another reason";
  }
  if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: taskset narrows nothing";
  if (std::system("command -v taskset >/dev/null") != 0) GTEST_SKIP() << "taskset (util-linux) missing";
  const fs::path file = write("one.yaml",
                              "global: {cores: 1}\n"
                              "tasks:\n"
                              "  - {name: a, period: 10ms, program: segments, segments: [{length: "
                              "100us}]}\n");
  // (env -u: where the suite runs with TAKT_NO_RT set, takt would not probe.)
  const Outcome r =
      takt("run " + file.string() + " --jobs 1 --no-cyclictest", "env -u TAKT_NO_RT taskset -c 0");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("SCHED_DEADLINE no (probably because this process may use CPUs 0 of "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("start takt without taskset or a narrower cpuset"), std::string::npos) << r.out;
}

TEST_F(RunCommand, AProgramWhoseDataDoesNotFitSaysOutOfMemoryAndWhatToChange) {
  // matmul of N = 16384 needs three 2 GiB matrices; under an address-space limit of
  // 1.5 GiB its init fails. The message was "init of program 'matmul' failed:
  // std::bad_alloc".
  if (std::system("command -v prlimit >/dev/null") != 0) GTEST_SKIP() << "prlimit (util-linux) missing";
  const fs::path file = write("big.yaml",
                              "tasks:\n"
                              "  - {name: s, period: 100s, work: 1ms, span: 1ms, program: matmul, "
                              "args: [16384]}\n");
  const Outcome r = takt("run " + file.string() + " --jobs 1 --no-cyclictest --force",
                         "prlimit --as=" + std::to_string(1536LL * 1024 * 1024));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(
      r.err.find("takt: error: task 's': init of program 'matmul' failed: out of memory (an allocation of "
                 "its data failed); give it smaller arguments (now: 16384), or raise the limit on memory "
                 "(ulimit -v)"),
      std::string::npos)
      << r.err;
}

TEST_F(RunCommand, RunReportsTheMachineFloorOnItsOwnCpusAfterTheRun) {
  // takt run's release latency comes with the machine's floor from the same invocation:
  // cyclictest (or takt's timer probe where cyclictest cannot run) for 2 s after the run,
  // on the CPUs the run's cores were mapped to. A one-core set uses one CPU, so the
  // floor is measured by one thread on that CPU, not on every CPU of the machine.
  const fs::path set = write_one_core_set();
  const fs::path json = dir_ / "floor.json";
  const Outcome r = takt("run " + set.string() + " --duration 300ms --no-progress --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("machine floor, measured after the run for 2 s: "), std::string::npos) << r.out;
  const nlohmann::json m = read_json(json);
  expect_accounted(m);  // the run's own results are still there, unchanged in shape
  ASSERT_TRUE(m.contains("cyclictest")) << m.dump();
  const nlohmann::json& c = m["cyclictest"];
  EXPECT_TRUE(c["ran"].get<bool>()) << c.dump();
  EXPECT_GT(c["samples"].get<int>(), 1000) << c.dump();  // 2 s at 1 ms on one CPU: 2000
  EXPECT_LE(c["samples"].get<int>(), 2100) << c.dump();  // not one thread per CPU of the machine
  const std::string cpus = m["cores"]["cpus"];
  const std::string command = c["command"];
  EXPECT_TRUE(command.find("-t 1 -a " + cpus) != std::string::npos ||
              command.find("1 thread(s) on CPUs " + cpus + ",") != std::string::npos)
      << command << " (the run's CPUs: " << cpus << ")";

  const fs::path quiet = dir_ / "quiet.json";
  const Outcome off = takt("run --no-cyclictest " + set.string() + " --duration 100ms --json " + quiet.string());
  ASSERT_EQ(off.status, 0) << off.err;
  EXPECT_EQ(off.out.find("machine floor"), std::string::npos) << off.out;
  EXPECT_FALSE(read_json(quiet).contains("cyclictest"));
}

TEST_F(RunCommand, TheFloorAfterARunWithAFifoJsonWritesTheFifoOnce) {
  // The JSON goes to a FIFO, read by one reader: it gets the run's document, once. The
  // floor measured after the run is printed, but not added by writing the FIFO again
  // (a second document there would need a second reader; with none, the write would
  // wait 10 s and fail).
  const fs::path set = write_one_core_set();
  const fs::path fifo = dir_ / "floor.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(fifo);  // opens when takt opens the FIFO for writing
    std::stringstream text;
    text << in.rdbuf();
    got = text.str();
  });
  const auto start = std::chrono::steady_clock::now();
  const Outcome r = takt("run " + set.string() + " --duration 300ms --no-progress --json " + fifo.string(),
                         "TAKT_NO_RT=1 timeout 60");
  const auto took = std::chrono::steady_clock::now() - start;
  // Let the reader go if takt never opened the FIFO.
  const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  if (fd >= 0) ::close(fd);
  reader.join();
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("machine floor, measured after the run for 2 s: "), std::string::npos) << r.out;
  EXPECT_LT(took, std::chrono::seconds(9)) << "takt waited for a second reader of the FIFO";
  const nlohmann::json m = nlohmann::json::parse(got);  // one document, whole
  expect_accounted(m);
  EXPECT_FALSE(m.contains("cyclictest")) << "the floor is added only to a plain file";
}

TEST_F(RunCommand, ASignalDuringTheFloorKeepsItsSamplesAndEndsTakt) {
  // The floor runs for 2 s after the run; a SIGINT half a second into it ends it early:
  // the samples so far are printed and written (marked stopped), the run's results stay,
  // and takt ends by the signal. Before, the signal's default action killed takt and
  // the JSON had no floor at all.
  const fs::path set = write_one_core_set();
  const fs::path json = dir_ / "floor.json";
  std::optional<std::chrono::steady_clock::duration> table_seen;
  const takt::testing::Interrupted r = signal_takt_when(
      {"run", set.string(), "--duration", "200ms", "--no-progress", "--json", json.string()},
      [&table_seen](const std::string& out, std::chrono::steady_clock::duration elapsed) {
        if (!table_seen && out.find("release latency") != std::string::npos) table_seen = elapsed;
        return table_seen && elapsed >= *table_seen + 500ms;
      });
  const takt::testing::Outcome& o = r.outcome;
  ASSERT_TRUE(r.signalled) << o.out << o.err;
  EXPECT_EQ(o.status, 128 + SIGINT) << o.err;
  EXPECT_NE(o.out.find("stopped early"), std::string::npos) << o.out;
  const nlohmann::json m = read_json(json);
  expect_accounted(m);
  ASSERT_TRUE(m.contains("cyclictest")) << m.dump();
  const nlohmann::json& c = m["cyclictest"];
  EXPECT_TRUE(c["stopped"].get<bool>()) << c.dump();
  EXPECT_GT(c["samples"].get<int>(), 0) << c.dump();
  EXPECT_LT(c["samples"].get<int>(), 1900) << c.dump();  // 2 s at 1 ms on one CPU would be 2000
}

TEST_F(RunCommand, AJsonToStandardOutputThatIsAFileKeepsTheTableAndOneDocument) {
  // `takt run ... --json /dev/stdout > FILE` (takt() sends standard output to a file):
  // the document was written to FILE.partial and renamed over FILE, so the table printed
  // after it went to the old, unlinked file and was lost. Now the document goes through
  // standard output, the table and the floor after it, and the floor is not written as
  // a second document.
  const fs::path set = write_one_core_set();
  const Outcome r = takt("run " + set.string() + " --jobs 3 --no-progress --json /dev/stdout");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\n", 0), 0u) << r.out;  // the document first
  const std::size_t end = r.out.find("\n}\n");
  ASSERT_NE(end, std::string::npos) << r.out;
  expect_accounted(nlohmann::json::parse(r.out.substr(0, end + 2)));
  EXPECT_EQ(r.out.find("takt-run-metrics", end), std::string::npos) << "a second document";
  EXPECT_NE(r.out.find("release latency", end), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("machine floor, measured after the run", end), std::string::npos) << r.out;
}

TEST_F(RunCommand, AnMlockallRefusedForTheWholeProcessIsReportedAsNotLocked) {
  // The privilege probe locks one page; with RLIMIT_MEMLOCK at 64 KiB (and, for root,
  // without CAP_IPC_LOCK) that succeeds while mlockall of the whole process fails. The
  // report must say what the run got: memory not locked.
  if (std::system("setpriv --bounding-set=-ipc_lock true >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "setpriv cannot drop CAP_IPC_LOCK here";
  }
  const fs::path set = write_one_core_set();
  const fs::path json = dir_ / "run.json";
  const Outcome r = takt("run --no-cyclictest " + set.string() + " --duration 100ms --json " + json.string(),
                         "ulimit -l 64; exec setpriv --bounding-set=-ipc_lock");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string privileges = read_json(json)["run"]["privileges"];
  if (privileges.find("TAKT_NO_RT") != std::string::npos) GTEST_SKIP() << "TAKT_NO_RT is set";
  EXPECT_NE(privileges.find("mlockall no"), std::string::npos) << privileges;
  EXPECT_EQ(privileges.find("mlockall yes"), std::string::npos) << privileges;
  EXPECT_NE(r.out.find("mlockall no"), std::string::npos) << r.out;
}

}  // namespace
