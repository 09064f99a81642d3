// The burden calibration measures steals and joins on two workers.
#include "profiler/burden.hpp"
#include "os/cpu.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;

TEST(BurdenCalibration, MeasuresStealsAndJoinsOnTwoWorkers) {
  if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "needs two CPUs";
  takt::profiler::CalibrationOptions options;
  options.iterations = 400;
  options.warmup = 50;
  const takt::profiler::BurdenCalibration c = takt::profiler::calibrate_burden(options);
  EXPECT_EQ(c.workers, 2u);
  EXPECT_EQ(c.iterations, 400u);
  // At least a quarter of the rounds qualified, or the calibration would have refused.
  EXPECT_GE(c.steal.count, 100u);
  EXPECT_GE(c.join.count, 100u);
  // A steal and a join take time (they cross CPUs), less than the child that hides them.
  EXPECT_GT(c.burden.spawn, 0ns);
  EXPECT_GT(c.burden.sync, 0ns);
  EXPECT_LT(c.burden.spawn, c.child_time);
  EXPECT_LT(c.burden.sync, c.child_time);
  EXPECT_EQ(c.burden.spawn, c.steal.p50);
  EXPECT_EQ(c.burden.sync, c.join.p50);
  EXPECT_LE(c.steal.p50, c.steal.p90);
  EXPECT_LE(c.steal.p90, c.steal.p99);
  EXPECT_LE(c.steal.p99, c.steal.max);
  EXPECT_LE(c.join.p50, c.join.p90);
}

TEST(BurdenCalibration, OneCpuIsAnErrorThatNamesTheWayOut) {
  takt::profiler::CalibrationOptions options;
  options.cpus = takt::os::CpuSet{takt::os::allowed_cpus()[0]};
  try {
    (void)takt::profiler::calibrate_burden(options);
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--burden-spawn"), std::string::npos) << e.what();
  }
}

}  // namespace
