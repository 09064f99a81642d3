// Fork-join semantics under every queue strategy: results equal the serial elision's,
// loops cover every index exactly once, nested parallelism and many pools work.
#include "apps/fib.hpp"
#include "os/cpu.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using takt::Pool;
using takt::QueueStrategy;
using takt::testing::config;

// Every strategy, with the caller blocking and with the caller joining as worker 0.
class Strategies : public ::testing::TestWithParam<takt::testing::Variant> {};

INSTANTIATE_TEST_SUITE_P(Runtime, Strategies, ::testing::ValuesIn(takt::testing::variants()),
                         [](const auto& info) { return takt::testing::name(info.param); });

TEST_P(Strategies, FibMatchesSerialAndCountsEverySpawn) {
  Pool pool(config(2, GetParam()));
  for (std::uint64_t n : {0, 1, 2, 10, 20}) {
    pool.reset_statistics();
    EXPECT_EQ(pool.run([n] { return takt::apps::fib(n); }), takt::apps::fib_serial(n)) << "n = " << n;
    EXPECT_EQ(pool.total_statistics().spawns, takt::apps::fib_spawns(n)) << "n = " << n;
  }
}

TEST_P(Strategies, RandomForkJoinTreesMatchTheSerialElision) {
  Pool pool(config(2, GetParam()));
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    std::uint64_t serial = takt::testing::random_tree(seed, 7);  // outside a pool: serial elision
    std::uint64_t parallel = pool.run([seed] { return takt::testing::random_tree(seed, 7); });
    ASSERT_EQ(parallel, serial) << "seed " << seed;
  }
}

TEST_P(Strategies, ParallelForRunsEveryIndexExactlyOnce) {
  Pool pool(config(2, GetParam()));
  for (std::size_t n : {1u, 2u, 7u, 1000u, 20000u}) {
    for (std::size_t grain : {1u, 3u, 64u}) {
      std::vector<std::atomic<int>> hits(n);
      pool.run([&] {
        takt::parallel_for(std::size_t{0}, n, grain, [&](std::size_t i) { hits[i].fetch_add(1); });
      });
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "n " << n << " grain " << grain << " i " << i;
    }
  }
}

// A loop strand that found work queued keeps checking while it runs its chunks: once the
// queue is empty again (a thief took the work), it splits. Worker A is held in a child X
// while the loop starts on worker B, so the lower half's strand C sees the upper half
// queued; X is released by index 0, A takes the (fast) upper half and goes idle, and
// index 1 waits for that. C must then split and A take part of the (slow) lower half.
// centralized_greedy once compared against a snapshot of the queue's size there and ran
// the whole lower half on B.
//
// The lower half's indices from 2 on wait (at most 10 s in all) until some index of the
// lower half has run on another worker than index 0: a split leaves a part queued that A
// then steals, however late A gets a CPU (on a loaded machine, a woken A could miss the
// few milliseconds the rest of the lower half took). The wait does not make the split
// happen: C decides to split by looking at its queue only, and without the split nothing
// of the lower half is queued for A to take, so the wait runs out and the test fails.
TEST_P(Strategies, ParallelForSplitsAgainOnceItsQueueIsEmpty) {
  Pool pool(config(2, GetParam()));
  constexpr int n = 64;
  std::vector<int> worker(n, -1);
  std::atomic<bool> continued{false}, released{false}, timed_out{false};
  std::atomic<int> upper_done{0};
  std::atomic<int> first_worker{-1};
  std::atomic<bool> lower_elsewhere{false}, lower_gave_up{false};
  auto wait_for = [&](auto condition) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!condition()) {
      if (std::chrono::steady_clock::now() > deadline) {
        timed_out = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  };
  const auto lower_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  pool.run([&] {
    takt::Scope scope;
    scope.spawn([&] {  // X, on A: returns once the loop's lower half has begun elsewhere
      wait_for([&] { return continued.load(); });
      wait_for([&] { return released.load(); });
    });
    continued = true;  // the root's continuation, stolen by B
    takt::parallel_for(0, n, 1, [&](int i) {
      const int me = takt::current_worker();
      worker[i] = me;
      if (i >= n / 2) {
        upper_done.fetch_add(1);
        return;
      }
      if (i == 0) {
        first_worker = me;
        released = true;
      } else if (me != first_worker.load()) {
        lower_elsewhere = true;
      }
      if (i == 1) wait_for([&] { return upper_done.load() == n / 2; });
      // Until a lower index ran elsewhere; after the deadline, no more waiting (a loop
      // that never splits again ends at once instead of waiting 10 s per index).
      while (i >= 2 && !lower_elsewhere.load() && !lower_gave_up.load()) {
        if (std::chrono::steady_clock::now() > lower_deadline) lower_gave_up = true;
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    });
    scope.sync();
  });
  ASSERT_FALSE(timed_out.load());
  int elsewhere = 0;
  for (int i = 0; i < n / 2; ++i) elsewhere += worker[i] != worker[0];
  EXPECT_GT(elsewhere, 0) << "the lower half ran entirely on the worker that started it";
}

TEST_P(Strategies, ParallelForWithEmptyAndNegativeRanges) {
  Pool pool(config(2, GetParam()));
  std::atomic<int> calls{0};
  std::array<std::atomic<int>, 3> seen{};  // indices −3, −2, −1
  std::atomic<int> outside{0};
  pool.run([&] {
    takt::parallel_for(5, 5, 1, [&](int) { ++calls; });
    takt::parallel_for(5, 2, 1, [&](int) { ++calls; });
    takt::parallel_for(-3, 0, 0, [&](int i) {  // grain 0 counts as 1
      ++calls;
      if (i >= -3 && i < 0) {
        ++seen[static_cast<std::size_t>(i + 3)];
      } else {
        ++outside;
      }
    });
  });
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(outside.load(), 0);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(seen[static_cast<std::size_t>(k)].load(), 1) << "index " << k - 3;
}

TEST_P(Strategies, ParallelReduceOverTheWholeIntRange) {
  // [INT_MIN, INT_MAX) holds 2^32 - 1 = 4,294,967,295 indices, more than INT_MAX: until
  // 2026-11-28 end - begin overflowed int (undefined; here it wrapped to -1, so the loop
  // never split and handed the whole range to one body call, far above the grain).
  Pool pool(config(2, GetParam()));
  constexpr int grain = 1 << 26;
  struct Chunks {
    long long indices = 0;
    long long calls = 0;
    long long widest = 0;
  };
  auto body = [](int first, int last, Chunks acc) {
    const long long width = static_cast<long long>(last) - first;
    acc.indices += width;
    acc.calls += 1;
    acc.widest = std::max(acc.widest, width);
    return acc;
  };
  auto combine = [](Chunks a, Chunks b) {
    return Chunks{a.indices + b.indices, a.calls + b.calls, std::max(a.widest, b.widest)};
  };
  constexpr int lowest = std::numeric_limits<int>::min();
  constexpr int highest = std::numeric_limits<int>::max();
  Chunks all =
      pool.run([&] { return takt::parallel_reduce(lowest, highest, grain, Chunks{}, body, combine); });
  EXPECT_EQ(all.indices, 4'294'967'295LL);
  EXPECT_LE(all.widest, grain);
  EXPECT_GE(all.calls, 64);  // (2^32 - 1) / 2^26 rounded up
}

// The loops' index arithmetic at the ends of signed types (parallel_for over a range
// wider than INT_MAX would take over 2^31 body calls, so its distances are checked here):
// INT_MIN..INT_MAX holds 2^32 - 1 indices, and its middle is INT_MIN + 2^31 - 1 = -1.
TEST(Runtime, LoopDistancesCoverTheWholeRangeOfSignedTypes) {
  using takt::detail::advance;
  using takt::detail::distance;
  constexpr int int_min = std::numeric_limits<int>::min(), int_max = std::numeric_limits<int>::max();
  EXPECT_EQ(distance(int_min, int_max), 4'294'967'295u);
  EXPECT_EQ(advance(int_min, 4'294'967'295u), int_max);
  EXPECT_EQ(advance(int_min, distance(int_min, int_max) / 2), -1);
  EXPECT_EQ(distance(-5, 3), 8u);
  EXPECT_EQ(advance(-5, 8u), 3);
  constexpr long long ll_min = std::numeric_limits<long long>::min();
  constexpr long long ll_max = std::numeric_limits<long long>::max();
  EXPECT_EQ(distance(ll_min, ll_max), std::numeric_limits<unsigned long long>::max());
  EXPECT_EQ(advance(ll_min, std::numeric_limits<unsigned long long>::max()), ll_max);
  EXPECT_EQ(distance(std::int8_t{-128}, std::int8_t{127}), 255u);
  EXPECT_EQ(advance(std::int8_t{-128}, std::uint8_t{255}), std::int8_t{127});
  EXPECT_EQ(distance(std::uint8_t{0}, std::uint8_t{255}), 255u);
}

TEST_P(Strategies, ParallelForOverTheWholeRangeOfNarrowTypes) {
  // Each index of int8_t, int16_t and uint8_t once (the distances are computed in the
  // unsigned type of the same width, whose arithmetic promotes to int).
  Pool pool(config(2, GetParam()));
  auto cover = [&](auto lowest, auto highest) {
    using Index = decltype(lowest);
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(highest - lowest));
    pool.run([&] {
      takt::parallel_for(lowest, highest, Index{1},
                         [&](Index i) { hits[static_cast<std::size_t>(i - lowest)]++; });
    });
    int wrong = 0;
    for (auto& h : hits) wrong += h.load() != 1;
    return wrong;
  };
  EXPECT_EQ(cover(std::numeric_limits<std::int8_t>::min(), std::numeric_limits<std::int8_t>::max()), 0);
  EXPECT_EQ(cover(std::numeric_limits<std::int16_t>::min(), std::numeric_limits<std::int16_t>::max()), 0);
  EXPECT_EQ(cover(std::numeric_limits<std::uint8_t>::min(), std::numeric_limits<std::uint8_t>::max()), 0);
}

TEST_P(Strategies, ParallelReduceKeepsTheOrderOfANonCommutativeCombine) {
  Pool pool(config(2, GetParam()));
  // Folding digits into a base-10 number is associative but not commutative: any
  // reordering of partial results changes the value.
  struct Number {
    std::uint64_t value = 0;
    std::uint64_t scale = 1;  // 10^digits
  };
  auto body = [](int first, int last, Number acc) {
    for (int i = first; i < last; ++i) {
      acc.value = acc.value * 10 + static_cast<std::uint64_t>(i % 10);
      acc.scale *= 10;
    }
    return acc;
  };
  auto combine = [](Number a, Number b) { return Number{a.value * b.scale + b.value, a.scale * b.scale}; };
  for (int n : {1, 5, 17}) {
    Number serial = body(0, n, Number{});
    Number parallel = pool.run([&] { return takt::parallel_reduce(0, n, 1, Number{}, body, combine); });
    EXPECT_EQ(parallel.value, serial.value) << "n " << n;
  }
  long long sum = pool.run([] {
    return takt::parallel_reduce(0LL, 1'000'000LL, 1000LL, 0LL,
                                 [](long long a, long long b, long long s) {
                                   for (long long i = a; i < b; ++i) s += i;
                                   return s;
                                 },
                                 [](long long a, long long b) { return a + b; });
  });
  EXPECT_EQ(sum, 999'999LL * 1'000'000LL / 2);
}

TEST_P(Strategies, ForkJoinRunsBoth) {
  Pool pool(config(2, GetParam()));
  int a = 0, b = 0;
  pool.run([&] { takt::fork_join([&] { a = 1; }, [&] { b = 2; }); });
  EXPECT_EQ(a + b, 3);
}

TEST_P(Strategies, NestedRunOnTheSamePoolRunsInline) {
  Pool pool(config(2, GetParam()));
  std::uint64_t r = pool.run([&] { return pool.run([] { return takt::apps::fib(15); }) + 1; });
  EXPECT_EQ(r, takt::apps::fib_serial(15) + 1);
}

TEST_P(Strategies, ManyExternalThreadsRunAtOnce) {
  Pool pool(config(2, GetParam()));
  std::vector<std::thread> callers;
  std::vector<std::uint64_t> results(6);
  for (int t = 0; t < 6; ++t) {
    callers.emplace_back([&, t] { results[t] = pool.run([t] { return takt::apps::fib(12 + t); }); });
  }
  for (auto& c : callers) c.join();
  for (int t = 0; t < 6; ++t) EXPECT_EQ(results[t], takt::apps::fib_serial(12 + t));
  EXPECT_EQ(pool.total_statistics().jobs, 6u);
}

TEST(Runtime, SpawnOutsideAPoolIsTheSerialElision) {
  EXPECT_FALSE(takt::in_pool());
  EXPECT_EQ(takt::current_worker(), -1);
  EXPECT_EQ(takt::apps::fib(18), takt::apps::fib_serial(18));
}

namespace {
std::atomic<int> function_calls{0};
void count_a_call() { function_calls.fetch_add(1); }
}  // namespace

// A function named by itself did not compile as a child (spawn(count_a_call),
// fork_join(f, g) of two functions): the callable type was a function type, which the
// child cannot hold. Outside a pool and on one.
TEST_P(Strategies, AFunctionNamedByItselfIsSpawned) {
  function_calls = 0;
  {
    takt::Scope scope;
    scope.spawn(count_a_call);
    scope.spawn(&count_a_call);
    scope.sync();
  }
  takt::fork_join(count_a_call, count_a_call);
  EXPECT_EQ(function_calls.load(), 4);
  Pool pool(config(2, GetParam()));
  pool.run([] {
    takt::Scope scope;
    for (int i = 0; i < 100; ++i) scope.spawn(count_a_call);
    scope.sync();
    takt::fork_join(count_a_call, count_a_call);
  });
  EXPECT_EQ(function_calls.load(), 106);
}

TEST(Runtime, OneWorkerPoolWorksWithoutSteals) {
  Pool pool(config(1));
  EXPECT_EQ(pool.workers(), 1u);
  EXPECT_EQ(pool.run([] { return takt::apps::fib(20); }), takt::apps::fib_serial(20));
  EXPECT_EQ(pool.total_statistics().steals, 0u);
}

TEST(Runtime, SeveralPoolsAtOnce) {
  Pool first(config(2));
  Pool second(config(1));
  std::uint64_t a = 0, b = 0;
  std::thread t1([&] {
    for (int i = 0; i < 5; ++i) a += first.run([] { return takt::apps::fib(18); });
  });
  std::thread t2([&] {
    for (int i = 0; i < 5; ++i) b += second.run([] { return takt::apps::fib(17); });
  });
  t1.join();
  t2.join();
  EXPECT_EQ(a, 5 * takt::apps::fib_serial(18));
  EXPECT_EQ(b, 5 * takt::apps::fib_serial(17));
  // A strand of one pool may run a computation on another: the worker waits for it.
  std::uint64_t c = first.run([&] { return second.run([] { return takt::apps::fib(10); }); });
  EXPECT_EQ(c, takt::apps::fib_serial(10));
}

TEST(Runtime, WorkersRunOnTheirPinnedCpus) {
  takt::os::CpuSet allowed = takt::os::allowed_cpus();
  takt::os::CpuSet only(std::initializer_list<int>{allowed.cpus().back()});
  auto c = config(2);
  c.cpus = only;
  Pool pool(c);
  EXPECT_EQ(pool.cpus(), only);
  std::atomic<int> wrong{0};
  pool.run([&] {
    takt::parallel_for(0, 2000, 1, [&](int) {
      if (!only.contains(takt::os::current_cpu())) wrong.fetch_add(1);
    });
  });
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Runtime, CurrentWorkerIsKnownInsideTheComputation) {
  Pool pool(config(2));
  int worker = pool.run([] { return takt::current_worker(); });
  EXPECT_GE(worker, 0);
  EXPECT_LT(worker, 2);
  EXPECT_TRUE(pool.run([] { return takt::in_pool(); }));
}

TEST(Runtime, LargeStackRunsDeepSerialCode) {
  Pool pool(config(2));
  // 64 KiB strand stacks; this recursion needs about 128 KiB (1 KiB per frame).
  struct Deep {
    static std::uint64_t recurse(int n) {
      volatile unsigned char buffer[1024];
      buffer[0] = static_cast<unsigned char>(n);
      if (n == 0) return buffer[0];
      return recurse(n - 1) + buffer[0];
    }
  };
  std::uint64_t r = pool.run([] {
    std::uint64_t a = 0, b = 0;
    takt::fork_join([&] { a = takt::call_on_large_stack([] { return Deep::recurse(128); }); },
                    [&] { b = takt::call_on_large_stack([] { return Deep::recurse(100); }); });
    return a + b;
  });
  EXPECT_EQ(r, 128u * 129u / 2 + 100u * 101u / 2);
  // A spawn inside the large stack runs inline.
  EXPECT_EQ(pool.run([] { return takt::call_on_large_stack([] { return takt::apps::fib(12); }); }),
            takt::apps::fib_serial(12));
}

namespace large_stack_eh {
// Inside a destructor that runs during unwinding, what f on the large stack sees.
struct Probe {
  int* out;
  ~Probe() {
    *out = takt::call_on_large_stack([] { return std::uncaught_exceptions(); });
  }
};
int uncaught_seen_by_f() {
  int seen = -1;
  try {
    Probe p{&seen};
    throw std::runtime_error("unwinding");
  } catch (...) {
  }
  return seen;
}
// Inside a catch block: f can see and rethrow the exception being handled.
std::string rethrown_by_f() {
  try {
    throw std::runtime_error("handled");
  } catch (...) {
    try {
      takt::call_on_large_stack([] {
        if (std::current_exception() == nullptr) return 0;
        throw;
      });
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  }
  return "f saw no exception";
}
}  // namespace large_stack_eh

TEST(Runtime, TheLargeStackSeesTheExceptionStateOfItsCaller) {
  // call_on_large_stack is a nested call: the switch to the large stack saved and
  // cleared the thread's exception-handling state, so inside f uncaught_exceptions()
  // was 0 in an unwinding destructor and `throw;` in a catch block called
  // std::terminate, where serial code (and takt::measure) saw 1 and the exception.
  using namespace large_stack_eh;
  EXPECT_EQ(uncaught_seen_by_f(), 1);  // serially
  EXPECT_EQ(rethrown_by_f(), "handled");
  Pool pool(config(1));
  EXPECT_EQ(pool.run([] { return uncaught_seen_by_f(); }), 1);
  EXPECT_EQ(pool.run([] { return rethrown_by_f(); }), "handled");
  // And the strand's own state is intact after f: still inside its catch block.
  EXPECT_TRUE(pool.run([] {
    try {
      throw std::runtime_error("outer");
    } catch (...) {
      takt::call_on_large_stack([] { return takt::apps::fib(10); });
      return std::current_exception() != nullptr;
    }
  }));
}

TEST(Runtime, ASpawnOnAnOuterScopeInsideTheLargeStackRunsInline) {
  // The scope belongs to the strand that called call_on_large_stack: a normal spawn
  // there made the continuation, whose frames are on the worker's one large stack,
  // stealable by another worker. It now runs the child inline, as a Scope made inside
  // the function does: no spawn is counted, and the child has run when spawn returns.
  Pool pool(config(2));
  pool.reset_statistics();
  const bool ok = pool.run([] {
    takt::Scope outer;
    bool child_ran = false;
    bool ran_before_return = false;
    takt::call_on_large_stack([&] {
      outer.spawn([&] { child_ran = true; });
      ran_before_return = child_ran;
    });
    outer.sync();
    return child_ran && ran_before_return;
  });
  EXPECT_TRUE(ok);
  EXPECT_EQ(pool.total_statistics().spawns, 0u);
  // An exception of such a child reaches the scope's sync, as a child's does.
  EXPECT_THROW(pool.run([] {
                 takt::Scope outer;
                 takt::call_on_large_stack([&] { outer.spawn([] { throw std::runtime_error("child"); }); });
                 outer.sync();
               }),
               std::runtime_error);
}

TEST(Runtime, SyncingAnOuterScopeWithAStolenChildInsideTheLargeStackIsAnError) {
  // A child of the outer scope runs on the other worker (its parent's continuation was
  // stolen) when the function passed to call_on_large_stack syncs that scope: parking
  // there would leave the strand's frames on the large stack, resumed on another thread.
  // It throws instead, the scope stays open, and its sync outside waits for the child.
  // The child waits 100 ms for the continuation to start elsewhere (a run in which it
  // did not is tried again), and once it has, stays until released (at most 10 s): it
  // once stopped after 100 ms in either case, so that on a loaded machine a continuation
  // stolen late, or slow to reach the sync, found the child done and nothing threw. The
  // two sides agree on `handshake`: whichever moves it from 0 first decides.
  Pool pool(config(2));
  bool stole = false;
  for (int attempt = 0; attempt < 100 && !stole; ++attempt) {
    std::atomic<int> handshake{0};  // 1: the continuation runs elsewhere; 2: the child stopped waiting
    std::atomic<bool> release{false};
    std::string message;
    bool child_done_after_sync = false;
    std::atomic<bool> child_done{false};
    pool.run([&] {
      takt::Scope outer;
      const int before = takt::current_worker();
      outer.spawn([&] {
        auto wait = [](auto done, std::chrono::milliseconds bound) {
          const auto give_up = std::chrono::steady_clock::now() + bound;
          while (!done() && std::chrono::steady_clock::now() < give_up)
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        };
        wait([&] { return handshake.load() != 0; }, std::chrono::milliseconds(100));
        int waiting = 0;
        if (!handshake.compare_exchange_strong(waiting, 2)) {  // the continuation runs elsewhere
          wait([&] { return release.load(); }, std::chrono::milliseconds(10'000));
        }
        child_done = true;
      });
      if (takt::current_worker() == before) return;  // not stolen: try again
      int waiting = 0;
      if (!handshake.compare_exchange_strong(waiting, 1)) return;  // the child stopped waiting: try again
      stole = true;
      try {
        takt::call_on_large_stack([&] { outer.sync(); });
      } catch (const takt::Error& e) {
        message = e.what();
      }
      release = true;
      outer.sync();
      child_done_after_sync = child_done.load();
    });
    if (!stole) continue;
    EXPECT_NE(message.find("sync() of a takt::Scope made outside takt::call_on_large_stack"), std::string::npos)
        << message;
    EXPECT_TRUE(child_done_after_sync);
  }
  if (!stole) {
    if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: the continuation was never stolen";
    FAIL() << "the continuation was never stolen in 100 tries on two or more CPUs";
  }
}

// A Scope belongs to the strand that made it. A child spawning into its parent's scope
// (what oneTBB's task_group::run allows) would enter its grandchild on the block the
// child itself runs on (the parent's next block) and save over the parent's
// continuation; it gets takt::Error instead, which the parent's sync rethrows, and the
// pool is intact after it. fib(15) after the spawn lets the other worker steal the
// parent's continuation in some of the runs.
TEST_P(Strategies, AChildSpawningIntoItsParentsScopeGetsAnError) {
  Pool pool(config(2, GetParam()));
  for (int run = 0; run < 50; ++run) {
    std::atomic<int> grandchildren{0};
    std::string message;
    try {
      pool.run([&] {
        takt::Scope scope;
        scope.spawn([&] { scope.spawn([&] { grandchildren.fetch_add(1); }); });
        const std::uint64_t f = takt::apps::fib(15);
        scope.sync();
        return f;
      });
    } catch (const takt::Error& e) {
      message = e.what();
    }
    EXPECT_NE(
        message.find("takt::Scope::spawn() called from code that is not the strand that made the scope"),
        std::string::npos)
        << "run " << run << ": " << message;
    EXPECT_EQ(grandchildren.load(), 0) << "run " << run;
  }
  EXPECT_EQ(pool.run([] { return takt::apps::fib(20); }), takt::apps::fib_serial(20));
}

// On one worker, so that the parent's strand is suspended (not running elsewhere) while
// its child calls sync() on the parent's scope: without the check the sync saw nothing
// stolen and returned, closing the parent's scope from outside.
TEST(Runtime, AChildSyncingItsParentsScopeGetsAnError) {
  Pool pool(config(1));
  std::string message;
  bool child_went_on = false;
  try {
    pool.run([&] {
      takt::Scope scope;
      scope.spawn([&] {
        scope.sync();
        child_went_on = true;
      });
      scope.sync();
      return 0;
    });
  } catch (const takt::Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("takt::Scope::sync() called from code that is not the strand that made the scope"),
            std::string::npos)
      << message;
  EXPECT_FALSE(child_went_on);
  EXPECT_EQ(pool.run([] { return takt::apps::fib(20); }), takt::apps::fib_serial(20));
}

TEST(Runtime, AScopeUsedFromAnotherThreadGetsAnError) {
  Pool pool(config(1));
  std::string message;
  pool.run([&] {
    takt::Scope scope;
    std::thread other([&] {
      try {
        scope.spawn([] {});
      } catch (const takt::Error& e) {
        message = e.what();
      }
    });
    other.join();
    return 0;
  });
  EXPECT_NE(message.find("takt::Scope::spawn() called from code that is not the strand that made the scope"),
            std::string::npos)
      << message;
}

TEST(Runtime, AScopeMadeOutsideAnyPoolUsedInsideOneGetsAnError) {
  // Until 2026-11-28 the spawn ran inline on the pool's strand, unchecked (and raced on
  // the scope if parallel strands used it).
  Pool pool(config(2));
  takt::Scope outside;
  int ran = 0;
  try {
    pool.run([&] { outside.spawn([&] { ++ran; }); });
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("takt::Scope::spawn() called by a strand of a pool on a Scope made "
                                         "outside any pool"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(ran, 0);
  outside.spawn([&] { ++ran; });  // its own code may still use it
  outside.sync();
  EXPECT_EQ(ran, 1);
  // A Scope made inside call_on_large_stack's function is used there as the serial elision.
  EXPECT_EQ(pool.run([] {
    return takt::call_on_large_stack([] {
      int n = 0;
      takt::Scope inside;
      inside.spawn([&] { ++n; });
      inside.sync();
      return n;
    });
  }),
            1);
}

// A named callable (and a function named by itself) compiles and runs on the large stack.
int seven() { return 7; }

TEST(Runtime, CallOnLargeStackTakesANamedCallable) {
  Pool pool(config(1));
  auto six = [] { return 6; };
  EXPECT_EQ(pool.run([&] { return takt::call_on_large_stack(six) + takt::call_on_large_stack(seven); }), 13);
  EXPECT_EQ(takt::call_on_large_stack(six), 6);  // outside a pool: called where it is
}

// The child runs a copy of an lvalue callable on a pool; so do the serial elision and an
// inline spawn inside call_on_large_stack: the original stays as it was in all three.
struct Counter {
  int* calls;
  int n = 0;
  void operator()() {
    ++n;
    ++*calls;
  }
};

TEST(Runtime, AStatefulCallableEndsTheSameWaySeriallyAndOnAPool) {
  auto spawn_twice = [] {
    int calls = 0;
    Counter counter{&calls};
    takt::Scope scope;
    scope.spawn(counter);
    scope.spawn(counter);
    scope.sync();
    return std::pair{counter.n, calls};
  };
  EXPECT_EQ(spawn_twice(), (std::pair{0, 2}));  // outside a pool
  Pool pool(config(2));
  EXPECT_EQ(pool.run(spawn_twice), (std::pair{0, 2}));
  EXPECT_EQ(pool.run([&] { return takt::call_on_large_stack(spawn_twice); }), (std::pair{0, 2}));
}

TEST(Runtime, UnpinnedWorkersRunOnThePoolsCpusOnly) {
  const takt::os::CpuSet allowed = takt::os::allowed_cpus();
  if (allowed.size() < 2) GTEST_SKIP() << "one CPU: no narrower set to give the pool";
  auto c = config(2);
  c.pin = false;
  c.cpus = takt::os::CpuSet{allowed[1]};
  std::vector<std::string> masks(2);
  c.on_worker_start = [&masks](std::size_t i) { masks[i] = takt::os::allowed_cpus().to_string(); };
  Pool pool(c);
  // The workers' own masks, as seen from inside a computation too.
  std::vector<std::string> inside(2);
  pool.run([&] {
    takt::parallel_for(0, 64, 1, [&](int) {
      inside[static_cast<std::size_t>(takt::current_worker())] = takt::os::allowed_cpus().to_string();
    });
    return 0;
  });
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(masks[i], c.cpus.to_string()) << "worker " << i;
    if (!inside[i].empty()) {
      EXPECT_EQ(inside[i], c.cpus.to_string()) << "worker " << i;
    }
  }
}

// Inside call_on_large_stack only the strand that called it may use its own scopes there
// (their spawns run inline): a child doing so on its parent's scope, on the same worker,
// is another strand and gets the error too.
TEST(Runtime, AChildUsingItsParentsScopeInsideTheLargeStackGetsAnError) {
  Pool pool(config(1));
  for (const char* operation : {"spawn", "sync"}) {
    std::string message;
    bool went_on = false;
    try {
      pool.run([&] {
        takt::Scope scope;
        scope.spawn([&] {
          takt::call_on_large_stack([&] {
            if (std::string(operation) == "spawn") {
              scope.spawn([] {});
            } else {
              scope.sync();
            }
            return 0;
          });
          went_on = true;
        });
        scope.sync();
        return 0;
      });
    } catch (const takt::Error& e) {
      message = e.what();
    }
    EXPECT_NE(message.find(std::string("takt::Scope::") + operation +
                           "() called from code that is not the strand that made the scope"),
              std::string::npos)
        << operation << ": " << message;
    EXPECT_FALSE(went_on) << operation;
  }
}

// A sync whose stack pointer lies below where a spawn may run (in the headroom the last
// 8 KiB of a 64 KiB stack keep for serial code) is the strand's own: it waits as usual.
__attribute__((noinline)) int sync_deep_in_the_stack(takt::Scope& scope) {
  char buffer[58 * 1024];
  std::memset(buffer, 1, sizeof buffer);
  asm volatile("" : : "r"(buffer) : "memory");  // keep the buffer
  scope.sync();
  return buffer[100];
}

TEST(Runtime, ASyncInTheStacksHeadroomIsTheStrandsOwn) {
  Pool pool(config(2));
  for (int run = 0; run < 20; ++run) {
    std::atomic<bool> child_done{false};
    const int r = pool.run([&] {
      takt::Scope scope;
      scope.spawn([&] {
        (void)takt::apps::fib(15);
        child_done = true;
      });
      return sync_deep_in_the_stack(scope) + (child_done.load() ? 1 : 0);
    });
    EXPECT_EQ(r, 2) << "run " << run << ": the sync returned before the child finished";
  }
}

// A child's wait until its parent's continuation has run on the other worker (so was
// stolen): at most 10 s, else the process exits 3.
void wait_until_continued(const std::atomic<bool>& continued) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!continued.load()) {
    if (std::chrono::steady_clock::now() > give_up) std::_Exit(3);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

// The parent spawns a child that waits until the parent's continuation runs on the other
// worker (so stolen; at most 10 s, else the child exits 3), then `end` ends the scope
// where it cannot wait for the child.
template <class End>
void end_scope_with_a_stolen_child(End end) {
  auto c = config(2);
  Pool pool(c);
  std::atomic<bool> continued{false};
  pool.run([&] {
    std::optional<takt::Scope> scope;
    scope.emplace();
    scope->spawn([&] {
      wait_until_continued(continued);
      end(scope, true);
    });
    continued = true;
    end(scope, false);
    return 0;
  });
  std::_Exit(4);  // neither side ended the process
}

// A scope whose memory went while a stolen child still ran would be written by the
// child when it finishes; where its destructor cannot wait it ends the process with a
// message instead (it used to return, or throw and be freed).
TEST(RuntimeDeathTest, AScopeEndingInsideTheLargeStackWithAStolenChildEndsTheProcess) {
  if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: the continuation is never stolen";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      end_scope_with_a_stolen_child([](std::optional<takt::Scope>& scope, bool child) {
        if (child) {
          for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // still running
        }
        takt::call_on_large_stack([&] { scope.reset(); });
      }),
      ::testing::KilledBySignal(SIGABRT),
      "takt: fatal: a takt::Scope ends while a child of it may still run, and it cannot wait where it ends: "
      "sync\\(\\) of a takt::Scope made outside takt::call_on_large_stack");
}

// Ended by its own running child, with nothing stolen: the child cannot know that no
// other child runs (it is one itself), so the process ends here too.
TEST(RuntimeDeathTest, AnOpenScopeEndedByItsOwnChildEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Pool pool(config(1));
        pool.run([] {
          std::optional<takt::Scope> scope;
          scope.emplace();
          scope->spawn([&] { scope.reset(); });
          return 0;
        });
        std::_Exit(4);
      },
      ::testing::KilledBySignal(SIGABRT),
      "takt: fatal: a takt::Scope ends while a child of it may still run, and it cannot wait where it ends: "
      "takt::Scope::~Scope\\(\\) called from code that is not the strand that made the scope");
}

TEST(RuntimeDeathTest, AScopeEndedByAnotherStrandWithAStolenChildEndsTheProcess) {
  if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: the continuation is never stolen";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      end_scope_with_a_stolen_child([](std::optional<takt::Scope>& scope, bool child) {
        if (child) {
          scope.reset();  // the child ends its parent's scope
          return;
        }
        for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the parent waits
      }),
      ::testing::KilledBySignal(SIGABRT),
      "takt: fatal: a takt::Scope ends while a child of it may still run, and it cannot wait where it ends: "
      "takt::Scope::~Scope\\(\\) called from code that is not the strand that made the scope");
}

// A Scope kept beyond its strand (here in a std::optional the test owns): the strand
// spawns into it, a thief takes the continuation, and the strand returns without a sync
// while the child still runs. The computation would go on (and `run` return) without
// the child; the strand's end ends the process instead. `nested`: the strand is a child
// of the root (its end is a join), else the root (its end finishes the job). Without
// the check the run returns and the process exits 4.
void return_with_a_stolen_open_scope(takt::testing::Variant variant, bool nested) {
  Pool pool(config(2, variant));
  std::optional<takt::Scope> kept;
  std::atomic<bool> continued{false};
  auto keep = [&] {
    kept.emplace();
    kept->spawn([&] {
      wait_until_continued(continued);
      for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // still running
    });
    continued = true;  // runs only once stolen: the child waits for it
  };
  pool.run([&] {
    if (!nested) {
      keep();
      return 0;
    }
    // The other worker steals the root's continuation first (the oldest), which parks
    // at the sync; then this strand's.
    takt::Scope scope;
    scope.spawn(keep);
    scope.sync();
    return 0;
  });
  std::_Exit(4);
}

TEST(RuntimeDeathTest, AStrandReturningWithAnOpenScopeAThiefContinuedEndsTheProcess) {
  if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: the continuation is never stolen";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (const takt::testing::Variant& variant : takt::testing::variants()) {  // every strategy reaches won()
    for (bool nested : {false, true}) {
      SCOPED_TRACE(takt::testing::name(variant) + (nested ? ", a child strand" : ", the root strand"));
      EXPECT_EXIT(
          return_with_a_stolen_open_scope(variant, nested), ::testing::KilledBySignal(SIGABRT),
          "takt: fatal: pool '[^']*': a strand ended while a takt::Scope it spawned into was not synced, "
          "and a thief had taken its continuation");
    }
  }
}

}  // namespace
