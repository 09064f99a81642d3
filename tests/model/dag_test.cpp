// Tests of DAG tasks: work, critical path, cycles, topological order.
#include "model/dag.hpp"

#include <gtest/gtest.h>

using namespace std::chrono_literals;
using takt::model::Dag;
using takt::model::DagNode;

namespace {

// A DAG with six nodes in the spirit of rtws Fig. 1 (the figure's edges are not in
// the text, so the numbers are derived here):
//   a(1) → b(4) → d(3) → f(2)
//   a(1) → c(1) → e(1) → f(2)
//   c(1) → d(3)
// work C = 1+4+1+3+1+2 = 12; longest path a-b-d-f = 1+4+3+2 = 10 (a-c-d-f = 7, a-c-e-f = 5).
Dag figure_one() {
  Dag dag;
  dag.nodes = {DagNode{"a", 1ms, {}, {}},     DagNode{"b", 4ms, {0}, {}}, DagNode{"c", 1ms, {0}, {}},
               DagNode{"d", 3ms, {1, 2}, {}}, DagNode{"e", 1ms, {2}, {}}, DagNode{"f", 2ms, {3, 4}, {}}};
  return dag;
}

}  // namespace

TEST(Dag, WorkAndCriticalPathMatchHandDerivedValues) {
  Dag dag = figure_one();
  EXPECT_EQ(dag.work(), 12ms);
  EXPECT_EQ(dag.critical_path(), 10ms);
  EXPECT_EQ(dag.critical_path_nodes(), (std::vector<std::size_t>{0, 1, 3, 5}));
  EXPECT_FALSE(dag.find_cycle().has_value());
}

TEST(Dag, TopologicalOrderPutsPredecessorsFirst) {
  Dag dag = figure_one();
  std::vector<std::size_t> order = dag.topological_order();
  ASSERT_EQ(order.size(), dag.nodes.size());
  std::vector<std::size_t> position(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  for (std::size_t v = 0; v < dag.nodes.size(); ++v) {
    for (std::size_t u : dag.nodes[v].predecessors) EXPECT_LT(position[u], position[v]);
  }
}

TEST(Dag, FindsACycleInExecutionOrder) {
  Dag dag;
  // x → y → z → x, and w hanging off y.
  dag.nodes = {DagNode{"x", 1ms, {2}, {}}, DagNode{"y", 1ms, {0}, {}}, DagNode{"z", 1ms, {1}, {}},
               DagNode{"w", 1ms, {1}, {}}};
  auto cycle = dag.find_cycle();
  ASSERT_TRUE(cycle.has_value());
  ASSERT_EQ(cycle->size(), 4u);
  EXPECT_EQ(cycle->front(), cycle->back());
  // Each step follows an edge u → v (u is a predecessor of v).
  for (std::size_t i = 0; i + 1 < cycle->size(); ++i) {
    const auto& preds = dag.nodes[(*cycle)[i + 1]].predecessors;
    EXPECT_NE(std::find(preds.begin(), preds.end(), (*cycle)[i]), preds.end());
  }
}

TEST(Dag, ChainHasSpanEqualToWork) {
  Dag dag;
  dag.nodes = {DagNode{"a", 2ms, {}, {}}, DagNode{"b", 3ms, {0}, {}}, DagNode{"c", 5ms, {1}, {}}};
  EXPECT_EQ(dag.work(), 10ms);
  EXPECT_EQ(dag.critical_path(), 10ms);
}
