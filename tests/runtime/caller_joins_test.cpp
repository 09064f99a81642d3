// PoolConfig::caller_joins: the thread that calls Pool::run works as worker 0 until its
// computation is done; the pool starts threads for workers 1..P-1 only.
#include "apps/fib.hpp"
#include "os/clock.hpp"
#include "os/cpu.hpp"
#include "runtime/pool_state.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <dirent.h>

#include <atomic>
#include <chrono>
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

/// Threads of this process (entries of /proc/self/task).
int thread_count() {
  int n = 0;
  if (DIR* dir = ::opendir("/proc/self/task")) {
    while (const dirent* entry = ::readdir(dir)) {
      if (entry->d_name[0] != '.') ++n;
    }
    ::closedir(dir);
  }
  return n;
}

TEST(CallerJoins, TheCallerRunsTheRootAsWorkerZeroAndTheOthersSteal) {
  Pool pool(joining(2));
  const std::thread::id caller = std::this_thread::get_id();
  std::uint64_t steals = 0;
  for (int i = 0; i < 50 && steals == 0; ++i) {
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
  EXPECT_GT(steals, 0u) << "worker 1 never stole from the caller in 50 runs of fib(22)";
  EXPECT_FALSE(takt::in_pool()) << "the caller must leave worker 0 when run() returns";
  EXPECT_EQ(takt::current_worker(), -1);
  // Every root ran on worker 0; none was handed to worker 1 through the job queue.
  EXPECT_GE(pool.statistics(0).jobs, 1u);
  EXPECT_EQ(pool.statistics(1).jobs, 0u);
}

TEST(CallerJoins, ThePoolStartsOneThreadFewer) {
  // ThreadSanitizer starts a thread of its own at the first thread creation.
  std::thread([] {}).join();
  const int before = thread_count();
  {
    Pool blocking(config(3));
    EXPECT_EQ(thread_count() - before, 3);
  }
  {
    Pool pool(joining(3));
    EXPECT_EQ(thread_count() - before, 2);
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
  // Phase 1: the root's continuation is stolen by worker 1 and runs 100 ms of serial
  // work; worker 0 (the caller) finds nothing to steal and sleeps. Phase 2, on worker 1:
  // a loop of 32 x 0.5 ms (16 ms, long enough for a woken caller to get a CPU on a busy
  // machine). notify_one must wake the sleeping caller so that it takes part. (Its
  // sleep's safety-net timeouts, 1, 2, 4, ... 64 ms, alone would leave it asleep from
  // about 63 ms to 127 ms, past the end of phase 2 at about 117 ms.)
  Pool pool(joining(2));
  std::atomic<int> on_caller{0}, iterations{0};
  bool phase_one_moved = false;
  for (int attempt = 0; attempt < 100 && !phase_one_moved; ++attempt) {
    on_caller = 0;
    iterations = 0;
    pool.run([&] {
      takt::Scope scope;
      scope.spawn([] { takt::os::spin_for(std::chrono::milliseconds(1)); });  // time for worker 1 to steal
      // Continues here on worker 0 unless worker 1 stole the continuation.
      phase_one_moved = takt::current_worker() == 1;
      if (!phase_one_moved) return;
      takt::os::spin_for(std::chrono::milliseconds(100));
      scope.sync();
      takt::parallel_for(0, 32, 1, [&](int) {
        takt::os::spin_for(std::chrono::microseconds(500));
        iterations.fetch_add(1);
        if (takt::current_worker() == 0) on_caller.fetch_add(1);
      });
    });
  }
  if (!phase_one_moved) {
    if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: worker 1 never stole the continuation";
    FAIL() << "worker 1 never stole the root's continuation in 100 tries on two or more CPUs";
  }
  EXPECT_EQ(iterations.load(), 32);
  EXPECT_GE(on_caller.load(), 1) << "the caller slept through phase 2";
  EXPECT_GE(pool.statistics(0).sleeps, 1u) << "the caller never slept; the test proves nothing";
}

TEST(CallerJoins, ACallerAsleepIsWokenWhenItsComputationEndsElsewhere) {
  // The root's continuation is stolen by worker 1 and runs 300 ms there; the caller
  // (worker 0) finds nothing to do and sleeps. The root then ends on worker 1, which must
  // wake the caller. Without that wake-up only the sleep's safety-net timeouts (1, 2, 4,
  // ... ms, doubling) would end the sleep: past 1 + 2 + ... + 128 = 255 ms the next one
  // ends at 511 ms, so run() would return after about 511 ms instead of about 300.
  Pool pool(joining(2));
  bool moved = false;
  std::chrono::nanoseconds took{};
  for (int attempt = 0; attempt < 100 && !moved; ++attempt) {
    const auto before_sleeps = pool.statistics(0).sleeps;
    const auto start = std::chrono::steady_clock::now();
    pool.run([&] {
      takt::Scope scope;
      scope.spawn([] { takt::os::spin_for(std::chrono::milliseconds(1)); });  // time for worker 1 to steal
      moved = takt::current_worker() == 1;
      if (moved) takt::os::spin_for(std::chrono::milliseconds(300));
      scope.sync();
    });
    took = std::chrono::steady_clock::now() - start;
    if (moved && pool.statistics(0).sleeps == before_sleeps) moved = false;  // the caller never slept: again
  }
  if (!moved) {
    if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: worker 1 never stole the continuation";
    FAIL() << "worker 1 never stole the root's continuation while the caller slept, in 100 tries";
  }
  EXPECT_LT(took, std::chrono::milliseconds(450)) << "the sleeping caller was not woken when its computation ended";
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
// pool. A test hook holds the caller for 100 ms right after that decrement, while another
// thread destroys the pool; touching the pool afterwards (leave_flight once read
// `closing` and woke a word in it) is a use after free that ThreadSanitizer reports.
std::atomic<std::thread::id> g_held_caller{};

TEST(CallerJoins, ACallerLeavingAPoolBeingDestroyedTouchesNothingOfItAfterwards) {
  auto pool = std::make_unique<Pool>(joining(2));
  Pool* raw = pool.get();
  takt::detail::after_leave_flight_for_testing.store([](std::uint32_t left) {
    if (left == 0 && std::this_thread::get_id() == g_held_caller.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
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
  std::thread destroyer([&] { pool.reset(); });  // waits for the caller, then frees the pool
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  release = true;
  caller.join();
  destroyer.join();
  takt::detail::after_leave_flight_for_testing.store(nullptr);
  g_held_caller = std::thread::id{};
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
