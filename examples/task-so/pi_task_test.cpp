// Test of the example task: takt loads libtakt_pi_task.so by its path and runs jobs of it.
#include <takt/error.hpp>
#include <takt/program.hpp>

#include <gtest/gtest.h>

#include <filesystem>

using namespace std::chrono_literals;

TEST(ExampleTaskSo, LoadsAndRunsJobs) {
  const std::filesystem::path so(TAKT_PI_TASK_SO);
  // As a task-set file in the library's folder would name it.
  takt::Program program = takt::resolve_program("./" + so.filename().string(), so.parent_path());
  EXPECT_EQ(program.name, "pi");
  EXPECT_EQ(program.origin, so.string());

  auto task = program.create();
  task->init({"pi", {"--intervals", "100000", "--grain", "1000"}, 1});
  for (std::uint64_t k = 0; k < 3; ++k) {
    takt::Job job;
    job.task = "pi";
    job.index = k;
    job.period = 10ms;
    job.relative_deadline = 10ms;
    EXPECT_NO_THROW(task->run(job)) << "the task checks its own result against pi";
  }
  task->finalize();
}

TEST(ExampleTaskSo, BadArgumentsFailInit) {
  auto task = takt::load_shared_object(TAKT_PI_TASK_SO).create();
  try {
    task->init({"pi", {"--intervals", "lots"}, 1});
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--intervals needs a whole number, got 'lots'"), std::string::npos)
        << e.what();
  }
}
