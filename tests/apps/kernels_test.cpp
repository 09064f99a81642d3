// The benchmark kernels compute what their serial versions and the papers say.
#include "apps/fib.hpp"
#include "apps/matmul.hpp"
#include "apps/synthetic.hpp"
#include "apps/uts.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include <vector>

namespace {

takt::PoolConfig two_workers(std::size_t depth = 64) {
  takt::PoolConfig c;
  c.workers = 2;
  c.memory.depth = depth;
  c.memory.stack_size = 32 * 1024;
  c.name = "apps";
  return c;
}

TEST(Fib, ValuesAndSpawnCount) {
  EXPECT_EQ(takt::apps::fib_serial(30), 832040u);
  EXPECT_EQ(takt::apps::fib_spawns(0), 0u);
  EXPECT_EQ(takt::apps::fib_spawns(2), 1u);
  EXPECT_EQ(takt::apps::fib_spawns(30), 1346268u);  // fib(31) - 1
  takt::Pool pool(two_workers());
  EXPECT_EQ(pool.run([] { return takt::apps::fib(25); }), 75025u);
}

TEST(Uts, PaperTreeHasAbout71000Nodes) {
  // P³LS³ §5.1: "a tree with about 71,000 nodes".
  takt::apps::UtsResult serial = takt::apps::uts_serial(takt::apps::uts_p3ls3);
  EXPECT_EQ(serial.nodes, 70949u);
  EXPECT_EQ(serial.max_depth, 247u);
  takt::Pool pool(two_workers(260));  // tree height 247, plus the splits of the root's 140 children
  EXPECT_EQ(pool.run([] { return takt::apps::uts(takt::apps::uts_p3ls3); }), serial);
}

TEST(Uts, MoreChildrenPerNodeThanSupportedIsRefusedAtTheRoot) {
  // Each version keeps a node's child results in an array of uts_max_children (8); the
  // benchmark's oneTBB and OpenMP searches start from uts_root without uts()'s check,
  // so the root refuses such a tree for all of them.
  takt::apps::UtsConfig config = takt::apps::uts_p3ls3;
  config.m = takt::apps::uts_max_children + 1;
  EXPECT_THROW((void)takt::apps::uts_root(config), takt::Error);
  config.m = takt::apps::uts_max_children;
  EXPECT_NO_THROW((void)takt::apps::uts_root(config));
}

#if !defined(TAKT_TSAN)  // a million nodes: too slow under ThreadSanitizer
TEST(Uts, T3StyleTreeIsTheSameInParallel) {
  takt::apps::UtsResult serial = takt::apps::uts_serial(takt::apps::uts_t3_style);
  EXPECT_EQ(serial.nodes, 970025u);
  EXPECT_EQ(serial.max_depth, 541u);
  takt::Pool pool(two_workers(560));  // height 541, plus the splits of the root's 2000 children
  EXPECT_EQ(pool.run([] { return takt::apps::uts(takt::apps::uts_t3_style); }), serial);
}

TEST(Uts, PublishedT3TreeSize) {
  // UTS's sample trees: T3 (binomial, b0 = 2000, q = 0.124875, m = 8, r = 42) has
  // 4,112,897 nodes and depth 1,572 — this checks the SHA-1 generator bit for bit.
  takt::apps::UtsResult t3 = takt::apps::uts_serial(takt::apps::uts_t3);
  EXPECT_EQ(t3.nodes, 4112897u);
  EXPECT_EQ(t3.max_depth, 1572u);
}
#endif

TEST(Matmul, ParallelEqualsSerial) {
  const std::size_t n = 128;
  std::vector<double> a(n * n), b(n * n), c(n * n), expected(n * n);
  for (std::size_t i = 0; i < n * n; ++i) {
    a[i] = static_cast<double>(i % 17) - 8.0;
    b[i] = static_cast<double>(i % 13) * 0.5;
  }
  takt::apps::matmul_serial(a.data(), b.data(), expected.data(), n);
  // Element (0, 0) by hand: Σ_k a[0][k] b[k][0] = Σ_k ((k % 17) - 8) · ((128k % 13) / 2).
  double by_hand = 0;
  for (std::size_t k = 0; k < n; ++k) by_hand += (static_cast<double>(k % 17) - 8.0) * ((k * n) % 13) * 0.5;
  EXPECT_DOUBLE_EQ(expected[0], by_hand);
  takt::Pool pool(two_workers());
  pool.run([&] { takt::apps::matmul(a.data(), b.data(), c.data(), n); });
  EXPECT_EQ(c, expected);
}

TEST(Synthetic, TypesFollowRtwsParameters) {
  // RTWS §IV.A: 10–20 segments; nodes per segment and node times per type.
  struct Range {
    int type;
    std::uint32_t min_nodes, max_nodes, min_ns, max_ns;
  };
  for (Range r : {Range{1, 100'000, 200'000, 5, 10}, Range{2, 10'000, 20'000, 2'000, 4'500},
                  Range{3, 1'000, 2'000, 20'000, 50'000}}) {
    takt::apps::SyntheticTask task = takt::apps::make_synthetic_task(r.type, 7);
    EXPECT_GE(task.segment_nodes.size(), 10u);
    EXPECT_LE(task.segment_nodes.size(), 20u);
    for (std::uint32_t n : task.segment_nodes) {
      EXPECT_GE(n, r.min_nodes);
      EXPECT_LE(n, r.max_nodes);
    }
    for (std::uint32_t j = 0; j < 1000; ++j) {
      EXPECT_GE(task.node_ns(0, j), r.min_ns);
      EXPECT_LE(task.node_ns(0, j), r.max_ns);
    }
    EXPECT_GT(task.units_per_ns, 0.0);
  }
  EXPECT_THROW(takt::apps::make_synthetic_task(4, 1), std::exception);
}

TEST(Synthetic, WorkAndSpanAreSumsOverNodesAndSegments) {
  takt::apps::SyntheticTask task;
  task.seed = 3;
  task.min_node_ns = 10;
  task.max_node_ns = 10;  // every node 10 ns
  task.segment_nodes = {4, 1, 3};
  // work = Σ m·e = (4 + 1 + 3) · 10; span = Σ max strand = 3 · 10.
  EXPECT_EQ(task.work_ns(), 80u);
  EXPECT_EQ(task.span_ns(), 30u);
  EXPECT_EQ(task.nodes(), 8u);
}

TEST(Synthetic, RunsEveryNodeInParallel) {
  // Every node runs once, tallied by the task's NodeTally (the check the runtime
  // benchmark makes after each round): in parallel on two workers and serially.
  takt::apps::SyntheticTask task = takt::apps::make_synthetic_task(1, 11, 0.01);
  takt::apps::NodeTally parallel;
  task.tally = &parallel;
  takt::Pool pool(two_workers());
  pool.run([&] { takt::apps::run_synthetic(task); });
  EXPECT_EQ(parallel.count.load(), task.nodes());
  EXPECT_TRUE(task.ran_every_node_once(parallel));
  takt::apps::NodeTally serial;
  task.tally = &serial;
  takt::apps::run_synthetic_serial(task);
  EXPECT_TRUE(task.ran_every_node_once(serial));
  EXPECT_GT(task.nodes(), 1000u);
  EXPECT_EQ(pool.total_statistics().jobs, 1u);
}

TEST(Synthetic, ATallyTellsANodeRunTwiceFromEveryNodeOnce) {
  // Segments {2, 1}: nodes (0,0), (0,1), (1,0). Running (0,0) twice and leaving (0,1)
  // out runs 3 nodes, the right count, but the key sum differs by
  // node_key(0,0) − node_key(0,1) ≠ 0 (distinct keys): the check fails, where a count
  // alone passed.
  takt::apps::SyntheticTask task;
  task.seed = 1;
  task.min_node_ns = 1;
  task.max_node_ns = 1;
  task.segment_nodes = {2, 1};
  EXPECT_NE(takt::apps::SyntheticTask::node_key(0, 0), takt::apps::SyntheticTask::node_key(0, 1));
  takt::apps::NodeTally right, twice;
  task.tally = &right;
  task.run_node(0, 0);
  task.run_node(0, 1);
  task.run_node(1, 0);
  EXPECT_TRUE(task.ran_every_node_once(right));
  task.tally = &twice;
  task.run_node(0, 0);
  task.run_node(0, 0);
  task.run_node(1, 0);
  EXPECT_EQ(twice.count.load(), task.nodes());
  EXPECT_FALSE(task.ran_every_node_once(twice));
}

}  // namespace
