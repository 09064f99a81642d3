// PoolConfig::caller_joins: the thread that calls Pool::run works as worker 0 until its
// computation is done; the pool starts threads for workers 1..P-1 only.
#include "../support/thread_count.hpp"
#include "apps/fib.hpp"
#include "os/clock.hpp"
#include "os/cpu.hpp"
#include "runtime/pool_state.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using takt::Pool;
using takt::PoolConfig;
using takt::testing::config;

PoolConfig joining(std::size_t workers) {
  PoolConfig c = config(workers);
  c.caller_joins = true;
  return c;
}

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
using takt::testing::no_timeout_before;

TEST(CallerJoins, TheCallerRunsTheRootAsWorkerZeroAndTheOthersSteal) {
  Pool pool(joining(2));
  const std::thread::id caller = std::this_thread::get_id();
  std::uint64_t steals = 0;
  // Runs until worker 1 stole, giving up after 50 runs and 10 s (both): on a loaded
  // machine worker 1 may get no CPU during a run of a millisecond or so, many in a row.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (int i = 0; steals == 0 && (i < 50 || std::chrono::steady_clock::now() < give_up); ++i) {
    std::thread::id root_thread;
    int root_worker = -1;
    const std::uint64_t result = pool.run([&] {
      root_thread = std::this_thread::get_id();
      root_worker = takt::current_worker();
      return takt::apps::fib(22);
    });
    EXPECT_EQ(result, takt::apps::fib_serial(22));
    EXPECT_EQ(root_thread, caller);
    EXPECT_EQ(root_worker, 0);
    steals = pool.statistics(1).steals;
  }
  EXPECT_FALSE(takt::in_pool()) << "the caller must leave worker 0 when run() returns";
  EXPECT_EQ(takt::current_worker(), -1);
  // Every root ran on worker 0; none was handed to worker 1 through the job queue.
  EXPECT_GE(pool.statistics(0).jobs, 1u);
  EXPECT_EQ(pool.statistics(1).jobs, 0u);
  if (steals == 0 && takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: worker 1 never stole";
  EXPECT_GT(steals, 0u) << "worker 1 never stole from the caller in 10 s of runs of fib(22) on two or more "
                           "CPUs";
}

TEST(CallerJoins, ThePoolStartsOneThreadFewer) {
  // ThreadSanitizer starts a thread of its own at the first thread creation.
  // A joined thread may be listed a moment longer (thread_count.hpp): counted once the
  // list has settled, and after a pool's end once its threads have left it.
  std::thread([] {}).join();
  const std::size_t before = takt::testing::settled_thread_count();
  {
    Pool blocking(config(3));
    EXPECT_EQ(takt::testing::thread_count() - before, 3u);
  }
  {
    Pool pool(joining(3));
    EXPECT_EQ(takt::testing::thread_count_once([&](std::size_t n) { return n <= before + 2; }) - before, 2u);
    EXPECT_EQ(pool.workers(), 3u);
    EXPECT_EQ(pool.run([] { return takt::apps::fib(18); }), takt::apps::fib_serial(18));
  }
}

TEST(CallerJoins, AComputationTooSmallToShareNeverSleepsTheCaller) {
  // The caller finishes its own root and returns: no futex sleep, no wake-up.
  Pool pool(joining(2));
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(pool.run([] { return 7; }), 7);
  EXPECT_EQ(pool.statistics(0).jobs, 1000u);
  EXPECT_EQ(pool.statistics(0).sleeps, 0u);
}

TEST(CallerJoins, ACallerAsleepAsWorkerZeroHelpsAgainWhenWorkAppears) {
  // Phase 1: the root's continuation is stolen by worker 1, which waits there until
  // worker 0 (the caller), finding nothing to steal, sleeps with its longest safety-net
  // timeout: its 11th sleep since it went idle after its 1 ms child begins about 1023 ms
  // later (1 + 2 + ... + 512 ms), later on a loaded machine; worker 1 waits 100 ms more
  // (no_timeout_before). Phase 2, on worker 1: a loop of 32 iterations, each of which
  // holds its worker until the caller has run one, at most until before that sleep could
  // time out (about 1024 - 100 = 920 ms later, at least 400 ms). notify_one must wake the
  // sleeping caller so that it takes part; it then joins within milliseconds, so the
  // bound is generous on a loaded machine (a fixed 16 ms loop could end before the woken
  // caller got a CPU). Without that wake-up only the timeout could end the caller's
  // sleep, not before the bound: iterations the caller begins after it do not count.
  Pool pool(joining(2));
  std::atomic<int> on_caller{0}, iterations{0};
  bool phase_one_moved = false;
  // Each try gives worker 1 the child's millisecond to steal; on a loaded machine it may
  // get no CPU in a hundred of them: tries go on for 10 s.
  const Clock::time_point tries_end = Clock::now() + 10s;
  int attempt = 0;
  for (; (attempt < 100 || Clock::now() < tries_end) && !phase_one_moved; ++attempt) {
    on_caller = 0;
    iterations = 0;
    pool.run([&] {
      takt::Scope scope;
      scope.spawn([] { takt::os::spin_for(std::chrono::milliseconds(1)); });  // time for worker 1 to steal
      // Continues here on worker 0 unless worker 1 stole the continuation.
      phase_one_moved = takt::current_worker() == 1;
      if (!phase_one_moved) return;
      // The caller's count while it runs the child (its timeout is reset to 1 ms once the
      // child is done), or just after.
      const std::uint64_t base = pool.statistics(0).sleeps;
      const Clock::time_point give_up = no_timeout_before(pool, {base}, 400ms);
      scope.sync();
      takt::parallel_for(0, 32, 1, [&](int) {
        if (takt::current_worker() == 0 && Clock::now() < give_up) on_caller.fetch_add(1);
        while (on_caller.load() == 0 && Clock::now() < give_up) {
        }
        iterations.fetch_add(1);
      });
    });
  }
  if (!phase_one_moved) {
    if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: worker 1 never stole the continuation";
    FAIL() << "worker 1 never stole the root's continuation in " << attempt
           << " tries over 10 s on two or more CPUs";
  }
  EXPECT_EQ(iterations.load(), 32);
  EXPECT_GE(on_caller.load(), 1) << "the caller slept through phase 2";
  EXPECT_GE(pool.statistics(0).sleeps, 1u) << "the caller never slept; the test proves nothing";
}

TEST(CallerJoins, ACallerAsleepIsWokenWhenItsComputationEndsElsewhere) {
  // The root's continuation is stolen by worker 1, which waits there until the caller
  // (worker 0), finding nothing to do, sleeps with its longest safety-net timeout: its
  // 11th sleep since it went idle after its 1 ms child begins about 1023 ms later (1 + 2
  // + ... + 512 ms), later on a loaded machine; worker 1 waits 100 ms more
  // (no_timeout_before). The root then ends on worker 1, which must wake the caller.
  // Without that wake-up only the timeout would end the sleep, 1024 ms after it began at
  // the earliest: run() must return before then (about 1024 - 100 = 920 ms after the
  // root ended, at least 400 ms), which leaves the woken caller ample time to get a CPU
  // on a loaded machine.
  Pool pool(joining(2));
  bool moved = false;
  Clock::time_point no_timeout{}, returned{};
  const Clock::time_point tries_end = Clock::now() + 10s;  // as above: a loaded machine
  int attempt = 0;
  for (; (attempt < 100 || Clock::now() < tries_end) && !moved; ++attempt) {
    const auto before_sleeps = pool.statistics(0).sleeps;
    pool.run([&] {
      takt::Scope scope;
      scope.spawn([] { takt::os::spin_for(std::chrono::milliseconds(1)); });  // time for worker 1 to steal
      moved = takt::current_worker() == 1;
      if (moved) no_timeout = no_timeout_before(pool, {pool.statistics(0).sleeps}, 400ms);
      scope.sync();
    });
    returned = Clock::now();
    if (moved && pool.statistics(0).sleeps == before_sleeps) moved = false;  // the caller never slept: again
  }
  if (!moved) {
    if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: worker 1 never stole the continuation";
    FAIL() << "worker 1 never stole the root's continuation while the caller slept, in " << attempt
           << " tries over 10 s";
  }
  const auto late = std::chrono::duration_cast<std::chrono::milliseconds>(returned - no_timeout).count();
  EXPECT_TRUE(returned < no_timeout)
      << "the sleeping caller was not woken when its computation ended: run() returned " << late
      << " ms after its sleep could first time out";
}

TEST(CallerJoins, ExceptionsAndNestedRunsReachTheCaller) {
  Pool pool(joining(2));
  try {
    pool.run([] {
      takt::Scope scope;
      scope.spawn([] { throw std::runtime_error("from a child"); });
      scope.sync();
    });
    FAIL() << "expected the child's exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "from a child");
  }
  EXPECT_FALSE(takt::in_pool());
  // Called from inside its own computation, run() runs inline (nested parallelism).
  EXPECT_EQ(pool.run([&] { return pool.run([] { return takt::apps::fib(15); }); }), takt::apps::fib_serial(15));
  // Deep serial code on worker 0's large stack, primed without a thread of its own.
  EXPECT_EQ(pool.run([] { return takt::call_on_large_stack([] { return takt::apps::fib_serial(20); }); }),
            takt::apps::fib_serial(20));
}

// The depth error with a joining caller: StaticMemory/TooDeep.ASpawnIsAClearError/caller_joins.

TEST(CallerJoins, ConcurrentCallersShareWorkerZeroOrBlock) {
  // One caller at a time holds worker 0; the others submit and block as without the
  // option. Every result is right and every root ran somewhere.
  Pool pool(joining(2));
  constexpr int kCallers = 4, kRuns = 100;
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      for (int i = 0; i < kRuns; ++i) {
        const std::uint64_t n = 10 + static_cast<std::uint64_t>((t + i) % 8);
        if (pool.run([n] { return takt::apps::fib(n); }) != takt::apps::fib_serial(n)) wrong.fetch_add(1);
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(pool.total_statistics().jobs, static_cast<std::uint64_t>(kCallers * kRuns));
}

TEST(CallerJoins, AWorkerOfAnotherPoolBlocksInsteadOfJoining) {
  Pool outer(config(1));
  Pool inner(joining(2));
  int inner_worker = -2;
  const std::uint64_t result = outer.run([&] {
    return inner.run([&] {
      inner_worker = takt::current_worker();
      return takt::apps::fib(16);
    });
  });
  EXPECT_EQ(result, takt::apps::fib_serial(16));
  EXPECT_EQ(inner_worker, 1) << "a thread that is already a worker must not take worker 0 of another pool";
}

TEST(CallerJoins, APoolWithAWorkSourceKeepsTheCallerBlocking) {
  // A work source (or yield policy) may hand work to any worker at any time, worker 0
  // included; a calling thread must not be given jobs, so run() blocks instead.
  struct Empty : takt::ext::WorkSource {
    takt::ext::Work take(std::size_t) noexcept override { return {}; }
  } source;
  Pool pool(joining(2));
  pool.extension().set_work_source(&source);
  EXPECT_EQ(pool.run([] { return takt::current_worker(); }), 1);
  pool.extension().set_work_source(nullptr);
  EXPECT_EQ(pool.run([] { return takt::current_worker(); }), 0);
}

// A caller on worker 0 is no thread of the pool, so the destructor does not join it: it
// waits for the caller's last leave_flight, which must be the caller's last access to the
// pool. A test hook holds the caller right after that decrement until another thread has
// destroyed the pool (at most 5 s); touching the pool afterwards (leave_flight once read
// `closing` and woke a word in it) is a use after free that ThreadSanitizer reports. In
// every build the test checks that the case happened: the hook ran for the caller's last
// leave, and the pool was destroyed while it held the caller (a destructor that waited
// for the caller to return would not finish within the hold).
std::atomic<std::thread::id> g_held_caller{};
std::atomic<bool> g_destroyed{false}, g_hook_ran{false}, g_destroyed_while_held{false};

TEST(CallerJoins, ACallerLeavingAPoolBeingDestroyedTouchesNothingOfItAfterwards) {
  g_destroyed = g_hook_ran = g_destroyed_while_held = false;  // also under --gtest_repeat
  auto pool = std::make_unique<Pool>(joining(2));
  Pool* raw = pool.get();
  takt::detail::after_leave_flight_for_testing.store([](std::uint32_t left) {
    if (left == 0 && std::this_thread::get_id() == g_held_caller.load()) {
      g_hook_ran = true;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (!g_destroyed.load() && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
      g_destroyed_while_held = g_destroyed.load();
    }
  });
  std::atomic<bool> started{false}, release{false};
  std::thread caller([&] {
    g_held_caller = std::this_thread::get_id();
    raw->run([&] {
      EXPECT_EQ(takt::current_worker(), 0);
      started = true;
      while (!release.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
    });
  });
  while (!started.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  std::thread destroyer([&] {  // waits for the caller's last leave, then frees the pool
    pool.reset();
    g_destroyed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  release = true;
  caller.join();
  destroyer.join();
  takt::detail::after_leave_flight_for_testing.store(nullptr);
  g_held_caller = std::thread::id{};
  EXPECT_TRUE(g_hook_ran.load())
      << "the caller's last leave_flight was not seen: the test did not set up its case";
  EXPECT_TRUE(g_destroyed_while_held.load())
      << "the pool was not destroyed while the caller was held after its leave";
}

TEST(CallerJoins, NeedsTwoWorkers) {
  try {
    Pool pool(joining(1));
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("caller_joins needs at least 2 workers"), std::string::npos) << e.what();
  }
}

}  // namespace
