// `takt bench sched` (bench/sched) in its smallest form: the parts it was asked for, a
// checkpoint after each (and after each scaling step), the baseline labelled with the PE
// count it was measured at, and a stop between measurements.
#include "bench/sched/sched_bench.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace {

/// The smallest run: quick, one repetition, no idle part, gedf-paws at the given PE counts.
takt::bench::SchedBenchOptions smallest(std::vector<int> pes) {
  takt::bench::SchedBenchOptions o;
  o.quick = true;
  o.repeats = 1;
  o.idle = false;
  o.depths = {1};
  o.pes = std::move(pes);
  o.topologies = {"gedf-paws"};
  return o;
}

TEST(SchedBench, EachPartIsACheckpointAndTheBaselineNamesItsPeCount) {
  takt::bench::SchedBenchOptions o = smallest({4});
  std::vector<nlohmann::json> checkpoints;
  o.checkpoint = [&](const nlohmann::json& partial) { checkpoints.push_back(partial); };
  const nlohmann::json result = takt::bench::run_sched_bench(o);
  ASSERT_EQ(checkpoints.size(), 2u);
  EXPECT_TRUE(checkpoints[0].contains("per_stage"));
  EXPECT_FALSE(checkpoints[0].contains("scaling"));
  EXPECT_TRUE(checkpoints[1].contains("scaling"));
  ASSERT_TRUE(result.contains("baselines"));
  // Measured at the first (here the only) PE count of the scaling part: 4, not 2.
  EXPECT_EQ(result["baselines"]["framework_topology"], "gedf-paws, 4 PEs");
  EXPECT_GT(result["baselines"]["framework_admit_schedule_ns"].get<double>(), 0.0);
}

TEST(SchedBench, PeCountsAndDepthsAreMeasuredAscendingAndOnce) {
  // Growth is the last PE count's time over the first's: --pes 256,2 reported 0.5x where
  // it was 2x; the baseline is measured at the smallest count.
  takt::bench::SchedBenchOptions o = smallest({8, 2, 8});
  o.depths = {2, 1, 2};
  const nlohmann::json result = takt::bench::run_sched_bench(o);
  EXPECT_EQ(result["scaling"]["pes"], (std::vector<int>{2, 8}));
  EXPECT_EQ(result["per_stage"]["depths"], (std::vector<double>{1, 2})) << result["per_stage"].dump();
  EXPECT_EQ(result["baselines"]["framework_topology"], "gedf-paws, 2 PEs");
}

TEST(SchedBench, EachScalingStepIsACheckpointAndAStopKeepsTheStepsMeasured) {
  // A stop asked after the second step (as SIGINT would): the steps measured are in the
  // results and were checkpointed one by one; nothing more is measured.
  takt::bench::SchedBenchOptions o;
  o.quick = true;
  o.repeats = 1;
  o.idle = false;
  o.per_stage = false;
  o.pes = {2, 4, 8};
  o.topologies = {"gedf-paws", "partitioned-dm"};
  int steps = 0;
  o.progress = [&](const std::string& line) {
    if (line.rfind("scaling:", 0) == 0) ++steps;
  };
  o.stop_requested = [&] { return steps >= 2; };
  std::vector<nlohmann::json> checkpoints;
  o.checkpoint = [&](const nlohmann::json& partial) { checkpoints.push_back(partial); };
  const nlohmann::json result = takt::bench::run_sched_bench(o);
  ASSERT_EQ(checkpoints.size(), 2u) << "one per step";
  EXPECT_EQ(checkpoints[0]["scaling"]["topologies"]["gedf-paws"]["admit_ns"].size(), 1u);
  EXPECT_EQ(checkpoints[1]["scaling"]["topologies"]["gedf-paws"]["admit_ns"].size(), 2u);
  EXPECT_EQ(result.value("stopped", false), true);
  EXPECT_FALSE(result.contains("baselines"));
  const auto& gedf = result["scaling"]["topologies"]["gedf-paws"];
  EXPECT_EQ(gedf["admit_ns"].size(), 2u);
  EXPECT_EQ(gedf["complete"], false);
  EXPECT_EQ(gedf["pes_measured"], (std::vector<int>{2, 4}));
  EXPECT_EQ(result["scaling"]["pes"], (std::vector<int>{2, 4, 8}));
  EXPECT_FALSE(result["scaling"]["topologies"].contains("partitioned-dm"));
  // The topology the stop left unbegun is named (gedf-paws, cut short, says so itself).
  EXPECT_EQ(result["scaling"]["not_measured"], (std::vector<std::string>{"partitioned-dm"}));
}

TEST(SchedBench, AStopBeforeTheFirstMeasurementLeavesOnlyTheHeader) {
  takt::bench::SchedBenchOptions o;
  o.quick = true;
  o.repeats = 1;
  o.stop_requested = [] { return true; };
  const nlohmann::json result = takt::bench::run_sched_bench(o);
  EXPECT_EQ(result.value("stopped", false), true);
  EXPECT_FALSE(result.contains("per_stage"));
  EXPECT_FALSE(result.contains("scaling"));
  EXPECT_FALSE(result.contains("baselines"));
}

TEST(SchedBench, OneDepthOrOnePeCountGivesNoSlopeAndNoGrowth) {
  // A stop after the first depth (or --depths 1) wrote per_stage_ns 0.0 (below the 50 ns
  // target, as if measured), and a topology stopped after one PE count a growth of 1.0.
  takt::bench::SchedBenchOptions o = smallest({2, 4});
  int steps = 0;
  o.progress = [&](const std::string& line) {
    if (line.rfind("scaling:", 0) == 0) ++steps;
  };
  o.stop_requested = [&] { return steps >= 1; };
  const nlohmann::json result = takt::bench::run_sched_bench(o);
  ASSERT_TRUE(result.contains("per_stage"));
  EXPECT_TRUE(result["per_stage"]["per_stage_ns"].is_null()) << result["per_stage"].dump();
  EXPECT_TRUE(result["per_stage"]["per_stage_admit_ns"].is_null());
  const auto& gedf = result["scaling"]["topologies"]["gedf-paws"];
  EXPECT_EQ(gedf["admit_ns"].size(), 1u);
  EXPECT_TRUE(gedf["admit_growth_ratio"].is_null()) << gedf.dump();
  EXPECT_TRUE(gedf["schedule_growth_ratio"].is_null());
}

}  // namespace

TEST(SchedBench, TheSlopeIsTheNearestRankMedianOfThePairwiseSlopes) {
  // x = 1, 2, 3, 4 and y = 10, 12, 20, 22: the six pairwise slopes are
  // (12-10)/1 = 2, (20-10)/2 = 5, (22-10)/3 = 4, (20-12)/1 = 8, (22-12)/2 = 5 and
  // (22-20)/1 = 2; sorted 2, 2, 4, 5, 5, 8. The nearest-rank median is the
  // ceil(0.5 * 6) = 3rd, 4 (the mean of the middle two would give 4.5; least squares
  // 4.4).
  EXPECT_DOUBLE_EQ(takt::bench::theil_sen_slope({1, 2, 3, 4}, {10, 12, 20, 22}), 4.0);
  // One disturbed point does not tilt it: 30 ns per stage, the third measurement 1000 ns
  // high (x = 1, 2, 3, 4; y = 30, 60, 1090, 120). Pairwise slopes: 1-2 30, 1-3 530,
  // 1-4 30, 2-3 1030, 2-4 30, 3-4 -970; sorted -970, 30, 30, 30, 530, 1030: the 3rd is 30.
  EXPECT_DOUBLE_EQ(takt::bench::theil_sen_slope({1, 2, 3, 4}, {30, 60, 1090, 120}), 30.0);
}
