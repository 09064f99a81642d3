// Tests of the cyclictest runner: histogram parsing with hand-computed percentiles, a missing binary, a real
// run, takt's timer probe where cyclictest cannot run, both ended early by a stop, and cyclictest ending
// with a killed takt.
#include "platform/cyclictest.hpp"
#include "os/cpu.hpp"
#include "os/realtime.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using namespace takt::platform;

namespace {
// Two threads, -h 100. Buckets (both threads summed): 10 µs: 8, 11 µs: 20, 12 µs: 6,
// 20 µs: 1, plus 1 overflow (thread 1's 250 µs maximum): N = 36 samples.
constexpr const char* sample = R"(# /dev/cpu_dma_latency set to 0us
# Histogram
000000 000000	000000
000001 000000	000000
000010 000005	000003
000011 000010	000010
000012 000004	000002
000020 000001	000000
000099 000000	000000
# Total: 000000020 000000015
# Min Latencies: 00010 00010
# Avg Latencies: 00011 00012
# Max Latencies: 00020 00250
# Histogram Overflows: 00000 00001
# Histogram Overflow at cycle number:
# Thread 0:
# Thread 1: 00007
)";
}  // namespace

TEST(Cyclictest, HistogramPercentilesByNearestRank) {
  CyclictestResult r = parse_cyclictest_histogram(sample);
  EXPECT_TRUE(r.ran);
  EXPECT_EQ(r.overflows, 1u);
  const LatencyStats& s = r.latency;
  EXPECT_EQ(s.samples, 36u);
  // Ranks: p25 ⌈9⌉ = 9 → 11 µs (the 10 µs bucket holds ranks 1-8); p50 rank 18 → 11;
  // p75 rank 27 → 11 (ranks 9-28); p95 rank ⌈34.2⌉ = 35 → 20 µs (12 µs holds 29-34);
  // p99 rank ⌈35.64⌉ = 36 → an overflow → the maximum, 250 µs.
  EXPECT_DOUBLE_EQ(s.p25_us, 11);
  EXPECT_DOUBLE_EQ(s.p50_us, 11);
  EXPECT_DOUBLE_EQ(s.p75_us, 11);
  EXPECT_DOUBLE_EQ(s.p95_us, 20);
  EXPECT_DOUBLE_EQ(s.p99_us, 250);
  EXPECT_DOUBLE_EQ(s.max_us, 250);
  EXPECT_DOUBLE_EQ(s.min_us, 10);
  // The mean over the 36 samples: thread 0's 20 samples average 11 µs, thread 1's 16 (15
  // in its histogram, "# Total:", which cyclictest counts without the overflows, plus 1
  // overflow; the fixture had 16 there, and the code weighted by Total alone) 12 µs: (20·11 + 16·12) / 36 =
  // 412 / 36 = 11.444…, not the plain mean of the two averages, 11.5.
  EXPECT_DOUBLE_EQ(s.mean_us, 412.0 / 36.0);
}

TEST(Cyclictest, MeanWithoutTotalsIsThePlainMeanOfTheThreadAverages) {
  std::string without_totals(sample);
  without_totals.erase(without_totals.find("# Total:"), std::string("# Total: 000000020 000000015\n").size());
  ASSERT_EQ(without_totals.find("# Total:"), std::string::npos);
  // No counts to weight by: (11 + 12) / 2.
  EXPECT_DOUBLE_EQ(parse_cyclictest_histogram(without_totals).latency.mean_us, 11.5);
}

TEST(Cyclictest, OutputWithoutHistogramIsAnError) {
  EXPECT_THROW(
      (void)parse_cyclictest_histogram("T: 0 ( 1234) P:90 I:1000 C: 1000 Min: 5 Act: 7 Avg: 8 Max: 30\n"),
      takt::Error);
}

TEST(Cyclictest, LatencyStatsOfSamples) {
  // 1..100 µs in ns: p25 = 25, p50 = 50, p75 = 75, p95 = 95, p99 = 99, max 100, mean 50.5.
  std::vector<std::int64_t> ns;
  for (int i = 100; i >= 1; --i) ns.push_back(i * 1000);
  LatencyStats s = latency_stats(ns);
  EXPECT_EQ(s.samples, 100u);
  EXPECT_DOUBLE_EQ(s.p25_us, 25);
  EXPECT_DOUBLE_EQ(s.p50_us, 50);
  EXPECT_DOUBLE_EQ(s.p75_us, 75);
  EXPECT_DOUBLE_EQ(s.p95_us, 95);
  EXPECT_DOUBLE_EQ(s.p99_us, 99);
  EXPECT_DOUBLE_EQ(s.max_us, 100);
  EXPECT_DOUBLE_EQ(s.min_us, 1);
  EXPECT_DOUBLE_EQ(s.mean_us, 50.5);
  EXPECT_EQ(latency_stats({}).samples, 0u);
}

TEST(Cyclictest, MissingProgramIsReportedNotThrown) {
  CyclictestOptions o;
  o.program = "takt-no-such-cyclictest";
  o.duration = 100ms;
  o.probe_fallback = false;
  CyclictestResult r = run_cyclictest(o);
  EXPECT_FALSE(r.ran);
  EXPECT_NE(r.reason.find("not found"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("rt-tests"), std::string::npos) << r.reason;
}

TEST(Cyclictest, WhereCyclictestCannotRunTheTimerProbeMeasuresAndSaysWhy) {
  // A cyclictest that exits 1 at once, as rt-tests' does without the SCHED_FIFO
  // privilege ("Unable to change scheduling policy!"), whatever --policy says.
  const auto fake = std::filesystem::temp_directory_path() / "takt-failing-cyclictest.sh";
  std::ofstream(fake) << "#!/bin/sh\necho 'Unable to change scheduling policy!' >&2\nexit 1\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  CyclictestOptions o;
  o.program = fake.string();
  o.duration = 100ms;
  o.interval = 1000us;
  o.cpus = takt::os::CpuSet({takt::os::allowed_cpus()[0]});
  const CyclictestResult r = run_cyclictest(o);
  std::filesystem::remove(fake);
  ASSERT_TRUE(r.ran) << r.reason;
  EXPECT_EQ(r.tool, "takt timer probe");
  EXPECT_NE(r.reason.find("cyclictest did not run (cyclictest failed (exit status 1)"), std::string::npos)
      << r.reason;
  EXPECT_NE(r.reason.find("Unable to change scheduling policy"), std::string::npos) << r.reason;
  // 100 ms at 1 ms: 100 wake-ups of one thread, each at or after its target time.
  EXPECT_EQ(r.latency.samples, 100u);
  EXPECT_GE(r.latency.min_us, 0.0);
  EXPECT_LE(r.latency.p50_us, r.latency.p99_us);
  EXPECT_LE(r.latency.p99_us, r.latency.max_us);
}

TEST(Cyclictest, TimerProbeTakesOneSamplePerThreadAndPeriod) {
  CyclictestOptions o;
  o.duration = 50ms;
  o.interval = 500us;
  o.fifo = false;
  const CyclictestResult r = run_timer_probe(o);
  const std::size_t cpus = takt::os::allowed_cpus().size();
  EXPECT_TRUE(r.ran);
  EXPECT_EQ(r.policy, "SCHED_OTHER");
  EXPECT_EQ(r.latency.samples, 100u * cpus);  // 50 ms / 500 us per thread
  EXPECT_NE(r.command.find("every 500 us, 100 loops"), std::string::npos) << r.command;
}

TEST(Cyclictest, TimerProbeSaysWhereTheKernelRefusedSchedFifo) {
  // The privilege probe says yes; then the kernel refuses SCHED_FIFO (here: a child that
  // drops CAP_SYS_NICE with RLIMIT_RTPRIO 0, as a cgroup's real-time budget of 0 would).
  // The probe's threads ran in SCHED_OTHER, and the result says so, called directly and
  // as run_cyclictest's fallback (where cyclictest cannot run): it said "SCHED_FIFO/95"
  // before (the refusal was ignored).
#if defined(TAKT_TSAN)
  GTEST_SKIP() << "forks a multi-threaded process";
#else
  if (!takt::os::privileges().fifo) GTEST_SKIP() << "no SCHED_FIFO here to be refused";
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out[0]);
    ::close(out[1]);
    FAIL() << "fork: " << std::strerror(errno);
  }
  if (pid == 0) {
    ::close(out[0]);
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
    if (::syscall(SYS_capget, &header, data) != 0) ::_exit(10);
    data[CAP_SYS_NICE / 32].effective &= ~(1u << (CAP_SYS_NICE % 32));
    if (::syscall(SYS_capset, &header, data) != 0) ::_exit(11);
    const rlimit none{0, 0};
    if (::setrlimit(RLIMIT_RTPRIO, &none) != 0) ::_exit(12);
    CyclictestOptions o;
    o.duration = 5ms;
    o.interval = 1ms;
    o.fifo = true;
    o.priority = 95;
    const CyclictestResult direct = run_timer_probe(o);
    o.program = "/nonexistent/cyclictest";
    const CyclictestResult fallback = run_cyclictest(o);
    const std::string text =
        direct.policy + "\n" + direct.reason + "\n" + fallback.policy + "\n" + fallback.reason + "\n";
    if (::write(out[1], text.data(), text.size()) != static_cast<ssize_t>(text.size())) ::_exit(13);
    ::_exit(direct.ran && fallback.ran ? 0 : 14);
  }
  ::close(out[1]);
  // Read what the child says, for at most 10 s (it takes ~10 ms); a child that hangs is
  // killed, not waited for.
  std::string text;
  const auto until = std::chrono::steady_clock::now() + 10s;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    pollfd p{out[0], POLLIN, 0};
    if (left <= 0ms || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      ::kill(pid, SIGKILL);
      ADD_FAILURE() << "the child did not finish within 10 s; it said: " << text;
      break;
    }
    char buffer[512];
    const ssize_t n = ::read(out[0], buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << text;
  ASSERT_EQ(WEXITSTATUS(status), 0) << text;
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u) << text;
  const std::size_t threads = takt::os::allowed_cpus().size();
  const std::string refused = "SCHED_FIFO/95 was refused to " + std::to_string(threads) + " of " +
                              std::to_string(threads) + " threads: they ran in SCHED_OTHER";
  EXPECT_EQ(lines[0], "SCHED_OTHER");
  EXPECT_EQ(lines[1], refused);
  EXPECT_EQ(lines[2], "SCHED_OTHER");
  EXPECT_NE(lines[3].find("measured by takt's timer probe instead; " + refused), std::string::npos)
      << lines[3];
#endif
}

TEST(Cyclictest, RealRunGivesOrderedPercentiles) {
  CyclictestOptions o;
  o.duration = 500ms;
  o.cpus = takt::os::CpuSet({takt::os::allowed_cpus()[0]});
  CyclictestResult r = run_cyclictest(o);
  if (!r.ran) GTEST_SKIP() << "cyclictest did not run here: " << r.reason;
  EXPECT_EQ(r.latency.samples, 500u) << r.command;  // one thread, 500 loops (overflows included)
  EXPECT_LE(r.latency.min_us, r.latency.p50_us);
  EXPECT_LE(r.latency.p50_us, r.latency.p99_us);
  EXPECT_LE(r.latency.p99_us, r.latency.max_us);
  EXPECT_NE(r.command.find("-l 500"), std::string::npos) << r.command;
}

TEST(Cyclictest, AStopPassesSigintOnAndKeepsTheHistogramSoFar) {
  // A cyclictest of 60 s that, like rt-tests' on SIGINT, prints its histogram and exits 0.
  const auto fake = std::filesystem::temp_directory_path() /
                    ("takt-interruptible-cyclictest-" + std::to_string(::getpid()) + ".sh");
  const auto ready = std::filesystem::path(fake.string() + ".ready");
  std::filesystem::remove(ready);
  std::ofstream(fake) << "#!/bin/sh\n"
                         "trap 'kill $! 2>/dev/null; printf \"000010 000007\\n# Max Latencies: 00012\\n\"; "
                         "exit 0' INT\n"
                         "touch '"
                      << ready.string()
                      << "'\n"
                         "sleep 60 >/dev/null 2>&1 &\nwait\nexit 3\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  CyclictestOptions o;
  o.program = fake.string();
  o.duration = 60s;
  o.probe_fallback = false;
  const auto start = std::chrono::steady_clock::now();
  // Once the script has set its trap.
  o.stop_requested = [ready] { return std::filesystem::exists(ready); };
  const CyclictestResult r = run_cyclictest(o);
  const auto took = std::chrono::steady_clock::now() - start;
  std::filesystem::remove(fake);
  std::filesystem::remove(ready);
  ASSERT_TRUE(r.ran) << r.reason;
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.latency.samples, 7u);
  EXPECT_NE(r.reason.find("stopped early (takt was asked to stop and stopped cyclictest with SIGINT)"),
            std::string::npos)
      << r.reason;
  EXPECT_LT(took, 20s);
}

TEST(Cyclictest, AStopBeforeCyclictestHasItsHandlerMeasuresNothingMore) {
  // The SIGINT passed on ended cyclictest before it had set its handler (exit by the
  // signal, no histogram): that was taken for a failure, and takt's timer probe then
  // measured for 100 ms after the stop, reported as the baseline.
  const auto fake = std::filesystem::temp_directory_path() /
                    ("takt-unready-cyclictest-" + std::to_string(::getpid()) + ".sh");
  std::ofstream(fake) << "#!/bin/sh\nexec sleep 60\n";  // no handler: SIGINT ends it at once
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  CyclictestOptions o;
  o.program = fake.string();
  o.duration = 60s;
  o.probe_fallback = true;
  o.stop_requested = [] { return true; };
  const CyclictestResult r = run_cyclictest(o);
  std::filesystem::remove(fake);
  EXPECT_FALSE(r.ran) << r.reason;
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.latency.samples, 0u);
  EXPECT_EQ(r.reason, "stopped before cyclictest had any samples");
}

TEST(Cyclictest, AStopEndsTheTimerProbeWithTheSamplesSoFar) {
  CyclictestOptions o;
  o.duration = 60s;
  o.interval = 1000us;
  o.fifo = false;
  o.cpus = takt::os::CpuSet({takt::os::allowed_cpus()[0]});
  const auto start = std::chrono::steady_clock::now();
  o.stop_requested = [start] { return std::chrono::steady_clock::now() - start > 300ms; };
  const CyclictestResult r = run_timer_probe(o);
  // The stop is asked every 100 ms of the probe's schedule: it ends after about 400 ms
  // with one sample per ms (a sleep that overran takes the missed samples at once, so
  // never fewer than the ms that passed); 3 s leave room for a stalled VM, and a stop
  // honoured that late would be a fault.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_TRUE(r.ran);
  EXPECT_TRUE(r.stopped);
  EXPECT_GE(r.latency.samples, 250u);
  EXPECT_LT(r.latency.samples, 3000u);
  EXPECT_NE(r.reason.find("stopped early"), std::string::npos) << r.reason;
}

TEST(Cyclictest, ATimerProbeThreadThatCannotStartIsAReasonNotATermination) {
  // Threads count against RLIMIT_NPROC of their real user, which root does not obey: a
  // child becomes user nobody with a limit of 2 (itself and one thread) and probes two
  // CPUs for 10 s. Until 2026-11-29 the second thread's std::system_error unwound past the
  // first, joinable thread: std::terminate, after a run's results were printed. Now the
  // first thread is stopped and joined at once and the result says why, called directly
  // and as run_cyclictest's fallback (which said "measured by takt's timer probe").
#if defined(TAKT_TSAN)
  GTEST_SKIP() << "forks a multi-threaded process";
#else
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to become an unprivileged user whose thread limit applies";
  if (takt::os::allowed_cpus().size() < 2) GTEST_SKIP() << "needs two CPUs: one thread starts, one does not";
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const rlimit limit{2, 2};
    if (::setrlimit(RLIMIT_NPROC, &limit) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
    CyclictestOptions o;
    o.duration = 10s;
    o.interval = 1000us;
    o.fifo = false;
    o.cpus = takt::os::CpuSet({takt::os::allowed_cpus()[0], takt::os::allowed_cpus()[1]});
    const CyclictestResult direct = run_timer_probe(o);
    if (direct.ran) ::_exit(3);
    if (direct.reason.find("cannot start thread ") == std::string::npos ||
        direct.reason.find(" of 2 of the timer probe") == std::string::npos ||
        direct.reason.find("ulimit -u") == std::string::npos)
      ::_exit(4);
    o.program = "/nonexistent/cyclictest";
    o.probe_fallback = true;
    const CyclictestResult fallback = run_cyclictest(o);
    if (fallback.ran) ::_exit(5);
    if (fallback.reason.find("'/nonexistent/cyclictest' not found in PATH") != 0 ||
        fallback.reason.find("; takt's timer probe could not run either: cannot start thread ") ==
            std::string::npos ||
        fallback.tool != "cyclictest" ||
        cyclictest_summary(fallback).find("cyclictest: did not run ('/nonexistent/cyclictest' not found") !=
            0)
      ::_exit(6);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << WTERMSIG(status)
                                 << " (std::terminate?)";
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "2: cannot become nobody, 3: the probe ran, 4: the probe's reason, 5: the "
         "fallback ran, 6: the fallback's reason";
  // The started thread ended at once (it would have slept 10 s, twice).
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
#endif
}

/// Whether process `pid` has ended (gone, or a zombie that no one reaped yet).
bool ended(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return true;
  const auto paren = stat.rfind(')');
  return paren == std::string::npos || stat.compare(paren + 1, 3, " Z ") == 0;
}

TEST(Cyclictest, CyclictestEndsWhenTheProcessThatRanItIsKilled) {
  // A cyclictest of 60 s that writes its pid; the process running it (as takt would) is
  // killed by SIGKILL, which no handler sees: cyclictest gets SIGTERM (PR_SET_PDEATHSIG).
  // Before, it ran on for its whole loop count.
  const auto dir = std::filesystem::temp_directory_path() / ("takt-orphan-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto fake = dir / "cyclictest.sh", pid_file = dir / "pid";
  std::ofstream(fake) << "#!/bin/sh\necho $$ > " << pid_file.string() << ".tmp && mv " << pid_file.string()
                      << ".tmp " << pid_file.string() << "\nexec sleep 60\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  const pid_t runner = ::fork();
  if (runner == 0) {
    CyclictestOptions o;
    o.program = fake.string();
    o.duration = 60s;
    o.probe_fallback = false;
    (void)run_cyclictest(o);
    ::_exit(0);
  }
  ASSERT_GT(runner, 0);
  pid_t child = 0;
  for (int i = 0; i < 200 && child == 0; ++i) {  // up to 20 s on a loaded machine
    std::ifstream in(pid_file);
    if (!(in >> child)) std::this_thread::sleep_for(100ms);
  }
  ::kill(runner, SIGKILL);
  ::waitpid(runner, nullptr, 0);
  ASSERT_GT(child, 0) << "the fake cyclictest did not start";
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {  // up to 10 s
    gone = ended(child);
    if (!gone) std::this_thread::sleep_for(100ms);
  }
  if (!gone) ::kill(child, SIGKILL);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(gone) << "cyclictest outlived the process that ran it";
}

TEST(Cyclictest, AProgramThatCannotBeRunIsReportedNotThrown) {
  // Found in PATH's sense (a path) but not executable: the child's execve error comes back.
  const auto fake = std::filesystem::temp_directory_path() /
                    ("takt-not-executable-cyclictest-" + std::to_string(::getpid()) + ".sh");
  std::ofstream(fake) << "#!/bin/sh\nexit 0\n";
  std::filesystem::permissions(fake,
                               std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  CyclictestOptions o;
  o.program = fake.string();
  o.duration = 100ms;
  o.probe_fallback = false;
  const CyclictestResult r = run_cyclictest(o);
  std::filesystem::remove(fake);
  EXPECT_FALSE(r.ran);
  EXPECT_NE(r.reason.find("cannot start '" + fake.string() + "'"), std::string::npos) << r.reason;
}

TEST(CyclictestJson, GivesEveryStatisticAndTheOverflowsAndNullWithoutSamples) {
  // The JSON of takt run's floor and bench policies' gave p50, p95, p99 and max only, and
  // no overflows (samples beyond the histogram, counted at its maximum): a reader could
  // not tell a true maximum from a capped one. bench latency wrote all of them.
  CyclictestResult c;
  c.ran = true;
  c.policy = "SCHED_FIFO/90";
  c.overflows = 3;
  c.latency = {.samples = 400,
               .min_us = 2,
               .p25_us = 5,
               .p50_us = 7,
               .p75_us = 9,
               .p95_us = 20,
               .p99_us = 40,
               .max_us = 10000,
               .mean_us = 8.5};
  const nlohmann::json j = cyclictest_json(c);
  EXPECT_EQ(j["overflows"], 3);
  EXPECT_EQ(j["samples"], 400);
  EXPECT_EQ(j["min_us"], 2.0);
  EXPECT_EQ(j["p25_us"], 5.0);
  EXPECT_EQ(j["p50_us"], 7.0);
  EXPECT_EQ(j["p75_us"], 9.0);
  EXPECT_EQ(j["p95_us"], 20.0);
  EXPECT_EQ(j["p99_us"], 40.0);
  EXPECT_EQ(j["max_us"], 10000.0);
  EXPECT_EQ(j["mean_us"], 8.5);
  EXPECT_EQ(j["policy"], "SCHED_FIFO/90");
  EXPECT_TRUE(j["ran"].get<bool>());
  EXPECT_FALSE(j["stopped"].get<bool>());

  CyclictestResult none;  // did not run: no statistic is 0 µs
  none.reason = "cyclictest not found";
  const nlohmann::json n = cyclictest_json(none);
  EXPECT_EQ(n["samples"], 0);
  for (const char* key : {"min_us", "p25_us", "p50_us", "p75_us", "p95_us", "p99_us", "max_us", "mean_us"}) {
    EXPECT_TRUE(n[key].is_null()) << key << ": " << n.dump();
  }
  EXPECT_EQ(n["reason"], "cyclictest not found");
}
