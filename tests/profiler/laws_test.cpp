// The work and span laws on the built-in matmul, heat, Cholesky and LU: L ≤ T_P ≤ C/P + L̂ for P = 1, 2.
//
// The profiler measures C (T₁ on one worker), L and L̂ (from the strand events), and
// T_P on P pinned workers, job by job, interleaved, so that load from other processes
// hits all of them alike. The checks use medians over the jobs and a tolerance of 10 %
// on the upper bound (frequency changes, the caches the two workers share, timer
// noise). On this shared machine another process can still take a core for the length
// of a whole measurement; a failed check is therefore measured again after a pause, up
// to ten rounds, and only a law that fails in every round fails the test. Each round's
// report says how much CPU time the hypervisor stole and other processes used meanwhile,
// so that a failure shows whether the machine was disturbed. Nothing here is a speed
// target: a slower machine passes the same checks.
#include "apps/programs.hpp"
#include "os/clock.hpp"
#include "os/cpu.hpp"
#include "os/usage.hpp"
#include "profiler/profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <thread>
#include <optional>
#include <string>
#include <vector>

namespace {

using std::chrono::nanoseconds;

constexpr double kTolerance = 0.10;
constexpr int kRounds = 10;
// Pause before measuring again: an episode in which a core is taken lasts up to seconds.
constexpr auto kPause = std::chrono::milliseconds(300);

struct Case {
  std::string program;
  std::vector<std::string> args;
};

/// Sum over CPUs.
nanoseconds total(const std::vector<nanoseconds>& v) {
  nanoseconds sum{0};
  for (nanoseconds x : v) sum += x;
  return sum;
}

/// CPU time of the whole process (every thread).
nanoseconds process_cpu_time() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + nanoseconds(ts.tv_nsec);
}

/// The burden, calibrated once for the whole suite.
const takt::profiler::Burden& burden() {
  static const takt::profiler::Burden b = [] {
    if (takt::os::allowed_cpus().size() < 2) return takt::profiler::Burden{};
    return takt::profiler::calibrate_burden().burden;
  }();
  return b;
}

class Laws : public ::testing::TestWithParam<Case> {};

TEST_P(Laws, SpanBelowTpAndTpBelowWorkOverPPlusBurdenedSpan) {
  const Case& c = GetParam();
  const std::size_t cpus = takt::os::allowed_cpus().size();
  std::vector<std::size_t> workers{1};
  if (cpus >= 2) workers.push_back(2);

  takt::apps::register_builtin_programs();
  auto task = takt::programs().find(c.program).create();
  task->init({c.program, c.args, static_cast<unsigned>(workers.back())});
  takt::profiler::ProfileOptions options;
  options.jobs = 5;
  options.burden = burden();
  options.parallel_workers = workers;

  std::string report;
  bool held = false;
  // A round in which other processes or the hypervisor took more than a tenth of the
  // CPUs' time measured them, not the program: T_P above the law there says nothing.
  bool a_quiet_round = false;
  for (int round = 0; round < kRounds && !held; ++round) {
    if (round > 0) std::this_thread::sleep_for(kPause);
    const nanoseconds wall0 = takt::os::monotonic_now(), steal0 = total(takt::os::cpu_steal_times()),
                      busy0 = total(takt::os::cpu_busy_times()), ours0 = process_cpu_time();
    const takt::profiler::ProfileResult r = takt::profiler::profile(*task, c.program, c.args, options);
    const double wall = static_cast<double>((takt::os::monotonic_now() - wall0).count());
    const double stolen = static_cast<double>((total(takt::os::cpu_steal_times()) - steal0).count());
    const double others =
        static_cast<double>(((total(takt::os::cpu_busy_times()) - busy0) - (process_cpu_time() - ours0)).count());
    const nanoseconds work = r.work.p50, span = r.span.p50, burdened = r.burdened_span.p50;
    held = true;
    report.clear();
    for (const auto& p : r.parallel) {
      const nanoseconds tp = p.time.p50;
      const double bound = static_cast<double>(work.count()) / static_cast<double>(p.workers) +
                           static_cast<double>(burdened.count());
      const bool lower = span <= tp;
      const bool upper = static_cast<double>(tp.count()) <= bound * (1.0 + kTolerance);
      held = held && lower && upper;
      report += c.program + ": P = " + std::to_string(p.workers) + ": L = " + std::to_string(span.count()) +
                " ns, T_P = " + std::to_string(tp.count()) +
                " ns, C/P + L^ = " + std::to_string(static_cast<std::int64_t>(bound)) +
                " ns (C = " + std::to_string(work.count()) + ", L^ = " + std::to_string(burdened.count()) +
                ")" + (lower ? "" : "  [L > T_P]") + (upper ? "" : "  [T_P > (C/P + L^) * 1.1]") + "\n";
    }
    // /proc/stat counts in clock ticks (10 ms): small values are rounding.
    const bool busy = stolen + std::max(0.0, others) > 0.10 * wall * static_cast<double>(cpus);
    a_quiet_round = a_quiet_round || !busy;
    report += "  round " + std::to_string(round + 1) + ": " + std::to_string(static_cast<int>(wall / 1e6)) +
              " ms; meanwhile the hypervisor stole " + std::to_string(static_cast<int>(stolen / 1e6)) +
              " ms of CPU time and other processes used about " +
              std::to_string(static_cast<int>(std::max(0.0, others) / 1e6)) + " ms" +
              (busy ? " (more than a tenth of the CPUs' time: the machine was busy)" : "") + "\n";
    // The measurements describe a parallel program: it has parallelism to speak of.
    EXPECT_GT(r.parallelism(), 2.0) << c.program;
  }
  if (!held && !a_quiet_round) {
    // Beside a process that kept a CPU busy, T_P of matmul on one worker read 1.6 times
    // its bound in every round: the law cannot be checked while the machine is not ours.
    GTEST_SKIP() << "other processes kept the machine busy in each of " << kRounds
                 << " rounds, so the laws could not be checked; the last:\n"
                 << report;
  }
  EXPECT_TRUE(held) << "a law failed in each of " << kRounds << " rounds; the last:\n" << report;
  std::cout << report;
  if (cpus < 2) GTEST_SKIP() << "one CPU: only P = 1 was checked";
}

INSTANTIATE_TEST_SUITE_P(Builtins, Laws,
                         ::testing::Values(Case{"matmul", {"256"}}, Case{"heat", {"512", "512", "20"}},
                                           Case{"cholesky", {"384", "32"}}, Case{"lu", {"384", "32"}}),
                         [](const auto& info) { return info.param.program; });

}  // namespace
