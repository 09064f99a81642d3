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
#include <cstdlib>
#include <new>
#include <vector>

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
// Where the first counted allocation came from (reported when the test fails).
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

TEST(ZeroAllocation, FibUtsAndMatmulRunsWithStealsAllocateNothing) {
  // Size the pool with the measurement run of §4.2 (UTS is the deepest computation).
  takt::PoolConfig config = takt::testing::config(2);
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
  for (int round = 0; round < 20 && steals < 3; ++round) {
    fib_result = pool.run([] { return takt::apps::fib(24); });
    uts_result = pool.run([] { return takt::apps::uts(takt::apps::uts_p3ls3); });
    for (int r = 0; r < 20; ++r) pool.run([&] { takt::apps::matmul(a.data(), b.data(), c.data(), n); });
    steals = pool.total_statistics().steals;
  }
  counting = false;
  EXPECT_EQ(allocations.load(), 0u);
  if (allocations.load() != 0) ::backtrace_symbols_fd(first_trace, first_trace_size.load(), STDERR_FILENO);
  EXPECT_GT(steals, 0u) << "no steal happened; the check proves nothing";
  EXPECT_EQ(fib_result, takt::apps::fib_serial(24));
  EXPECT_EQ(uts_result, uts_expected);
  EXPECT_EQ(c, expected);
}

}  // namespace
