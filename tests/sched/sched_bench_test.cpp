// `takt bench sched` (bench/sched) in its smallest form: the parts it was asked for, a
// checkpoint after each, and the baseline labelled with the PE count it was measured at.
#include "bench/sched/sched_bench.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

TEST(SchedBench, EachPartIsACheckpointAndTheBaselineNamesItsPeCount) {
  takt::bench::SchedBenchOptions o;
  o.quick = true;
  o.repeats = 1;
  o.idle = false;
  o.depths = {1};
  o.pes = {4};
  o.topologies = {"gedf-paws"};
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

}  // namespace
