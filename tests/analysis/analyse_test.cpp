// Tests of the analysis entry point: policy and option overrides, verdicts and reasons.
#include "analysis/analyse.hpp"
#include "model/task_set_parser.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

using takt::analysis::analyse;
using takt::analysis::AnalysisOptions;
using takt::model::Policy;

namespace {

const char* kSet = R"(global: {cores: 4, policy: partitioned-dm}
tasks:
  - {name: a, period: 10ms, segments: [{length: 1ms}, {length: 0.5ms, strands: 6}]}
  - {name: b, period: 20ms, segments: [{length: 2ms, strands: 2}]}
)";

}  // namespace

TEST(Analyse, UsesTheFilesPolicyOrTheOverride) {
  auto set = takt::model::parse_task_set(kSet, "a.yaml");
  auto dm = analyse(set);
  EXPECT_EQ(dm.policy, Policy::partitioned_dm);
  EXPECT_NE(dm.partitioned_dm(), nullptr);
  EXPECT_EQ(dm.cores.count, 4);
  for (Policy p : {Policy::federated, Policy::federated_greedy, Policy::gedf_paws}) {
    AnalysisOptions o;
    o.policy = p;
    auto r = analyse(set, o);
    EXPECT_EQ(r.policy, p);
    EXPECT_EQ(r.federated() != nullptr, p == Policy::federated || p == Policy::federated_greedy);
    EXPECT_EQ(r.global_edf() != nullptr, p == Policy::gedf_paws);
  }
}

TEST(Analyse, FederatedGreedyGrantsTheSameCores) {
  auto set = takt::model::parse_task_set(R"(global: {cores: 6, delta: 1.5}
tasks:
  - {name: a, period: 10ms, work: 25ms, span: 2ms, burdened_span: 2.2ms}
  - {name: b, period: 10ms, work: 3ms, span: 1ms}
)",
                                         "a.yaml");
  AnalysisOptions ws, greedy;
  ws.policy = Policy::federated;
  greedy.policy = Policy::federated_greedy;
  auto r1 = analyse(set, ws);
  auto r2 = analyse(set, greedy);
  ASSERT_EQ(r1.federated()->grants.size(), r2.federated()->grants.size());
  for (std::size_t i = 0; i < r1.federated()->grants.size(); ++i) {
    EXPECT_EQ(r1.federated()->grants[i].core_ids, r2.federated()->grants[i].core_ids);
  }
  // a: ⌈(25 + 10 − 3.3)/(10 − 3.3)⌉ = ⌈31.7/6.7⌉ = ⌈4.73⌉ = 5.
  EXPECT_EQ(r1.federated()->grants[0].cores, 5);
  // The E[R] bound (rtws §V.B) is a work-stealing result: federated only.
  // E[R] ≈ C/n + δ·L̂ = 25/5 + 1.5·2.2 = 8.3 ms.
  ASSERT_TRUE(r1.federated()->grants[0].expected_response_ns.has_value());
  EXPECT_NEAR(*r1.federated()->grants[0].expected_response_ns, 8.3e6, 1.0);
  EXPECT_FALSE(r2.federated()->grants[0].expected_response_ns.has_value());
}

TEST(Analyse, CommandLineOverridesCoresDeltaAndFit) {
  auto set = takt::model::parse_task_set(R"(global: {cores: 8}
tasks:
  - {name: a, period: 10ms, work: 20ms, span: 2ms}
)",
                                         "a.yaml");
  AnalysisOptions o;
  o.cores = 2;
  auto r = analyse(set, o);  // needs 3
  EXPECT_FALSE(r.schedulable);
  ASSERT_FALSE(r.reasons().empty());
  EXPECT_EQ(r.reasons()[0].task, "a");
  o.cores = 3;
  EXPECT_TRUE(analyse(set, o).schedulable);
  o.delta = takt::model::Decimal::parse("1.5");  // ⌈(30 − 3)/(10 − 3)⌉ = 4 > 3
  EXPECT_FALSE(analyse(set, o).schedulable);
}

TEST(Analyse, CoresMustBeKnown) {
  auto set = takt::model::parse_task_set("tasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "n.yaml");
  try {
    (void)analyse(set);
    FAIL();
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("add 'cores: 4'"), std::string::npos) << e.what();
  }
  AnalysisOptions o;
  o.cores = 1;
  EXPECT_TRUE(analyse(set, o).schedulable);
}

TEST(Analyse, CoresStayWithin65536) {
  auto set = takt::model::parse_task_set("tasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "n.yaml");
  AnalysisOptions o;
  // 2·10^9 cores ended in std::bad_alloc (an internal error, exit 3) instead of a message.
  o.cores = 2'000'000'000;
  try {
    (void)analyse(set, o);
    FAIL();
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("2000000000 is more than takt supports (at most 65536)"),
              std::string::npos)
        << e.what();
  }
  o.cores = 65536;
  EXPECT_TRUE(analyse(set, o).schedulable);
}

TEST(Analyse, ReasonsAreEmptyWhenSchedulable) {
  auto set = takt::model::parse_task_set(kSet, "a.yaml");
  auto r = analyse(set);
  EXPECT_TRUE(r.schedulable);
  EXPECT_TRUE(r.reasons().empty());
  EXPECT_FALSE(r.findings.empty());
}
