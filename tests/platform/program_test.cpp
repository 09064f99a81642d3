// Tests of the task API: the program registry and tasks loaded from shared objects through the C entry point.
#include "takt/program.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace std::chrono_literals;

namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const takt::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected takt::Error";
  return {};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct Counter : takt::Task {
  void init(const takt::TaskArgs& args) override { arguments = args.args; }
  void run(const takt::Job& job) override { last = job.index, ++jobs; }
  std::vector<std::string> arguments;
  std::uint64_t jobs = 0, last = 0;
};

// A TaskClass that does not derive from takt::Task and has no init/finalize.
struct Bare {
  void run(const takt::Job& job) {
    ++runs;
    last_index = job.index;
  }
  static inline int runs = 0;  // the adapter owns the object: counted here
  static inline std::uint64_t last_index = 0;
};

takt::Job job_number(std::uint64_t k) {
  takt::Job job;
  job.task = "t";
  job.index = k;
  job.period = 10ms;
  job.relative_deadline = 8ms;
  job.release = 1s + k * 10ms;
  job.deadline = job.release + 8ms;
  return job;
}

}  // namespace

TEST(ProgramRegistry, RegistersAndCreatesTasks) {
  takt::ProgramRegistry registry;
  registry.add<Counter>("counter", "counts its jobs");
  registry.add<Bare>("bare", "a task class without a base");
  EXPECT_TRUE(registry.contains("counter"));
  EXPECT_FALSE(registry.contains("fib"));
  EXPECT_EQ(registry.names(), (std::vector<std::string>{"bare", "counter"}));
  EXPECT_EQ(registry.description("counter"), "counts its jobs");

  takt::Program p = registry.find("counter");
  EXPECT_EQ(p.name, "counter");
  EXPECT_EQ(p.origin, "built-in");
  auto a = p.create();
  auto b = p.create();
  EXPECT_NE(a.get(), b.get()) << "each task of a set gets its own object";
  a->init({"t", {"--x", "1"}, 1});
  a->run(job_number(0));
  a->run(job_number(1));
  auto& counter = dynamic_cast<Counter&>(*a);
  EXPECT_EQ(counter.jobs, 2u);
  EXPECT_EQ(counter.last, 1u);
  EXPECT_EQ(counter.arguments, (std::vector<std::string>{"--x", "1"}));

  auto bare = registry.find("bare").create();
  bare->init({"t", {}, 1});
  Bare::runs = 0;
  bare->run(job_number(3));
  EXPECT_EQ(Bare::runs, 1) << "the adapter passes run() on to a class without a base";
  EXPECT_EQ(Bare::last_index, 3u);
  bare->finalize();
}

TEST(ProgramRegistry, UnknownProgramListsTheKnownOnes) {
  takt::ProgramRegistry registry;
  registry.add<Counter>("counter", "");
  registry.add<Bare>("bare", "");
  std::string m = message_of([&] { (void)registry.find("fob"); });
  EXPECT_TRUE(contains(m, "unknown program 'fob'")) << m;
  EXPECT_TRUE(contains(m, "bare, counter")) << m;
  EXPECT_TRUE(contains(m, "./libmytask.so")) << m;
  m = message_of([&] { (void)takt::resolve_program("fob", {}, registry); });
  EXPECT_TRUE(contains(m, "known programs: bare, counter")) << m;
}

TEST(ProgramRegistry, RejectsDuplicatesAndPathLikeNames) {
  takt::ProgramRegistry registry;
  registry.add<Counter>("counter", "");
  EXPECT_TRUE(contains(message_of([&] { registry.add<Bare>("counter", ""); }), "already registered"));
  EXPECT_THROW(registry.add<Bare>("", ""), takt::Error);
  EXPECT_THROW(registry.add<Bare>("lib/x", ""), takt::Error);
  EXPECT_THROW(registry.add<Bare>("x.so", ""), takt::Error);
}

TEST(ProgramRegistry, ProcessWideRegistryIsShared) {
  // Added once per process (--gtest_repeat runs this again; a second add is refused).
  if (!takt::programs().contains("platform-test-counter")) {
    takt::programs().add<Counter>("platform-test-counter", "");
  }
  EXPECT_TRUE(takt::programs().contains("platform-test-counter"));
  EXPECT_EQ(takt::resolve_program("platform-test-counter").origin, "built-in");
}

TEST(Program, NamesSharedObjectByPathOrSuffix) {
  EXPECT_TRUE(takt::names_shared_object("./libmytask.so"));
  EXPECT_TRUE(takt::names_shared_object("/opt/t/libx.so"));
  EXPECT_TRUE(takt::names_shared_object("libmytask.so"));
  EXPECT_TRUE(takt::names_shared_object("tasks/heat"));
  EXPECT_FALSE(takt::names_shared_object("heat"));
  EXPECT_FALSE(takt::names_shared_object("so"));
}

#ifdef TAKT_C_TASK_SO

TEST(SharedObject, RunsATaskWrittenInC) {
  const std::filesystem::path report = std::filesystem::temp_directory_path() / "takt_c_task_report.txt";
  std::filesystem::remove(report);
  takt::Program p = takt::load_shared_object(TAKT_C_TASK_SO);
  EXPECT_EQ(p.name, "c-counter");
  EXPECT_EQ(p.origin, TAKT_C_TASK_SO);
  {
    auto task = p.create();
    task->init({"camera", {"--fail-at", "2", "--report", report.string()}, 3});
    task->run(job_number(0));
    task->run(job_number(1));
    try {
      task->run(job_number(2));
      FAIL() << "job 2 should fail";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "job 2 of camera failed on purpose");
    }
    task->run(job_number(3));
    task->finalize();
  }
  std::ifstream in(report);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "jobs=4 last=3 name=camera\n") << "finalize ran once, after every job";
}

TEST(SharedObject, FinalizeRunsWhenTheTaskIsDestroyed) {
  const std::filesystem::path report = std::filesystem::temp_directory_path() / "takt_c_task_report2.txt";
  std::filesystem::remove(report);
  {
    auto task = takt::load_shared_object(TAKT_C_TASK_SO).create();
    task->init({"t", {"--report", report.string()}, 1});
    task->run(job_number(7));
  }
  std::ifstream in(report);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "jobs=1 last=7 name=t");
}

TEST(SharedObject, InitErrorNamesTaskProgramAndMessage) {
  auto task = takt::load_shared_object(TAKT_C_TASK_SO).create();
  std::string m = message_of([&] { task->init({"camera", {"--bogus"}, 1}); });
  EXPECT_TRUE(contains(m, "task 'camera'")) << m;
  EXPECT_TRUE(contains(m, "c-counter")) << m;
  EXPECT_TRUE(contains(m, "unknown argument '--bogus'")) << m;
}

TEST(SharedObject, MissingFileGivesDlerrorAndThePathTried) {
  std::string m = message_of([] { (void)takt::resolve_program("./no-such-lib.so", "/tmp/takt-sets"); });
  EXPECT_TRUE(contains(m, "/tmp/takt-sets/no-such-lib.so")) << m;
  EXPECT_TRUE(contains(m, "No such file or directory")) << "dlerror text: " << m;
}

TEST(SharedObject, RelativePathIsTakenFromTheBaseFolder) {
  std::filesystem::path so(TAKT_C_TASK_SO);
  takt::Program p = takt::resolve_program("./" + so.filename().string(), so.parent_path());
  EXPECT_EQ(p.origin, so.string());
  EXPECT_EQ(p.name, "c-counter");
}

TEST(SharedObject, MissingEntryPointIsExplained) {
  std::string m = message_of([] { (void)takt::load_shared_object(TAKT_NO_ENTRY_SO); });
  EXPECT_TRUE(contains(m, "does not export the task entry point `takt_task_entry`")) << m;
  EXPECT_TRUE(contains(m, "docs/writing-tasks.md")) << m;
}

TEST(SharedObject, WrongAbiVersionNamesBothVersions) {
  std::string m = message_of([] { (void)takt::load_shared_object(TAKT_WRONG_VERSION_SO); });
  EXPECT_TRUE(contains(m, "task ABI version 99")) << m;
  EXPECT_TRUE(contains(m, "supports version 1")) << m;
}

TEST(SharedObject, CxxExceptionsBecomeAbiErrors) {
  takt::Program p = takt::load_shared_object(TAKT_THROWING_SO);
  EXPECT_EQ(p.name, "throwing");
  auto refused = p.create();
  std::string m = message_of([&] { refused->init({"t", {"--fail-init"}, 1}); });
  EXPECT_TRUE(contains(m, "init refused: --fail-init was given")) << m;

  auto task = p.create();
  task->init({"t", {}, 2});
  EXPECT_NO_THROW(task->run(job_number(0)));
  try {
    task->run(job_number(3));
    FAIL() << "odd jobs throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "odd job 3 throws");
  }
  try {
    task->run(job_number(4));
    FAIL() << "job 4 throws a non-std exception";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "not a std::exception")) << e.what();
  }
  task->finalize();
}

TEST(SharedObject, ANamelessTaskWhoseInitFailsIsNamedByItsFileAndItsMessageEndsAtTheBuffer) {
  // A descriptor without a name is named by the file's stem; until 2026-11-29 its init
  // error formatted the null name (fmt's "string pointer is null" replaced the task's
  // message), and a message filling the 512-byte buffer without a NUL was read past it.
  const std::filesystem::path so(TAKT_NAMELESS_SO);
  takt::Program p = takt::load_shared_object(so);
  EXPECT_EQ(p.name, so.stem().string());
  auto task = p.create();
  const std::string m = message_of([&] { task->init({"camera", {}, 1}); });
  EXPECT_TRUE(contains(m, "task 'camera': init of program '" + so.stem().string() + "' (")) << m;
  EXPECT_TRUE(contains(m, ") failed: " + std::string(512, 'x'))) << m;
  EXPECT_FALSE(contains(m, std::string(513, 'x'))) << "read past the buffer: " << m.size() << " characters";
}

#endif  // TAKT_C_TASK_SO
