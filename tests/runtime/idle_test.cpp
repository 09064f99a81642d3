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
  // Both workers went to sleep, and stayed asleep: a sleeping worker wakes only when its
  // futex timeout runs out, and the timeout doubles from 1 ms while the pool stays idle.
  // A worker that first slept at t0 re-sleeps at t0 + 1, 3, 7, ..., 2^k - 1 ms, so in a
  // 500 ms window it re-sleeps at most about 9 times (fewer the later the window starts);
  // a worker woken over and over (a timeout that does not grow, a lost epoch) would show
  // hundreds.
  auto after_sleeps = pool.total_statistics().sleeps;
  EXPECT_GE(after_sleeps, 2u) << "both workers sleep when the pool is idle";
  EXPECT_LE(after_sleeps - before_sleeps, 2u * 10u)
      << "idle workers woke " << after_sleeps - before_sleeps << " times";
  // And it wakes up for new work.
  EXPECT_EQ(pool.run([] { return takt::apps::fib(15); }), takt::apps::fib_serial(15));
}

}  // namespace
