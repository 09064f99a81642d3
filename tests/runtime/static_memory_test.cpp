// Static memory (P³LS³ §4): the footprint bound, the measurement run, and clear errors
// when a computation needs more depth or stack than configured.
#include "apps/fib.hpp"
#include "runtime/pool_state.hpp"
#include "runtime/stack_memory.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using takt::Pool;
using takt::testing::config;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(StaticMemory, FootprintIsPTimesRs) {
  auto c = config(2);
  c.memory.depth = 8;
  c.memory.stack_size = 16 * 1024;
  Pool pool(c);
  takt::MemoryFootprint m = pool.memory();
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  // One block = a 16 KiB stack + its guard page + its task record; R_S = D blocks;
  // the bound is P · R_S = 2 · 8 blocks.
  EXPECT_EQ(m.workers, 2u);
  EXPECT_EQ(m.depth, 8u);
  EXPECT_EQ(m.chains_per_worker, 1u);
  EXPECT_EQ(m.stack_size, 16u * 1024);
  EXPECT_EQ(m.block_bytes, 16u * 1024 + page + sizeof(takt::detail::Block));
  EXPECT_EQ(m.resources_per_chain, 8 * m.block_bytes);
  EXPECT_EQ(m.bound_bytes, 2 * 8 * m.block_bytes);
  EXPECT_EQ(m.reserve_blocks, 0u);
  // Everything allocated at start, by hand: the one mapping holds 16 stacks with their
  // guard pages (the bound's stacks), 2 large stacks of 256 KiB (config's) with theirs,
  // and 2 signal stacks; then 16 task records, and per worker its record and one level
  // whose deque has 16 slots of 8 bytes (D + 2 = 10, rounded up to a power of two).
  const std::size_t mapping = 16 * (16u * 1024 + page) + 2 * (256u * 1024 + page) +
                              2 * takt::detail::StackMemory::altstack_size();
  EXPECT_EQ(m.total_bytes, mapping + 16 * sizeof(takt::detail::Block) +
                               2 * (sizeof(takt::detail::Worker) + sizeof(takt::detail::Level) + 16 * 8));
  EXPECT_GT(m.total_bytes, m.bound_bytes);

  // A priority_aware pool has one chain per level, plus the reserve for handed-back strands.
  c.strategy = takt::QueueStrategy::priority_aware;
  c.priority_levels = 3;
  c.suspended_strands = 2;
  Pool priority(c);
  takt::MemoryFootprint p = priority.memory();
  EXPECT_EQ(p.chains_per_worker, 3u);
  EXPECT_EQ(p.reserve_blocks, 2u * 8);
  EXPECT_EQ(p.bound_bytes, (2 * 3 * 8 + 2 * 8) * p.block_bytes);
}

TEST(StaticMemory, MeasurementReportsDepthAndStackOfASerialRun) {
  // fib(n) run from the root: fib(n) at depth 1 spawns fib(n-1) at depth 2, ...,
  // fib(2) at depth n-1 spawns fib(1) at depth n. So D = n.
  takt::Measurement m = takt::measure([] { return takt::apps::fib(20); });
  EXPECT_EQ(m.depth, 20u);
  EXPECT_EQ(m.spawns, takt::apps::fib_spawns(20));
  EXPECT_GT(m.peak_stack_bytes, 0u);
  EXPECT_LT(m.peak_stack_bytes, 64u * 1024);
  takt::StaticMemory recommended = m.recommended();
  EXPECT_EQ(recommended.depth, 20u);
  EXPECT_GE(recommended.stack_size, m.peak_stack_bytes);

  // The recommended configuration runs the measured computation, and nothing deeper.
  auto c = config(2);
  c.memory = recommended;
  Pool pool(c);
  EXPECT_EQ(pool.run([] { return takt::apps::fib(20); }), takt::apps::fib_serial(20));
  EXPECT_THROW(pool.run([] { return takt::apps::fib(21); }), takt::Error);
}

TEST(StaticMemory, MeasurementRunsSpawnsInsideCallOnLargeStackInlineAsAPoolDoes) {
  // A pool with a large stack runs spawns inside call_on_large_stack inline; the
  // measurement mode once had no large stack and made them real spawns, so it reported
  // the depth of fib(10) (11 with the root) for code that never spawns on a pool.
  takt::Measurement m = takt::measure([] {
    return takt::call_on_large_stack([] { return takt::apps::fib(10); });
  });
  EXPECT_EQ(m.depth, 1u);
  EXPECT_EQ(m.spawns, 0u);
  // Outside call_on_large_stack the same computation spawns as always.
  EXPECT_EQ(takt::measure([] { return takt::apps::fib(10); }).depth, 10u);
}

TEST(StaticMemory, RecommendedRoundsPeakPlusMarginUpToPages) {
  if (sysconf(_SC_PAGESIZE) != 4096) GTEST_SKIP() << "the values below are derived for 4 KiB pages";
  // depth: D, at least 1. stack: peak + margin rounded up to 4096, at least 16384.
  takt::Measurement m;
  m.depth = 0;
  m.peak_stack_bytes = 10000;
  takt::StaticMemory r = m.recommended();  // 10000 + 8192 = 18192 -> 5 pages = 20480
  EXPECT_EQ(r.depth, 1u);
  EXPECT_EQ(r.stack_size, 20480u);
  // 10000 + 100 = 10100 -> 3 pages = 12288 -> the 16 KiB floor. (Rounding the peak first,
  // 12288 + 100 = 12388 -> 16384 too; 14000 tells the two apart: 14100 -> 16384, but
  // 16384 + 100 -> 20480.)
  EXPECT_EQ(m.recommended(100).stack_size, 16384u);
  m.peak_stack_bytes = 14000;
  EXPECT_EQ(m.recommended(100).stack_size, 16384u);
  m.depth = 7;
  m.peak_stack_bytes = 0;
  r = m.recommended();  // 0 + 8192 -> 8192 -> the 16 KiB floor
  EXPECT_EQ(r.depth, 7u);
  EXPECT_EQ(r.stack_size, 16384u);
  m.peak_stack_bytes = 4096 * 10;
  EXPECT_EQ(m.recommended(0).stack_size, 4096u * 10);  // whole pages stay as they are
  EXPECT_EQ(m.recommended(1).stack_size, 4096u * 11);
}

TEST(StaticMemory, AMeasurementDeeperThanItsLimitNamesMeasureOptions) {
  // fib(30) reaches depth 30; measured with max_depth 20 the message told the user to
  // raise StaticMemory::depth of pool 'measurement' "to the D that takt::measure
  // reports", which is what failed: the limit to raise is MeasureOptions::max_depth.
  try {
    (void)takt::measure([] { return takt::apps::fib(30); }, takt::MeasureOptions{.max_depth = 20});
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "spawn at depth 21 exceeds the depth takt::measure measures up to: MeasureOptions::max_depth = 20; "
              "pass takt::measure a MeasureOptions with a larger max_depth (at least 21)");
  }
  EXPECT_EQ(takt::measure([] { return takt::apps::fib(30); }, takt::MeasureOptions{.max_depth = 30}).depth, 30u);
}

TEST(StaticMemory, MeasurementSplitsEveryLoopToItsGrain) {
  // parallel_for over 1024 indices with grain 1: ranges halve 10 times down to one index,
  // so the deepest strand is at depth 1 + 10 = 11 (lazy splitting would show far less).
  takt::Measurement m = takt::measure([] { takt::parallel_for(0, 1024, 1, [](int) {}); });
  EXPECT_EQ(m.depth, 11u);
  EXPECT_EQ(m.spawns, 1023u);  // a binary tree with 1024 leaves has 1023 inner splits
}

template <std::size_t Bytes>
void use_stack() {
  volatile char buffer[Bytes];
  for (std::size_t i = 0; i < Bytes; i += 256) buffer[i] = 1;
  (void)buffer[0];
}

TEST(StaticMemory, MeasurementGrowsWithTheStackAStrandUses) {
  auto measure_child = [](auto body) {
    return takt::measure([body] {
      takt::Scope scope;
      scope.spawn(body);
      scope.sync();
    });
  };
  takt::Measurement small = measure_child([] { use_stack<4 * 1024>(); });
  takt::Measurement large = measure_child([] { use_stack<48 * 1024>(); });
  EXPECT_GE(large.peak_stack_bytes, 48u * 1024);
  EXPECT_GT(large.peak_stack_bytes, small.peak_stack_bytes + 32 * 1024);
  EXPECT_LT(small.peak_stack_bytes, 32u * 1024);
}

TEST(StaticMemory, MeasurementReportsTheLargeStackApart) {
  // call_on_large_stack's function uses 200 KiB, a spawned child 4 KiB. Until 2026-11-28
  // the measurement ran the function on the strand's stack, so peak_stack_bytes (and the
  // stack_size recommended for each of the P * D blocks) took in what a pool runs on its
  // one large stack per worker.
  auto computation = [] {
    takt::call_on_large_stack([] { use_stack<200 * 1024>(); });
    takt::Scope scope;
    scope.spawn([] { use_stack<4 * 1024>(); });
    scope.sync();
  };
  takt::Measurement m = takt::measure(computation);
  EXPECT_LT(m.peak_stack_bytes, 32u * 1024);
  EXPECT_GE(m.peak_large_stack_bytes, 200u * 1024);
  EXPECT_LT(m.peak_large_stack_bytes, 240u * 1024);
  const takt::StaticMemory r = m.recommended();
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  auto pages = [page](std::size_t bytes) { return (bytes + page - 1) / page * page; };
  EXPECT_EQ(r.stack_size, std::max<std::size_t>(pages(m.peak_stack_bytes + 8 * 1024), 16 * 1024));
  EXPECT_EQ(r.large_stack_size, std::max<std::size_t>(pages(m.peak_large_stack_bytes + 8 * 1024), 16 * 1024));
  // A pool of that size runs it.
  auto c = config(2);
  c.memory = r;
  Pool pool(c);
  pool.run(computation);
  // Not called: 0, and the default large stack.
  takt::Measurement plain = takt::measure([] { use_stack<4 * 1024>(); });
  EXPECT_EQ(plain.peak_large_stack_bytes, 0u);
  EXPECT_EQ(plain.recommended().large_stack_size, takt::StaticMemory{}.large_stack_size);
}

// Also with the calling thread as worker 0 (PoolConfig::caller_joins).
class TooDeep : public ::testing::TestWithParam<bool> {};

INSTANTIATE_TEST_SUITE_P(StaticMemory, TooDeep, ::testing::Bool(),
                         [](const auto& info) { return std::string(info.param ? "caller_joins" : "caller_blocks"); });

TEST_P(TooDeep, ASpawnIsAClearError) {
  auto c = config(2);
  c.caller_joins = GetParam();
  c.memory.depth = 10;
  Pool pool(c);
  try {
    pool.run([] { return takt::apps::fib(15); });
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    std::string message = e.what();
    EXPECT_TRUE(contains(message, "StaticMemory::depth = 10 (configured)")) << message;
    EXPECT_TRUE(contains(message, "at least 11 needed")) << message;
  }
  // Nothing was corrupted: the pool runs what fits.
  EXPECT_EQ(pool.run([] { return takt::apps::fib(10); }), takt::apps::fib_serial(10));
  EXPECT_EQ(pool.run([] { return takt::apps::fib(10); }), takt::apps::fib_serial(10));
}

// Recursion of 1 KiB frames that spawns at every level: the spawn finds its stack
// nearly used up and throws before the guard page is reached.
int deep_spawner(int level) {
  if (level > 1'000'000) return 0;  // never: the stack ends long before
  volatile char frame[1024];
  frame[0] = static_cast<char>(level);
  int result = 0;
  takt::Scope scope;
  scope.spawn([&result] { result = 1; });
  scope.sync();
  return result + deep_spawner(level + 1) + frame[0] * 0;
}

TEST(StaticMemory, StackNearlyExhaustedAtASpawnIsAClearError) {
  auto c = config(1);
  c.memory.stack_size = 16 * 1024;
  Pool pool(c);
  try {
    pool.run([] { return deep_spawner(0); });
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    std::string message = e.what();
    EXPECT_TRUE(contains(message, "StaticMemory::stack_size = 16384 bytes (configured)")) << message;
    EXPECT_TRUE(contains(message, "needed")) << message;
  }
  EXPECT_EQ(pool.run([] { return takt::apps::fib(12); }), takt::apps::fib_serial(12));
  // In takt::measure the limit is MeasureOptions::stack_size (until 2026-11-28 the message
  // named StaticMemory::stack_size there too).
  try {
    (void)takt::measure([] { return deep_spawner(0); }, takt::MeasureOptions{.stack_size = 16 * 1024});
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    std::string message = e.what();
    EXPECT_TRUE(contains(message, "in takt::measure: ")) << message;
    EXPECT_TRUE(contains(message, "of MeasureOptions::stack_size = 16384 bytes in use")) << message;
    EXPECT_TRUE(contains(message, "pass takt::measure a MeasureOptions with a larger stack_size")) << message;
  }
}

int overflow(int n) {
  if (n > 1'000'000) return 0;  // never: the guard page is hit first
  volatile char frame[512];
  frame[0] = static_cast<char>(n);
  return overflow(n + 1) + frame[0];
}

// One frame larger than what is left of the stack plus the guard page: without
// -fstack-clash-protection (which takt::runtime exports to its users) the stack pointer
// moves past the guard page in one step and the write lands in the block below.
__attribute__((noinline)) int large_frame() {
  char buffer[20800];
  std::memset(buffer, 1, 128);
  asm volatile("" : : "r"(buffer) : "memory");  // keep the buffer
  return buffer[0];
}

TEST(PoolStart, AWorkerThreadThatCannotStartIsAnErrorNotATermination) {
  // Threads count against RLIMIT_NPROC of their real user, which root does not obey; a
  // child process becomes user nobody (65534) with a limit of 3 and starts 16 workers.
  // Before the fix the pool's unwinding destroyed joinable std::threads: std::terminate.
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to become an unprivileged user whose thread limit applies";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const rlimit limit{3, 3};
    if (::setrlimit(RLIMIT_NPROC, &limit) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    try {
      Pool pool(config(16));
      ::_exit(3);  // every thread started: the limit did not apply
    } catch (const takt::Error& e) {
      const std::string m = e.what();
      ::_exit(m.find("cannot start worker thread") != std::string::npos &&
                      m.find("ulimit -u") != std::string::npos
                  ? 0
                  : 4);
    } catch (...) {
      ::_exit(5);
    }
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << WTERMSIG(status)
                                 << " (std::terminate?)";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: cannot become nobody, 3: no thread was refused, 4: wrong message, "
                                       "5: not a takt::Error";
}

TEST(StaticMemoryDeathTest, GuardPageOverflowEndsWithAClearMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto c = config(1);
        c.memory.stack_size = 16 * 1024;
        Pool pool(c);
        pool.run([] { return overflow(0); });
      },
      ::testing::ExitedWithCode(70), "overflowed its coroutine stack in pool 'test' \\(StaticMemory::stack_size = 16384");
}

TEST(StaticMemoryDeathTest, OverflowsInTheMeasurementNameMeasureOptions) {
  // The measurement's stacks come from MeasureOptions, not StaticMemory.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      { (void)takt::measure([] { return overflow(0); }, takt::MeasureOptions{.stack_size = 16 * 1024}); },
      ::testing::ExitedWithCode(70),
      "overflowed its coroutine stack in pool 'measurement' \\(takt::measure: MeasureOptions::stack_size = "
      "16384 "
      "bytes\\); pass takt::measure a MeasureOptions with a larger stack_size");
  EXPECT_EXIT(
      {
        (void)takt::measure([] { takt::call_on_large_stack([] { use_stack<256 * 1024>(); }); },
                            takt::MeasureOptions{.large_stack_size = 64 * 1024});
      },
      ::testing::ExitedWithCode(70),
      "overflowed the large stack in pool 'measurement' \\(takt::measure: MeasureOptions::large_stack_size = "
      "65536 bytes\\); pass takt::measure a MeasureOptions with a larger large_stack_size");
}

TEST(StaticMemoryDeathTest, GuardPageOverflowOnTheCallerAsWorkerZeroEndsWithTheSameMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto c = config(2);
        c.caller_joins = true;
        c.memory.stack_size = 16 * 1024;
        Pool pool(c);
        pool.run([] { return overflow(0); });
      },
      ::testing::ExitedWithCode(70), "overflowed its coroutine stack in pool 'test' \\(StaticMemory::stack_size = 16384");
}

// 1 worker, 16 KiB stacks: the root fills a sentinel, its child calls large_frame, whose
// frame would reach 4.6 KiB below the child's stack (past its one-page guard) into the
// top of another block. Without the flag the write lands there unseen: the process then
// dies of an unexplained SIGSEGV (seen here) or exits 3 with the sentinel overwritten.
TEST(StaticMemoryDeathTest, AFrameLargerThanTheGuardPageEndsWithTheSameMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto c = config(1);
        c.memory.stack_size = 16 * 1024;
        Pool pool(c);
        bool intact = pool.run([] {
          volatile char sentinel[256];
          for (auto& byte : sentinel) byte = 0x5A;
          int r = 0;
          takt::Scope scope;
          scope.spawn([&r] { r = large_frame(); });
          scope.sync();
          bool same = r == 1;
          for (auto& byte : sentinel) same = same && byte == 0x5A;
          return same;
        });
        ::_exit(intact ? 2 : 3);
      },
      ::testing::ExitedWithCode(70),
      "overflowed its coroutine stack in pool 'test' \\(StaticMemory::stack_size = 16384");
}

}  // namespace

namespace {

TEST(StaticMemory, StacksBeyondTheAddressSpaceLimitNameIt) {
  // `takt profile` under `ulimit -v` below its 4 GiB measurement reservation said only
  // "lower StaticMemory::depth or stack_size, or the number of workers", knobs a user of
  // the command line cannot turn. In a child with RLIMIT_AS of 1 TiB, a measurement that
  // reserves 2 TiB (2^20 levels of 2 MiB) names the limit, and that the stacks are only
  // reserved, and MeasureOptions' knobs, not StaticMemory's (until 2026-11-28 it named
  // StaticMemory::depth or stack_size here too).
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const rlimit tebibyte{1ULL << 40, 1ULL << 40};
    if (::setrlimit(RLIMIT_AS, &tebibyte) != 0) ::_exit(10);
    try {
      (void)takt::measure([] {}, takt::MeasureOptions{std::size_t{1} << 20, std::size_t{2} << 20});
    } catch (const takt::Error& e) {
      const bool named =
          contains(e.what(), "cannot map ") &&
          contains(e.what(),
                   "lower MeasureOptions::max_depth, stack_size or large_stack_size (takt::measure)") &&
          !contains(e.what(), "StaticMemory") &&
          contains(e.what(),
                   "or raise this process's address-space limit (ulimit -v, 1073741824 KiB here; these "
                   "stacks are only reserved, not touched, so this costs no memory)");
      ::_exit(named ? 0 : 11);
    }
    ::_exit(12);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: setrlimit failed; 11: the limit was not named; 12: no error";
}

// Every stack's guard page splits the pool's one mapping, about two kernel map entries a
// stack. Until 2026-11-29 a failing mprotect (ENOMEM past vm.max_map_count) was ignored:
// the stacks past the limit had no guard page, and an overflow ran silently into the
// stack below. In a child whose mappings are brought to 20 below the limit, a pool of 200
// stacks (D = 200, one worker) is refused by name: the guard page, the limit and its
// value, what to lower.
TEST(StaticMemory, GuardPagesBeyondTheKernelsMappingLimitAreAClearError) {
  std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r");
  unsigned long long limit = 0;
  if (f != nullptr) {
    if (std::fscanf(f, "%llu", &limit) != 1) limit = 0;
    std::fclose(f);
  }
  if (limit == 0 || limit > 1'000'000)
    GTEST_SKIP() << "vm.max_map_count unknown or too large to fill: " << limit;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::size_t maps = 0;
    if (std::FILE* m = std::fopen("/proc/self/maps", "r")) {
      for (int c; (c = std::fgetc(m)) != EOF;) maps += c == '\n';
      std::fclose(m);
    }
    // Pages alternately readable and not: one map entry each.
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t filler = limit - maps - 20;
    char* p = static_cast<char*>(
        ::mmap(nullptr, filler * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    if (p == MAP_FAILED) ::_exit(10);
    for (std::size_t i = 1; i < filler; i += 2) (void)::mprotect(p + i * page, page, PROT_NONE);
    auto c = config(1);
    c.memory.depth = 200;
    c.memory.stack_size = 16 * 1024;
    c.memory.large_stack_size = 0;
    c.prefault = false;
    int code = 12;
    try {
      takt::Pool pool(c);
    } catch (const takt::Error& e) {
      const std::string what = e.what();
      code = contains(what, "pool 'test': cannot place the guard page of strand stack ") &&
                     contains(what,
                              " of 200 (Cannot allocate memory); each stack's guard page costs about two "
                              "of the process's memory mappings, and the kernel allows " +
                                  std::to_string(limit) + " (vm.max_map_count); lower StaticMemory::depth") &&
                     contains(what, "or raise vm.max_map_count (sysctl -w vm.max_map_count=N)")
                 ? 0
                 : 11;
      if (code != 0) std::fprintf(stderr, "%s\n", what.c_str());
    }
    ::munmap(p, filler * page);
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: the filler mapping failed; 11: the message; 12: no error";
}

// A block keeps its stack's size in 32 bits (the spawn and sync range check), so a pool
// refuses stacks above 1 GiB = 1,073,741,824 bytes by name, the measurement's pool too.
TEST(StaticMemory, AStackAboveOneGibibyteIsRefused) {
  auto c = config(1);
  c.memory.stack_size = (std::size_t{1} << 30) + 4096;
  try {
    takt::Pool pool(c);
    ADD_FAILURE() << "no error";
  } catch (const takt::Error& e) {
    EXPECT_TRUE(contains(e.what(),
                         "StaticMemory::stack_size = 1073745920 bytes is too large; use at most "
                         "1073741824 (1 GiB)"))
        << e.what();
  }
  try {
    (void)takt::measure([] {}, takt::MeasureOptions{8, std::size_t{2} << 30});
    ADD_FAILURE() << "no error";
  } catch (const takt::Error& e) {
    EXPECT_TRUE(contains(e.what(),
                         "takt::measure: MeasureOptions::stack_size = 2147483648 bytes is too large; use "
                         "at most 1073741824 (1 GiB)"))
        << e.what();
  }
}

}  // namespace

namespace {

/// Memory step (in blocks) from each chain position to the next.
std::vector<std::int64_t> strides(const std::vector<std::size_t>& order) {
  std::vector<std::int64_t> s;
  for (std::size_t d = 0; d + 1 < order.size(); ++d) {
    s.push_back(static_cast<std::int64_t>(order[d + 1]) - static_cast<std::int64_t>(order[d]));
  }
  return s;
}

TEST(BlockLayout, AChainTakesItsBlocksInAnOrderWithNoRepeatedStride) {
  // With the blocks in position order (stride 1 everywhere), fib(30) on two workers ran
  // 40 % slower once trades had exchanged one block of each chain at depth 12 (the
  // stride prefetcher of the core walking one chain took the block the other core was
  // writing); the shuffled order removes it (docs/runtime.md, "Block layout").
  for (std::size_t depth = 1; depth <= 300; ++depth) {
    const std::vector<std::size_t> order = takt::detail::chain_order_for_testing(depth);
    ASSERT_EQ(order.size(), depth);
    std::vector<std::size_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < depth; ++i)
      ASSERT_EQ(sorted[i], i) << "not a permutation of 0.." << depth - 1;
    if (depth < 3) continue;
    const std::vector<std::int64_t> s = strides(order);
    for (std::size_t d = 0; d + 1 < s.size(); ++d) {
      EXPECT_NE(s[d], s[d + 1]) << "depth " << depth << ": positions " << d << ".." << d + 2
                                << " are evenly spaced";
    }
  }
}

TEST(BlockLayout, EveryChainOfAPoolFollowsTheOrderWithinItsOwnBlocks) {
  takt::PoolConfig c = config(2, takt::QueueStrategy::priority_aware);
  c.priority_levels = 3;
  c.memory.depth = 12;
  Pool pool(c);
  takt::detail::PoolState& state = pool.state();
  const std::vector<std::size_t> order = takt::detail::chain_order_for_testing(12);
  std::size_t first = 0;  // the chains' blocks lie in groups of `depth`, worker by worker, level by level
  for (std::size_t w = 0; w < 2; ++w) {
    for (std::size_t l = 0; l < 3; ++l) {
      std::size_t position = 0;
      for (const takt::detail::Block* b = state.workers[w]->levels[l].head; b != nullptr; b = b->chain_next) {
        ASSERT_LT(position, 12u);
        EXPECT_EQ(b->index, first + order[position]) << "worker " << w << ", level " << l;
        EXPECT_EQ(b->depth.load(), position + 1);
        ++position;
      }
      EXPECT_EQ(position, 12u);
      first += 12;
    }
  }
  // The pool computes as before.
  EXPECT_EQ(pool.run([] { return takt::apps::fib(8); }), 21u);
}

std::size_t repeats_block_zero(std::size_t, std::size_t, std::size_t) { return 0; }
std::size_t past_the_end(std::size_t chain, std::size_t position, std::size_t depth) {
  return chain * depth + position + 1;
}
std::size_t exchanges_depth_two(std::size_t chain, std::size_t position, std::size_t depth) {
  return (position == 1 ? chain ^ 1 : chain) * depth + position;
}

TEST(BlockLayout, ALayoutHookMustGiveEveryBlockOnceAndIsFollowed) {
  takt::PoolConfig c = config(2);
  c.memory.depth = 4;
  for (auto* bad : {&repeats_block_zero, &past_the_end}) {
    takt::detail::chain_layout_for_testing.store(bad);
    try {
      Pool pool(c);
      ADD_FAILURE() << "a layout that is not a permutation was accepted";
    } catch (const takt::Error& e) {
      EXPECT_NE(std::string(e.what()).find("the chain layout gives block"), std::string::npos) << e.what();
    }
    takt::detail::chain_layout_for_testing.store(nullptr);
  }
  // Position order with the depth-2 blocks of the two chains exchanged (what
  // `takt bench layout` builds).
  takt::detail::chain_layout_for_testing.store(&exchanges_depth_two);
  Pool pool(c);
  takt::detail::chain_layout_for_testing.store(nullptr);
  const std::vector<std::vector<std::uint32_t>> expected{{0, 5, 2, 3}, {4, 1, 6, 7}};
  for (std::size_t w = 0; w < 2; ++w) {
    std::vector<std::uint32_t> chain;
    for (const takt::detail::Block* b = pool.state().workers[w]->levels[0].head; b != nullptr;
         b = b->chain_next) {
      chain.push_back(b->index);
    }
    EXPECT_EQ(chain, expected[w]) << "worker " << w;
  }
  EXPECT_EQ(pool.run([] { return takt::apps::fib(3); }), 2u);
}

}  // namespace
