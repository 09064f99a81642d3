// Tests of Pipe: ordering, the change log and its cancellation rules, claims, emptiness bits.
#include "sched/pipe.hpp"
#include "sched/nonempty_set.hpp"
#include "sched_test_util.hpp"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

using namespace takt::sched;
using takt::sched::test::ids;
using takt::sched::test::TaskPool;

namespace {

using Entry = std::tuple<std::uint64_t, Change, std::int64_t>;

std::vector<Entry> changes(const Pipe& pipe) {
  std::vector<Entry> out;
  pipe.for_each_change([&](Task& t, Change c, std::int64_t key) { out.emplace_back(t.id, c, key); });
  return out;
}

std::size_t memberships(const Task& task, const Pipe& pipe) {
  // A task is a member of a pipe iff the pipe reports it queued or has a change for it.
  std::size_t n = pipe.contains(task) ? 1 : 0;
  pipe.for_each_change(
      [&](Task& t, Change c, std::int64_t) { n += (&t == &task && c == Change::removed) ? 1 : 0; });
  return n;
}

}  // namespace

TEST(Pipe, OrdersByKeyThenArrival) {
  TaskPool pool;
  Pipe pipe("p");
  PipeGuard lock(pipe);
  // keys 30, 10, 20, 10: the two tasks with key 10 keep their arrival order.
  pipe.add(pool.make(1), 30);
  pipe.add(pool.make(2), 10);
  pipe.add(pool.make(3), 20);
  pipe.add(pool.make(4), 10);
  EXPECT_EQ(ids(pipe.ordered()), (std::vector<std::uint64_t>{2, 4, 3, 1}));
  EXPECT_EQ(pipe.head()->id, 2u);
  EXPECT_EQ(pipe.size(), 4u);
  EXPECT_EQ(pipe.key_of(pool[2]), 20);
}

TEST(Pipe, KeepsOrderUnderManyRemovals) {
  // A heap must stay ordered after arbitrary removals: keys 0..99 shuffled in,
  // every third removed, the rest must come out sorted.
  TaskPool pool;
  Pipe pipe("p");
  PipeGuard lock(pipe);
  std::vector<int> keys;
  for (int i = 0; i < 100; ++i) keys.push_back((i * 37) % 100);
  for (int k : keys) pipe.add(pool.make(static_cast<std::uint64_t>(k)), k);
  for (int k = 0; k < 100; k += 3) {
    for (std::size_t i = 0; i < pool.size(); ++i) {
      if (pool[i].id == static_cast<std::uint64_t>(k)) {
        ASSERT_TRUE(pipe.remove(pool[i]));
      }
    }
  }
  std::vector<std::uint64_t> expected;
  for (int k = 0; k < 100; ++k) {
    if (k % 3 != 0) expected.push_back(static_cast<std::uint64_t>(k));
  }
  EXPECT_EQ(ids(pipe.ordered()), expected);
  std::vector<std::uint64_t> popped;
  while (Task* t = pipe.pop_head()) popped.push_back(t->id);
  EXPECT_EQ(popped, expected);
}

TEST(Pipe, LogsChangesInOrder) {
  TaskPool pool;
  Pipe pipe("p");
  PipeGuard lock(pipe);
  Task& a = pool.make(1);
  Task& b = pool.make(2);
  pipe.add(a, 5);
  pipe.add(b, 7);
  EXPECT_EQ(changes(pipe), (std::vector<Entry>{{1, Change::added, 5}, {2, Change::added, 7}}));
  pipe.clear_changes();
  EXPECT_FALSE(pipe.has_changes());
  EXPECT_TRUE(pipe.rekey(b, 3));
  EXPECT_TRUE(pipe.remove(a));
  EXPECT_EQ(changes(pipe), (std::vector<Entry>{{2, Change::moved, 3}, {1, Change::removed, 5}}));
  EXPECT_EQ(pipe.head()->id, 2u);
}

TEST(Pipe, AddThenRemoveCancelsOut) {
  TaskPool pool;
  Pipe pipe("p");
  PipeGuard lock(pipe);
  Task& a = pool.make(1);
  Task& b = pool.make(2);
  pipe.add(a, 1);
  pipe.add(b, 2);
  EXPECT_TRUE(pipe.remove(a));
  // Only b's addition is left: the consumer never hears of a.
  EXPECT_EQ(changes(pipe), (std::vector<Entry>{{2, Change::added, 2}}));
  EXPECT_EQ(memberships(a, pipe), 0u);
  EXPECT_FALSE(pipe.remove(a));
}

TEST(Pipe, RemoveThenAddIsAMove) {
  TaskPool pool;
  Pipe pipe("p");
  PipeGuard lock(pipe);
  Task& a = pool.make(1);
  pipe.add(a, 1);
  pipe.clear_changes();
  EXPECT_TRUE(pipe.remove(a));
  EXPECT_EQ(changes(pipe), (std::vector<Entry>{{1, Change::removed, 1}}));
  pipe.add(a, 9);
  EXPECT_EQ(changes(pipe), (std::vector<Entry>{{1, Change::moved, 9}}));
  EXPECT_TRUE(pipe.contains(a));
}

TEST(Pipe, RekeyOfAPendingAddStaysAnAddAndSameKeyIsNoChange) {
  TaskPool pool;
  Pipe pipe("p");
  PipeGuard lock(pipe);
  Task& a = pool.make(1);
  pipe.add(a, 1);
  EXPECT_TRUE(pipe.rekey(a, 4));
  EXPECT_EQ(changes(pipe), (std::vector<Entry>{{1, Change::added, 4}}));
  pipe.clear_changes();
  EXPECT_TRUE(pipe.rekey(a, 4));
  EXPECT_FALSE(pipe.has_changes());
  Task& stranger = pool.make(2);
  EXPECT_FALSE(pipe.rekey(stranger, 1));
}

TEST(Pipe, ClearingAProcessedRemovalEndsTheMembership) {
  TaskPool pool;
  Pipe first("first");
  Pipe second("second");
  Task& a = pool.make(1);
  {
    PipeGuard lock(first);
    first.add(a, 0);
    first.clear_changes();
    first.remove(a);
    EXPECT_EQ(memberships(a, first), 1u);  // the consumer still has to see the removal
    first.clear_changes();
    EXPECT_EQ(memberships(a, first), 0u);
  }
  // The task can join as many pipes as a pipeline is deep.
  std::vector<std::unique_ptr<Pipe>> chain;
  for (int i = 0; i < 10; ++i) {
    chain.push_back(std::make_unique<Pipe>("chain" + std::to_string(i), static_cast<std::size_t>(i)));
    PipeGuard lock(*chain.back());
    chain.back()->add(a, i);
  }
  for (auto& p : chain) {
    PipeGuard lock(*p);
    EXPECT_TRUE(p->contains(a));
    p->remove(a);
    p->clear_changes();
    EXPECT_FALSE(p->contains(a));
  }
}

TEST(Pipe, MarkAllAddedOffersEveryQueuedTaskInOrder) {
  TaskPool pool;
  Pipe pipe("p");
  PipeGuard lock(pipe);
  pipe.add(pool.make(1), 20);
  pipe.add(pool.make(2), 10);
  pipe.clear_changes();
  pipe.mark_all_added();
  EXPECT_EQ(changes(pipe), (std::vector<Entry>{{2, Change::added, 10}, {1, Change::added, 20}}));
  pipe.clear_changes();
  EXPECT_EQ(pipe.size(), 2u);
}

TEST(Pipe, TerminalPipeKeepsNoLogAndClaimsHead) {
  TaskPool pool;
  Pipe pipe("terminal");
  pipe.set_logging(false);
  PipeGuard lock(pipe);
  Task& a = pool.make(1);
  Task& b = pool.make(2);
  pipe.add(a, 2);
  pipe.add(b, 1);
  EXPECT_FALSE(pipe.has_changes());
  EXPECT_EQ(pipe.pop_head(), &b);
  EXPECT_EQ(pipe.size(), 1u);
  EXPECT_FALSE(pipe.contains(b));
  // The producer's later removal ends the claimed membership.
  EXPECT_TRUE(pipe.remove(b));
  EXPECT_FALSE(pipe.remove(b));
  EXPECT_EQ(pipe.head(), &a);
}

TEST(Pipe, ReportsEmptinessToItsFamilySet) {
  TaskPool pool;
  NonEmptySet set(3);
  Pipe pipe("p");
  pipe.watch(&set, 2);
  PipeGuard lock(pipe);
  EXPECT_FALSE(set.test(2));
  Task& a = pool.make(1);
  pipe.add(a, 0);
  EXPECT_TRUE(set.test(2));
  pipe.remove(a);
  EXPECT_FALSE(set.test(2));
}

TEST(NonEmptySet, FindsTheNextSetBitRoundTheSet) {
  NonEmptySet set(130);
  EXPECT_EQ(set.find_from(0, 999), 130u);  // nothing set
  set.set(5);
  set.set(70);
  set.set(129);
  EXPECT_EQ(set.find_from(0, 999), 5u);
  EXPECT_EQ(set.find_from(6, 999), 70u);
  EXPECT_EQ(set.find_from(71, 999), 129u);
  EXPECT_EQ(set.find_from(71, 129), 5u);  // skips 129, wraps round
  EXPECT_EQ(set.find_from(5, 5), 70u);
  set.clear(70);
  EXPECT_EQ(set.find_from(6, 999), 129u);
}
