// The run loop's pieces: cores mapped onto CPUs, FIFO levels of partitioned-dm's ranks, program arguments, the segments program.
#include "analysis/analyse.hpp"
#include "apps/segments.hpp"
#include "model/task_set_parser.hpp"
#include "os/clock.hpp"
#include "os/cpu.hpp"
#include "platform/core_map.hpp"
#include "platform/realtime_settings.hpp"
#include "platform/run.hpp"
#include "platform/run_floor.hpp"
#include "platform/signal_stop.hpp"
#include "policies/policy_registry.hpp"
#include "takt/error.hpp"
#include "takt/program.hpp"
#include "takt/task.hpp"

#include "../support/held_in_some_run.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <latch>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using takt::os::CpuSet;
using takt::platform::CoreMap;

namespace {

TEST(CoreMap, LogicalCoresTakeIsolatedCpusFirstThenTheOthersInOrder) {
  const CoreMap m = CoreMap::map(takt::model::Cores::of_count(3), CpuSet{0, 1, 2, 3, 4, 5}, CpuSet{4, 5});
  EXPECT_EQ(m.cpu(0), 4);
  EXPECT_EQ(m.cpu(1), 5);
  EXPECT_EQ(m.cpu(2), 0);
  EXPECT_EQ(m.all(), (CpuSet{0, 4, 5}));
  EXPECT_EQ(m.isolated(), (CpuSet{4, 5}));
  EXPECT_EQ(m.cpus({0, 2}), (CpuSet{0, 4}));
  EXPECT_NE(m.describe().find("isolated: 4-5"), std::string::npos) << m.describe();
}

TEST(CoreMap, MoreCoresThanCpusIsBadInputNamingTheFix) {
  try {
    CoreMap::map(takt::model::Cores::of_count(4), CpuSet{0, 1}, {});
    FAIL();
  } catch (const takt::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("uses 4 cores"), std::string::npos) << what;
    EXPECT_NE(what.find("--cores 2"), std::string::npos) << what;
  }
}

TEST(CoreMap, ACpuListMustBeAllowed) {
  takt::model::Cores cores{2, {1, 3}};
  const CoreMap ok = CoreMap::map(cores, CpuSet{0, 1, 2, 3}, {});
  EXPECT_EQ(ok.cpu(3), 3);
  EXPECT_THROW((void)ok.cpu(0), takt::Error);  // 0 is not one of the set's core ids
  try {
    CoreMap::map(cores, CpuSet{0, 1}, {});
    FAIL();
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("CPU(s) 3"), std::string::npos) << e.what();
  }
}

TEST(FifoLevels, RanksMapDownFromSeventyNineAndKeepTheirOrderWhenCompressed) {
  using takt::platform::fifo::rank_priority;
  // Up to 79 ranks: one level each, rank 1 highest.
  EXPECT_EQ(rank_priority(1, 4), 79);
  EXPECT_EQ(rank_priority(4, 4), 76);
  EXPECT_EQ(rank_priority(79, 79), 1);
  // 157 ranks over 79 levels: rank r → 79 − ⌊(r − 1)·78/156⌋ = 79 − ⌊(r − 1)/2⌋.
  EXPECT_EQ(rank_priority(1, 157), 79);
  EXPECT_EQ(rank_priority(2, 157), 79);
  EXPECT_EQ(rank_priority(3, 157), 78);
  EXPECT_EQ(rank_priority(157, 157), 1);
  int previous = 80;
  for (int r = 1; r <= 1000; ++r) {
    const int p = rank_priority(r, 1000);
    EXPECT_LE(p, previous);
    EXPECT_GE(p, 1);
    previous = p;
  }
  EXPECT_LT(rank_priority(1, 4), takt::platform::fifo::worker);
}

TEST(ProgramArguments, SegmentsWithoutArgsGetTheirStructure) {
  const auto set = takt::model::parse_task_set(R"(
tasks:
  - {name: a, period: 10ms, program: segments, segments: [{length: 1ms}, {length: 0.5ms, strands: 8}]}
  - {name: b, period: 10ms, program: segments, args: [2ms], segments: [{length: 2ms}]}
  - {name: c, period: 10ms, program: fib, args: [25], work: 1ms, span: 1ms}
)");
  EXPECT_EQ(takt::platform::program_arguments(set.tasks[0], set.source), (std::vector<std::string>{"1ms", "500us*8"}));
  EXPECT_EQ(takt::platform::program_arguments(set.tasks[1], set.source), (std::vector<std::string>{"2ms"}));
  EXPECT_EQ(takt::platform::program_arguments(set.tasks[2], set.source), (std::vector<std::string>{"25"}));
}

TEST(ProgramArguments, SegmentsWhoseArgsDescribeOtherSegmentsAreBadInput) {
  // args [15ms] with segments [1ms]: the analysis admitted 1 ms jobs and the run ran 15 ms
  // ones, with only a work/C warning after the run.
  const auto set = takt::model::parse_task_set(
      "tasks:\n"
      "  - {name: a, period: 20ms, program: segments, args: [15ms], segments: [{length: 1ms}]}\n"
      "  - {name: b, period: 20ms, program: segments, args: [1ms, 1ms], segments: [{length: 1ms}]}\n"
      "  - {name: c, period: 20ms, program: segments, args: [1ms*2], segments: [{length: 1ms}]}\n"
      "  - {name: d, period: 20ms, program: segments, args: [x], segments: [{length: 1ms}]}\n"
      "  - {name: e, period: 20ms, program: segments, args: [1000us*2], segments: [{length: 1ms, strands: 2}]}\n",
      "s.yaml");
  for (std::size_t i = 0; i < 4; ++i) {
    try {
      (void)takt::platform::program_arguments(set.tasks[i], set.source);
      ADD_FAILURE() << set.tasks[i].name << ": accepted";
    } catch (const takt::Error& e) {
      EXPECT_NE(std::string(e.what()).find("s.yaml:" + std::to_string(i + 2) + ":"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("task '" + set.tasks[i].name +
                                           "': its args: and its segments: ([1ms]) describe different segments"),
                std::string::npos)
          << e.what();
    }
  }
  // The same segments written either way: accepted, the args as given.
  EXPECT_EQ(takt::platform::program_arguments(set.tasks[4], set.source), (std::vector<std::string>{"1000us*2"}));
}

/// One task of one 1 ms segment on one core, and the options of a quiet run of one job
/// (no table, messages, progress line or memory locking).
constexpr const char* kOneSegmentTask =
    "global: {cores: 1}\ntasks: [{name: a, period: 10ms, program: segments, segments: [{length: 1ms}]}]\n";
takt::platform::RunOptions quiet_one_job() {
  takt::platform::RunOptions options;
  options.table = nullptr;
  options.messages = nullptr;
  options.progress = false;
  options.lock_memory = false;
  options.jobs = 1;
  return options;
}

/// A policy that only notes that the run reached it.
class NotePolicy : public takt::platform::Policy {
 public:
  bool reached = false;
  [[nodiscard]] std::string_view name() const override { return "note"; }
  [[nodiscard]] takt::sched::TopologySpec default_topology() const override { return {}; }
  takt::platform::RecordingPlan plan(const takt::platform::RunContext&) override {
    reached = true;
    throw takt::Error("the run went on to the policy");
  }
  void prepare(takt::platform::RunContext&) override {}
  void run(takt::platform::RunContext&) override {}
  bool shutdown() override { return true; }
};

TEST(RunTaskSet, AnOutputPathThatCannotBeWrittenIsRefusedBeforeTheRun) {
  namespace fs = std::filesystem;
  const auto set = takt::model::parse_task_set(kOneSegmentTask);
  const auto verdict = takt::analysis::analyse(set);
  const fs::path missing = fs::temp_directory_path() / ("takt_no_folder_" + std::to_string(::getpid()));
  for (const bool trace : {false, true}) {
    takt::platform::RunOptions options = quiet_one_job();
    options.handle_signals = false;
    (trace ? options.trace : options.json) = missing / "out.json";
    NotePolicy policy;
    try {
      (void)takt::platform::run_task_set(set, verdict, policy, options);
      ADD_FAILURE() << "expected takt::Error";
    } catch (const takt::Error& e) {
      EXPECT_NE(std::string(e.what()).find("the folder '" + missing.string() + "' does not exist"),
                std::string::npos)
          << e.what();
    }
    EXPECT_FALSE(policy.reached);
  }
}

namespace {
int table_writes = 0;
ssize_t write_and_signal(void*, const char*, size_t size) {
  // Two SIGINTs in the table's first write, as a user's repeated Ctrl-C. (The table is
  // short: the stream's 8 KiB buffer hands it over in one write, so a signal per write
  // raised only one.)
  if (++table_writes == 1) {
    std::raise(SIGINT);
    std::raise(SIGINT);
  }
  return static_cast<ssize_t>(size);
}

/// Three jobs of a 1 ms segments task under federated, handling signals, the table
/// written through `write` (a cookie that raises signals while it is written).
takt::platform::RunResult run_three_jobs(cookie_write_function_t* write,
                                         std::optional<std::filesystem::path> json = std::nullopt) {
  const auto set = takt::model::parse_task_set(kOneSegmentTask);
  const auto verdict = takt::analysis::analyse(set);
  auto policy = takt::policies::make_policy(takt::model::Policy::federated);
  takt::platform::RunOptions options;
  options.messages = nullptr;
  options.progress = false;
  options.lock_memory = false;
  options.jobs = 3;
  options.json = std::move(json);
  options.table = fopencookie(nullptr, "w", cookie_io_functions_t{nullptr, write, nullptr, nullptr});
  takt::platform::RunResult r = takt::platform::run_task_set(set, verdict, *policy, options);
  std::fclose(options.table);
  return r;
}
}  // namespace

TEST(RunTaskSet, SignalsWhileTheResultsAreWrittenDoNotEndTheProcess) {
  // The run's SignalStop used to put the default handlers back before the JSON, trace
  // and table were written: a second Ctrl-C 10 ms after the first killed takt there
  // (exit 130, no table, often no trace). Now the handlers stay until the results are
  // written; two signals then only count (a third would still end the process).
  namespace fs = std::filesystem;
  const fs::path json =
      fs::temp_directory_path() / ("takt_signal_outputs_" + std::to_string(::getpid()) + ".json");
  EXPECT_EXIT(
      {
        (void)run_three_jobs(write_and_signal, json);
        std::_Exit(table_writes >= 1 && fs::exists(json) ? 0 : 3);
      },
      ::testing::ExitedWithCode(0), "");
  fs::remove(json);
}

namespace {
bool restart_while_writing = false;
int late_writes = 0;
ssize_t write_and_signal_once(void*, const char*, size_t size) {
  // One SIGTERM during the table, the first of the run: it came after the run ended.
  if (++late_writes == 1) {
    struct sigaction now {};
    sigaction(SIGTERM, nullptr, &now);
    restart_while_writing = (now.sa_flags & SA_RESTART) != 0;
    std::raise(SIGTERM);
  }
  return static_cast<ssize_t>(size);
}
}  // namespace

TEST(RunTaskSet, ASignalWhileTheResultsAreWrittenIsReportedToTheCaller) {
  // A first SIGTERM that came while the results were written was counted and then
  // forgotten: RunResult had no word of it, so takt bench policies went on to its next
  // set as if nobody had asked it to stop.
  EXPECT_EXIT(
      {
        const takt::platform::RunResult r = run_three_jobs(write_and_signal_once);
        int code = 0;
        if (r.signal_after_run != SIGTERM) code |= 1;
        if (r.metrics.run.stopped) code |= 2;  // the run itself ended by its jobs
        if (!restart_while_writing) code |= 4;
        std::_Exit(code);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(GrantedCores, FollowTheAnalysis) {
  // wide: C = 1 + 11·2 + 1 = 24 ms > D = 20 ms, L = 4 ms: federated grants
  // ⌈(24 − 4)/(20 − 4)⌉ = 2 of the 4 cores; small (C = 1 ms) runs on one shared core.
  // gedf-paws lets every job use all 4.
  const auto set = takt::model::parse_task_set(R"(
global: {cores: 4}
tasks:
  - {name: wide, period: 20ms, program: segments, segments: [{length: 1ms}, {length: 2ms, strands: 11}, {length: 1ms}]}
  - {name: small, period: 10ms, program: segments, segments: [{length: 1ms}]}
)");
  const auto federated = takt::analysis::analyse(set);
  EXPECT_EQ(takt::platform::granted_cores(federated, 0), 2u);
  EXPECT_EQ(takt::platform::granted_cores(federated, 1), 1u);
  takt::analysis::AnalysisOptions o;
  o.policy = takt::model::Policy::gedf_paws;
  const auto paws = takt::analysis::analyse(set, o);
  EXPECT_EQ(takt::platform::granted_cores(paws, 0), 4u);
  EXPECT_EQ(takt::platform::granted_cores(paws, 1), 4u);
  // partitioned-dm: the cores a task's strands are placed on. rt-openmp Fig. 2(c):
  // task1's strands on all three cores, task2's one strand on one.
  const auto fig2 =
      takt::model::parse_task_set_file(std::string(TAKT_SOURCE_DIR) + "/examples/rt-openmp-fig2.yaml");
  const auto dm = takt::analysis::analyse(fig2);
  ASSERT_EQ(dm.policy, takt::model::Policy::partitioned_dm);
  EXPECT_EQ(takt::platform::granted_cores(dm, 0), 3u);
  EXPECT_EQ(takt::platform::granted_cores(dm, 1), 1u);
}

TEST(SegmentsProgram, ParsesItsArgumentsAndRefusesBadOnes) {
  using takt::apps::parse_segment_args;
  const auto s = parse_segment_args({"1ms", "500us*8", "2.5ms*3"});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], (takt::SegmentShape{1ms, 1}));
  EXPECT_EQ(s[1], (takt::SegmentShape{500us, 8}));
  EXPECT_EQ(s[2], (takt::SegmentShape{2500us, 3}));
  EXPECT_EQ(takt::apps::format_segment_arg(s[1]), "500us*8");
  EXPECT_EQ(takt::apps::format_segment_arg(s[0]), "1ms");
  for (const char* bad : {"1ms*0", "1ms*x", "10", "0ms", "1ms*-2"}) {
    try {
      parse_segment_args({"1ms", bad});
      ADD_FAILURE() << bad << " was accepted";
    } catch (const takt::Error& e) {
      EXPECT_NE(std::string(e.what()).find("segments argument 2"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parse_segment_args({}), takt::Error);
  // The same limit as a task-set file's `strands:` (model::kMaxSegmentStrands, 10^8); it
  // was 4294967295 here.
  EXPECT_EQ(parse_segment_args({"1us*100000000"})[0].strands, 100000000u);
  try {
    parse_segment_args({"1us*100000001"});
    ADD_FAILURE() << "100000001 strands were accepted";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("from 1 to 100000000"), std::string::npos) << e.what();
  }
}

TEST(SegmentsProgram, RunsEveryStrandOfEverySegment) {
  takt::apps::SegmentsTask task;
  task.init({"t", {"200us", "100us*4"}, 1});
  const auto shapes = task.segments();
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[1].strands, 4u);
  // Outside a pool the job runs serially: 200 us + 4 · 100 us of CPU time. Each strand
  // (≥ kClockedStrand) busy-waits until its thread has used its length of CPU time, so
  // the job uses 600 us, each of the 5 waits up to half a clock read short (~0.3 us;
  // more where the read cost was measured at a slow moment: 5 us each are allowed); one
  // strand left out would leave 500 us.
  // The upper bound holds in one of 3 tries (a VM that charges the time the host took
  // its vCPU away to the thread's CPU time adds that to a try).
  takt::testing::expect_held_in_some_run(3, [&] {
    const auto t0 = takt::os::thread_cpu_time();
    task.run(takt::Job{});
    const auto used = takt::os::thread_cpu_time() - t0;
    EXPECT_GE(used, 575us);
    return used <= 600us * 4 ? std::string()
                             : "used " + std::to_string(used.count()) + " ns (at most 2400 us)";
  });
  EXPECT_THROW(task.run_strand(takt::Job{}, 2, 0), std::out_of_range);
}

TEST(SegmentsProgram, BusyWaitIsCpuTimeThatPreemptionDoesNotShorten) {
  // The loop counts calibrated iterations, so what it takes is CPU time of its thread
  // (within the calibration's accuracy), however long the OS keeps it off the CPU. Two
  // threads on one CPU each busy-wait 20 ms at the same time: the kernel time-shares
  // the CPU, so each gets its 20 ms of CPU time and together they take about 40 ms. A
  // loop that watched the wall clock would end after 20 ms with about 10 ms of CPU time
  // each (a few ms more for the thread that happened to start first).
  // A VM that charges the time the host took its vCPU away to the thread's CPU time adds
  // that to a try, so the upper bound holds in one of 3 tries.
  const int cpu = takt::os::allowed_cpus()[0];
  takt::testing::expect_held_in_some_run(3, [&] {
    std::latch start(2);
    std::array<std::chrono::nanoseconds, 2> used{};
    const auto wall0 = takt::os::monotonic_now();
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < 2; ++i) {
      threads.emplace_back([&, i] {
        takt::os::pin_current_thread(takt::os::CpuSet{cpu});
        start.arrive_and_wait();
        const auto t0 = takt::os::thread_cpu_time();
        takt::apps::busy_wait(20ms);
        used[i] = takt::os::thread_cpu_time() - t0;
      });
    }
    for (auto& t : threads) t.join();
    const auto wall = takt::os::monotonic_now() - wall0;
    std::string failed;
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_GE(used[i], 14ms) << "thread " << i;
      if (used[i] > 40ms)
        failed += "thread " + std::to_string(i) + " used " + std::to_string(used[i].count()) +
                  " ns (at most 40 ms); ";
    }
    EXPECT_GE(wall, 28ms);
    return failed;
  });
}

}  // namespace

namespace {
/// Federated with another run(): `run_with(ctx, federated)` (a test's variation on it).
class FederatedRunAs : public takt::platform::Policy {
 public:
  using RunWith = std::function<void(takt::platform::RunContext&, takt::platform::Policy&)>;
  FederatedRunAs(std::string name, RunWith run_with)
      : name_(std::move(name)),
        run_with_(std::move(run_with)),
        inner_(takt::policies::make_policy(takt::model::Policy::federated)) {}
  [[nodiscard]] std::string_view name() const override { return name_; }
  [[nodiscard]] takt::sched::TopologySpec default_topology() const override { return inner_->default_topology(); }
  takt::platform::RecordingPlan plan(const takt::platform::RunContext& ctx) override { return inner_->plan(ctx); }
  void prepare(takt::platform::RunContext& ctx) override { inner_->prepare(ctx); }
  void run(takt::platform::RunContext& ctx) override { run_with_(ctx, *inner_); }
  bool shutdown() override { return inner_->shutdown(); }

 private:
  std::string name_;
  RunWith run_with_;
  std::unique_ptr<takt::platform::Policy> inner_;
};
}  // namespace

TEST(RunTaskSet, ARunThatFailsMidwayStillWritesWhatRanUntilThen) {
  // An error after the release engine had started (a thread that cannot start midway,
  // memory that runs out) left the run without any output: no JSON, trace or table of
  // the jobs that had run. Now they are written, marked with the error, and the error
  // still reaches the caller.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("takt_failed_run_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto set = takt::model::parse_task_set(kOneSegmentTask);
  const auto verdict = takt::analysis::analyse(set);
  takt::platform::RunOptions options = quiet_one_job();
  options.handle_signals = false;
  options.jobs = 3;
  options.json = dir / "run.json";
  options.trace = dir / "trace.json";
  options.table = std::tmpfile();
  ASSERT_NE(options.table, nullptr);
  // Federated, except that run() throws after its lanes have released every job (as a
  // thread that cannot start midway would end the run).
  FederatedRunAs policy("throwing-after", [](takt::platform::RunContext& ctx, takt::platform::Policy& federated) {
    federated.run(ctx);
    throw takt::Error("cannot start a thread of the run (Resource temporarily unavailable)");
  });
  std::string error;
  try {
    (void)takt::platform::run_task_set(set, verdict, policy, options);
  } catch (const takt::Error& e) {
    error = e.what();
  }
  EXPECT_EQ(error, "cannot start a thread of the run (Resource temporarily unavailable)");
  ASSERT_TRUE(fs::exists(*options.json));
  std::ifstream json_in(*options.json);
  const nlohmann::json doc = nlohmann::json::parse(json_in);
  EXPECT_EQ(doc["run"]["error"], error);
  EXPECT_EQ(doc["run"]["abandoned"], false) << "its 3 jobs had finished";
  EXPECT_EQ(doc["totals"]["jobs"], 3);
  EXPECT_EQ(doc["policy"]["name"], "throwing-after");
  std::ifstream trace_in(*options.trace);
  const nlohmann::json trace = nlohmann::json::parse(trace_in);
  EXPECT_EQ(trace["otherData"]["run"]["error"], error);
  EXPECT_EQ(trace["otherData"]["incomplete"], true);
  std::rewind(options.table);
  std::string table;
  for (int c; (c = std::fgetc(options.table)) != EOF;) table.push_back(static_cast<char>(c));
  std::fclose(options.table);
  EXPECT_NE(table.find(", ended by an error\n"), std::string::npos) << table;
  EXPECT_NE(table.find("error: " + error + " (the results are those of the run until then)"), std::string::npos)
      << table;
  fs::remove_all(dir);
}

TEST(RunTaskSet, ASecondSignalWhileNoJobRunsAbandonsNothing) {
  // Abandoning a run (two signals) while no job ran made it "stopped (running jobs
  // abandoned)", run.abandoned true: no job was abandoned. It is "stopped early".
  const auto set = takt::model::parse_task_set(kOneSegmentTask);
  const auto verdict = takt::analysis::analyse(set);
  takt::platform::RunOptions options = quiet_one_job();
  options.handle_signals = false;
  options.jobs = 3;
  // Federated, with the run abandoned (as by a second signal) before its first release.
  FederatedRunAs policy("abandoned-at-once", [](takt::platform::RunContext& ctx, takt::platform::Policy& federated) {
    ctx.engine.abandon();
    federated.run(ctx);
  });
  const takt::platform::RunResult r = takt::platform::run_task_set(set, verdict, policy, options);
  EXPECT_TRUE(r.metrics.run.stopped);
  EXPECT_FALSE(r.metrics.run.abandoned);
  EXPECT_EQ(takt::platform::how_run_ended(r.metrics.run), "stopped early");
  EXPECT_EQ(r.metrics.jobs_total, 0u);
}

TEST(RunTaskSet, ACallersSignalStopIsDetachedWhenTheRunThrows) {
  // RunOptions::signals (takt bench policies) was left attached to the run's release
  // engine when the run threw: the engine was freed with the run, and the next SIGINT
  // called request_stop() on freed memory (a segmentation fault under takt bench
  // policies, whose report is written after a failed set). Now it is detached on every
  // way out and the signal is only counted.
  EXPECT_EXIT(
      {
        const auto set = takt::model::parse_task_set(kOneSegmentTask);
        const auto verdict = takt::analysis::analyse(set);
        takt::platform::SignalStop signals;
        takt::platform::RunOptions options = quiet_one_job();
        options.signals = &signals;
        // Federated, except that run() throws once the policy's threads are up.
        FederatedRunAs policy("throwing", [](takt::platform::RunContext&, takt::platform::Policy&) {
          throw takt::Error("the policy failed");
        });
        int code = 1;
        try {
          (void)takt::platform::run_task_set(set, verdict, policy, options);
        } catch (const takt::Error&) {
          code = 0;
        }
        std::raise(SIGINT);
        if (signals.signals_received() != 1) code |= 2;
        std::_Exit(code);
      },
      ::testing::ExitedWithCode(0), "");
}

namespace {
// Where the progress line of RunTaskSet.ALongInitIsNamedOnTheProgressLine goes.
std::FILE* slow_init_out = nullptr;

/// What has been written to `f` so far (read through its descriptor, f stays as it is).
std::string written_so_far(std::FILE* f) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::pread(fileno(f), buf, sizeof buf, static_cast<off_t>(text.size()))) > 0;) {
    text.append(buf, static_cast<std::size_t>(n));
  }
  return text;
}

/// A program whose init lasts until the progress line has named it (at most 10 s).
class SlowInit : public takt::Task {
 public:
  void init(const takt::TaskArgs&) override {
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    while (written_so_far(slow_init_out).find("initialising") == std::string::npos &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(5ms);
    }
  }
  void run(const takt::Job&) override {}
};
}  // namespace

TEST(RunTaskSet, ALongInitIsNamedOnTheProgressLine) {
  // A program's init can take long (the built-in ones compute their reference result
  // serially: an hour for matmul 16384) and nothing said what the run was doing. The
  // progress line names the task whose init runs, from half a second on, and is
  // cleared before the run's own line.
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  slow_init_out = out;
  if (!takt::programs().contains("run-loop-test-slow-init")) {
    takt::programs().add<SlowInit>("run-loop-test-slow-init", "");
  }
  const auto set = takt::model::parse_task_set(
      "global: {cores: 1}\n"
      "tasks:\n"
      "  - {name: quick, period: 10ms, program: segments, segments: [{length: 100us}]}\n"
      "  - {name: slow, period: 10ms, program: run-loop-test-slow-init, work: 100us, span: 100us}\n");
  const auto verdict = takt::analysis::analyse(set);
  takt::platform::RunOptions options = quiet_one_job();
  options.handle_signals = false;
  options.progress = true;
  options.progress_out = out;
  const std::unique_ptr<takt::platform::Policy> policy =
      takt::policies::make_policy(takt::model::Policy::federated);
  (void)takt::platform::run_task_set(set, verdict, *policy, options);
  const std::string text = written_so_far(out);
  std::fclose(out);
  const std::size_t line =
      text.find("\rtakt: initialising task 'slow' (2 of 2, program run-loop-test-slow-init), ");
  ASSERT_NE(line, std::string::npos) << text;
  EXPECT_NE(text.find("\r\033[K", line), std::string::npos) << "the init line is cleared: " << text;
}

namespace {
/// A program whose finalize() is interrupted by a SIGTERM (as a user's kill while the
/// tasks are finalised).
class SignalledFinalize : public takt::Task {
 public:
  void run(const takt::Job&) override {}
  void finalize() override { std::raise(SIGTERM); }
};
}  // namespace

TEST(RunTaskSet, ASignalWhileTheTasksAreFinalisedComesAfterTheRun) {
  // It was neither: the run was not 'stopped' but its JSON said signal 15, the caller
  // was told of no signal after the run (signal_after_run 0), and `takt run` measured
  // the 2 s latency floor anyway before it ended by the signal.
  if (!takt::programs().contains("run-loop-test-signalled-finalize")) {
    takt::programs().add<SignalledFinalize>("run-loop-test-signalled-finalize", "");
  }
  const auto set = takt::model::parse_task_set(
      "global: {cores: 1}\n"
      "tasks: [{name: a, period: 10ms, program: run-loop-test-signalled-finalize, work: 10us, span: "
      "10us}]\n");
  const auto verdict = takt::analysis::analyse(set);
  takt::platform::RunOptions options = quiet_one_job();
  options.jobs = 2;
  options.handle_signals = true;
  const std::unique_ptr<takt::platform::Policy> policy =
      takt::policies::make_policy(takt::model::Policy::federated);
  const takt::platform::RunResult r = takt::platform::run_task_set(set, verdict, *policy, options);
  EXPECT_FALSE(r.metrics.run.stopped);
  EXPECT_EQ(r.metrics.run.signal, 0);
  EXPECT_EQ(r.signal_after_run, SIGTERM);
  EXPECT_FALSE(takt::platform::floor_after_run_wanted(r));
}

TEST(RecorderSizing, PlannedJobsAndBuffersAsDerivedByHand) {
  using takt::platform::PeriodicTask;
  using takt::platform::ReleaseConfig;
  // planned_jobs: releases at offset + k·T before the duration. T = 10 ms, offset 5 ms,
  // 100 ms: 5, 15, ..., 95 ms, 10 jobs; an offset at the duration gives none; a job limit
  // caps it; no limit sizes for 60 s: 6000 jobs of 10 ms.
  ReleaseConfig hundred;
  hundred.duration = 100ms;
  EXPECT_EQ(takt::platform::planned_jobs({"a", 10ms, 10ms, 5ms}, hundred), 10u);
  EXPECT_EQ(takt::platform::planned_jobs({"a", 10ms, 10ms, 100ms}, hundred), 0u);
  hundred.jobs_per_task = 4;
  EXPECT_EQ(takt::platform::planned_jobs({"a", 10ms, 10ms, 5ms}, hundred), 4u);
  EXPECT_EQ(takt::platform::planned_jobs({"a", 10ms, 10ms, 0ms}, ReleaseConfig{}), 6000u);

  // Two tasks for 10 s: 1000 jobs of 10 ms and 500 of 20 ms, 4 events per job, each task
  // on one thread, a plan of 2 threads (+ the lane: 3 slots). All events: 4000 + 2000 =
  // 6000, per slot 2000; the busiest task's thread 4000: max(4000, 2000)·2 + 1024 = 9024
  // events per buffer. The ledger keeps all 1500 jobs, so each buffer reserves 0·3 + 64.
  ReleaseConfig ten;
  ten.duration = 10s;
  const std::vector<PeriodicTask> two{{"a", 10ms, 10ms, 0ms}, {"b", 20ms, 20ms, 0ms}};
  takt::platform::RecordingPlan plan;
  plan.threads = 2;
  plan.events_per_job = {4, 4};
  plan.threads_per_task = {1, 1};
  const auto rc = takt::platform::size_recorder(plan, two, ten);
  EXPECT_EQ(rc.threads, 3u);
  EXPECT_EQ(rc.events_per_thread, 9024u);
  EXPECT_EQ(rc.reserved_per_thread, 64u);
  EXPECT_EQ(rc.ledger_jobs, (std::vector<std::uint64_t>{1000, 500}));

  // 3,000,000 jobs per task: 6 M jobs are more than the ledger's 128 MiB hold (room =
  // 128 MiB / entry bytes), so each task keeps room·3M/6M = room/2 of its first jobs. The
  // buffers want max(12 M, 24 M / 3)·2 + 1024 events but get the cap, 192 MiB / 48 bytes
  // per event / 3 slots = 1,398,101; the jobs outside the ledger, (6 M − room)·3 + 64
  // events, are more than half of that, so the reserve is 1,398,101 / 2 = 699,050.
  ReleaseConfig many;
  many.jobs_per_task = 3'000'000;
  const auto big = takt::platform::size_recorder(plan, two, many);
  const std::uint64_t room = takt::platform::kLedgerBytes / takt::platform::JobLedger::entry_bytes();
  ASSERT_LT(room, 6'000'000u);
  EXPECT_EQ(big.ledger_jobs, (std::vector<std::uint64_t>{room / 2, room / 2}));
  EXPECT_EQ(sizeof(takt::platform::Event), 48u);
  EXPECT_EQ(big.events_per_thread, 1'398'101u);
  EXPECT_EQ(big.reserved_per_thread, 699'050u);
}
