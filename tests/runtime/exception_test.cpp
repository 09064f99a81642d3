// Exceptions propagate from children to the syncing parent and from the root to run().
#include "apps/fib.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using takt::Pool;
using takt::QueueStrategy;
using takt::testing::config;

// Every strategy, with the caller blocking and with the caller joining as worker 0.
class Exceptions : public ::testing::TestWithParam<takt::testing::Variant> {};

INSTANTIATE_TEST_SUITE_P(Runtime, Exceptions, ::testing::ValuesIn(takt::testing::variants()),
                         [](const auto& info) { return takt::testing::name(info.param); });

struct Boom : std::runtime_error {
  explicit Boom(int where) : std::runtime_error("boom at " + std::to_string(where)), where(where) {}
  int where;
  int worker = takt::current_worker();  ///< where it was thrown
};

// fib that throws at one chosen leaf; the rest of the tree keeps running.
std::uint64_t fib_throwing(std::uint64_t n, std::uint64_t path, std::uint64_t target) {
  if (n < 2) {
    if (path == target) throw Boom(static_cast<int>(path));
    return n;
  }
  std::uint64_t a = 0, b = 0;
  takt::Scope scope;
  scope.spawn([&] { a = fib_throwing(n - 1, path * 2, target); });
  b = fib_throwing(n - 2, path * 2 + 1, target);
  scope.sync();
  return a + b;
}

TEST_P(Exceptions, ChildExceptionReachesTheSyncAndRun) {
  Pool pool(config(2, GetParam()));
  // Path 1 << 15 is the leftmost leaf of fib(16): reached through spawned children only.
  try {
    pool.run([] { return fib_throwing(16, 1, 1u << 15); });
    FAIL() << "expected Boom";
  } catch (const Boom& e) {
    EXPECT_EQ(e.where, 1 << 15);
  }
  // The pool is still usable afterwards.
  EXPECT_EQ(pool.run([] { return takt::apps::fib(18); }), takt::apps::fib_serial(18));
}

// Outside a pool (the serial elision) a child's exception came out of spawn(), so code
// that handles it at sync() (as it must on a pool) let it escape, and the continuation
// after the spawn did not run. Now it is kept for sync(), as on a pool.
TEST(SerialElision, AChildExceptionReachesTheSyncAndTheContinuationRuns) {
  ASSERT_FALSE(takt::in_pool());
  bool continued = false;
  std::string caught_at;
  takt::Scope scope;
  try {
    scope.spawn([] { throw Boom(1); });
    scope.spawn([] { throw Boom(2); });  // the first one wins
    continued = true;
  } catch (const Boom&) {
    caught_at = "spawn";
  }
  try {
    scope.sync();
  } catch (const Boom& e) {
    caught_at = "sync " + std::to_string(e.where);
  }
  EXPECT_TRUE(continued);
  EXPECT_EQ(caught_at, "sync 1");
  // The same tree as on a pool: the leaf's exception reaches the caller.
  EXPECT_THROW(fib_throwing(12, 1, 1u << 11), Boom);
  // A scope destroyed without sync rethrows, as on a pool.
  EXPECT_THROW(
      {
        takt::Scope forgotten;
        forgotten.spawn([] { throw Boom(3); });
      },
      Boom);
}

// Paths of the leaves of fib(n), in the numbering of fib_throwing.
void leaf_paths(std::uint64_t n, std::uint64_t path, std::vector<std::uint64_t>& out) {
  if (n < 2) {
    out.push_back(path);
    return;
  }
  leaf_paths(n - 1, path * 2, out);
  leaf_paths(n - 2, path * 2 + 1, out);
}

// Each leaf's run is repeated until a steal happened in it, and one of them until the
// exception was seen crossing workers (thrown on one, caught by the root strand on the
// other: it went through a scope whose continuation was stolen), each giving up after 500
// runs and 10 s (both): on a loaded machine the other worker may get no CPU during many
// short runs in a row.
TEST_P(Exceptions, ExceptionsDeepInsideStolenWorkPropagate) {
  Pool pool(config(2, GetParam()));
  std::vector<std::uint64_t> leaves;
  leaf_paths(17, 1, leaves);
  ASSERT_EQ(leaves.size(), takt::apps::fib_serial(18));  // fib(n) has fib(n+1) leaves
  bool stolen = false, crossed = false;
  auto attempt = [&](std::uint64_t target) {
    int caught_on = -1;
    pool.reset_statistics();
    try {
      pool.run([target, &caught_on] {
        try {
          return fib_throwing(17, 1, target);
        } catch (const Boom&) {
          caught_on = takt::current_worker();
          throw;
        }
      });
      ADD_FAILURE() << "expected Boom for leaf " << target;
    } catch (const Boom& e) {
      EXPECT_EQ(e.where, static_cast<int>(target));
      crossed = crossed || e.worker != caught_on;
    }
    stolen = pool.total_statistics().steals > 0;
  };
  using Clock = std::chrono::steady_clock;
  for (std::size_t pick : {std::size_t{0}, leaves.size() / 3, leaves.size() / 2, leaves.size() - 1}) {
    stolen = false;
    const auto give_up = Clock::now() + std::chrono::seconds(10);
    for (int i = 0; !stolen && (i < 500 || Clock::now() < give_up); ++i) attempt(leaves[pick]);
    EXPECT_TRUE(stolen) << "leaf " << leaves[pick] << ": no run had a steal in 500 runs and 10 s";
  }
  const auto give_up = Clock::now() + std::chrono::seconds(10);
  for (int i = 0; !crossed && (i < 500 || Clock::now() < give_up); ++i) attempt(leaves[leaves.size() / 2]);
  EXPECT_TRUE(crossed) << "no exception crossed workers in 500 runs and 10 s";
  EXPECT_EQ(pool.run([] { return takt::apps::fib(16); }), takt::apps::fib_serial(16));
}

TEST_P(Exceptions, ManyChildrenThrowingGiveOneException) {
  Pool pool(config(2, GetParam()));
  std::atomic<int> thrown{0};
  try {
    pool.run([&] {
      takt::parallel_for(0, 5000, 1, [&](int i) {
        if (i % 7 == 0) {
          thrown.fetch_add(1);
          throw Boom(i);
        }
      });
    });
    FAIL() << "expected Boom";
  } catch (const Boom& e) {
    EXPECT_EQ(e.where % 7, 0);
  }
  EXPECT_GT(thrown.load(), 0);
}

TEST_P(Exceptions, RootExceptionReachesRun) {
  Pool pool(config(2, GetParam()));
  EXPECT_THROW(pool.run([]() -> int { throw Boom(-1); }), Boom);
}

TEST_P(Exceptions, ParentExceptionWinsAndChildrenStillFinish) {
  Pool pool(config(2, GetParam()));
  std::atomic<int> finished{0};
  try {
    pool.run([&] {
      takt::Scope scope;
      for (int i = 0; i < 8; ++i) {
        scope.spawn([&finished] {
          takt::apps::fib(15);
          finished.fetch_add(1);
          throw Boom(1);
        });
      }
      throw Boom(2);  // the scope's destructor syncs while this exception unwinds
    });
    FAIL() << "expected Boom";
  } catch (const Boom& e) {
    EXPECT_EQ(e.where, 2);
  }
  EXPECT_EQ(finished.load(), 8);
}

/// Waits up to 10 s for `flag`; false if it was not set (nobody stole: give up). A
/// steal comes within milliseconds, or within the idle worker's safety-net timeout (at
/// most about 1 s) should a wake-up be lost, so only a broken pool reaches the bound; a
/// loaded machine may well exceed a bound of 200 ms.
bool wait_until_set(const std::atomic<bool>& flag) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!flag.load() && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  return flag.load();
}

/// Spawns a child that holds its worker until the continuation has started elsewhere
/// (stolen); the continuation waits for the child to finish, so that the sync does not
/// park and the strand stays on the thief. Sets `gave_up` when nobody stole it.
void spawn_and_get_stolen(std::atomic<bool>& gave_up) {
  std::atomic<bool> continued{false}, child_done{false};
  takt::Scope scope;
  scope.spawn([&] {
    if (!wait_until_set(continued)) gave_up = true;
    child_done = true;
  });
  continued = true;
  wait_until_set(child_done);
  std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the child arrives at the join
  scope.sync();
}

TEST_P(Exceptions, HandlersMaySpawnAndRethrowAfterMigrating) {
  // Inside a catch block the strand spawns and syncs, so it may be stolen and continue
  // on another thread; `throw;` then needs the handler's exception on that thread, and
  // std::uncaught_exceptions() must be right in the scope destructors that unwind. The
  // handler's continuation is made to be stolen; rounds are repeated (at least 20) until
  // the handler was seen to continue on another worker, giving up after 200 rounds and
  // 10 s (both). A round in which nobody stole within 10 s fails the test (gave_up).
  using Clock = std::chrono::steady_clock;
  Pool pool(config(2, GetParam()));
  int migrated = 0;
  std::atomic<bool> gave_up{false};
  auto more_rounds = [&](int round, Clock::time_point until) {
    return !gave_up && (round < 20 || (migrated == 0 && (round < 200 || Clock::now() < until)));
  };
  auto until = Clock::now() + std::chrono::seconds(10);
  for (int round = 0; more_rounds(round, until); ++round) {
    int caught = -1;
    try {
      pool.run([&migrated, &gave_up] {
        try {
          throw Boom(7);
        } catch (const Boom&) {
          EXPECT_EQ(std::uncaught_exceptions(), 0);
          const int before = takt::current_worker();
          spawn_and_get_stolen(gave_up);
          if (takt::current_worker() != before) ++migrated;
          EXPECT_EQ(takt::apps::fib(16), takt::apps::fib_serial(16));  // spawns and syncs
          throw;
        }
      });
    } catch (const Boom& e) {
      caught = e.where;
    }
    ASSERT_EQ(caught, 7) << "round " << round;
  }
  EXPECT_FALSE(gave_up) << "the handler's continuation was not stolen within 10 s";
  EXPECT_GT(migrated, 0) << "no handler continued on another worker";
  // Unwinding through scopes whose syncs park: every frame sees the unwinding, also the
  // ones unwound after the strand resumed from the park on another worker. The strand is
  // stolen and throws while its child still runs; repeated (as above) until that
  // migration was seen (the workers on either side of the sync differ).
  struct CheckUnwinding {
    int* worker;
    ~CheckUnwinding() {
      EXPECT_EQ(std::uncaught_exceptions(), 1);
      *worker = takt::current_worker();
    }
  };
  migrated = 0;
  gave_up = false;
  until = Clock::now() + std::chrono::seconds(10);
  for (int round = 0; more_rounds(round, until); ++round) {
    int before = -1, after = -1;
    EXPECT_THROW(pool.run([&] {
      CheckUnwinding after_the_sync{&after};
      std::atomic<bool> continued{false};
      takt::Scope scope;
      scope.spawn([&] {
        if (!wait_until_set(continued)) gave_up = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // still running at the sync
        takt::apps::fib(14);
      });
      continued = true;
      CheckUnwinding before_the_sync{&before};
      throw Boom(8);
    }),
                 Boom);
    if (before != after) ++migrated;
  }
  EXPECT_FALSE(gave_up) << "the throwing strand was not stolen within 10 s";
  EXPECT_GT(migrated, 0) << "no unwinding strand resumed on another worker after its sync";
  EXPECT_EQ(std::uncaught_exceptions(), 0);
}

TEST_P(Exceptions, DestructorRethrowsWhenSyncWasForgotten) {
  Pool pool(config(2, GetParam()));
  EXPECT_THROW(pool.run([] {
                 takt::Scope scope;
                 scope.spawn([] { throw Boom(3); });
               }),
               Boom);
}

/// A destructor that does parallel work while an exception unwinds its frame: its own
/// scope's child exception is not the unwinding one, so the scope's destructor rethrows
/// it (caught in the destructor here) rather than dropping it.
struct ParallelCleanup {
  std::string* seen;
  ~ParallelCleanup() {
    try {
      takt::Scope scope;
      scope.spawn([] { throw Boom(5); });
      takt::apps::fib(12);  // the continuation, which a thief may take
    } catch (const Boom& e) {
      *seen = e.what();
    }
  }
};

void throw_through_parallel_cleanup(std::string& seen) {
  try {
    ParallelCleanup cleanup{&seen};
    throw std::logic_error("unwinding");
  } catch (const std::logic_error&) {
  }
}

TEST_P(Exceptions, AScopeMadeWhileAnotherExceptionUnwindsKeepsItsChildsException) {
  // Until 2026-11-28 ~Scope dropped children's exceptions whenever any exception was in
  // flight (std::uncaught_exceptions() > 0), so `seen` stayed empty.
  Pool pool(config(2, GetParam()));
  for (int round = 0; round < 20; ++round) {
    std::string seen;
    pool.run([&] { throw_through_parallel_cleanup(seen); });
    ASSERT_EQ(seen, "boom at 5") << "round " << round;
  }
}

TEST(SerialElision, AScopeMadeWhileAnotherExceptionUnwindsKeepsItsChildsException) {
  std::string seen;
  throw_through_parallel_cleanup(seen);
  EXPECT_EQ(seen, "boom at 5");
}

TEST_P(Exceptions, SyncCanBeCalledAgainAfterAnException) {
  Pool pool(config(2, GetParam()));
  int after = pool.run([] {
    takt::Scope scope;
    scope.spawn([] { throw Boom(4); });
    try {
      scope.sync();
    } catch (const Boom&) {
    }
    int x = 0;
    scope.spawn([&] { x = 42; });
    scope.sync();
    return x;
  });
  EXPECT_EQ(after, 42);
}

}  // namespace
