// The built-in programs are registered by name, parse their arguments with clear errors, and run jobs on a
// pool.
#include "apps/programs.hpp"
#include "apps/same_result.hpp"
#include "apps/segments.hpp"
#include "apps/synthetic.hpp"
#include "os/clock.hpp"
#include "takt/error.hpp"
#include "takt/program.hpp"
#include "takt/runtime.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include <string>
#include <vector>

namespace {

using Args = std::vector<std::string>;

std::unique_ptr<takt::Task> make(const std::string& name) {
  takt::apps::register_builtin_programs();
  return takt::programs().find(name).create();
}

std::string init_error(const std::string& name, const Args& args) {
  auto task = make(name);
  try {
    task->init({name, args, 1});
  } catch (const takt::Error& e) {
    return e.what();
  }
  return "";
}

TEST(BuiltinPrograms, AllAreRegisteredOnceByName) {
  takt::ProgramRegistry registry;
  takt::apps::register_builtin_programs(registry);
  takt::apps::register_builtin_programs(registry);  // again: harmless
  EXPECT_EQ(registry.names(),
            (std::vector<std::string>{"cholesky", "fib", "heat", "lu", "matmul", "synthetic", "uts"}));
  EXPECT_NE(registry.description("heat").find("[ROWS=512]"), std::string::npos);
  EXPECT_EQ(registry.find("lu").origin, "built-in");
}

TEST(BuiltinPrograms, AnotherProgramWithABuiltinNameIsKept) {
  // A test or an application may register its own 'fib' first; the built-ins do not replace it.
  struct Mine : takt::Task {
    void run(const takt::Job&) override {}
  };
  takt::ProgramRegistry registry;
  registry.add<Mine>("fib", "mine");
  takt::apps::register_builtin_programs(registry);
  EXPECT_EQ(registry.description("fib"), "mine");
  EXPECT_TRUE(registry.contains("heat"));
}

struct Case {
  std::string program;
  Args args;
};

class RunsJobs : public ::testing::TestWithParam<Case> {};

TEST_P(RunsJobs, OnATwoWorkerPool) {
  const Case& c = GetParam();
  auto task = make(c.program);
  task->init({c.program, c.args, 2});
  takt::PoolConfig config;
  config.workers = 2;
  config.memory.depth = 300;  // the p3ls3 UTS tree is 247 deep
  config.memory.stack_size = 32 * 1024;
  takt::Pool pool(config);
  // Three jobs: each checks its result (fib against the closed value, uts, matmul, heat,
  // cholesky and lu against the one their init computed serially; they throw on a
  // difference).
  for (std::uint64_t k = 0; k < 3; ++k) {
    takt::Job job;
    job.task = c.program;
    job.index = k;
    job.cores = 2;
    EXPECT_NO_THROW(pool.run([&] { task->run(job); })) << c.program;
  }
  // Each job used the runtime's fork-join, not a serial loop.
  EXPECT_GT(pool.total_statistics().spawns, 2u) << c.program;
  task->finalize();
}

INSTANTIATE_TEST_SUITE_P(Builtins, RunsJobs,
                         ::testing::Values(Case{"matmul", {"64"}}, Case{"heat", {"40", "30", "3", "4"}},
                                           Case{"cholesky", {"96", "16"}}, Case{"lu", {"96", "16"}},
                                           Case{"uts", {"p3ls3"}}, Case{"fib", {"15"}},
                                           Case{"synthetic", {"3", "5", "0.002"}}),
                         [](const auto& info) { return info.param.program; });

TEST(BuiltinPrograms, DefaultsNeedNoArguments) {
  for (const char* name : {"matmul", "heat", "cholesky", "lu", "uts", "fib"}) {
    EXPECT_EQ(init_error(name, {}), "") << name;
  }
}

TEST(BuiltinPrograms, BadArgumentsNameTheArgumentTheRangeAndTheUsage) {
  EXPECT_EQ(init_error("heat", {"64", "wide"}),
            "program 'heat': argument 2 (COLUMNS) must be a whole number from 3 to 1000000, got 'wide'; "
            "usage: heat [ROWS=512] [COLUMNS=512] [STEPS=50] [LEAF_ROWS=10]");
  EXPECT_NE(init_error("heat", {"2"}).find("argument 1 (ROWS) must be a whole number from 3"),
            std::string::npos);
  EXPECT_NE(init_error("heat", {"1000000", "1000000"}).find("too large"), std::string::npos);
  EXPECT_NE(init_error("cholesky", {"-5"}).find("argument 1 (N)"), std::string::npos);
  EXPECT_NE(init_error("lu", {"64", "0"}).find("argument 2 (BASE) must be a whole number from 1"),
            std::string::npos);
  EXPECT_NE(init_error("fib", {"30", "2"}).find("1 argument(s) too many (the first extra one is '2')"),
            std::string::npos);
  EXPECT_NE(init_error("uts", {"t4"}).find("must be one of p3ls3, t3-style, t3, got 't4'"),
            std::string::npos);
  EXPECT_NE(init_error("synthetic", {"4"}).find("argument 1 (TYPE) must be a whole number from 1 to 3"),
            std::string::npos);
  EXPECT_NE(init_error("synthetic", {"1", "1", "lots"}).find("argument 3 (SCALE) must be a number"),
            std::string::npos);
  // A decimal argument takes what a whole one takes: no leading space, no hexadecimal
  // (strtod took both: " 1e-3" ran, "0x1p-3" ran with SCALE 0.125).
  for (const char* odd : {" 1e-3", "0x1p-3", "1e-3 ", "+0.5"}) {
    EXPECT_NE(init_error("synthetic", {"1", "1", odd}).find("argument 3 (SCALE) must be a number from"),
              std::string::npos)
        << "'" << odd << "'";
  }
  EXPECT_EQ(init_error("synthetic", {"1", "1", "1e-3"}), "");
  EXPECT_NE(init_error("matmul", {"12x"}).find("got '12x'"), std::string::npos);
}

}  // namespace

TEST(SameResult, AJobWhoseResultDiffersFromTheFirstJobsThrowsNamingBoth) {
  std::vector<double> values(10000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::sin(static_cast<double>(i)) * 1e3;
  takt::apps::SameResult same;
  takt::Job job;
  job.index = 0;
  EXPECT_NO_THROW(same.check("matmul", job, values.data(), values.size()));
  job.index = 1;
  EXPECT_NO_THROW(same.check("matmul", job, values.data(), values.size()));
  values[7777] = std::nextafter(values[7777], 1e9);  // one ulp
  job.index = 2;
  try {
    same.check("matmul", job, values.data(), values.size());
    FAIL() << "no error";
  } catch (const takt::Error& e) {
    EXPECT_STREQ(e.what(), "matmul: job 2 computed a result different from job 0's, from the same input");
  }
}

TEST(SameResult, AResultWrongInEveryJobDiffersFromTheSerialReference) {
  // With the first job as the reference, a result wrong the same way in every job (a
  // lost branch) passed. The programs give the serial result as the reference in init.
  std::vector<double> serial(5000);
  for (std::size_t i = 0; i < serial.size(); ++i) serial[i] = std::cos(static_cast<double>(i)) * 1e2;
  std::vector<double> wrong = serial;
  wrong[1234] = 0.0;
  takt::apps::SameResult same;
  same.expect(serial.data(), serial.size());
  takt::Job job;
  job.index = 0;
  try {
    same.check("lu", job, wrong.data(), wrong.size());
    FAIL() << "no error";
  } catch (const takt::Error& e) {
    EXPECT_STREQ(e.what(), "lu: job 0 computed a result different from the one init computed serially, from the "
                           "same input");
  }
  EXPECT_NO_THROW(same.check("lu", job, serial.data(), serial.size()));
}

TEST(SameResult, DifferencesThatCancelInPlainSumsChangeTheFingerprint) {
  // Sums of the raw 64-bit patterns (the first version) missed two sign flips 16 values
  // apart in one lane, and last-bit changes of +1, -1, -1, +1 at a stride of 8: both
  // leave every lane's two sums as they were. The words are mixed before they are summed.
  std::vector<double> base(4096 * 3);
  for (std::size_t i = 0; i < base.size(); ++i) base[i] = 0.5 + static_cast<double>(i % 97);
  takt::apps::SameResult same;
  const std::uint64_t original = same.fingerprint(base.data(), base.size());
  std::vector<double> flipped = base;
  flipped[3] = -flipped[3];
  flipped[19] = -flipped[19];
  EXPECT_NE(same.fingerprint(flipped.data(), flipped.size()), original);
  std::vector<double> nudged = base;
  const double direction[] = {1e9, -1e9, -1e9, 1e9};
  for (std::size_t k = 0; k < 4; ++k) nudged[5 + 8 * k] = std::nextafter(nudged[5 + 8 * k], direction[k]);
  EXPECT_NE(same.fingerprint(nudged.data(), nudged.size()), original);
  std::vector<double> swapped = base;
  std::swap(swapped[100], swapped[9000]);
  EXPECT_NE(same.fingerprint(swapped.data(), swapped.size()), original);
  EXPECT_EQ(same.fingerprint(base.data(), base.size()), original) << "the same values, the same fingerprint";
}

TEST(Segments, AStrandUsesItsLengthOfCpuTimeWhateverTheLoopsSpeed) {
  // busy_wait spins until the thread's CPU clock has advanced by the length. Before, a
  // strand was a fixed number of iterations from a calibration taken once per process:
  // calibrated while another process loaded the machine, the policy tests' jobs then ran
  // 22 % shorter than declared (9.7 ms for 12.6 ms). Here the steps are sized for a
  // loop 4 times faster and 4 times slower than calibrated: the CPU time is 10 ms
  // either way, plus at most one step, an eighth of the length at the assumed speed
  // (1.25 ms; 5 ms of real time where the loop is 4 times slower than assumed). The
  // upper bounds allow the loop twice that and more (a loaded machine slows it; this
  // VM's speed changes by 2 times between moments: 16.6 ms was seen in one try), far
  // below what a fixed count of iterations gives with such a calibration (2.5 and
  // 40 ms). The wait may end up to half a clock read short of its length (more when
  // the read cost was measured at a slow moment): the lower bound allows 5 us, far
  // above a read (~0.6 us) and far below the 7.5 ms a count of iterations sized for a
  // loop 4 times faster leaves out.
  // The least of 3 tries counts (a VM that charges the time the host took its vCPU away
  // to the thread's CPU time adds to one).
  using namespace std::chrono_literals;
  const double rate = takt::apps::busy_units_per_ns();
  for (const double factor : {0.25, 1.0, 4.0}) {
    std::chrono::nanoseconds least = std::chrono::nanoseconds::max();
    for (int attempt = 0; attempt < 3; ++attempt) {
      const auto t0 = takt::os::thread_cpu_time();
      takt::apps::busy_wait(10ms, rate * factor);
      least = std::min(least, takt::os::thread_cpu_time() - t0);
    }
    EXPECT_GE(least, 10ms - 5us) << "factor " << factor;
    EXPECT_LE(least, factor > 1 ? 25ms : 12500us) << "factor " << factor;
  }
}

/// spin_steps() over a simulated clock: each read costs `read` and returns the time
/// half-way through it; the loop runs `slower` times slower than the rate the steps are
/// sized by. Returns how far past `length` the wait ended (negative: short of it) and
/// how many steps it took.
namespace {
struct SimulatedWait {
  double overshoot_ns;
  int steps;
};
SimulatedWait simulate_wait(std::chrono::nanoseconds length, std::chrono::nanoseconds read, double slower) {
  constexpr double kRate = 2.0;  // iterations per ns the steps are sized by
  double t = 0.0;
  int steps = 0;
  const auto now = [&] {
    t += static_cast<double>(read.count()) / 2;
    const std::chrono::nanoseconds value{static_cast<std::int64_t>(t)};
    t += static_cast<double>(read.count()) / 2;
    return value;
  };
  const auto spin = [&](std::uint64_t units) {
    t += static_cast<double>(units) * slower / kRate;
    ++steps;
  };
  takt::apps::spin_steps(length, read, kRate, now, spin);
  return {t - static_cast<double>(length.count()), steps};
}
}  // namespace

TEST(Segments, AWaitWhoseLoopRunsUpToTwiceSlowerThanItsRateEndsWithinHalfARead) {
  // The calibration keeps the loop's fastest rate, and this VM's vCPUs run it 1 to 2
  // times slower at other moments (1.3 to 2.6 iterations/ns, `takt bench cpus`). When a
  // step was sized for all that was left (at most an eighth of the length), a loop 1.9
  // times slower overshot: steps of 1.25 ms took 2.375 ms, four left 0.5 ms, and a last
  // step sized for that took 0.95 ms, 10.45 ms of CPU time for a 10 ms strand (what
  // partitioned-dm's tests saw: work/C 1.015 to 1.077 here, 1.28 under ThreadSanitizer).
  // Steps sized for half of what is left end within it while the loop is at most 2 times
  // slower: the wait ends within half a read of its length (the last read starts less
  // than half a read before the end). Here on a simulated clock, so that no VM's speed
  // changes between a measurement and the wait decide the result (a test on the real
  // clock with a rate measured just before failed in CI when it did: 10.53 ms).
  // Lengths and reads of both clocks busy_wait uses: 10 ms with the thread CPU clock's
  // ~600 ns reads, 4 us with the monotonic clock's ~40 ns.
  using namespace std::chrono_literals;
  for (const auto& [length, read] :
       {std::pair<std::chrono::nanoseconds, std::chrono::nanoseconds>{10ms, 600ns},
        std::pair<std::chrono::nanoseconds, std::chrono::nanoseconds>{4us, 40ns}}) {
    for (const double slower : {0.25, 0.5, 1.0, 1.5, 1.9, 2.0}) {
      const SimulatedWait wait = simulate_wait(length, read, slower);
      const double half_read = static_cast<double>(read.count()) / 2;
      EXPECT_LE(wait.overshoot_ns, half_read) << length << " slower " << slower;
      // The stop rule (less than half a read left), whatever the steps' sizes.
      EXPECT_GE(wait.overshoot_ns, -half_read) << length << " slower " << slower;
    }
    // Where the loop is slower still, the last step ends past the length, by less than
    // one step (an eighth of the length at the rate, `slower` times that in time).
    for (const double slower : {2.5, 4.0}) {
      const SimulatedWait wait = simulate_wait(length, read, slower);
      EXPECT_LT(wait.overshoot_ns, slower * static_cast<double>((length / 8).count()))
          << length << " slower " << slower;
      EXPECT_GE(wait.overshoot_ns, -static_cast<double>(read.count()) / 2) << length << " slower " << slower;
    }
  }
  // The steps: a 10 ms wait at the rate takes 6 steps of an eighth, a seventh of
  // 1.247 ms, then halves what is left (less a read each time) down to half a read: 11
  // more, 18 in all (traced by hand; fewer than log2(2.5 ms / 300 ns) = 13 halvings,
  // since each step also takes a read off); a loop 4 times faster takes more of them
  // (each ends sooner), still far from one read per few iterations.
  EXPECT_LE(simulate_wait(10ms, 600ns, 1.0).steps, 20);
  EXPECT_GE(simulate_wait(10ms, 600ns, 1.0).steps, 16);
  EXPECT_LE(simulate_wait(10ms, 600ns, 0.25).steps, 100);
}

TEST(Segments, AShortStrandLastsItsLengthWhateverTheLoopsSpeed) {
  // A strand shorter than kClockedStrand spins until the monotonic clock has advanced by
  // its length. Before, it was the calibrated count of iterations: where the loop ran at
  // a different speed than in the calibration, strands ran that much shorter or longer
  // (this VM switches between ~1.3 and ~2.6 iterations/ns, `takt bench cpus`, and a
  // policy test's fine-grained jobs executed 0.70 of C in CI). Here 1000 strands of 4 us
  // have their steps sized for a loop 4 times faster and 4 times slower than
  // calibrated: 4 ms of CPU time either way, less what preemptions inside a strand took
  // (each at most the strand's 4 us; 0.8 allows 200 of them), plus at most one step per
  // strand (half a strand at a rate 4 times slower, 4 us of real time where the loop is
  // also 2 times slower than calibrated: 8 ms in all; 10 ms allows for ThreadSanitizer's
  // cost of each of the 1000 calls). A count of iterations sized by these rates takes 1
  // to 2 ms and 16 to 32 ms.
  using namespace std::chrono_literals;
  if (!takt::apps::short_waits_are_timed()) {
    GTEST_SKIP() << "the monotonic clock costs more than " << takt::apps::kCheapClockRead.count()
                 << " ns a read here: short strands count iterations";
  }
  // The least of 3 tries counts for the upper bound (a VM that charges the time the host
  // took its vCPU away to the thread's CPU time adds to a try), the most for the lower
  // one (a preemption inside a strand takes from it).
  const double rate = takt::apps::busy_units_per_ns();
  for (const double factor : {0.25, 1.0, 4.0}) {
    std::chrono::nanoseconds least = std::chrono::nanoseconds::max(), most{0};
    for (int attempt = 0; attempt < 3; ++attempt) {
      const auto t0 = takt::os::thread_cpu_time();
      for (int i = 0; i < 1000; ++i) takt::apps::busy_wait(4us, rate * factor);
      const auto used = takt::os::thread_cpu_time() - t0;
      least = std::min(least, used);
      most = std::max(most, used);
    }
    EXPECT_GE(most, 3200us) << "factor " << factor;
    // 4 ms of strands plus each call's clock reads (up to ~0.2 us each under ThreadSanitizer).
    EXPECT_LE(least, factor > 1 ? 10ms : 8ms) << "factor " << factor;
  }
}
