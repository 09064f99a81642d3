// `takt profile` end to end: JSON output, --update of a task-set file, --profiles, a shared-object task, bad
// input.
#include "model/program_profile.hpp"
#include "model/task_set_parser.hpp"

#include "../support/command_test.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using takt::testing::Outcome;
using takt::testing::slurp;

class ProfileCommand : public takt::testing::CommandTest {};

// Fixed burdens: the tests do not depend on the calibration (tested elsewhere).
const std::string kBurdens = " --burden-spawn 2us --burden-sync 1us";

TEST_F(ProfileCommand, JsonHasTheMeasuresAndTheTaskSetValues) {
  Outcome o = takt("profile heat 64 64 5 4 --jobs 3 --json" + kBurdens);
  ASSERT_EQ(o.status, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["program"], "heat");
  EXPECT_EQ(j["args"], (std::vector<std::string>{"64", "64", "5", "4"}));
  EXPECT_EQ(j["jobs"], 3);
  EXPECT_EQ(j["per_job"].size(), 3u);
  EXPECT_EQ(j["burden"]["spawn_ns"], 2000);
  EXPECT_EQ(j["burden"]["sync_ns"], 1000);
  EXPECT_EQ(j["burden"]["source"], "given");
  // 64 rows in halves down to at most 4: 16 leaves, 15 spawns per split; the initial
  // condition and 5 steps are 6 splits.
  EXPECT_EQ(j["spawns"], 6 * 15);
  EXPECT_EQ(j["syncs"], 6 * 15);
  // Medians over the 3 jobs: work and span come from two different runs of a job, and
  // a 30 µs job's span run that another process interrupts can exceed its work run
  // (seen under the parallel test suite: span 30.5 µs, work 30.1 µs, both maxima).
  const std::int64_t work = j["work"]["median_ns"], span = j["span"]["median_ns"],
                     burdened = j["burdened_span"]["median_ns"];
  EXPECT_GT(work, 0);
  EXPECT_LT(span, work);
  EXPECT_GE(burdened, span);
  EXPECT_GT(j["parallelism"].get<double>(), 1.0);
  EXPECT_EQ(j["static_memory"]["depth"], 5);  // the root and 4 levels of halving
  EXPECT_EQ(j["static_memory"]["peak_large_stack_bytes"], 0);  // the program calls no call_on_large_stack
  EXPECT_TRUE(j["task_set"]["work"].is_string());
}

TEST_F(ProfileCommand, UpdateWritesTheMeasurementsAndKeepsComments) {
  const std::filesystem::path file = dir_ / "tasks.yaml";
  std::ofstream(file) << "# my task set\n"
                         "global: {cores: 2}\n"
                         "tasks:\n"
                         "  - name: solver   # the LU task\n"
                         "    period: 1s\n"
                         "    program: lu\n"
                         "    args: [64, 16]\n"
                         "    work: 1ms\n"
                         "    span: 1ms\n";
  Outcome o = takt("profile lu 64 16 --jobs 2 --update " + file.string() + kBurdens);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("for the task set (max over the jobs)"), std::string::npos) << o.out;
  const std::string text = slurp(file);
  EXPECT_NE(text.find("# my task set"), std::string::npos);
  EXPECT_NE(text.find("# the LU task"), std::string::npos);
  EXPECT_NE(text.find("burdened_span:"), std::string::npos) << text;
  const auto set = takt::model::parse_task_set(text, file.string());
  ASSERT_EQ(set.tasks.size(), 1u);
  const auto& t = set.tasks[0];
  ASSERT_TRUE(t.measured_work && t.measured_span && t.burdened_span);
  EXPECT_NE(*t.measured_work, std::chrono::milliseconds(1)) << "the old value was replaced";
  EXPECT_LE(*t.measured_span, *t.measured_work);
  EXPECT_GE(*t.burdened_span, *t.measured_span);
  EXPECT_NE(o.err.find("for task 'solver'"), std::string::npos) << o.err;
}

TEST_F(ProfileCommand, UpdateWithoutAProgramProfilesEveryTaskOfTheFile) {
  const std::filesystem::path file = dir_ / "two.yaml";
  std::ofstream(file) << "tasks:\n"
                         "  - {name: a, period: 1s, program: fib, args: [12], work: 1ms, span: 1ms}\n"
                         "  - {name: b, period: 1s, program: matmul, args: [32], work: 1ms, span: 1ms}\n";
  Outcome o = takt("profile --jobs 2 --update " + file.string() + kBurdens);
  ASSERT_EQ(o.status, 0) << o.err;
  const auto set = takt::model::parse_task_set_file(file.string());
  ASSERT_EQ(set.tasks.size(), 2u);
  for (const auto& t : set.tasks) {
    // The file's `work: 1ms, span: 1ms` were replaced by measured values (fib(12) and a
    // 32×32 matmul take far less), and a burdened span was added.
    ASSERT_TRUE(t.measured_work && t.measured_span && t.burdened_span) << t.name;
    EXPECT_NE(*t.measured_work, std::chrono::milliseconds(1)) << t.name;
    EXPECT_NE(*t.measured_span, std::chrono::milliseconds(1)) << t.name;
    EXPECT_LE(*t.measured_span, *t.measured_work) << t.name;
    EXPECT_GE(*t.burdened_span, *t.measured_span) << t.name;
  }
}

TEST_F(ProfileCommand, UpdateWithAFailingTaskWritesTheOthersAndNamesIt) {
  // b's odd jobs throw. Its error used to end the command: a, measured before it, was not
  // written, c was never profiled, and the message named the program, not the task. Now
  // a and c are written, b and d (the same program, arguments, period and deadline) keep their values and
  // are named with where they stand, and the exit code is 1.
  const std::filesystem::path file = dir_ / "four.yaml";
  std::ofstream(file) << "tasks:\n"
                         "  - {name: a, period: 1s, program: fib, args: [12], work: 1ms, span: 1ms}\n"
                         "  - {name: b, period: 1s, program: " TAKT_THROWING_SO ", work: 1ms, span: 1ms}\n"
                         "  - {name: c, period: 1s, program: fib, args: [13], work: 1ms, span: 1ms}\n"
                         "  - {name: d, period: 1s, program: " TAKT_THROWING_SO ", work: 1ms, span: 1ms}\n";
  Outcome o = takt("profile --jobs 3 --update " + file.string() + kBurdens);
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_NE(o.err.find("2 task(s) of " + file.string() + " could not be profiled or written"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find(file.string() + ":3:5: task 'b': "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("odd job 1 throws"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(file.string() + ":5:5: task 'd': same program, arguments, period and deadline as a task above"),
            std::string::npos)
      << o.err;
  auto set = takt::model::parse_task_set_file(file.string());
  ASSERT_EQ(set.tasks.size(), 4u);
  using std::chrono::milliseconds;
  for (std::size_t i : {0u, 2u}) {
    EXPECT_TRUE(set.tasks[i].burdened_span) << set.tasks[i].name << ": measured and written";
    EXPECT_LT(set.tasks[i].work(), milliseconds(1)) << set.tasks[i].name;
  }
  for (std::size_t i : {1u, 3u}) {
    EXPECT_FALSE(set.tasks[i].burdened_span) << set.tasks[i].name << ": left as it was";
    EXPECT_EQ(set.tasks[i].work(), milliseconds(1)) << set.tasks[i].name;
  }

  // --json: the measured tasks, and the failed ones under "failed".
  std::ofstream(file) << "tasks:\n"
                         "  - {name: a, period: 1s, program: fib, args: [12], work: 1ms, span: 1ms}\n"
                         "  - {name: b, period: 1s, program: " TAKT_THROWING_SO ", work: 1ms, span: 1ms}\n";
  o = takt("profile --jobs 3 --json --update " + file.string() + kBurdens);
  EXPECT_EQ(o.status, 1) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["tasks"].size(), 1u);
  EXPECT_EQ(j["tasks"][0]["task"], "a");
  ASSERT_EQ(j["failed"].size(), 1u);
  EXPECT_EQ(j["failed"][0]["task"], "b");
  EXPECT_NE(j["failed"][0]["error"].get<std::string>().find("odd job 1 throws"), std::string::npos);

  // Every task failing: nothing to write, exit 1, and each failure named.
  std::ofstream(file) << "tasks:\n"
                         "  - {name: b, period: 1s, program: " TAKT_THROWING_SO ", work: 1ms, span: 1ms}\n";
  o = takt("profile --jobs 3 --update " + file.string() + kBurdens);
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_NE(o.err.find("no task of " + file.string() + " could be profiled, nothing is written into it:"),
            std::string::npos)
      << o.err;
}

TEST_F(ProfileCommand, UpdateWithMeasurementsATaskCannotTakeWritesTheOthers) {
  // b's measured span (fib(18): thousands of strands, microseconds at the least) is
  // longer than its 2 us deadline. The one write of all tasks failed on it, so a's
  // measurements were lost too. Now b keeps its values and is named, a is written.
  const std::filesystem::path file = dir_ / "deadline.yaml";
  std::ofstream(file) << "tasks:\n"
                         "  - {name: a, period: 1s, program: fib, args: [12], work: 1ms, span: 1ms}\n"
                         "  - {name: b, period: 2us, program: fib, args: [18], work: 1us, span: 1us}\n";
  Outcome o = takt("profile --jobs 2 --update " + file.string() + kBurdens);
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_NE(o.err.find("task 'b': measured, but not written: " + file.string() + ":3:"), std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("exceeds the deadline 2us"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("1 task(s) of " + file.string() + " could not be profiled or written"),
            std::string::npos)
      << o.err;
  const auto set = takt::model::parse_task_set_file(file.string());
  EXPECT_TRUE(set.tasks[0].burdened_span) << "a measured and written";
  EXPECT_FALSE(set.tasks[1].burdened_span) << "b left as it was";
  EXPECT_EQ(set.tasks[1].measured_span, std::chrono::microseconds(1));
}

TEST_F(ProfileCommand, UpdateWithATaskOutOfMemoryWritesTheOthers) {
  // b's init allocates three 16384 x 16384 matrices (6.4 GB) under a 6 GB limit on the
  // address space (the measurement pool reserves 4.3 GB of stacks, untouched):
  // std::bad_alloc, which is no takt::Error, ended the command and lost a's measurements.
  const std::filesystem::path file = dir_ / "oom.yaml";
  std::ofstream(file) << "tasks:\n"
                         "  - {name: a, period: 1s, program: fib, args: [12], work: 1ms, span: 1ms}\n"
                         "  - {name: b, period: 1s, program: matmul, args: [16384], work: 1ms, span: 1ms}\n";
  Outcome o = takt("profile --jobs 2 --update " + file.string() + kBurdens, "ulimit -v 6000000;");
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_NE(o.err.find(file.string() + ":3:5: task 'b': out of memory (an allocation failed)"), std::string::npos)
      << o.err;
  const auto set = takt::model::parse_task_set_file(file.string());
  EXPECT_TRUE(set.tasks[0].burdened_span) << "a measured and written";
  EXPECT_FALSE(set.tasks[1].burdened_span) << "b left as it was";
}

TEST_F(ProfileCommand, AJobSeesConsistentTimes) {
  // takt::Job promises deadline = release + relative deadline; profiling gave release =
  // now and everything else 0, so the C fixture (which checks that) failed every job.
  Outcome o = takt(std::string("profile ") + TAKT_C_TASK_SO + " --jobs 2" + kBurdens);
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.err.find("inconsistent job times"), std::string::npos) << o.err;
  // Under --update the jobs carry their task's period and deadline: the fixture fails a
  // job whose values differ from those it is told to expect. Tasks with the same program
  // and arguments but another period are profiled apart (they reused the first's jobs):
  // c2's jobs have period 30 ms, and fail.
  const std::filesystem::path file = dir_ / "c.yaml";
  const std::string program = std::string("program: ") + TAKT_C_TASK_SO +
                              ", args: [--expect-period, 20000000, --expect-relative-deadline, 15000000]";
  const std::string two_tasks = "tasks:\n"
                                "  - {name: c1, period: 20ms, deadline: 15ms, " +
                                program +
                                ", work: 1ms, span: 1ms}\n"
                                "  - {name: c2, period: 30ms, deadline: 15ms, " +
                                program + ", work: 1ms, span: 1ms}\n";
  std::ofstream(file) << two_tasks;
  o = takt("profile --jobs 2 --update " + file.string() + kBurdens);
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_EQ(o.err.find("task 'c1': not profiled"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("task 'c2': not profiled"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("period 30000000 ns, expected 20000000"), std::string::npos) << o.err;
  const auto set = takt::model::parse_task_set_file(file.string());
  EXPECT_TRUE(set.tasks[0].burdened_span) << "c1 measured and written";
  EXPECT_FALSE(set.tasks[1].burdened_span) << "c2 left as it was";

  // The same with the program named (`takt profile PROGRAM ARGS --update FILE`): its
  // jobs had period 0 and deadline = release, and failed. Named with --task, c1's jobs
  // carry c1's values; without --task the two tasks' periods differ, which is refused
  // before anything is measured.
  std::ofstream(file) << two_tasks;
  const std::string named = std::string("profile ") + TAKT_C_TASK_SO + " --jobs 2 --update " + file.string() + kBurdens;
  const std::string args = " -- --expect-period 20000000 --expect-relative-deadline 15000000";
  o = takt(named + " --task c1" + args);
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.err.find("expected"), std::string::npos) << o.err;
  EXPECT_TRUE(takt::model::parse_task_set_file(file.string()).tasks[0].burdened_span) << "c1 written";
  o = takt(named + args);
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_NE(o.err.find("tasks 'c1' (period 20ms, deadline 15ms) and 'c2' (period 30ms, deadline 15ms) of " +
                       file.string() + " run '" + TAKT_C_TASK_SO + "' with these arguments, but a job sees"),
            std::string::npos)
      << o.err;
}

TEST_F(ProfileCommand, UpdateProfilesASegmentsTaskFromItsSegmentsList) {
  // `program: segments` takes its strands from `segments:`, as `takt run` does: 100 µs,
  // 8 strands of 50 µs, 100 µs, so C = 600 µs of busy-waiting (each strand at least its
  // length: the busy loop is calibrated on its fastest trial) and L = 250 µs.
  const std::filesystem::path file =
      write("segments.yaml",
            "tasks:\n"
            "  - name: fine\n"
            "    period: 10ms\n"
            "    program: segments\n"
            "    segments: [{length: 100us}, {length: 50us, strands: 8}, {length: 100us}]\n"
            "    work: 1ms\n"
            "    span: 1ms\n");
  Outcome o = takt("profile --jobs 2 --update " + file.string() + kBurdens, "TAKT_NO_RT=1");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto set = takt::model::parse_task_set_file(file.string());
  const auto& t = set.tasks.at(0);
  ASSERT_TRUE(t.measured_work && t.measured_span) << slurp(file);
  EXPECT_NE(*t.measured_work, std::chrono::milliseconds(1)) << "the placeholder was replaced";
  // At least 400 us: more than the 250 us a run that ignored the 8 strands would give.
  // Not C - 10 % (540 us): the busy loop is calibrated once per process, and a
  // calibration beside a loaded CPU (ctest -j2) makes every strand shorter afterwards.
  EXPECT_GE(*t.measured_work, std::chrono::microseconds(400)) << t.measured_work->count() << " ns";
  EXPECT_GE(*t.measured_span, std::chrono::microseconds(200)) << t.measured_span->count() << " ns";
  // Work and span come from separate runs timed in wall-clock time; under load a span
  // run's preempted strand can reach the work run's time (the update keeps span <= work).
  EXPECT_LE(*t.measured_span, *t.measured_work);
  EXPECT_EQ(t.segments.size(), 3u) << "the segments stay";
}

TEST_F(ProfileCommand, AParallelListBeforeTheProgramTakesOnlyItsOwnValue) {
  // `--parallel 1,2 fib 12`, as the help text suggests: 1,2 is the list, fib 12 the program.
  Outcome o = takt("profile --jobs 1 --parallel 1,2 fib 12 --json" + kBurdens, "TAKT_NO_RT=1");
  ASSERT_EQ(o.status, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["program"], "fib");
  EXPECT_EQ(j["args"], nlohmann::json::array({"12"}));
  ASSERT_EQ(j["parallel"].size(), 2u);
  EXPECT_EQ(j["parallel"][0]["workers"], 1);
  EXPECT_EQ(j["parallel"][1]["workers"], 2);
}

TEST_F(ProfileCommand, UpdateOfATaskThatDoesNotRunTheProgramNamesTheFixBeforeMeasuring) {
  // Which tasks get the measurements is known before measuring: nothing is measured
  // (and printed) when none does (it measured, printed, then failed).
  const std::filesystem::path file = dir_ / "other.yaml";
  const std::string text =
      "tasks:\n  - {name: a, period: 1s, program: fib, args: [12], work: 1ms, span: 1ms}\n";
  std::ofstream(file) << text;
  Outcome o = takt("profile matmul 16 --jobs 1 --update " + file.string() + kBurdens);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--task NAME"), std::string::npos) << o.err;
  EXPECT_EQ(o.out, "") << "nothing measured";
  o = takt("profile fib 12 --jobs 1 --update " + file.string() + " --task nosuch" + kBurdens);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--task 'nosuch' is not a task of " + file.string() + " (its tasks: a)"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.out, "") << "nothing measured";
  EXPECT_EQ(slurp(file), text);
}

TEST_F(ProfileCommand, UpdateWithoutAProgramProfilesOnlyTheTaskNamedByTask) {
  // --task without a program was ignored: every task was measured and rewritten.
  const std::string text =
      "tasks:\n"
      "  - {name: a, period: 1s, program: fib, args: [12], work: 1ms, span: 1ms}\n"
      "  - {name: b, period: 1s, program: fib, args: [10], work: 1ms, span: 1ms}\n";
  const std::filesystem::path file = write("two.yaml", text);
  Outcome o = takt("profile --jobs 1 --update " + file.string() + " --task b" + kBurdens, "TAKT_NO_RT=1");
  ASSERT_EQ(o.status, 0) << o.err;
  const auto set = takt::model::parse_task_set_file(file.string());
  ASSERT_EQ(set.tasks.size(), 2u);
  EXPECT_FALSE(set.tasks[0].burdened_span) << "task a is left as it was:\n" << slurp(file);
  EXPECT_EQ(set.tasks[0].measured_work, std::chrono::milliseconds(1));
  EXPECT_TRUE(set.tasks[1].burdened_span) << slurp(file);
  EXPECT_EQ(o.out.find("task 'a'"), std::string::npos) << o.out;

  write("two.yaml", text);
  o = takt("profile --jobs 1 --update " + file.string() + " --task nosuch" + kBurdens, "TAKT_NO_RT=1");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--task 'nosuch' is not a task of " + file.string() + " (its tasks: a, b)"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.out, "") << "nothing measured";
  EXPECT_EQ(slurp(file), text);
}

TEST_F(ProfileCommand, UpdateWithoutAProgramResolvesEveryProgramBeforeMeasuring) {
  // The second task's unknown program was found after the first task was measured, and
  // named neither the task nor where it is written.
  const std::string text =
      "tasks:\n"
      "  - {name: a, period: 1s, program: fib, args: [12], work: 1ms, span: 1ms}\n"
      "  - name: b\n"
      "    period: 1s\n"
      "    program: nosuch\n"
      "    work: 1ms\n"
      "    span: 1ms\n";
  const std::filesystem::path file = write("mix.yaml", text);
  Outcome o = takt("profile --jobs 1 --update " + file.string() + kBurdens, "TAKT_NO_RT=1");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find(file.string() + ":5:5: task 'b': unknown program 'nosuch'"), std::string::npos)
      << o.err;
  EXPECT_EQ(o.out, "") << "nothing measured";
  EXPECT_EQ(slurp(file), text);
}

TEST_F(ProfileCommand, UpdateOfAFileWithoutPlaceholdersSaysWhatToAdd) {
  // The file must be a valid task set before the update; nothing is measured otherwise.
  const std::filesystem::path file = dir_ / "new.yaml";
  std::ofstream(file) << "tasks:\n  - {name: a, period: 1s, program: fib, args: [12]}\n";
  Outcome o = takt("profile fib 12 --jobs 1 --update " + file.string() + kBurdens);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("`work: 1ms` and `span: 1ms`"), std::string::npos) << o.err;
  EXPECT_EQ(o.out, "");
}

TEST_F(ProfileCommand, ProfilesFileCollectsPrograms) {
  const std::filesystem::path file = dir_ / "profiles.yaml";
  ASSERT_EQ(
      takt("profile cholesky 64 16 --jobs 2 --profiles " + file.string() + kBurdens).status, 0);
  ASSERT_EQ(takt("profile lu 64 16 --jobs 2 --profiles " + file.string() + kBurdens).status, 0);
  // Again, same name: replaced, not added.
  ASSERT_EQ(takt("profile lu 64 16 --jobs 2 --profiles " + file.string() + kBurdens).status, 0);
  const auto profiles = takt::model::parse_program_profiles_file(file.string());
  ASSERT_EQ(profiles.size(), 2u);
  EXPECT_EQ(profiles[0].name, "cholesky-64-16");
  EXPECT_EQ(profiles[0].program, "cholesky");
  EXPECT_EQ(profiles[0].args, (std::vector<std::string>{"64", "16"}));
  EXPECT_EQ(profiles[1].name, "lu-64-16");
  ASSERT_TRUE(profiles[1].burdened_span.has_value());
  // Each entry says how it was measured: the file's one header said the last run's
  // --jobs and --percentile (and machine and date) for every entry until 2026-11-29.
  ASSERT_EQ(takt("profile fib 12 --jobs 3 --percentile 50 --profiles " + file.string() + kBurdens).status, 0);
  const auto again = takt::model::parse_program_profiles_file(file.string());
  ASSERT_EQ(again.size(), 3u);
  ASSERT_TRUE(again[0].measured && again[2].measured);
  EXPECT_EQ(again[0].measured->jobs, 2);
  EXPECT_EQ(again[0].measured->percentile, 100);
  EXPECT_EQ(again[2].measured->jobs, 3);
  EXPECT_EQ(again[2].measured->percentile, 50);
  EXPECT_NE(again[2].measured->machine.find(" CPU(s)"), std::string::npos) << again[2].measured->machine;
  EXPECT_EQ(again[2].measured->date.size(), 10u) << again[2].measured->date;
  const std::string text = slurp(file);
  EXPECT_EQ(text.find("--jobs"), std::string::npos) << "no run's options in the header: " << text;
  EXPECT_NE(text.find("    measured: {jobs: 3, percentile: 50, machine: "), std::string::npos) << text;
}

TEST_F(ProfileCommand, ASharedObjectTaskUsesTheRuntimeOfTheTaktProgram) {
  // The example task's spawns resolve to the runtime the takt binary exports: the
  // profiler sees them. 64,000 intervals halved down to 1,000: 63 spawns.
  // Program arguments that look like options go after "--".
  Outcome o = takt(std::string("profile ") + TAKT_PI_TASK_SO + " --jobs 2 --json" + kBurdens +
                                    " -- --intervals 64000 --grain 1000");
  ASSERT_EQ(o.status, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["spawns"], 63);
  EXPECT_GT(j["parallelism"].get<double>(), 2.0);
  // A negative count is refused at init (std::stoull took "-5" as 2^64 - 5: a job that
  // never ended).
  o = takt(std::string("profile ") + TAKT_PI_TASK_SO + " --jobs 1" + kBurdens + " -- --intervals -5");
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_NE(o.err.find("--intervals needs a whole number, got '-5'"), std::string::npos) << o.err;
}

TEST_F(ProfileCommand, UpdateOfAJsonTaskSetKeepsItJson) {
  // docs/task-set-format.md: JSON is a task-set form; the update must leave valid JSON.
  const std::filesystem::path file = dir_ / "set.json";
  std::ofstream(file)
      << R"({"tasks":[{"name":"f","period":"10ms","program":"fib","args":[12],"work":"1ms","span":"1ms"}]})";
  Outcome o = takt("profile --jobs 1 --update " + file.string() + kBurdens, "TAKT_NO_RT=1");
  ASSERT_EQ(o.status, 0) << o.err;
  const std::string text = slurp(file);
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(text)) << text;
  const nlohmann::json& task = j["tasks"][0];
  for (const char* key : {"work", "span", "burdened_span"}) {
    ASSERT_TRUE(task.contains(key)) << text;
    EXPECT_TRUE(task[key].is_string()) << text;
  }
  EXPECT_NE(task["work"], "1ms") << text;
  EXPECT_NO_THROW(takt::model::parse_task_set_file(file.string()));
}

TEST_F(ProfileCommand, AProfilesFileIsCheckedBeforeMeasuring) {
  // As --update: a file that is there must be a valid profiles file before anything is measured.
  const std::filesystem::path file = dir_ / "bad.yaml";
  std::ofstream(file) << "programs: [oops\n";
  Outcome o = takt("profile fib 12 --jobs 1 --profiles " + file.string() + kBurdens);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find(file.string()), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("--profiles adds an entry to a valid program-profiles file"), std::string::npos)
      << o.err;
  EXPECT_EQ(o.out, "") << "nothing measured";
  EXPECT_EQ(slurp(file), "programs: [oops\n");
}

TEST_F(ProfileCommand, AnEntryNameTheProfilesFileCannotHoldIsRefusedBeforeMeasuring) {
  // --name 'a<line break>b' was measured and written ("wrote program profile"), and every
  // later read of the file failed on that entry's name.
  const std::filesystem::path file = dir_ / "profiles.yaml";
  Outcome o = takt("profile fib 12 --jobs 1 --profiles " + file.string() + " --name 'a\nb'" + kBurdens);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--name holds a control character or line break (U+000A at byte 2)"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.out, "") << "nothing measured";
  EXPECT_FALSE(std::filesystem::exists(file));
  o = takt("profile fib 12 --jobs 1 --profiles " + file.string() + " --name $(printf 'a\\377') " + kBurdens);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--name is not UTF-8 text (byte 0xFF at byte 2)"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(file));
  // An argument that is not UTF-8 would be written as it is, and the file then refused
  // by every reader; refused with --name too (without it the default name holds it).
  o = takt("profile fib --jobs 1 --profiles " + file.string() + " --name x" + kBurdens +
           " -- $(printf '1\\377')");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--profiles: the program's argument 1 ('1\\xFF') is not UTF-8 text"),
            std::string::npos)
      << o.err;
  EXPECT_FALSE(std::filesystem::exists(file));
  // A name the file can hold is written and read back.
  ASSERT_EQ(
      takt("profile fib 12 --jobs 1 --profiles " + file.string() + " --name 'fib twelve'" + kBurdens).status,
      0);
  EXPECT_EQ(takt::model::parse_program_profiles_file(file.string()).at(0).name, "fib twelve");
}

TEST_F(ProfileCommand, AnEmptyProfilesFileOrADeviceHoldsNoEntries) {
  // An empty file was refused ("the file is empty"), and so was /dev/null; so was a file
  // of comments only (a user's note to start it), while an empty one was later taken.
  for (const char* text : {"", "# profiles of the lab box\n\n  # measured quiet\n"}) {
    const std::filesystem::path file = write("profiles.yaml", text);
    Outcome o = takt("profile fib 10 --jobs 1 --profiles " + file.string() + kBurdens, "TAKT_NO_RT=1");
    ASSERT_EQ(o.status, 0) << text << o.err;
    const auto profiles = takt::model::parse_program_profiles_file(file.string());
    ASSERT_EQ(profiles.size(), 1u) << text;
    EXPECT_EQ(profiles[0].name, "fib-10");
  }
  Outcome o = takt("profile fib 10 --jobs 1 --profiles /dev/null" + kBurdens, "TAKT_NO_RT=1");
  EXPECT_EQ(o.status, 0) << o.err;
  // Something that is not a comment is still checked: a stray word is no profiles file.
  const std::filesystem::path stray = write("stray.yaml", "# notes\nprograms\n");
  o = takt("profile fib 10 --jobs 1 --profiles " + stray.string() + kBurdens, "TAKT_NO_RT=1");
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_EQ(slurp(stray), "# notes\nprograms\n");
}

TEST_F(ProfileCommand, AProfilesFifoIsWrittenNotRead) {
  // Reading a FIFO (or /dev/stdout on a pipe) waited for input that never came: takt hung.
  const std::filesystem::path fifo = dir_ / "profiles.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    std::ifstream in(fifo);  // blocks until a writer opens it
    std::stringstream text;
    text << in.rdbuf();
    got = text.str();
  });
  Outcome o =
      takt("profile fib 10 --jobs 1 --profiles " + fifo.string() + kBurdens, "TAKT_NO_RT=1 timeout 30");
  // Let the reader go when takt never opened the FIFO for writing.
  const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  if (fd >= 0) ::close(fd);
  reader.join();
  ASSERT_EQ(o.status, 0) << o.err;
  const auto profiles = takt::model::parse_program_profiles(got, "fifo");
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].name, "fib-10");
}

TEST_F(ProfileCommand, UpdateOfAFifoOrADeviceIsRefused) {
  Outcome o = takt("profile fib 10 --jobs 1 --update /dev/null" + kBurdens, "TAKT_NO_RT=1");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--update: '/dev/null' is no regular file"), std::string::npos) << o.err;
  EXPECT_EQ(o.out, "") << "nothing measured";
}

TEST_F(ProfileCommand, MoreParallelWorkersThanCpusAreRefused) {
  // T_P pins P workers to the first P CPUs: with more workers than CPUs it would report
  // "T3 (3 pinned workers)" on two CPUs.
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  const int cpus = CPU_COUNT(&allowed);
  Outcome o = takt("profile fib 10 --jobs 1 --parallel 1," + std::to_string(cpus + 1) + kBurdens);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--parallel " + std::to_string(cpus + 1) + ": "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("give at most " + std::to_string(cpus)), std::string::npos) << o.err;
  EXPECT_EQ(o.out, "");
  int first = 0;
  while (!CPU_ISSET(first, &allowed)) ++first;
  o = takt("profile fib 10 --jobs 1 --cpus " + std::to_string(first) + " --parallel 2" + kBurdens);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("of --cpus (" + std::to_string(first) + ")"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("give at most 1"), std::string::npos) << o.err;
  o = takt("profile fib 10 --jobs 1 --parallel 0" + kBurdens);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--parallel: expects a whole number from 1 to 65536, not '0'"), std::string::npos)
      << o.err;
  // A negative count was read as an unsigned one: "--parallel 18446744073709551615: ...".
  o = takt("profile fib 10 --jobs 1 --parallel 1,-1" + kBurdens);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--parallel: expects a whole number from 1 to 65536, not '-1'"), std::string::npos)
      << o.err;
  // A count given twice was measured twice and reported as two T_1 rows.
  o = takt("profile fib 10 --jobs 1 --parallel 1,1" + kBurdens);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--parallel names 1 twice; give each worker count once"), std::string::npos) << o.err;
  EXPECT_EQ(o.out, "");
  // A decimal option: a word that is no number is not "not in range" (CLI11's Range said
  // so, with the bounds to six decimals).
  o = takt("profile fib 10 --jobs 1 --percentile abc" + kBurdens);
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--percentile: expects a number from 0.001 to 100, not 'abc'"), std::string::npos)
      << o.err;
  for (const char* value : {"0", "100.5", "nan", "inf"}) {
    o = takt(std::string("profile fib 10 --jobs 1 --percentile ") + value + kBurdens);
    EXPECT_EQ(o.status, 1) << value;
    EXPECT_NE(
        o.err.find(std::string("--percentile: expects a number from 0.001 to 100, not '") + value + "'"),
        std::string::npos)
        << o.err;
  }
}

TEST_F(ProfileCommand, ABurdenAboveOneSecondIsRefused) {
  // 3e18 ns per spawn was taken: the path sums overflowed 64 bits and L^ came out as
  // three burdens where the path had more edges.
  Outcome o = takt("profile fib 10 --jobs 1 --burden-spawn 3000000000000000000ns --burden-sync 1ns");
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_NE(
      o.err.find("--burden-spawn 3000000000s: a burden is the cost of one spawn or sync edge, at most 1s"),
      std::string::npos)
      << o.err;
  EXPECT_EQ(o.out, "");
  o = takt("profile fib 10 --jobs 1 --burden-spawn 1us --burden-sync 2s");
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_NE(o.err.find("--burden-sync 2s:"), std::string::npos) << o.err;
}

TEST_F(ProfileCommand, BadInputIsExitOneWithAMessage) {
  Outcome unknown = takt("profile nosuchprogram --jobs 1" + kBurdens);
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.err.find("unknown program 'nosuchprogram'"), std::string::npos) << unknown.err;
  // A task-set file where the program goes: --update is what measures its programs.
  const std::filesystem::path set =
      write("set.yaml", "tasks:\n  - {name: a, period: 10ms, program: fib, args: [5]}\n");
  Outcome a_file = takt("profile " + set.string() + " --jobs 1" + kBurdens);
  EXPECT_EQ(a_file.status, 1);
  EXPECT_NE(
      a_file.err.find("'" + set.string() +
                      "' names no program but a file; to measure the programs of a "
                      "task-set file and write their times into it, give the file to --update: takt profile "
                      "--update " +
                      set.string()),
      std::string::npos)
      << a_file.err;
  EXPECT_NE(a_file.err.find("Run 'takt profile --help'"), std::string::npos) << a_file.err;
  Outcome bad_args = takt("profile heat 2 --jobs 1" + kBurdens);
  EXPECT_EQ(bad_args.status, 1);
  EXPECT_NE(bad_args.err.find("argument 1 (ROWS)"), std::string::npos) << bad_args.err;
  Outcome half_burden = takt("profile fib 5 --burden-spawn 1us");
  EXPECT_EQ(half_burden.status, 1);
  EXPECT_NE(half_burden.err.find("--burden-sync"), std::string::npos) << half_burden.err;
  // Mistakes in the options are told with the help line, as CLI11's own are (these are
  // checked once the command runs, against the machine or each other).
  for (const auto& [args, message] :
       {std::pair<std::string, std::string>{"profile fib 5 --burden-spawn 1us",
                                            "give both --burden-spawn and --burden-sync"},
        {"profile fib 5 --cpus 1-0", "--cpus: bad CPU list '1-0'"},
        {"profile fib 5 --cpus 100000", "--cpus: "},
        {"profile fib 5 --parallel 65536", "--parallel 65536: T_P runs on P workers"},
        {"profile", "name a program to profile"}}) {
    const Outcome o = takt(args);
    EXPECT_EQ(o.status, 1) << args;
    EXPECT_EQ(o.err.rfind("takt: error: " + message, 0), 0u) << o.err;
    EXPECT_NE(o.err.find("Run 'takt profile --help' for the options"), std::string::npos) << o.err;
  }
  Outcome nothing = takt("profile");
  EXPECT_EQ(nothing.status, 1);
  EXPECT_NE(nothing.err.find("name a program to profile"), std::string::npos) << nothing.err;
  // CPU 4095 is beyond any machine this runs on (CPU_SETSIZE is 1024 by default).
  Outcome foreign_cpu = takt("profile fib 5 --jobs 1 --cpus 4095" + kBurdens);
  EXPECT_EQ(foreign_cpu.status, 1);
  EXPECT_NE(foreign_cpu.err.find("--cpus 4095: this process may use CPUs"), std::string::npos)
      << foreign_cpu.err;
}

}  // namespace

namespace {

// After a stop takt writes its results and then ends by the signal (a shell's 130), so
// that a script running it stops as well.
constexpr int kEndedBySigint = 128 + SIGINT;

TEST_F(ProfileCommand, CtrlCEndsTheMeasurementAndKeepsTheJobsMeasured) {
  // Jobs of 20 ms (CPU time), 1,000 of them: a minute of measuring, stopped after 2 s.
  // It lost everything (SIGINT's default action) before takt handled it.
  const std::vector<std::string> args{
      "profile", "segments", "20ms", "--jobs", "1000", "--json", "--burden-spawn", "2us", "--burden-sync",
      "1us"};
  Outcome o = signal_takt_after(args, std::chrono::seconds(2)).outcome;
  ASSERT_EQ(o.status, kEndedBySigint) << o.err;
  EXPECT_NE(o.err.find("stopping after the job in flight"), std::string::npos) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["stopped"], true);
  EXPECT_EQ(j["jobs_requested"], 1000);
  const int jobs = j["jobs"];
  EXPECT_GE(jobs, 1);
  EXPECT_LT(jobs, 1000);
  EXPECT_EQ(j["per_job"].size(), static_cast<std::size_t>(jobs));
  EXPECT_GE(j["work"]["min_ns"].get<std::int64_t>(), 20'000'000);
  EXPECT_NE(o.err.find("stopped by SIGINT after " + std::to_string(jobs) + " of 1000 jobs"), std::string::npos)
      << o.err;
}

TEST_F(ProfileCommand, CtrlCDuringAnUpdateWritesTheTasksMeasuredAndNamesTheOthers) {
  // 'quick' takes milliseconds, 'long' 200 jobs of 2 x 40 ms (16 s), stopped after 3 s
  // (up to ~2.5 s of start-up and 'quick' on a loaded machine still leave 'long' jobs
  // measured): 'quick' and the jobs of 'long' measured by then are written, 'later'
  // keeps its values.
  const std::filesystem::path file = dir_ / "three.yaml";
  std::ofstream(file)
      << "tasks:\n"
         "  - {name: quick, period: 1s, program: segments, segments: [{length: 100us}], work: 9ms, span: 9ms}\n"
         "  - {name: long, period: 1s, program: segments, segments: [{length: 40ms}], work: 9ms, span: 9ms}\n"
         "  - {name: later, period: 1s, program: segments, segments: [{length: 41ms}], work: 9ms, span: 9ms}\n";
  const std::vector<std::string> args{"profile",        "--update", file.string(),   "--jobs", "200",
                                      "--burden-spawn", "2us",      "--burden-sync", "1us"};
  Outcome o = signal_takt_after(args, std::chrono::seconds(3)).outcome;
  ASSERT_EQ(o.status, kEndedBySigint) << o.err;
  EXPECT_NE(o.err.find("stopped by SIGINT; writing the tasks measured, some on fewer jobs: 'long' ("),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("of 200 jobs); not profiled, left as they are: 'later'"), std::string::npos) << o.err;
  const auto set = takt::model::parse_task_set_file(file.string());
  ASSERT_EQ(set.tasks.size(), 3u);
  using std::chrono::milliseconds;
  ASSERT_TRUE(set.tasks[0].measured_work && set.tasks[1].measured_work && set.tasks[2].measured_work);
  // Measured: no longer the 9 ms written (its max over 100 us jobs may exceed 9 ms where a
  // job was preempted on a loaded machine, so no bound from above).
  EXPECT_NE(*set.tasks[0].measured_work, milliseconds(9)) << "quick: measured";
  EXPECT_GE(*set.tasks[1].measured_work, milliseconds(40)) << "long: measured";
  EXPECT_EQ(*set.tasks[2].measured_work, milliseconds(9)) << "later: left as it was";
  EXPECT_FALSE(set.tasks[2].burdened_span) << "later: nothing added";
}

TEST_F(ProfileCommand, AStoppedMeasurementIsAddedToAProfilesFileWithTheJobsItWasMeasuredOn) {
  // Until 2026-11-29 it was left out: the file's one header gave the jobs of all its
  // entries. Each entry's `measured:` gives them now, as --update writes a stopped task.
  const std::filesystem::path profiles = dir_ / "profiles.yaml";
  const std::vector<std::string> args{
      "profile", "segments", "20ms", "--jobs", "1000", "--profiles", profiles.string(), "--burden-spawn",
      "2us", "--burden-sync", "1us"};
  Outcome o = signal_takt_after(args, std::chrono::milliseconds(1500)).outcome;
  ASSERT_EQ(o.status, kEndedBySigint) << o.err;
  EXPECT_NE(o.out.find("(stopped after "), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("wrote program profile 'segments-20ms' into " + profiles.string() + " (measured on "),
            std::string::npos)
      << o.err;
  const auto entries = takt::model::parse_program_profiles_file(profiles.string());
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_TRUE(entries[0].measured);
  EXPECT_GE(entries[0].measured->jobs, 1);
  EXPECT_LT(entries[0].measured->jobs, 1000);
  // A stopped measurement does not replace an entry the file has (which may be of all
  // its jobs): a Ctrl-C in a rerun of measure.sh would have.
  const std::string before = slurp(profiles);
  o = signal_takt_after(args, std::chrono::milliseconds(1500)).outcome;
  ASSERT_EQ(o.status, kEndedBySigint) << o.err;
  EXPECT_NE(o.err.find("not written into " + profiles.string() +
                       ": it has an entry 'segments-20ms' already, which a measurement stopped after "),
            std::string::npos)
      << o.err;
  EXPECT_EQ(slurp(profiles), before);
}

TEST_F(ProfileCommand, AStopBeforeTheFirstJobSaysThatNothingIsWritten) {
  // The sizing run of takt::measure (one job of 2 s) is under way at the signal.
  const std::filesystem::path file = dir_ / "one.yaml";
  const std::string before =
      "tasks:\n  - {name: slow, period: 10s, program: segments, segments: [{length: 2s}], work: 9ms, span: 9ms}\n";
  std::ofstream(file) << before;
  const std::vector<std::string> args{
      "profile", "--update", file.string(), "--jobs", "3", "--json", "--burden-spawn", "2us", "--burden-sync",
      "1us"};
  Outcome o = signal_takt_after(args, std::chrono::milliseconds(500)).outcome;
  ASSERT_EQ(o.status, kEndedBySigint) << o.err;
  EXPECT_NE(o.err.find("stopped by SIGINT before the first job was measured; nothing is written into"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.out, "") << "no JSON report of nothing";
  EXPECT_EQ(slurp(file), before);
}

}  // namespace
