// The schedule of the OpenMP kernels' loops (takt bench runtime --openmp-schedule): how it
// is read, and that the parallel regions the setting thread opens run with it.
#include "bench/runtime/kernels.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>

namespace {

using takt::bench::OpenmpSchedule;
using takt::bench::parse_openmp_schedule;

TEST(OpenmpSchedule, ReadsTheFormsOpenMpNamesAndWritesThemBack) {
  // "dynamic" is libgomp's dynamic,1: the default, written the same way.
  EXPECT_EQ(parse_openmp_schedule("dynamic")->to_string(), "dynamic,1");
  EXPECT_EQ(parse_openmp_schedule("dynamic")->to_string(), OpenmpSchedule{}.to_string());
  EXPECT_EQ(parse_openmp_schedule("guided")->to_string(), "guided,1");
  EXPECT_EQ(parse_openmp_schedule("dynamic,16")->to_string(), "dynamic,16");
  EXPECT_EQ(parse_openmp_schedule("static")->to_string(), "static");  // an even split
  EXPECT_EQ(parse_openmp_schedule("static,4")->to_string(), "static,4");
  EXPECT_EQ(parse_openmp_schedule("auto")->to_string(), "auto");
  for (const char* bad : {"", "fast", "auto,4", "guided,0", "dynamic,", "dynamic,x", "dynamic,1000001",
                          "static,-1", "Dynamic", " dynamic"}) {
    EXPECT_FALSE(parse_openmp_schedule(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(OpenmpSchedule, TheTeamsOfTheSettingThreadRunTheirLoopsWithIt) {
  // use_openmp_schedule sets the thread's run-sched-var; every thread of a team it opens
  // inherits it, which is what `schedule(runtime)` reads.
  takt::bench::use_openmp_schedule(*parse_openmp_schedule("guided,4"));
  std::atomic<int> right{0}, threads{0};
#pragma omp parallel num_threads(2)
  {
    omp_sched_t kind{};
    int chunk = 0;
    omp_get_schedule(&kind, &chunk);
    ++threads;
    if (kind == omp_sched_guided && chunk == 4) ++right;
  }
  EXPECT_EQ(right.load(), threads.load());
  EXPECT_GE(threads.load(), 1);
  takt::bench::use_openmp_schedule(OpenmpSchedule{});
  omp_sched_t kind{};
  int chunk = 0;
  omp_get_schedule(&kind, &chunk);
  EXPECT_EQ(kind, omp_sched_dynamic);
  EXPECT_EQ(chunk, 1);
}

}  // namespace
