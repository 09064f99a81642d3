// The multiprogrammed condition's load process does not outlive the benchmark that made it.
#include "bench/runtime/interference.hpp"
#include "os/cpu.hpp"
#include "takt/error.hpp"

#include "../support/held_in_some_run.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string_view>
#include <thread>

namespace {

using namespace std::chrono_literals;

TEST(Interference, TheLoadEndsWithTheProcessThatMadeItEvenWhenThatIsKilled) {
  // A benchmark ended by a signal (kill PID, a supervisor) runs no destructor; its load
  // went on, a quarter of every CPU, for good. The load is the child of `parent` here.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    ::close(fds[0]);
    ::setenv("TAKT_NO_RT", "1", 1);  // SCHED_OTHER: the test's machine stays usable
    takt::bench::Interference load(takt::os::CpuSet{0}, takt::bench::InterferenceSettings{});
    const pid_t pid = load.pid();
    (void)!::write(fds[1], &pid, sizeof pid);
    for (;;) ::pause();  // killed by the test
  }
  ::close(fds[1]);
  pid_t load = -1;
  ASSERT_EQ(::read(fds[0], &load, sizeof load), static_cast<ssize_t>(sizeof load));
  ::close(fds[0]);
  ASSERT_GT(load, 0);
  EXPECT_EQ(::kill(load, 0), 0) << "the load runs";
  ASSERT_EQ(::kill(parent, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(parent, &status, 0), parent);
  // Orphaned, the load is reaped by init once it has ended; give it 5 s.
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (::kill(load, 0) == 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(::kill(load, 0), -1) << "the load " << load << " outlived the process that made it";
  EXPECT_EQ(errno, ESRCH);
  if (::kill(load, 0) == 0) ::kill(load, SIGKILL);  // leave nothing running
}

TEST(Interference, ALoadThatEndsBeforeItRunsIsAnErrorNotAnUnloadedCondition) {
  // The load process inherits an address-space limit that leaves no room for its thread's
  // stack (8 MiB): std::thread throws there, and the load process ends before its
  // report. That read as "SCHED_OTHER (no privilege)" and the multiprogrammed rows were
  // measured without any load. It ends with status 3 (the exception had unwound into the
  // forked copy of this test, which ran the remaining tests a second time). In a child of
  // the test, so that the limit stays there.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    ::setenv("TAKT_NO_RT", "1", 1);
    unsigned long pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    const rlim_t mapped = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
    const rlimit limit{mapped + (4u << 20), mapped + (4u << 20)};
    char result = 'n';  // no limit could be set
    if (pages > 0 && ::setrlimit(RLIMIT_AS, &limit) == 0) {
      try {
        takt::bench::Interference load(takt::os::CpuSet{0}, takt::bench::InterferenceSettings{});
        result = 'r';  // it reported running
      } catch (const takt::Error& e) {
        result = std::string_view(e.what()).find("ended before its 1 thread(s) started (exit status 3)") !=
                         std::string_view::npos
                     ? 'e'
                     : 'w';
      }
    }
    (void)!::write(fds[1], &result, 1);
    ::_exit(0);
  }
  ::close(fds[1]);
  char result = 0;
  ASSERT_EQ(::read(fds[0], &result, 1), 1);
  ::close(fds[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_EQ(result, 'e') << "r: the load counted as running; w: another message; n: no limit set";
}

TEST(Interference, ItsCpuTimeIsTheShareOfItsCpuItTook) {
  // One load thread on CPU 0, busy 25 % of every 20 ms (SCHED_OTHER: the test's machine
  // stays usable; a long period, so that the wake-up latency of a busy machine takes
  // little of the 5 ms it spins). Its process CPU time over 0.5 s is about a quarter of
  // it: the load takes its share, in the measure `takt bench runtime` reports
  // (measured_utilization). Loose bounds: the machine runs other tests meanwhile.
  ::setenv("TAKT_NO_RT", "1", 1);
  {
    takt::bench::InterferenceSettings settings;
    settings.period = 20ms;
    takt::bench::Interference load(takt::os::CpuSet{0}, settings);
    ::unsetenv("TAKT_NO_RT");
    // A VM that charges the time the host took its vCPU away to the running thread's CPU
    // time adds a stall to the load's share (150 ms: +0.3); a window outside (0.10, 0.40)
    // is measured again.
    takt::testing::expect_held_in_some_run(3, [&] {
      const auto before = load.cpu_time();
      const auto t0 = std::chrono::steady_clock::now();
      std::this_thread::sleep_for(500ms);
      const auto after = load.cpu_time();
      const auto wall = std::chrono::steady_clock::now() - t0;
      if (!before || !after) {
        ADD_FAILURE() << "the load's CPU time is not known";
        return std::string();
      }
      const double share = std::chrono::duration<double>(*after - *before).count() /
                           std::chrono::duration<double>(wall).count();
      return share > 0.10 && share < 0.40 ? std::string()
                                          : "share " + std::to_string(share) + " (0.10 to 0.40)";
    });
  }
  ::unsetenv("TAKT_NO_RT");
}

}  // namespace
