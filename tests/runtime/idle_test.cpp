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

namespace {

using takt::os::spin_for;  // a busy wait on the monotonic clock (the work of one loop iteration)

class WakeUps : public ::testing::TestWithParam<takt::QueueStrategy> {};
INSTANTIATE_TEST_SUITE_P(Runtime, WakeUps,
                         ::testing::Values(takt::QueueStrategy::work_stealing,
                                           takt::QueueStrategy::centralized_greedy),
                         [](const auto& info) { return std::string(takt::testing::name(info.param)); });

TEST_P(WakeUps, EveryWorkerOfALongIdlePoolJoinsWhenParallelWorkAppears) {
  // After 1.5 s idle the sleepers' safety-net timeouts have grown to 0.5-1 s, so only
  // wake-ups bring them in. A push wakes a sleeper only onto an empty queue; a thief that
  // leaves work behind must wake the next sleeper. The DAG: worker 0 runs the root, which
  // spawns A (continuation c_root pushed onto an empty queue: one wake-up), A spawns A1
  // (c_A pushed behind c_root: no wake-up) and spins 50 ms in A1. The woken thief takes
  // c_root, leaving c_A: it must wake a third worker, and the root's continuation spawns
  // B, whose continuation a fourth takes. Four 50 ms strands, one per worker. Without the
  // follow-on wake-up (the central queue had none) workers 3 and 4 slept through it.
  takt::Pool pool(takt::testing::config(4, GetParam()));
  pool.run([] { return takt::apps::fib(12); });
  std::this_thread::sleep_for(1500ms);
  pool.reset_statistics();
  pool.run([] {
    takt::Scope root;
    root.spawn([] {
      takt::Scope a;
      a.spawn([] { spin_for(50ms); });  // A1
      spin_for(50ms);                   // A's continuation
      a.sync();
    });
    takt::Scope rest;
    rest.spawn([] { spin_for(50ms); });  // B
    spin_for(50ms);                      // the root's continuation
    rest.sync();
    root.sync();
  });
  for (std::size_t w = 0; w < pool.workers(); ++w) {
    const takt::WorkerStatistics s = pool.statistics(w);
    EXPECT_GT(s.steals + s.jobs, 0u) << "worker " << w << " took no part in the four 50 ms strands";
  }
}

}  // namespace
