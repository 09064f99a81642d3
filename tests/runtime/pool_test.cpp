// Pool life cycle: statistics, shutdown with work in flight, configuration errors.
#include "apps/fib.hpp"
#include "os/clock.hpp"
#include "os/cpu.hpp"
#include "os/diagnostics.hpp"
#include "runtime/pool_state.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using takt::Pool;
using takt::testing::config;

TEST(Pool, ReportsTheQueueStrategyItRunsWith) {
  // The policies' JSON names the strategy from here (it was derived from the policy's
  // name, so a pool configured with another strategy went unnoticed).
  for (takt::QueueStrategy s : {takt::QueueStrategy::work_stealing, takt::QueueStrategy::priority_aware,
                                takt::QueueStrategy::centralized_greedy}) {
    Pool pool(config(1, s));
    EXPECT_EQ(pool.strategy(), s);
  }
}

TEST(Pool, AnOnWorkerStartThatThrowsIsAWarningAndTheWorkerRunsOn) {
  // Only std::exception was caught: `throw 42` ended the process (std::terminate). Each
  // worker warns once, before the pool's constructor returns (it waits for every worker
  // to start), and the pool computes.
  for (const bool standard : {false, true}) {
    std::mutex lock;
    std::vector<std::string> warnings;
    auto old = takt::os::set_warning_sink([&](std::string_view m) {
      std::lock_guard<std::mutex> hold(lock);
      warnings.emplace_back(m);
    });
    {
      auto c = config(2);
      c.name = "p";
      c.on_worker_start = [standard](std::size_t) {
        if (standard) throw std::runtime_error("no device");
        throw 42;
      };
      Pool pool(c);
      EXPECT_EQ(pool.run([] { return takt::apps::fib(15); }), takt::apps::fib_serial(15));
    }
    takt::os::set_warning_sink(old);
    std::sort(warnings.begin(), warnings.end());
    const std::string what = standard ? "threw: no device; the worker runs on"
                                      : "threw an exception that is no std::exception; the worker runs on";
    ASSERT_EQ(warnings.size(), 2u) << standard;
    for (std::size_t w = 0; w < 2; ++w) {
      EXPECT_EQ(warnings[w], "pool 'p': on_worker_start(" + std::to_string(w) + ") " + what);
    }
  }
}

TEST(PoolStatistics, CountSpawnsStealsAndJobsAndReset) {
  Pool pool(config(2));
  std::uint64_t steals = 0;
  // Runs until a steal, giving up after 20 runs and 10 s (both): on a loaded machine the
  // idle worker may get no CPU during a run of a millisecond or so, many runs in a row.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::uint64_t runs = 0;
  for (int i = 0; steals == 0 && (i < 20 || std::chrono::steady_clock::now() < give_up); ++i) {
    pool.run([] { return takt::apps::fib(22); });
    ++runs;
    steals = pool.total_statistics().steals;
  }
  takt::WorkerStatistics total = pool.total_statistics();
  // Each run spawns fib_spawns(22) = fib(23) − 1 = 28,656 times and is one job.
  EXPECT_EQ(total.spawns, runs * takt::apps::fib_spawns(22));
  EXPECT_EQ(takt::apps::fib_spawns(22), 28'656u);
  EXPECT_EQ(total.jobs, runs);
  EXPECT_EQ(total.max_depth, 22u);  // fib(22) from the root: depth n (see static_memory_test)
  // Every steal is one continuation moving, so a sync found its child stolen at most
  // that often.
  EXPECT_LE(total.parks, total.steals);
  ASSERT_EQ(pool.statistics().size(), 2u);

  pool.reset_statistics();
  takt::WorkerStatistics zero = pool.total_statistics();
  EXPECT_EQ(zero.spawns, 0u);
  EXPECT_EQ(zero.steals, 0u);
  EXPECT_EQ(zero.jobs, 0u);
  EXPECT_EQ(zero.max_depth, 22u);  // a high-water mark, not reset
  pool.run([] { return takt::apps::fib(10); });
  EXPECT_EQ(pool.total_statistics().spawns, takt::apps::fib_spawns(10));
  EXPECT_EQ(pool.total_statistics().jobs, 1u);
  if (steals == 0 && takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: no steal in the runs";
  EXPECT_GT(steals, 0u) << "two workers never stole in 10 s of runs of fib(22) on two or more CPUs";
}

TEST(PoolStatistics, ReadableWhileTheComputationRuns) {
  // A reader sees the counters grow while the runs go on (a value between none and all
  // of them), never going back, and the total is exact once they are done.
  Pool pool(config(2));
  const std::uint64_t per_run = takt::apps::fib_spawns(22);
  std::atomic<bool> stop{false};
  std::atomic<bool> saw_between{false};
  std::thread reader([&] {
    std::uint64_t last = 0;
    while (!stop.load()) {
      std::uint64_t now = pool.total_statistics().spawns;
      EXPECT_GE(now, last);  // monotonic between resets
      if (now % per_run != 0) saw_between = true;  // inside a run: part of its spawns counted
      last = now;
    }
  });
  int runs = 0;
  // At least 5 runs; more (up to 500, and for at least 10 s) until the reader, a third
  // thread on two workers' CPUs, has been scheduled during one.
  const auto tries_end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (runs < 5 || (!saw_between.load() && (runs < 500 || std::chrono::steady_clock::now() < tries_end))) {
    pool.run([] { return takt::apps::fib(22); });
    ++runs;
  }
  stop = true;
  reader.join();
  EXPECT_EQ(pool.total_statistics().spawns, static_cast<std::uint64_t>(runs) * per_run);
  EXPECT_TRUE(saw_between.load()) << "the reader never saw the counters during " << runs << " runs";
}

std::uint64_t ns(std::chrono::steady_clock::duration d) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

TEST(PoolStatistics, IdleTimeIsTheTimeAWorkerHadNothingToRun) {
  using Clock = std::chrono::steady_clock;
  Pool pool(config(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // both workers idle since the start
  const auto reset = Clock::now();
  pool.reset_statistics();
  // Idle intervals count from the reset, not from when they began (30 ms and more ago).
  for (std::size_t i = 0; i < 2; ++i) {
    const std::uint64_t idle = pool.statistics(i).idle_ns;
    EXPECT_LE(idle, ns(Clock::now() - reset)) << "worker " << i;  // the clock read after the statistics
  }

  // One worker runs a serial 60 ms job; the other has nothing to run all that time.
  pool.run([] { takt::os::spin_for(std::chrono::milliseconds(60)); });
  const std::size_t busy = pool.statistics(0).jobs == 1 ? 0 : 1;
  ASSERT_EQ(pool.statistics(busy).jobs, 1u);
  const takt::WorkerStatistics ran = pool.statistics(busy);
  const takt::WorkerStatistics waited = pool.statistics(1 - busy);
  const std::uint64_t total = pool.total_statistics().idle_ns;
  const std::uint64_t elapsed = ns(Clock::now() - reset);  // after the readings: intervals in progress grow
  EXPECT_LE(ran.idle_ns, elapsed - 60'000'000) << "the worker that ran the job was busy for 60 ms of it";
  EXPECT_GE(waited.idle_ns, 60'000'000u) << "the other worker had nothing to run for at least 60 ms";
  EXPECT_LE(waited.idle_ns, elapsed);
  EXPECT_GE(total, ran.idle_ns + waited.idle_ns);  // read later: the idle worker's interval went on
  EXPECT_LE(total, 2 * elapsed);
}

TEST(PoolStatistics, AnIdleReadingNeverExceedsTheTimeSinceTheReset) {
  // detail::idle_reading, the formula of Pool::statistics(i).idle_ns; times in ns, a
  // reset at 1,000,000 and a reading at 1,500,000, so at most 500,000 can be idle since.
  using takt::detail::idle_reading;
  // The race it guards against: a worker idle since 200,000 read the reset time before
  // the reset (0), the reset copied its total as the baseline, then the worker added its
  // whole interval to 1,000,000 (800,000), none of which lies after the reset. Read
  // without the cap that gives 800,000.
  EXPECT_EQ(idle_reading(800'000, 0, 1'000'000, 1'500'000), 500'000u);
  // Without the race: 300,000 added since the reset, plus the interval in progress since
  // 1,400,000: 300,000 + 100,000.
  EXPECT_EQ(idle_reading(300'000, 1'400'000, 1'000'000, 1'500'000), 400'000u);
  // An interval in progress that began before the reset counts from the reset: 500,000.
  EXPECT_EQ(idle_reading(0, 400'000, 1'000'000, 1'500'000), 500'000u);
  // Before any reset there is no cap: 7,000,000 + (1,500,000 − 1,000,000).
  EXPECT_EQ(idle_reading(7'000'000, 1'000'000, 0, 1'500'000), 7'500'000u);
  // A reading whose clock is behind the reset's (another thread's reset in between)
  // counts nothing, whatever the total it read before the reset's baseline.
  EXPECT_EQ(idle_reading(5'000, 0, 1'000'000, 999'000), 0u);
}

TEST(PoolStatistics, IdleTimeOfACallerWhoJoinsIsOnlyItsWaitInsideThePool) {
  takt::PoolConfig c = config(2);
  c.caller_joins = true;
  Pool pool(c);
  pool.run([] { takt::os::spin_for(std::chrono::milliseconds(10)); });  // on the caller, as worker 0
  const std::uint64_t caller = pool.statistics(0).idle_ns;
  const std::uint64_t other = pool.statistics(1).idle_ns;
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  // The caller is outside the pool: its idle time stays; worker 1's grows while it
  // waits (an interval in progress counts up to the reading).
  EXPECT_EQ(pool.statistics(0).idle_ns, caller);
  EXPECT_GE(pool.statistics(1).idle_ns, other + 30'000'000);
}

struct CountingJob final : takt::ext::Job {
  explicit CountingJob(std::atomic<int>& done) : done(done) {}
  void run() override { value = takt::apps::fib(16); }
  void finished(std::exception_ptr error) noexcept override {
    failed = error != nullptr;
    done.fetch_add(1);
  }
  std::atomic<int>& done;
  std::uint64_t value = 0;
  bool failed = false;
};

TEST(PoolStartup, ConstructorReturnsAfterEveryWorkerStarted) {
  // A worker thread that is still starting (pinning, unwinder warm-up, on_worker_start)
  // while jobs run would do its start-up work inside a job's time and memory budget.
  // Each on_worker_start sleeps, so a constructor that did not wait would return first.
  std::atomic<int> started{0};
  auto c = config(2);
  c.on_worker_start = [&](std::size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    started.fetch_add(1);
  };
  Pool pool(c);
  EXPECT_EQ(started.load(), 2);
}

TEST(PoolShutdown, DestructorWaitsForEverySubmittedJob) {
  std::atomic<int> done{0};
  std::vector<std::unique_ptr<CountingJob>> jobs;
  for (int i = 0; i < 64; ++i) jobs.push_back(std::make_unique<CountingJob>(done));
  {
    Pool pool(config(2));
    for (auto& job : jobs) pool.extension().submit(*job);
    // The pool goes out of scope with most jobs still queued or running.
  }
  EXPECT_EQ(done.load(), 64);
  for (auto& job : jobs) {
    EXPECT_EQ(job->value, takt::apps::fib_serial(16));
    EXPECT_FALSE(job->failed);
  }
}

TEST(PoolShutdown, DestroyingAPoolFromItsOwnWorkerThrowsInsteadOfHanging) {
  // The destructor threw takt::Error, but C++ then destroyed its members: the pool's
  // state stopped the workers and waited for every computation, the one running the
  // destructor too, so the call never returned and the error was never seen.
  EXPECT_EXIT(
      {
        ::alarm(20);  // a hang ends the child by SIGALRM
        takt::PoolConfig config;
        config.workers = 2;
        config.name = "inner";
        alignas(takt::Pool) unsigned char storage[sizeof(takt::Pool)];
        auto* pool = new (storage) takt::Pool(config);
        std::string message;
        const int got = pool->run([&] {
          try {
            pool->~Pool();
          } catch (const takt::Error& e) {
            message = e.what();
            return 1;
          }
          return 2;
        });
        std::_Exit(got == 1 && message.find("pool 'inner' destroyed from one of its own workers") == 0 ? 0 : 3);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(PoolShutdown, RepeatedStartAndStopWithWorkInFlight) {
  for (int round = 0; round < 10; ++round) {
    std::atomic<int> done{0};
    std::vector<std::unique_ptr<CountingJob>> jobs;
    for (int i = 0; i < 8; ++i) jobs.push_back(std::make_unique<CountingJob>(done));
    auto pool = std::make_unique<Pool>(config(2, round % 2 ? takt::QueueStrategy::centralized_greedy
                                                           : takt::QueueStrategy::work_stealing));
    std::thread caller([&] { pool->run([] { return takt::apps::fib(18); }); });
    for (auto& job : jobs) pool->extension().submit(*job);
    caller.join();
    pool.reset();
    EXPECT_EQ(done.load(), 8);
  }
}

// A party of a join that is not the last takes a sub-chain a thief traded in; between
// the thief's settle and its push it is not there yet. The party must sleep for it, not
// spin or yield (under SCHED_FIFO a yield never lets a preempted lower-priority thief
// run on that CPU). A test hook holds the thief in that window for 200 ms, while the
// child it detached finishes and waits for its sub-chain: the process must stay (almost)
// idle meanwhile. Spinning with sched_yield, as take_traded did, uses the whole window.
std::atomic<bool> g_hold_armed{false}, g_thief_held{false};

double process_cpu_ms() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

TEST(Trading, APartyWaitingForItsTradedSubChainSleeps) {
  Pool pool(config(2));
  takt::detail::after_settle_for_testing.store([](bool frozen) {
    if (frozen || !g_hold_armed.exchange(false)) return;
    g_thief_held = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  });
  g_hold_armed = true;
  g_thief_held = false;
  bool held = false;
  const auto wall = std::chrono::steady_clock::now();
  // Counted from when the child sees the thief held: the polling before it (longer when
  // the thief waits for a CPU on a loaded machine) is not the waiting measured.
  double cpu = 0;
  pool.run([&held, &cpu] {
    takt::Scope scope;
    scope.spawn([&held, &cpu] {  // holds its worker until the thief of the continuation is in the window
      for (int i = 0; i < 100000 && !g_thief_held.load(); ++i)
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      held = g_thief_held.load();
      cpu = process_cpu_ms();
    });
    scope.sync();
  });
  const double used = process_cpu_ms() - cpu;
  const auto elapsed = std::chrono::steady_clock::now() - wall;
  takt::detail::after_settle_for_testing.store(nullptr);
  ASSERT_TRUE(held) << "the continuation was not stolen";
  EXPECT_GE(elapsed, std::chrono::milliseconds(200));
  EXPECT_LT(used, 20.0) << "CPU time used while the child waited 200 ms for its sub-chain";
}

TEST(PoolConfiguration, BadStaticMemoryIsAUserError) {
  auto c = config(1);
  c.memory.depth = 0;
  EXPECT_THROW(Pool{c}, takt::Error);
  c = config(1);
  c.memory.stack_size = 1024;
  try {
    Pool pool(c);
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("stack_size = 1024"), std::string::npos) << e.what();
  }
}

// P³LS³ §4.1's invariant, which gives the bound S_P <= P·R_S: blocks move only on steals
// and syncs, and a worker always starts stealing with a complete chain. So once a pool
// is idle after runs in which steals happened, every level of every worker holds a
// complete chain of exactly D blocks at depths 1..D, and those chains and the reserve
// together hold every block of the pool exactly once: a trade that lost a block, handed
// one out twice or put one at another depth breaks it (a run that needs depth D on a
// pool of depth D would then fail some later run, or run two strands on one stack).
class TradingInvariant : public ::testing::TestWithParam<takt::testing::Variant> {};

INSTANTIATE_TEST_SUITE_P(Runtime, TradingInvariant, ::testing::ValuesIn(takt::testing::variants()),
                         [](const auto& info) { return takt::testing::name(info.param); });

TEST_P(TradingInvariant, AnIdlePoolHoldsEveryBlockOnceInCompleteChains) {
  constexpr unsigned kDepth = 20;  // fib(20) from the root reaches depth 20 exactly
  takt::PoolConfig c = config(2, GetParam());
  c.memory.depth = kDepth;
  Pool pool(c);
  std::uint64_t steals = 0;
  // At least 50 runs, then more until a steal, giving up after 200 runs and 10 s (both):
  // on a loaded machine the idle worker may get no CPU during many short runs in a row.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point stop_trying = Clock::now() + std::chrono::seconds(10);
  for (int i = 0; i < 50 || (steals == 0 && (i < 200 || Clock::now() < stop_trying)); ++i) {
    ASSERT_EQ(pool.run([] { return takt::apps::fib(20); }), takt::apps::fib_serial(20));
    steals = pool.total_statistics().steals;
  }
  if (steals == 0 && takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: no steal in the runs";
  ASSERT_GT(steals, 0u) << "no steal in the runs: the invariant would hold trivially";

  takt::detail::PoolState& state = pool.state();
  // Wait until every worker thread sleeps: its writes to its chains happen before its
  // announcement (a seq_cst increment of `sleepers`), which this load then sees.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (state.sleepers.load(std::memory_order_seq_cst) < static_cast<int>(state.threads_count)) {
    ASSERT_LT(std::chrono::steady_clock::now(), give_up) << "the workers did not go to sleep";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  ASSERT_EQ(state.depth, kDepth);
  std::vector<int> seen(state.block_count, 0);
  std::size_t chained = 0;
  for (const auto& worker : state.workers) {
    ASSERT_EQ(worker->frozen_levels, 0u);
    for (std::size_t l = 0; l < worker->level_count; ++l) {
      const takt::detail::Level& level = worker->levels[l];
      ASSERT_NE(level.head, nullptr) << "worker " << worker->index << " level " << l << " has no complete chain";
      const takt::detail::Block* b = level.head;
      for (unsigned depth = 1; depth <= kDepth; ++depth) {
        ASSERT_NE(b, nullptr) << "worker " << worker->index << " level " << l << ": chain ends at depth " << depth - 1;
        EXPECT_EQ(b->depth.load(), depth) << "worker " << worker->index << " level " << l;
        ASSERT_LT(b->index, state.block_count);
        ++seen[b->index];
        ++chained;
        b = b->chain_next;
      }
    }
  }
  EXPECT_EQ(chained, state.workers_count * state.levels * kDepth);
  std::size_t reserved = 0;
  for (const takt::detail::Block* b = state.reserve_head; b != nullptr && reserved <= state.reserve_total;
       b = b->chain_next, ++reserved) {
    ASSERT_LT(b->index, state.block_count);
    ++seen[b->index];
  }
  EXPECT_EQ(reserved, state.reserve_free);
  EXPECT_EQ(state.reserve_free, state.reserve_total);
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << "block " << i;
}

}  // namespace
