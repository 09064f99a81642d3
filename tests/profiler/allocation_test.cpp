// Recording allocates nothing: the span observer and the event log on pools that run jobs.
#include "apps/heat.hpp"
#include "apps/lu.hpp"
#include "profiler/event_log.hpp"
#include "profiler/span_observer.hpp"
#include "takt/runtime.hpp"

#include <execinfo.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "../support/counting_allocator.hpp"  // the counting malloc and operator new

namespace {

TEST(ProfilerAllocation, InterpositionCountsAllocations) {
  first_trace_size = ::backtrace(first_trace, 32);  // loads the unwinder before counting
  counting = true;
  auto* p = new int(3);
  counting = false;
  delete p;
  EXPECT_EQ(allocations.exchange(0), 1u);
}

TEST(ProfilerAllocation, TheSpanObserverRecordsHeatAndLuJobsWithoutAllocating) {
  // As the profiler does: size everything from the measurement run, then observe jobs
  // on a one-worker pool in measurement mode.
  takt::apps::HeatProblem heat{128, 64, 8, 4};
  takt::apps::HeatGrids grids(heat);
  takt::apps::SquareMatrix input = takt::apps::random_dominant_matrix(160, 4), work = input;
  auto job = [&] {
    takt::apps::heat(heat, grids);
    work.values = input.values;  // same size: a copy, no allocation
    takt::apps::lu(work.view(), work.n, 16);
  };
  const takt::Measurement m = takt::measure(job);
  takt::PoolConfig config;
  config.workers = 1;
  config.measurement_mode = true;
  config.memory = m.recommended();
  config.memory.large_stack_size = 0;
  config.prefault = false;
  takt::Pool pool(config);
  takt::profiler::SpanObserver observer({m.depth, 4096},
                                        {std::chrono::microseconds(1), std::chrono::microseconds(1)});
  pool.extension().set_observer(&observer);
  pool.run(job);  // warm up: thread start-up is before counting
  first_trace_size = ::backtrace(first_trace, 32);

  allocations = 0;
  counting = true;
  for (int k = 0; k < 3; ++k) {
    observer.reset();
    pool.run(job);
  }
  counting = false;
  EXPECT_EQ(allocations.load(), 0u);
  report_first_allocation();
  const takt::profiler::DagMeasure d = observer.result();
  EXPECT_EQ(d.spawns, m.spawns) << "the observed run is the measurement run's DAG";
  EXPECT_GT(d.spawns, 100u);
  pool.extension().set_observer(nullptr);
}

TEST(ProfilerAllocation, TheEventLogRecordsAParallelRunWithoutAllocating) {
  takt::apps::SquareMatrix input = takt::apps::random_dominant_matrix(160, 4), work = input;
  auto job = [&] {
    work.values = input.values;
    takt::apps::lu(work.view(), work.n, 16);
  };
  const takt::Measurement m = takt::measure(job);
  takt::PoolConfig config;
  config.workers = 2;
  config.memory = m.recommended();
  takt::Pool pool(config);
  takt::profiler::EventLog log(2, 6 * m.spawns + 16);
  pool.extension().set_observer(&log);
  pool.run(job);
  first_trace_size = ::backtrace(first_trace, 32);

  allocations = 0;
  counting = true;
  log.clear();
  pool.run(job);
  counting = false;
  EXPECT_EQ(allocations.load(), 0u);
  report_first_allocation();
  EXPECT_EQ(log.dropped(), 0u);
  pool.extension().set_observer(nullptr);
}

}  // namespace
