// takt bench cpus: every allowed CPU measured in both phases, the stretch derived from the
// calibration, the table and JSON carrying both. (The speeds themselves are measurements
// of the machine and are not asserted.)
#include "bench/cpus/cpu_speed.hpp"

#include "os/cpu.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>
#include <thread>
#include <mutex>

#include <fmt/core.h>

#include <algorithm>
#include <chrono>

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
    ASSERT_TRUE(s.alone_p50 && s.together_p10 && s.together_p50 && s.max);
    EXPECT_GT(*s.alone_p50, 0.0);
    EXPECT_GT(*s.together_p10, 0.0);
    EXPECT_LE(*s.together_p10, *s.together_p50);
    EXPECT_GE(*s.max, std::max(*s.alone_p50, *s.together_p50));
  }
  EXPECT_TRUE(r.complete);
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
  EXPECT_EQ(j["complete"], true);
  EXPECT_FALSE(j.contains("stopped_by"));
  EXPECT_DOUBLE_EQ(j["worst_stretch_together"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["cpus"][0]["together_p50_iterations_per_ns"].get<double>(), 1.5);
  // Short segments strands are timed by the monotonic clock (the default): the warning
  // names the synthetic nodes only; where they count iterations it names them too.
  EXPECT_EQ(t.find("short segments strands"), std::string::npos) << t;
  EXPECT_NE(t.find("segments strands do not stretch"), std::string::npos) << t;
  EXPECT_TRUE(j["short_segments_strands_timed"].get<bool>());
  r.short_strands_timed = false;
  const std::string counted = takt::bench::format_cpu_speed(r);
  EXPECT_NE(counted.find("nodes and short segments strands run that much longer"), std::string::npos) << counted;
  EXPECT_NE(counted.find("as does a segments strand shorter than 50 us"), std::string::npos) << counted;
  EXPECT_FALSE(takt::bench::to_json(r)["short_segments_strands_timed"].get<bool>());
  // A machine that holds its speed gets no warning.
  r.cpus[0] = {0, 3.0, 2.9, 3.0, 3.1};
  takt::bench::set_worst_stretch(r);
  EXPECT_EQ(takt::bench::format_cpu_speed(r).find("warning"), std::string::npos);
}

TEST(CpuSpeed, AStopCutsTheMeasurementInFlightShortAndKeepsTheCpusMeasuredBefore) {
  // The stop comes while the second measurement runs (the next CPU alone, or with one
  // CPU the phase with every CPU busy): once its thread has asked 50 times, i.e. after
  // 50 chunks measured. The first CPU was measured alone; the measurement in flight is
  // cut short and left out (run to its end, it would be kept: the second CPU measured),
  // and nothing more is measured. Decided by which thread asks, not by the clock, so
  // that a thread slow to start on a loaded machine changes nothing.
  CpuSpeedOptions o;
  o.seconds = 1.0;
  std::mutex mutex;
  const std::thread::id caller = std::this_thread::get_id();
  int measuring_threads = 0;
  int second_asks = 0;
  bool stop = false;
  o.stop_requested = [&] {
    std::lock_guard lock(mutex);
    if (std::this_thread::get_id() != caller) {
      // Which measuring thread asks, numbered by its first question (a thread's id can
      // be reused by the next thread once it has been joined; a thread_local cannot).
      thread_local int index = 0;
      if (index == 0) index = ++measuring_threads;
      if (index == 2 && ++second_asks >= 50) stop = true;
    }
    return stop;
  };
  auto r = takt::bench::measure_cpu_speed(o);
  EXPECT_TRUE(stop);
  EXPECT_EQ(second_asks, 50) << "the measurement in flight went on after the stop";
  const std::vector<int> cpus = takt::os::allowed_cpus().cpus();
  ASSERT_EQ(r.cpus.size(), cpus.size());
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(takt::bench::cpus_measured_alone(r), 1u);
  EXPECT_FALSE(takt::bench::measured_together(r));
  ASSERT_TRUE(r.cpus[0].alone_p50 && r.cpus[0].max);
  EXPECT_GT(*r.cpus[0].alone_p50, 0.0);
  EXPECT_GT(r.worst_stretch_alone, 0.0);
  EXPECT_EQ(r.worst_stretch_together, 0.0);
  for (std::size_t i = 0; i < r.cpus.size(); ++i) {
    SCOPED_TRACE(r.cpus[i].cpu);
    if (i > 0) {
      EXPECT_FALSE(r.cpus[i].alone_p50 || r.cpus[i].max);
    }
    EXPECT_FALSE(r.cpus[i].together_p10 || r.cpus[i].together_p50);
  }
  // Not measured is null in the JSON and "-" in the table, never 0.
  r.stopped_by = "SIGINT";
  const auto j = takt::bench::to_json(r);
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["stopped_by"], "SIGINT");
  EXPECT_TRUE(j["worst_stretch_together"].is_null());
  EXPECT_TRUE(j["cpus"][0]["alone_p50_iterations_per_ns"].is_number());
  EXPECT_TRUE(j["cpus"][0]["together_p50_iterations_per_ns"].is_null());
  EXPECT_TRUE(j["cpus"][0]["together_p10_iterations_per_ns"].is_null());
  const std::string t = takt::bench::format_cpu_speed(r);
  EXPECT_NE(t.find(fmt::format(
                "partial: stopped by SIGINT: 1 of {} CPU(s) measured alone, none with every CPU busy; - = "
                "not measured",
                cpus.size())),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("worst of those measured: "), std::string::npos) << t;
  EXPECT_NE(t.find(" alone, - with every CPU busy"), std::string::npos) << t;
}

TEST(CpuSpeed, AStopBeforeTheFirstMeasurementMeasuresNothing) {
  CpuSpeedOptions o;
  o.seconds = 5;
  o.stop_requested = [] { return true; };
  const auto r = takt::bench::measure_cpu_speed(o);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(takt::bench::cpus_measured_alone(r), 0u);
  EXPECT_EQ(r.cpus.size(), takt::os::allowed_cpus().size());
  EXPECT_EQ(r.worst_stretch_alone, 0.0);
}

TEST(CpuSpeed, ANonPositiveDurationIsAnError) {
  CpuSpeedOptions o;
  o.seconds = 0;
  EXPECT_THROW(takt::bench::measure_cpu_speed(o), takt::Error);
}

}  // namespace
