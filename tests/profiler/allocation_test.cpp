// Recording allocates nothing: the span observer and the event log on pools that run jobs.
#include "apps/heat.hpp"
#include "apps/lu.hpp"
#include "os/cpu.hpp"
#include "profiler/event_log.hpp"
#include "profiler/span_observer.hpp"
#include "takt/runtime.hpp"

#include <execinfo.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
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

  // Runs until one in which a continuation was stolen (the log then holds a parallel
  // run), at most 10 s; no run may allocate, and each logs one spawn event per spawn of
  // the measurement run, one task_begin per spawned task and one for the root.
  std::size_t stolen = 0;
  int rounds = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (; stolen == 0 && std::chrono::steady_clock::now() < give_up; ++rounds) {
    allocations = 0;
    counting = true;
    log.clear();
    pool.run(job);
    counting = false;
    ASSERT_EQ(allocations.load(), 0u) << "run " << rounds;
    ASSERT_EQ(log.dropped(), 0u);
    const auto events = log.events();
    using Kind = takt::ext::StrandEvent::Kind;
    const auto count = [&](auto predicate) {
      return static_cast<std::size_t>(std::count_if(events.begin(), events.end(), predicate));
    };
    EXPECT_EQ(count([](const auto& e) { return e.kind == Kind::spawn; }), m.spawns);
    EXPECT_EQ(count([](const auto& e) { return e.kind == Kind::task_begin; }), m.spawns + 1);
    stolen = count([](const auto& e) { return e.kind == Kind::resume && e.stolen; });
  }
  report_first_allocation();
  pool.extension().set_observer(nullptr);
  if (stolen == 0) {
    if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "one CPU: no continuation was stolen in 10 s";
    ADD_FAILURE() << "no continuation was stolen in " << rounds << " runs (10 s) of LU 160 on two workers";
  }
}

}  // namespace
