// The periodic higher-priority load of the multiprogrammed condition.
#include "bench/runtime/interference.hpp"

#include "os/clock.hpp"
#include "os/realtime.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

namespace takt::bench {
namespace {

[[noreturn]] void run_load(const os::CpuSet& cpus, InterferenceSettings settings, int report_fd) {
  std::atomic<int> fifo_threads{0};
  std::atomic<int> started{0};
  std::vector<std::thread> threads;
  const auto busy = std::chrono::nanoseconds(static_cast<long long>(settings.period.count() * settings.utilization));
  const auto start = os::monotonic_now();
  std::size_t index = 0;
  for (int cpu : cpus) {
    // Independent loads: thread i starts i/P of a period later than thread 0, as separate
    // periodic processes would not run in phase.
    const auto phase = settings.period * static_cast<long long>(index++) / static_cast<long long>(cpus.size());
    threads.emplace_back([&, cpu, phase] {
      os::pin_current_thread(os::CpuSet{cpu});
      if (os::set_fifo(settings.fifo_priority)) fifo_threads.fetch_add(1);
      started.fetch_add(1);
      std::vector<char> buffer(256 * 1024);
      auto next = start + phase;
      os::sleep_until(next);
      std::size_t offset = 0;
      for (;;) {
        auto until = next + busy;
        while (os::monotonic_now() < until) {
          for (int i = 0; i < 64; ++i) {
            buffer[offset] = static_cast<char>(buffer[offset] + 1);
            offset = (offset + 64) % buffer.size();
          }
        }
        next += settings.period;
        os::sleep_until(next);
      }
    });
  }
  while (started.load() < static_cast<int>(cpus.size())) std::this_thread::yield();
  char report = fifo_threads.load() == static_cast<int>(cpus.size()) ? 'F' : 'O';
  (void)!::write(report_fd, &report, 1);
  ::close(report_fd);
  for (auto& t : threads) t.join();  // never returns: killed by the parent
  ::_exit(0);
}

}  // namespace

Interference::Interference(const os::CpuSet& cpus, InterferenceSettings settings) {
  int fds[2];
  if (::pipe(fds) != 0) throw takt::Error("interference: pipe failed");
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) throw takt::Error(fmt::format("interference: fork failed ({})", std::strerror(errno)));
  if (pid_ == 0) {
    // The load must not outlive the benchmark: the destructor kills it, but a parent
    // ended by a signal (kill PID, a supervisor) runs no destructor, and the load then
    // kept every CPU a quarter busy, in SCHED_FIFO, for good.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(0);  // the parent ended before prctl
    ::signal(SIGINT, SIG_IGN);  // ended by the parent (or its death), not by a Ctrl-C to the group
    ::signal(SIGTERM, SIG_IGN);
    ::signal(SIGHUP, SIG_IGN);  // a closed terminal: the parent stops, then ends the load
    ::close(fds[0]);
    // Nothing may leave this process by an exception (a thread it cannot create): it
    // would unwind into the caller's code in this forked copy, which then ran on as a
    // second benchmark (or test) process.
    try {
      run_load(cpus, settings, fds[1]);
    } catch (...) {
    }
    ::_exit(3);
  }
  ::close(fds[1]);
  char report = 0;
  ssize_t got = 0;
  do {
    got = ::read(fds[0], &report, 1);
  } while (got < 0 && errno == EINTR);
  ::close(fds[0]);
  if (got != 1) {
    // The load ended before its threads ran (a thread it could not create, a signal):
    // measuring the multiprogrammed condition without it would label unloaded numbers.
    int status = 0;
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    const std::string how = WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
                            : WIFEXITED(status) ? fmt::format("exit status {}", WEXITSTATUS(status))
                                                : std::string("ended");
    throw takt::Error(
        fmt::format("interference: the load process ended before its {} thread(s) started ({}); "
                    "the multiprogrammed condition cannot run without it (check the memory and "
                    "thread limits, ulimit -v and -u)",
                    cpus.size(), how));
  }
  realtime_ = report == 'F';
  if (realtime_) {
    policy_ = fmt::format("SCHED_FIFO/{}", settings.fifo_priority);
  } else {
    policy_ = os::realtime_forced_off() ? "SCHED_OTHER (TAKT_NO_RT set: the load competes instead of preempting)"
                                        : "SCHED_OTHER (no SCHED_FIFO privilege: the load competes instead of preempting)";
  }
}

std::optional<std::chrono::nanoseconds> Interference::cpu_time() const {
  clockid_t clock{};
  if (pid_ <= 0 || ::clock_getcpuclockid(pid_, &clock) != 0) return std::nullopt;
  timespec ts{};
  if (::clock_gettime(clock, &ts) != 0) return std::nullopt;
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

Interference::~Interference() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

}  // namespace takt::bench
