// takt bench cpus: every allowed CPU measured in both phases, the stretch derived from the
// calibration, the table and JSON carrying both. (The speeds themselves are measurements
// of the machine and are not asserted.)
#include "bench/cpus/cpu_speed.hpp"

#include "os/cpu.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace {

using takt::bench::CpuSpeedOptions;

TEST(CpuSpeed, EveryAllowedCpuIsMeasuredAloneAndTogether) {
  CpuSpeedOptions o;
  o.seconds = 0.05;
  const auto r = takt::bench::measure_cpu_speed(o);
  const std::vector<int> cpus = takt::os::allowed_cpus().cpus();
  ASSERT_EQ(r.cpus.size(), cpus.size());
  EXPECT_GT(r.calibrated, 0.0);
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    const auto& s = r.cpus[i];
    SCOPED_TRACE(s.cpu);
    EXPECT_EQ(s.cpu, cpus[i]);
    EXPECT_GT(s.alone_p50, 0.0);
    EXPECT_GT(s.together_p10, 0.0);
    EXPECT_LE(s.together_p10, s.together_p50);
    EXPECT_GE(s.max, std::max(s.alone_p50, s.together_p50));
  }
  EXPECT_GT(r.worst_stretch_alone, 0.0);
  EXPECT_GT(r.worst_stretch_together, 0.0);
}

TEST(CpuSpeed, TheStretchIsTheCalibrationOverTheSlowestMedianPerPhase) {
  // Calibrated 3.0 iterations/ns; CPU 0 runs 3.0 alone and 1.5 together, CPU 1 runs 2.4
  // and 1.2. Worst alone: 3.0 / 2.4 = 1.25; worst together: 3.0 / 1.2 = 2.5. A CPU
  // without a median in a phase (0) is left out of it.
  takt::bench::CpuSpeedReport r;
  r.calibrated = 3.0;
  r.cpus.push_back({0, 3.0, 1.4, 1.5, 3.1});
  r.cpus.push_back({1, 2.4, 1.0, 1.2, 2.5});
  r.cpus.push_back({2, 0.0, 0.0, 0.0, 0.0});
  takt::bench::set_worst_stretch(r);
  EXPECT_DOUBLE_EQ(r.worst_stretch_alone, 1.25);
  EXPECT_DOUBLE_EQ(r.worst_stretch_together, 2.5);
}

TEST(CpuSpeed, TableAndJsonCarryEveryCpuAndTheStretch) {
  // A report made by hand: calibrated 3.0, CPU 0 at 3.0 alone and 1.5 together (a
  // strand runs 2x its declared length when every CPU is busy).
  takt::bench::CpuSpeedReport r;
  r.seconds = 0.5;
  r.calibrated = 3.0;
  r.cpus.push_back({0, 3.0, 1.2, 1.5, 3.1});
  takt::bench::set_worst_stretch(r);  // 3.0 / 3.0 = 1 alone, 3.0 / 1.5 = 2 together
  const std::string t = takt::bench::format_cpu_speed(r);
  EXPECT_NE(t.find("1.00 / 2.00"), std::string::npos) << t;
  EXPECT_NE(t.find("worst: 1.00 alone, 2.00 with every CPU busy"), std::string::npos) << t;
  EXPECT_NE(t.find("warning: on this machine the loop runs up to 2.00x slower than calibrated"),
            std::string::npos)
      << t;
  const auto j = takt::bench::to_json(r);
  EXPECT_EQ(j["benchmark"], "cpus");
  EXPECT_DOUBLE_EQ(j["worst_stretch_together"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["cpus"][0]["together_p50_iterations_per_ns"].get<double>(), 1.5);
  // A machine that holds its speed gets no warning.
  r.cpus[0] = {0, 3.0, 2.9, 3.0, 3.1};
  takt::bench::set_worst_stretch(r);
  EXPECT_EQ(takt::bench::format_cpu_speed(r).find("warning"), std::string::npos);
}

TEST(CpuSpeed, ANonPositiveDurationIsAnError) {
  CpuSpeedOptions o;
  o.seconds = 0;
  EXPECT_THROW(takt::bench::measure_cpu_speed(o), takt::Error);
}

}  // namespace
