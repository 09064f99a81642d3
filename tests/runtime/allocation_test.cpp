// After start-up a pool performs no heap allocation: malloc and operator new are
// interposed and counted across fib, UTS and matmul runs in which steals happen.
#include "apps/fib.hpp"
#include "apps/matmul.hpp"
#include "apps/uts.hpp"
#include "takt/runtime.hpp"
#include "test_support.hpp"

#include <execinfo.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <new>
#include <vector>

#include "../support/counting_allocator.hpp"  // the counting malloc and operator new

namespace {

TEST(ZeroAllocation, InterpositionCountsAllocations) {
  first_trace_size = ::backtrace(first_trace, 32);  // loads the unwinder before counting
  counting = true;
  auto* p = new int(3);
  void* q = std::malloc(16);
  counting = false;
  delete p;
  std::free(q);
  EXPECT_EQ(allocations.exchange(0), 2u);
}

void expect_no_allocation_in_runs_with_steals(bool caller_joins) {
  // Size the pool with the measurement run of §4.2 (UTS is the deepest computation).
  takt::PoolConfig config = takt::testing::config(2);
  config.caller_joins = caller_joins;
  config.memory = takt::measure([] { return takt::apps::uts(takt::apps::uts_p3ls3); }).recommended();
  takt::Pool pool(config);
  const std::size_t n = 128;
  std::vector<double> a(n * n, 1.5), b(n * n, 0.5), c(n * n, 0.0), expected(n * n);
  takt::apps::matmul_serial(a.data(), b.data(), expected.data(), n);
  const takt::apps::UtsResult uts_expected = takt::apps::uts_serial(takt::apps::uts_p3ls3);
  pool.run([] { return takt::apps::fib(10); });  // warm up (thread start-up is before counting)
  first_trace_size = ::backtrace(first_trace, 32);  // loads the unwinder before counting

  std::uint64_t fib_result = 0;
  takt::apps::UtsResult uts_result;
  std::uint64_t steals = 0;
  allocations = 0;
  counting = true;
  // Rounds until steals happened: at least 20, for up to 10 s (a loaded machine).
  const auto tries_end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (int round = 0; (round < 20 || std::chrono::steady_clock::now() < tries_end) && steals < 3; ++round) {
    fib_result = pool.run([] { return takt::apps::fib(24); });
    uts_result = pool.run([] { return takt::apps::uts(takt::apps::uts_p3ls3); });
    for (int r = 0; r < 20; ++r) pool.run([&] { takt::apps::matmul(a.data(), b.data(), c.data(), n); });
    steals = pool.total_statistics().steals;
  }
  counting = false;
  EXPECT_EQ(allocations.load(), 0u);
  report_first_allocation();
  EXPECT_GT(steals, 0u) << "no steal happened; the check proves nothing";
  EXPECT_EQ(fib_result, takt::apps::fib_serial(24));
  EXPECT_EQ(uts_result, uts_expected);
  EXPECT_EQ(c, expected);
}

TEST(ZeroAllocation, FibUtsAndMatmulRunsWithStealsAllocateNothing) { expect_no_allocation_in_runs_with_steals(false); }

// The calling thread as worker 0 (after its first run, which warms up its unwinder).
TEST(ZeroAllocation, RunsWithTheCallerAsWorkerZeroAllocateNothing) { expect_no_allocation_in_runs_with_steals(true); }

}  // namespace
