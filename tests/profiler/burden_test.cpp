// The burden calibration measures steals and joins on two workers.
#include "profiler/burden.hpp"
#include "os/cpu.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>

namespace {

using namespace std::chrono_literals;

TEST(BurdenCalibration, MeasuresStealsAndJoinsOnTwoWorkers) {
  if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "needs two CPUs";
  takt::profiler::CalibrationOptions options;
  options.iterations = 400;
  options.warmup = 50;
  // A round counts only while both pinned workers are on their CPUs; a test running
  // beside this one can keep that under the quarter the calibration asks for, and it
  // then refuses ("too busy"). Retried for at most 30 s: a refusal every time fails.
  std::optional<takt::profiler::BurdenCalibration> calibrated;
  std::string refusal;
  const auto give_up = std::chrono::steady_clock::now() + 30s;
  while (!calibrated && std::chrono::steady_clock::now() < give_up) {
    try {
      calibrated = takt::profiler::calibrate_burden(options);
    } catch (const takt::Error& e) {
      refusal = e.what();
      if (refusal.find("too busy") == std::string::npos) throw;
    }
  }
  ASSERT_TRUE(calibrated) << refusal;
  const takt::profiler::BurdenCalibration& c = *calibrated;
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
