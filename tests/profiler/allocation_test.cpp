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

// malloc and operator new are interposed and counted while `counting` is set (the same
// counter as tests/runtime/allocation_test.cpp).
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

namespace {
std::atomic<bool> counting{false};
std::atomic<std::uint64_t> allocations{0};
void* first_trace[32];
std::atomic<int> first_trace_size{0};
void note() {
  if (counting.load(std::memory_order_relaxed)) {
    if (allocations.fetch_add(1, std::memory_order_relaxed) == 0) {
      first_trace_size.store(::backtrace(first_trace, 32), std::memory_order_relaxed);
    }
  }
}
}  // namespace

extern "C" {
void* malloc(std::size_t size) {
  note();
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
  note();
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) {
  note();
  return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  note();
  return __libc_memalign(alignment, size);
}
void* memalign(std::size_t alignment, std::size_t size) {
  note();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  note();
  *out = __libc_memalign(alignment, size);
  return *out != nullptr ? 0 : 12;
}
void free(void* p) { __libc_free(p); }
}

void* operator new(std::size_t size) {
  note();
  if (void* p = __libc_malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, std::align_val_t align) {
  note();
  if (void* p = __libc_memalign(static_cast<std::size_t>(align), size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t align) { return operator new(size, align); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }

namespace {

void report_first_allocation() {
  if (allocations.load() != 0) ::backtrace_symbols_fd(first_trace, first_trace_size.load(), STDERR_FILENO);
}

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
