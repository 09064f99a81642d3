// The strand observer: events describe the fork-join DAG consistently.
#include "apps/fib.hpp"
#include "takt/runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>
#include <vector>

namespace {

using Kind = takt::ext::StrandEvent::Kind;

struct Recorder final : takt::ext::StrandObserver {
  explicit Recorder(std::size_t capacity) { events.reserve(capacity); }
  void on_event(const takt::ext::StrandEvent& e) noexcept override {
    std::lock_guard lock(mutex);
    if (events.size() < events.capacity()) events.push_back(e);
  }
  std::mutex mutex;
  std::vector<takt::ext::StrandEvent> events;
};

TEST(StrandObserver, EventsDescribeTheForkJoinDag) {
  takt::Pool pool(takt::testing::config(2));
  Recorder recorder(1 << 20);
  pool.extension().set_observer(&recorder);
  const std::uint64_t n = 16;
  EXPECT_EQ(pool.run([n] { return takt::apps::fib(n); }), takt::apps::fib_serial(n));
  pool.extension().set_observer(nullptr);
  // With the observer gone, nothing more is recorded.
  std::size_t recorded = recorder.events.size();
  pool.run([] { return takt::apps::fib(10); });
  ASSERT_EQ(recorder.events.size(), recorded);

  const std::uint64_t spawns = takt::apps::fib_spawns(n);
  std::map<Kind, std::uint64_t> count;
  std::map<std::uint64_t, std::uint64_t> strands_of;  // task -> spawn + joined events
  std::map<std::uint64_t, std::uint32_t> last_strand;  // task -> strand index at task_end
  std::map<std::uint64_t, std::uint64_t> parent_of;
  std::set<std::pair<std::uint64_t, std::uint64_t>> spawn_edges;
  for (const auto& e : recorder.events) {
    ++count[e.kind];
    EXPECT_LT(e.worker, 2u);
    switch (e.kind) {
      case Kind::task_begin:
        EXPECT_EQ(e.strand, 0u);
        parent_of[e.task] = e.other;
        break;
      case Kind::spawn:
        spawn_edges.insert({e.task, e.other});
        ++strands_of[e.task];
        break;
      case Kind::joined:
        ++strands_of[e.task];
        break;
      case Kind::task_end:
        last_strand[e.task] = e.strand;
        break;
      default:
        break;
    }
  }
  EXPECT_EQ(count[Kind::task_begin], spawns + 1);  // every child and the root
  EXPECT_EQ(count[Kind::task_end], spawns + 1);
  EXPECT_EQ(count[Kind::spawn], spawns);
  EXPECT_EQ(count[Kind::resume], spawns);  // each continuation starts exactly once
  EXPECT_EQ(count[Kind::sync], count[Kind::joined]);
  EXPECT_EQ(count[Kind::sync], spawns);  // fib syncs once per spawn
  for (auto [task, parent] : parent_of) {
    if (parent == 0) continue;  // the root
    EXPECT_TRUE(spawn_edges.count({parent, task})) << "task " << task << " begun without a spawn edge";
  }
  // A task's last strand index counts the boundaries it crossed: spawns and joins.
  for (auto [task, last] : last_strand) EXPECT_EQ(last, strands_of[task]) << "task " << task;
  // Timestamps of one task's events never go backwards.
  std::map<std::uint64_t, std::chrono::nanoseconds> last_time;
  for (const auto& e : recorder.events) {
    auto it = last_time.find(e.task);
    if (it != last_time.end()) {
      EXPECT_GE(e.time, it->second);
    }
    last_time[e.task] = e.time;
  }
}

}  // namespace
