// Test of the example task: takt loads libtakt_pi_task.so by its path and runs jobs of it, serially and on a
// pool.
#include <takt/error.hpp>
#include <takt/program.hpp>
#include <takt/runtime.hpp>

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

TEST(ExampleTaskSo, ItsSpawnsRunOnThePoolOfTheLoadingProcess) {
  // The object's spawn/sync resolve to this executable's runtime (it exports it, as the
  // takt program does): inside a pool they are real spawns, counted by the pool.
  auto task = takt::load_shared_object(TAKT_PI_TASK_SO).create();
  task->init({"pi", {"--intervals", "64000", "--grain", "1000"}, 2});
  takt::PoolConfig config;
  config.workers = 2;
  config.memory.depth = 16;
  takt::Pool pool(config);
  for (std::uint64_t k = 0; k < 5; ++k) {
    takt::Job job;
    job.task = "pi";
    job.index = k;
    job.cores = 2;
    EXPECT_NO_THROW(pool.run([&] { task->run(job); })) << "the task checks its own result against pi";
  }
  // 64,000 intervals in halves down to at most 1,000: 64 leaves, 63 spawns per job.
  EXPECT_EQ(pool.total_statistics().spawns, 5u * 63u);
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
