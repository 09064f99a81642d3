// The DAG measures from strand events: hand-computed examples, online = offline, and parallel runs rebuild
// the same DAG.
#include "profiler/dag.hpp"
#include "apps/fib.hpp"
#include "os/cpu.hpp"
#include "profiler/event_log.hpp"
#include "profiler/span_observer.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"

#include "../runtime/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

namespace {

using std::chrono::nanoseconds;
using namespace std::chrono_literals;
using Kind = takt::ext::StrandEvent::Kind;
using takt::profiler::Burden;
using takt::profiler::DagMeasure;

takt::ext::StrandEvent ev(Kind kind, std::int64_t t, std::uint64_t task, std::uint32_t strand,
                          std::uint64_t other = 0, std::uint64_t scope = 0, std::uint32_t worker = 0) {
  takt::ext::StrandEvent e;
  e.kind = kind;
  e.time = nanoseconds(t);
  e.task = task;
  e.strand = strand;
  e.other = other;
  e.scope = scope;
  e.worker = worker;
  return e;
}

/// Root R (task 1) spawns A (task 2) and B (task 3) in scope 1, then syncs:
///   R0 [0,10]  A [10,40]  R1 [41,45]  B [45,65]  R2 [66,70]  sync  R3 [70,80]
std::vector<takt::ext::StrandEvent> two_children() {
  return {ev(Kind::task_begin, 0, 1, 0),        ev(Kind::spawn, 10, 1, 0, 2, 1),
          ev(Kind::task_begin, 10, 2, 0, 1, 1), ev(Kind::task_end, 40, 2, 0),
          ev(Kind::resume, 41, 1, 1),           ev(Kind::spawn, 45, 1, 1, 3, 1),
          ev(Kind::task_begin, 45, 3, 0, 1, 1), ev(Kind::task_end, 65, 3, 0),
          ev(Kind::resume, 66, 1, 2),           ev(Kind::sync, 70, 1, 2, 0, 1),
          ev(Kind::joined, 70, 1, 3, 0, 1),     ev(Kind::task_end, 80, 1, 3)};
}

void expect_two_children(const DagMeasure& m) {
  // Plain: R0 ends at 10; A ends at 40; R1 runs 10 → 14; B ends at 34; R2 14 → 18;
  // the sync joins at max(18, 40, 34) = 40; R3 ends at 50.
  EXPECT_EQ(m.span, nanoseconds(50));
  // Burdened (spawn 100 per continuation edge, sync 7 per return edge): A's return 40 + 7 = 47;
  // R1 starts at 10 + 100 = 110, ends 114; B ends 134, returns 141; R2 starts 214, ends 218;
  // the sync joins at max(218, 47, 141) = 218; R3 ends at 228.
  EXPECT_EQ(m.burdened_span, nanoseconds(228));
  EXPECT_EQ(m.strand_work, nanoseconds(10 + 30 + 4 + 20 + 4 + 10));
  EXPECT_EQ(m.longest_strand, nanoseconds(30));
  EXPECT_EQ(m.strands, 6u);
  EXPECT_EQ(m.spawns, 2u);
  EXPECT_EQ(m.syncs, 1u);
}

const Burden kBurden{nanoseconds(100), nanoseconds(7)};

TEST(SpanObserver, TwoChildrenByHand) {
  takt::profiler::SpanObserver observer({4, 16}, kBurden);
  for (const auto& e : two_children()) observer.on_event(e);
  expect_two_children(observer.result());
  // reset() starts afresh: the same job again gives the same numbers.
  observer.reset();
  for (const auto& e : two_children()) observer.on_event(e);
  expect_two_children(observer.result());
}

TEST(MeasureDag, TwoChildrenByHandInAnyEventOrder) {
  std::vector<takt::ext::StrandEvent> events = two_children();
  expect_two_children(takt::profiler::measure_dag(events, kBurden));
  std::mt19937 rng(5);
  std::shuffle(events.begin(), events.end(), rng);
  expect_two_children(takt::profiler::measure_dag(events, kBurden));
}

TEST(MeasureDag, AStolenContinuationByHand) {
  // Root R (task 1) spawns A (task 2) at 10 on worker 0 and runs A there; worker 1
  // steals the continuation R1 at 12, runs it to its sync at 20 and leaves (A is not
  // done); A ends at 40 and worker 0 resumes R after the join at 41:
  //   worker 0: R0 [0,10]  A [10,40]          R2 [41,50]
  //   worker 1:            R1 [12,20] sync
  // Plain: A ends at 10 + 30 = 40; R1 runs 10 → 18; the join takes max(18, 40) = 40;
  // R2 ends at 49 (the steal's 2 ns and the join's 1 ns are not strand time).
  // Burdened (100 per continuation edge, 7 per return edge): A returns at 47; R1 starts at
  // 110, ends at 118; the join at max(118, 47) = 118; R2 ends at 127.
  std::vector<takt::ext::StrandEvent> events = {
      ev(Kind::task_begin, 0, 1, 0),           ev(Kind::spawn, 10, 1, 0, 2, 1),
      ev(Kind::task_begin, 10, 2, 0, 1, 1),    ev(Kind::resume, 12, 1, 1, 0, 0, 1),
      ev(Kind::sync, 20, 1, 1, 0, 1, 1),       ev(Kind::task_end, 40, 2, 0),
      ev(Kind::joined, 41, 1, 2, 0, 1),        ev(Kind::task_end, 50, 1, 2)};
  events[3].stolen = true;
  for (int order = 0; order < 2; ++order) {
    const DagMeasure m = takt::profiler::measure_dag(events, kBurden);
    EXPECT_EQ(m.span, nanoseconds(49));
    EXPECT_EQ(m.burdened_span, nanoseconds(127));
    EXPECT_EQ(m.strand_work, nanoseconds(10 + 30 + 8 + 9));
    EXPECT_EQ(m.longest_strand, nanoseconds(30));
    EXPECT_EQ(m.strands, 4u);
    EXPECT_EQ(m.spawns, 1u);
    EXPECT_EQ(m.syncs, 1u);
    std::mt19937 rng(11);
    std::shuffle(events.begin(), events.end(), rng);
  }
}

TEST(SpanObserver, TwoScopesOfOneTaskJoinSeparately) {
  // Task 1 opens scope 1 (spawns A, 100 long), then scope 2 (spawns B, 5 long), syncs
  // scope 2 first, runs 10, then syncs scope 1: the first join waits for B only.
  //   R0 [0,1] A [1,101] R1 [101,102] B [102,107] R2 [107,108] sync2 R3 [108,118] sync1 R4 [118,120]
  std::vector<takt::ext::StrandEvent> events = {
      ev(Kind::task_begin, 0, 1, 0),         ev(Kind::spawn, 1, 1, 0, 2, 1),
      ev(Kind::task_begin, 1, 2, 0, 1, 1),   ev(Kind::task_end, 101, 2, 0),
      ev(Kind::resume, 101, 1, 1),           ev(Kind::spawn, 102, 1, 1, 3, 2),
      ev(Kind::task_begin, 102, 3, 0, 1, 2), ev(Kind::task_end, 107, 3, 0),
      ev(Kind::resume, 107, 1, 2),           ev(Kind::sync, 108, 1, 2, 0, 2),
      ev(Kind::joined, 108, 1, 3, 0, 2),     ev(Kind::sync, 118, 1, 3, 0, 1),
      ev(Kind::joined, 118, 1, 4, 0, 1),     ev(Kind::task_end, 120, 1, 4)};
  // Plain: R0 → 1; A → 101; R1 1 → 2; B → 7; R2 2 → 3; join 2: max(3, 7) = 7; R3 → 17;
  // join 1: max(17, 101) = 101; R4 → 103.
  takt::profiler::SpanObserver observer({4, 16}, Burden{});
  for (const auto& e : events) observer.on_event(e);
  EXPECT_EQ(observer.result().span, nanoseconds(103));
  EXPECT_EQ(takt::profiler::measure_dag(events, Burden{}).span, nanoseconds(103));
}

TEST(SpanObserver, SpawnsAlternatingBetweenOpenScopesNeedOneEntryPerScope) {
  // Task 1 keeps scopes 1 and 2 open and spawns 200 times into them in turn (each root
  // strand and each child 1 ns long), then syncs 2 and 1. A spawn into the scope below
  // the top used to copy its entry to the top and leave a closed copy behind, so the
  // observer needed an entry per spawn.
  std::vector<takt::ext::StrandEvent> events = {ev(Kind::task_begin, 0, 1, 0)};
  std::int64_t t = 0;
  std::uint32_t strand = 0;
  std::uint64_t child = 2;
  auto spawn = [&](std::uint64_t scope) {
    events.push_back(ev(Kind::spawn, t + 1, 1, strand, child, scope));
    events.push_back(ev(Kind::task_begin, t + 1, child, 0, 1, scope));
    events.push_back(ev(Kind::task_end, t + 2, child, 0));
    events.push_back(ev(Kind::resume, t + 2, 1, ++strand));
    ++child;
    t += 2;
  };
  auto sync = [&](std::uint64_t scope) {
    events.push_back(ev(Kind::sync, t + 1, 1, strand, 0, scope));
    events.push_back(ev(Kind::joined, t + 1, 1, ++strand, 0, scope));
    t += 1;
  };
  for (int i = 0; i < 200; ++i) spawn(1 + i % 2);
  sync(2);
  sync(1);
  events.push_back(ev(Kind::task_end, t + 1, 1, strand));
  // 200 root strands, then one before each sync and one at the end: the last child
  // (scope 2) ends with the root's 200th strand + 1 = 201; 202 after sync 2, 203 at the end.
  takt::profiler::SpanObserver observer({4, 16}, kBurden);
  for (const auto& e : events) observer.on_event(e);
  const DagMeasure online = observer.result();
  const DagMeasure offline = takt::profiler::measure_dag(events, kBurden);
  EXPECT_EQ(online.span, nanoseconds(203));
  EXPECT_EQ(offline.span, nanoseconds(203));
  EXPECT_EQ(online.burdened_span, offline.burdened_span);
  EXPECT_EQ(online.spawns, 200u);

  // Syncs alternating with spawns while the other scope stays open: a scope that synced
  // and spawns again takes a free entry, so two entries suffice throughout.
  events = {ev(Kind::task_begin, 0, 1, 0)};
  t = 0;
  strand = 0;
  child = 2;
  spawn(1);
  spawn(2);
  for (int i = 0; i < 100; ++i) {
    sync(1);
    spawn(1);
    sync(2);
    spawn(2);
  }
  sync(1);
  sync(2);
  events.push_back(ev(Kind::task_end, t + 1, 1, strand));
  takt::profiler::SpanObserver tight({4, 2}, kBurden);
  for (const auto& e : events) tight.on_event(e);
  const DagMeasure measured = tight.result();
  EXPECT_EQ(measured.span, takt::profiler::measure_dag(events, kBurden).span);
  EXPECT_EQ(measured.burdened_span, takt::profiler::measure_dag(events, kBurden).burdened_span);
}

TEST(SpanObserver, RefusesEventsOfASecondWorker) {
  takt::profiler::SpanObserver observer({4, 16}, Burden{});
  auto events = two_children();
  events[4].worker = 1;  // R1 resumed elsewhere
  events[4].stolen = true;
  for (const auto& e : events) observer.on_event(e);
  try {
    (void)observer.result();
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("one worker"), std::string::npos) << e.what();
  }
}

TEST(SpanObserver, TooDeepAndUnfinishedJobsAreErrors) {
  takt::profiler::SpanObserver shallow({1, 16}, Burden{});  // room for the root and one more frame
  // Root → A → C: three frames.
  for (const auto& e :
       {ev(Kind::task_begin, 0, 1, 0), ev(Kind::spawn, 1, 1, 0, 2, 1), ev(Kind::task_begin, 1, 2, 0, 1, 1),
        ev(Kind::spawn, 2, 2, 0, 3, 1), ev(Kind::task_begin, 2, 3, 0, 2, 1)}) {
    shallow.on_event(e);
  }
  EXPECT_THROW((void)shallow.result(), takt::Error);
  takt::profiler::SpanObserver unfinished({4, 16}, Burden{});
  unfinished.on_event(ev(Kind::task_begin, 0, 1, 0));
  EXPECT_THROW((void)unfinished.result(), takt::Error);
}

TEST(MeasureDag, IncompleteEventsAreErrors) {
  EXPECT_THROW((void)takt::profiler::measure_dag({}, Burden{}), takt::Error);
  auto events = two_children();
  events.pop_back();  // no task_end of the root
  EXPECT_THROW((void)takt::profiler::measure_dag(events, Burden{}), takt::Error);
  events = two_children();
  events.erase(events.begin() + 2);  // A never began
  EXPECT_THROW((void)takt::profiler::measure_dag(events, Burden{}), takt::Error);
}

/// Forwards every event to two observers.
class Tee final : public takt::ext::StrandObserver {
 public:
  Tee(takt::ext::StrandObserver& a, takt::ext::StrandObserver& b) : a_(a), b_(b) {}
  void on_event(const takt::ext::StrandEvent& e) noexcept override {
    a_.on_event(e);
    b_.on_event(e);
  }

 private:
  takt::ext::StrandObserver& a_;
  takt::ext::StrandObserver& b_;
};

takt::PoolConfig one_measuring_worker() {
  takt::PoolConfig c;
  c.workers = 1;
  c.measurement_mode = true;
  c.memory.depth = 32;
  c.memory.stack_size = 64 * 1024;
  c.memory.large_stack_size = 0;
  c.prefault = false;
  c.name = "observed";
  return c;
}

TEST(SpanObserver, AgreesExactlyWithTheOfflineRebuildOnRandomTrees) {
  // Random fork-join trees with spawns, direct calls and syncs in the middle of scopes.
  takt::Pool pool(one_measuring_worker());
  takt::profiler::SpanObserver online({32, 4096}, kBurden);
  takt::profiler::EventLog log(1, 1 << 16);
  Tee tee(online, log);
  pool.extension().set_observer(&tee);
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    online.reset();
    log.clear();
    pool.run([seed] { return takt::testing::random_tree(seed, 6); });
    ASSERT_EQ(log.dropped(), 0u);
    const DagMeasure a = online.result();
    const auto events = log.events();
    const DagMeasure b = takt::profiler::measure_dag(events, kBurden);
    EXPECT_EQ(a.span, b.span) << "seed " << seed;
    EXPECT_EQ(a.burdened_span, b.burdened_span) << "seed " << seed;
    EXPECT_EQ(a.strand_work, b.strand_work);
    EXPECT_EQ(a.strands, b.strands);
    EXPECT_EQ(a.spawns, b.spawns);
    EXPECT_EQ(a.syncs, b.syncs);
    EXPECT_LE(a.span, a.strand_work);
    EXPECT_GE(a.burdened_span, a.span);
    // Every task contributes one strand, plus one per spawn and per sync it ends with.
    EXPECT_EQ(a.strands, (a.spawns + 1) + a.spawns + a.syncs);
  }
  pool.extension().set_observer(nullptr);
}

TEST(MeasureDag, AParallelRunRebuildsTheSameDag) {
  // fib(n): fib_spawns(n) spawns, each in its own scope that syncs once.
  const std::uint64_t n = 14;
  takt::PoolConfig config;
  config.workers = 2;
  config.memory.depth = 32;
  config.name = "observed parallel";
  takt::Pool pool(config);
  takt::profiler::EventLog log(2, 1 << 16);
  pool.extension().set_observer(&log);
  // Runs until a continuation was stolen, at most 10 s: a run of fib(14) takes about
  // 0.1 ms, less than a busy machine may take to wake and schedule the second worker, so
  // a fixed 100 runs could all end before it got a CPU.
  std::uint64_t stolen = 0;
  int rounds = 0;
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  for (; stolen == 0 && std::chrono::steady_clock::now() < give_up; ++rounds) {
    log.clear();
    EXPECT_EQ(pool.run([n] { return takt::apps::fib(n); }), takt::apps::fib_serial(n));
    ASSERT_EQ(log.dropped(), 0u);
    const auto events = log.events();
    stolen = static_cast<std::uint64_t>(std::count_if(
        events.begin(), events.end(), [](const auto& e) { return e.kind == Kind::resume && e.stolen; }));
    const DagMeasure m = takt::profiler::measure_dag(events, Burden{});
    EXPECT_EQ(m.spawns, takt::apps::fib_spawns(n));
    EXPECT_EQ(m.syncs, takt::apps::fib_spawns(n));
    EXPECT_EQ(m.strands, 1 + 3 * takt::apps::fib_spawns(n));
    EXPECT_LE(m.span, m.strand_work);
  }
  pool.extension().set_observer(nullptr);
  if (stolen == 0) {
    // On one CPU two workers may never overlap; on two or more, no steal in 10 s is
    // broken stealing, which a skip would hide.
    if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: no continuation was stolen in 10 s";
    ADD_FAILURE() << "no continuation was stolen in " << rounds << " runs (10 s) of fib(" << n << ") on two workers";
  }
}

}  // namespace

namespace {

TEST(EventLog, EventsItCannotHoldAreCountedAsDropped) {
  // One worker, two events of room: a third is dropped, and so is an event of a worker
  // the log has no buffer for (it was ignored without a count, so a caller trusting
  // dropped() == 0 could build from a partial log). clear() forgets both counts.
  takt::profiler::EventLog log(1, 2);
  takt::ext::StrandEvent e;
  e.kind = Kind::task_begin;
  for (int i = 0; i < 3; ++i) log.on_event(e);
  EXPECT_EQ(log.events().size(), 2u);
  EXPECT_EQ(log.dropped(), 1u);
  e.worker = 1;
  log.on_event(e);
  EXPECT_EQ(log.dropped(), 2u);
  EXPECT_EQ(log.events().size(), 2u);
  log.clear();
  EXPECT_EQ(log.dropped(), 0u);
  EXPECT_TRUE(log.events().empty());
}

}  // namespace
