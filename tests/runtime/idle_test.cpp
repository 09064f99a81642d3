// An idle pool sleeps: its workers use (almost) no CPU time.
#include "apps/fib.hpp"
#include "os/clock.hpp"
#include "takt/runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

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
  // Generous: 5 % of one CPU (each timeout wake-up spins up to ~200 us before it sleeps
  // again, longer under ThreadSanitizer). A spinning worker would use 500 ms.
  EXPECT_LT(cpu, 25ms) << "idle pool used " << cpu.count() / 1e6 << " ms of CPU in 500 ms";
  // Both workers went to sleep, and stayed asleep: a sleeping worker wakes only when its
  // futex timeout runs out, and the timeout doubles from 1 ms while the pool stays idle.
  // A worker that first slept at t0 re-sleeps at t0 + 1, 3, 7, ..., 2^k - 1 ms, so in a
  // 500 ms window it re-sleeps at most about 9 times (fewer the later the window starts);
  // a worker woken over and over (a timeout that does not grow, a lost epoch) would show
  // hundreds.
  auto after_sleeps = pool.total_statistics().sleeps;
  EXPECT_GE(pool.statistics(0).sleeps, 1u) << "worker 0 sleeps when the pool is idle";
  EXPECT_GE(pool.statistics(1).sleeps, 1u) << "worker 1 sleeps when the pool is idle";
  EXPECT_LE(after_sleeps - before_sleeps, 2u * 10u)
      << "idle workers woke " << after_sleeps - before_sleeps << " times";
  // And it wakes up for new work.
  EXPECT_EQ(pool.run([] { return takt::apps::fib(15); }), takt::apps::fib_serial(15));
}

}  // namespace

namespace {

class WakeUps : public ::testing::TestWithParam<takt::QueueStrategy> {};
INSTANTIATE_TEST_SUITE_P(Runtime, WakeUps,
                         ::testing::Values(takt::QueueStrategy::work_stealing,
                                           takt::QueueStrategy::centralized_greedy),
                         [](const auto& info) { return std::string(takt::testing::name(info.param)); });

using Clock = std::chrono::steady_clock;
using takt::testing::no_timeout_before;

/// A work source that gives no work; while armed, every worker that looks for work (a
/// woken thief, before it steals) waits in take() until c_A is queued or `until`.
struct HoldThievesUntilCAIsQueued final : takt::ext::WorkSource {
  std::atomic<bool> armed{false}, c_a_queued{false};
  Clock::time_point until;  // written before `armed` is set
  takt::ext::Work take(std::size_t) noexcept override {
    if (armed.load()) {
      while (!c_a_queued.load() && Clock::now() < until) std::this_thread::yield();
    }
    return {};
  }
};

TEST_P(WakeUps, EveryWorkerOfALongIdlePoolJoinsWhenParallelWorkAppears) {
  // Once the pool has been idle for a second, the sleepers' safety-net timeouts have
  // grown to 1024 ms, so only wake-ups bring them in. A push wakes a sleeper only onto an
  // empty queue; a thief that leaves work behind must wake the next sleeper. The DAG:
  // worker 0 runs the root, which spawns A (continuation c_root pushed onto an empty
  // queue: one wake-up), A spawns A1 (c_A pushed behind c_root: no wake-up) and runs A1.
  // The woken thief takes c_root, leaving c_A: it must wake a third worker, and the
  // root's continuation spawns B, whose continuation a fourth takes. Four strands, A1,
  // c_A, B and c_root's rest, each of which records its worker and holds it until all
  // four workers are recorded: they can only be four different workers, so every worker
  // must join. Without the follow-on wake-up (the central queue had none) workers 3 and
  // 4 slept through it. The woken thief could take c_root before A spawned A1 (often
  // when it got the CPU of worker 0); c_A's push onto the empty queue then woke the next
  // worker itself, and the run passed without the follow-on wake-up (half of the runs,
  // in one check on a loaded machine). So the thief waits, in the pool's work source
  // (asked before every steal), until c_A is queued.
  //
  // The hold is bounded by the time a sleeper's timeout alone could bring it in. The run
  // starts once every worker has slept for 100 ms with the 1024 ms timeout (its 11th
  // sleep since the pool started begins about 1023 ms later, later on a loaded machine),
  // and the hold lasts until before any of those sleeps could time out
  // (no_timeout_before: about 1024 - 100 = 920 ms, at least 400 ms); only workers that
  // begin a strand before then count. With the wake-ups the workers join within
  // milliseconds, so the hold is generous on a loaded machine (a fixed 50 ms spin could
  // end before a woken worker got a CPU); a worker that missed its wake-up cannot come
  // before the bound, so it is never recorded.
  HoldThievesUntilCAIsQueued source;  // outlives the pool
  takt::Pool pool(takt::testing::config(4, GetParam()));
  pool.extension().set_work_source(&source);  // before the workers' timeouts grow: it wakes one
  // Every worker's timeout is 1 ms when its thread starts: its sleep count then is 0.
  const std::vector<std::uint64_t> base(pool.workers(), 0);
  const Clock::time_point give_up = no_timeout_before(pool, base, 400ms);
  pool.reset_statistics();
  const unsigned all = (1u << pool.workers()) - 1;
  std::atomic<unsigned> joined{0};
  std::atomic<bool> c_a_behind{false};
  auto strand = [&] {
    if (Clock::now() < give_up) joined.fetch_or(1u << takt::current_worker());
    while (joined.load() != all && Clock::now() < give_up) {
    }
  };
  source.until = give_up;
  source.armed = true;
  pool.run([&] {
    takt::Scope root;
    root.spawn([&] {
      takt::Scope a;
      a.spawn([&] {  // A1: are c_root and c_A both queued (c_A pushed onto a non-empty queue)?
        const takt::detail::WorkerHead* worker = takt::detail::current_block()->worker;
        c_a_behind = worker->level_bottom->load() - worker->level_top->load() >= 2;
        source.c_a_queued = true;
        strand();
      });
      strand();  // A's continuation
      a.sync();
    });
    takt::Scope rest;
    rest.spawn(strand);  // B
    strand();            // the root's continuation
    rest.sync();
    root.sync();
  });
  source.armed = false;
  pool.extension().set_work_source(nullptr);
  EXPECT_TRUE(c_a_behind.load()) << "c_root was stolen before c_A was queued: the follow-on wake-up is "
                                    "untested";
  EXPECT_EQ(joined.load(), all) << "workers that held one of the four strands in time (bits)";
  for (std::size_t w = 0; w < pool.workers(); ++w) {
    const takt::WorkerStatistics s = pool.statistics(w);
    EXPECT_GT(s.steals + s.jobs, 0u) << "worker " << w << " took no part in the four strands";
  }
}

}  // namespace
