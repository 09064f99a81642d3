// An idle pool sleeps: its workers use (almost) no CPU time.
#include "apps/fib.hpp"
#include "os/clock.hpp"
#include "takt/runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace {

using namespace std::chrono_literals;

TEST(Idle, AnIdlePoolCostsAlmostNoCpu) {
  takt::Pool pool(takt::testing::config(2));
  pool.run([] { return takt::apps::fib(20); });
  std::this_thread::sleep_for(50ms);  // past the spin phase
  auto before_sleeps = pool.total_statistics().sleeps;
  auto cpu0 = takt::os::process_cpu_time();
  std::this_thread::sleep_for(500ms);
  auto cpu = takt::os::process_cpu_time() - cpu0;
  // Generous: 2 % of one CPU. A spinning worker would use 500 ms.
  EXPECT_LT(cpu, 10ms) << "idle pool used " << cpu.count() / 1e6 << " ms of CPU in 500 ms";
  EXPECT_GE(pool.total_statistics().sleeps, before_sleeps);
  // And it wakes up for new work.
  EXPECT_EQ(pool.run([] { return takt::apps::fib(15); }), takt::apps::fib_serial(15));
}

}  // namespace
