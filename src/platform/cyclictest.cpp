// Running cyclictest (rt-tests) as the latency floor of this machine, and reading its histogram.
#include "platform/cyclictest.hpp"

#include "os/clock.hpp"
#include "os/realtime.hpp"
#include "os/thread_start.hpp"
#include "platform/metrics_json.hpp"
#include "platform/percentile.hpp"
#include "takt/error.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pthread.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <system_error>
#include <thread>

extern char** environ;

namespace takt::platform {

LatencyStats latency_stats(std::vector<std::int64_t> samples) {
  LatencyStats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  std::span<const std::int64_t> v(samples);
  auto us = [](std::int64_t ns) { return static_cast<double>(ns) / 1e3; };
  s.samples = samples.size();
  s.min_us = us(samples.front());
  s.max_us = us(samples.back());
  s.p25_us = us(nearest_rank(v, 25));
  s.p50_us = us(nearest_rank(v, 50));
  s.p75_us = us(nearest_rank(v, 75));
  s.p95_us = us(nearest_rank(v, 95));
  s.p99_us = us(nearest_rank(v, 99));
  long double sum = 0;
  for (auto x : samples) sum += static_cast<long double>(x);
  s.mean_us = static_cast<double>(sum / static_cast<long double>(samples.size()) / 1e3L);
  return s;
}

namespace {

std::vector<long long> numbers_after(std::string_view line, std::string_view label) {
  std::vector<long long> out;
  std::string_view rest = line.substr(label.size());
  while (!rest.empty()) {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    if (rest.empty()) break;
    long long v = 0;
    auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
    if (ec != std::errc{}) break;
    out.push_back(v);
    rest.remove_prefix(static_cast<std::size_t>(ptr - rest.data()));
  }
  return out;
}

}  // namespace

CyclictestResult parse_cyclictest_histogram(std::string_view output) {
  std::map<long long, std::uint64_t> buckets;  // µs → count over all threads
  std::vector<long long> mins, maxes, overflows, totals;
  std::vector<double> avgs;
  std::istringstream in{std::string(output)};
  std::string line;
  bool any_bucket = false;
  while (std::getline(in, line)) {
    std::string_view l(line);
    if (l.empty()) continue;
    if (l.front() >= '0' && l.front() <= '9') {
      std::vector<long long> v = numbers_after(l, "");
      if (v.size() < 2) continue;
      any_bucket = true;
      std::uint64_t total = 0;
      for (std::size_t i = 1; i < v.size(); ++i) total += static_cast<std::uint64_t>(v[i]);
      if (total > 0) buckets[v[0]] += total;
    } else if (l.rfind("# Min Latencies:", 0) == 0) {
      mins = numbers_after(l, "# Min Latencies:");
    } else if (l.rfind("# Max Latencies:", 0) == 0) {
      maxes = numbers_after(l, "# Max Latencies:");
    } else if (l.rfind("# Histogram Overflows:", 0) == 0) {
      overflows = numbers_after(l, "# Histogram Overflows:");
    } else if (l.rfind("# Total:", 0) == 0) {
      totals = numbers_after(l, "# Total:");
    } else if (l.rfind("# Avg Latencies:", 0) == 0) {
      for (long long a : numbers_after(l, "# Avg Latencies:")) avgs.push_back(static_cast<double>(a));
    }
  }
  if (!any_bucket) {
    throw Error(
        "cyclictest printed no histogram (expected lines \"<us> <count> ...\" from cyclictest -q -h N)");
  }
  CyclictestResult r;
  r.ran = true;
  for (long long o : overflows) r.overflows += static_cast<std::uint64_t>(o);
  std::uint64_t in_histogram = 0;
  for (const auto& [us, count] : buckets) in_histogram += count;
  const std::uint64_t n = in_histogram + r.overflows;
  LatencyStats& s = r.latency;
  s.samples = n;
  if (n == 0) return r;
  const double max_us = maxes.empty() ? static_cast<double>(buckets.rbegin()->first)
                                      : static_cast<double>(*std::max_element(maxes.begin(), maxes.end()));
  s.max_us = max_us;
  s.min_us = mins.empty() ? static_cast<double>(buckets.begin()->first)
                          : static_cast<double>(*std::min_element(mins.begin(), mins.end()));
  auto percentile = [&](double p) {
    auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(n) - 1e-9));
    rank = std::clamp<std::uint64_t>(rank, 1, n);
    std::uint64_t cumulative = 0;
    for (const auto& [us, count] : buckets) {
      cumulative += count;
      if (cumulative >= rank) return static_cast<double>(us);
    }
    return max_us;  // among the overflows
  };
  s.p25_us = percentile(25);
  s.p50_us = percentile(50);
  s.p75_us = percentile(75);
  s.p95_us = percentile(95);
  s.p99_us = percentile(99);
  // The mean of all samples: each thread's average (over all its samples) weighted by its
  // samples, "# Total:" (the histogram's entries) plus its "# Histogram Overflows:", as
  // latency_stats' mean is over samples; the plain mean of the averages only where
  // cyclictest printed no totals for every thread.
  if (!avgs.empty()) {
    double weighted = 0, weights = 0, plain = 0;
    for (std::size_t i = 0; i < avgs.size(); ++i) {
      plain += avgs[i];
      if (i < totals.size()) {
        const double samples =
            static_cast<double>(totals[i]) + (i < overflows.size() ? static_cast<double>(overflows[i]) : 0.0);
        weighted += avgs[i] * samples;
        weights += samples;
      }
    }
    s.mean_us = totals.size() >= avgs.size() && weights > 0 ? weighted / weights
                                                             : plain / static_cast<double>(avgs.size());
  }
  return r;
}

namespace {

struct ProcessOutput {
  int exit_status = -1;  ///< exit code, or -1 when killed / not started
  std::string out, err;
  bool timed_out = false;
  bool interrupted = false;  ///< got SIGINT because `stop` said so
};

/// The file execve runs for `program`: `program` itself when it contains '/', else the
/// first executable regular file of that name in PATH's directories, as posix_spawnp and
/// execvp find it; "" when there is none, with `error` ENOENT (EACCES when a file of
/// that name exists but may not be run).
std::string find_program(const std::string& program, int& error) {
  error = 0;
  if (program.find('/') != std::string::npos) return program;
  const char* env = std::getenv("PATH");
  std::string_view dirs = env != nullptr && *env != '\0' ? env : "/bin:/usr/bin";  // glibc's default
  error = ENOENT;
  for (;;) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    const std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + program;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0) {
        error = 0;
        return candidate;
      }
      error = EACCES;
    }
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return {};
}

/// Starts `path` with `argv`, its stdout and stderr on `out` and `err`, so that it gets
/// SIGTERM when the calling thread ends, also when takt is killed (SIGKILL, a signal
/// without a handler) and runs no destructor: PR_SET_PDEATHSIG, set in the child between
/// fork and exec (posix_spawn cannot). Returns the child's pid, or -1 with `error` set
/// (errno of pipe2, fork, or of dup2 / execve in the child, passed back through a pipe
/// that exec closes).
pid_t spawn_ending_with_caller(const std::string& path, const std::vector<char*>& argv, int out, int err,
                               int& error) {
  int status[2];
  if (pipe2(status, O_CLOEXEC) != 0) {
    error = errno;
    return -1;
  }
  // No signal handler of takt's may run in the child before exec: all are blocked over
  // the fork, and the child puts back the default action of the handled ones (an
  // ignored signal stays ignored, as posix_spawn leaves it) before it unblocks them.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // The child of a process that may have other threads: async-signal-safe calls only.
    int e = 0;
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) {
      e = errno;
    } else if (getppid() != parent) {
      _exit(127);  // takt ended before prctl: nothing to measure for
    } else if (dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0) {
      e = errno;
    } else {
      for (int sig = 1; sig < NSIG; ++sig) {
        struct sigaction action {};
        if (sigaction(sig, nullptr, &action) == 0 && action.sa_handler != SIG_IGN &&
            action.sa_handler != SIG_DFL) {
          action.sa_handler = SIG_DFL;
          action.sa_flags = 0;
          sigemptyset(&action.sa_mask);
          (void)sigaction(sig, &action, nullptr);
        }
      }
      // A terminal's hang-up reaches the whole process group: takt stops on it and ends
      // cyclictest itself (SIGINT, or SIGTERM at its death), so the samples so far are
      // printed instead of lost with a cyclictest killed by SIGHUP.
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      sigemptyset(&ignore.sa_mask);
      (void)sigaction(SIGHUP, &ignore, nullptr);
      sigprocmask(SIG_SETMASK, &old, nullptr);
      execve(path.c_str(), argv.data(), environ);
      e = errno;
    }
    (void)!write(status[1], &e, sizeof e);
    _exit(127);
  }
  const int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close(status[1]);
  if (pid < 0) {
    close(status[0]);
    error = fork_error;
    return -1;
  }
  int child_error = 0;
  ssize_t n;
  while ((n = read(status[0], &child_error, sizeof child_error)) < 0 && errno == EINTR) {
  }
  close(status[0]);
  if (n == static_cast<ssize_t>(sizeof child_error)) {  // exec failed: the child has ended
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    error = child_error;
    return -1;
  }
  error = 0;
  return pid;
}

/// Runs argv[0] (PATH lookup) with stdout and stderr captured; kills it after `limit`;
/// sends it SIGINT once when `stop` (asked about every 100 ms) says so.
ProcessOutput run_process(const std::vector<std::string>& args, std::chrono::nanoseconds limit,
                          const std::function<bool()>& stop, int& spawn_error) {
  ProcessOutput result;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    spawn_error = errno;
    return result;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    spawn_error = errno;
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  // Resolved here: the child may only make async-signal-safe calls.
  const std::string path = find_program(args.front(), spawn_error);
  if (spawn_error == 0) pid = spawn_ending_with_caller(path, argv, out_pipe[1], err_pipe[1], spawn_error);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (spawn_error != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return result;
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  bool open[2] = {true, true};
  char buf[4096];
  while (open[0] || open[1]) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    for (int i = 0; i < 2; ++i) fds[i].fd = open[i] ? (i == 0 ? out_pipe[0] : err_pipe[0]) : -1;
    int rc = poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), stop ? 100 : 1000)));
    if (rc < 0 && errno != EINTR) break;
    if (!result.interrupted && stop && stop()) {
      kill(pid, SIGINT);
      result.interrupted = true;
    }
    // Interrupted: revents are the last successful poll's, and a read of a pipe with
    // nothing in it would block past the deadline.
    if (rc < 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (!open[i] || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        open[i] = false;
      }
    }
  }
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  return result;
}

std::string last_lines(const std::string& text, std::size_t max_chars) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  if (t.size() > max_chars) t = "..." + t.substr(t.size() - max_chars);
  std::replace(t.begin(), t.end(), '\n', ' ');
  return t;
}

}  // namespace

CyclictestResult run_cyclictest(const CyclictestOptions& o) {
  const auto& priv = os::privileges();
  const bool fifo = o.fifo && priv.fifo && !priv.forced_off;
  os::CpuSet cpus = o.cpus.empty() ? os::allowed_cpus() : o.cpus;
  const auto loops = std::max<long long>(1, o.duration / o.interval);
  std::vector<std::string> args{o.program,
                                "-q",
                                "--default-system",  // measure the system as takt's own runs find it
                                "-l",
                                std::to_string(loops),
                                "-i",
                                std::to_string(o.interval.count()),
                                "-h",
                                std::to_string(o.histogram_us),
                                "-t",
                                std::to_string(cpus.size()),
                                "-a",
                                cpus.to_string()};
  if (fifo) {
    args.insert(args.end(), {"-p", std::to_string(o.priority)});
    if (priv.mlock) args.emplace_back("-m");
  } else {
    args.emplace_back("--policy=other");
  }
  CyclictestResult r;
  r.command = fmt::format("{}", fmt::join(args, " "));
  r.policy = fifo ? fmt::format("SCHED_FIFO/{}", o.priority) : "SCHED_OTHER";
  std::string note;
  if (o.fifo && !fifo) {
    note = priv.forced_off
               ? "ran in SCHED_OTHER because TAKT_NO_RT is set"
               : "ran in SCHED_OTHER: no SCHED_FIFO privilege (run as root or grant CAP_SYS_NICE)";
  }
  // Where cyclictest cannot run, takt's own probe measures the same thing.
  auto fallback = [&](std::string why) {
    if (!o.probe_fallback) {
      r.reason = std::move(why);
      return r;
    }
    CyclictestResult probe = run_timer_probe(o);
    if (!probe.ran) {
      // Nothing measured: the summary says "cyclictest: did not run (<why>; ...)".
      probe.tool = "cyclictest";
      probe.reason = fmt::format("{}; takt's timer probe could not run either: {}", why, probe.reason);
      return probe;
    }
    // The probe's own notes (SCHED_FIFO refused to its threads, stopped early) and why
    // it ran in SCHED_OTHER where it was asked for SCHED_FIFO follow.
    std::string notes = note;
    if (!probe.reason.empty()) notes += (notes.empty() ? "" : "; ") + probe.reason;
    probe.reason = fmt::format("cyclictest did not run ({}); measured by takt's timer probe instead{}", why,
                               notes.empty() ? std::string() : "; " + notes);
    return probe;
  };
  int spawn_error = 0;
  ProcessOutput p = run_process(args, o.duration + std::chrono::seconds(15), o.stop_requested, spawn_error);
  if (spawn_error != 0) {
    return fallback(
        spawn_error == ENOENT
            ? fmt::format(
                  "'{}' not found in PATH: install rt-tests (scripts/setup does) to get the latency floor",
                  o.program)
            : fmt::format("cannot start '{}': {}", o.program, std::strerror(spawn_error)));
  }
  if (p.timed_out) {
    r.reason = fmt::format("cyclictest did not finish within {} s and was killed",
                           std::chrono::duration_cast<std::chrono::seconds>(o.duration).count() + 15);
    return r;
  }
  if (p.exit_status != 0 && p.interrupted) {
    // Stopped before cyclictest had set its handler (the SIGINT passed on ended it): no
    // samples, and nothing more is measured after a stop.
    r.stopped = true;
    r.reason = "stopped before cyclictest had any samples";
    return r;
  }
  if (p.exit_status != 0) {
    return fallback(
        fmt::format("cyclictest failed (exit status {}): {}", p.exit_status, last_lines(p.err + p.out, 300)));
  }
  try {
    CyclictestResult parsed = parse_cyclictest_histogram(p.out);
    r.ran = true;
    r.latency = parsed.latency;
    r.overflows = parsed.overflows;
    r.reason = note;
    if (p.interrupted) {
      r.stopped = true;
      r.reason += (r.reason.empty() ? "" : "; ") + std::string(
                                                       "stopped early (takt was asked to stop and stopped "
                                                       "cyclictest with SIGINT): the samples until then");
    }
  } catch (const Error& e) {
    r.reason = fmt::format("cannot read cyclictest's output: {}", e.what());
  }
  return r;
}

CyclictestResult run_timer_probe(const CyclictestOptions& o) {
  const auto& priv = os::privileges();
  const bool fifo = o.fifo && priv.fifo && !priv.forced_off;
  const os::CpuSet cpus = o.cpus.empty() ? os::allowed_cpus() : o.cpus;
  const auto loops = static_cast<std::size_t>(std::max<long long>(1, o.duration / o.interval));
  CyclictestResult r;
  r.tool = "takt timer probe";
  r.policy = fifo ? fmt::format("SCHED_FIFO/{}", o.priority) : "SCHED_OTHER";
  r.command = fmt::format(
      "takt timer probe: {} thread(s) on CPUs {}, clock_nanosleep(TIMER_ABSTIME) every {} us, {} loops",
      cpus.size(), cpus.to_string(), o.interval.count(), loops);
  std::vector<std::vector<std::int64_t>> samples(cpus.size(), std::vector<std::int64_t>(loops, 0));
  std::vector<std::size_t> taken(cpus.size(), 0);  // samples per thread (fewer when stopped)
  std::vector<std::thread> threads;
  std::atomic<std::size_t> refused{0};  // threads that SCHED_FIFO was refused to (set_fifo warned)
  std::atomic<bool> abandon{false};     // a thread could not be started: the others end
  const std::chrono::nanoseconds start = os::monotonic_now() + std::chrono::milliseconds(1);
  auto sample = [&](std::size_t t) {
    os::CpuSet one;
    one.add(cpus.cpus()[t]);
    os::pin_current_thread(one);
    if (fifo && !os::set_fifo(o.priority)) refused.fetch_add(1);
    std::chrono::nanoseconds next = start;
    std::chrono::nanoseconds asked = start;  // when stop_requested was last asked
    std::size_t i = 0;
    for (; i < loops; ++i) {
      next += o.interval;
      if (o.stop_requested && next - asked >= std::chrono::milliseconds(100)) {
        asked = next;
        if (o.stop_requested()) break;
      }
      if (abandon.load(std::memory_order_relaxed)) break;
      os::sleep_until(next);
      samples[t][i] = (os::monotonic_now() - next).count();
    }
    taken[t] = i;
  };
  for (std::size_t t = 0; t < cpus.size(); ++t) {
    try {
      threads.emplace_back(sample, t);
    } catch (const std::system_error& e) {
      // Unwinding past joinable threads would end the process (std::terminate), after
      // a run whose results are already printed; the caller reports the floor missing.
      abandon.store(true, std::memory_order_relaxed);
      for (auto& th : threads) th.join();
      r.ran = false;
      r.reason =
          os::thread_start_error(fmt::format("thread {} of {} of the timer probe", t + 1, cpus.size()), e);
      return r;
    }
  }
  for (auto& th : threads) th.join();
  std::vector<std::int64_t> all;
  all.reserve(loops * cpus.size());
  for (std::size_t t = 0; t < samples.size(); ++t) {
    const auto& s = samples[t];
    all.insert(all.end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(taken[t]));
    if (taken[t] < loops) r.stopped = true;
  }
  std::vector<std::string> notes;
  if (refused > 0) {
    // Privileges said yes, yet the kernel said no (an RLIMIT_RTPRIO or a cgroup's
    // real-time budget): say how the samples were taken, not what was asked.
    r.policy = refused == cpus.size()
                   ? std::string("SCHED_OTHER")
                   : fmt::format("SCHED_FIFO/{} on {} of {} threads, SCHED_OTHER on the others", o.priority,
                                 cpus.size() - refused, cpus.size());
    notes.push_back(fmt::format("SCHED_FIFO/{} was refused to {} of {} threads: they ran in SCHED_OTHER",
                                o.priority, refused.load(), cpus.size()));
  }
  if (r.stopped) notes.emplace_back("stopped early: the samples until then");
  r.reason = fmt::format("{}", fmt::join(notes, "; "));
  r.latency = latency_stats(std::move(all));
  r.ran = true;
  return r;
}

std::string cyclictest_summary(const CyclictestResult& c) {
  if (!c.ran) return fmt::format("cyclictest: did not run ({})", c.reason);
  return fmt::format("{} ({}, {} samples): p50 {:.0f} us, p99 {:.0f} us, max {:.0f} us{}", c.tool, c.policy,
                     c.latency.samples, c.latency.p50_us, c.latency.p99_us, c.latency.max_us,
                     c.reason.empty() ? std::string() : " (" + c.reason + ")");
}

nlohmann::json latency_stats_json(const LatencyStats& s) {
  const auto v = [&](double x) { return json_or_null(s.samples > 0, x); };
  return {{"samples", s.samples},  {"min_us", v(s.min_us)}, {"p25_us", v(s.p25_us)},
          {"p50_us", v(s.p50_us)}, {"p75_us", v(s.p75_us)}, {"p95_us", v(s.p95_us)},
          {"p99_us", v(s.p99_us)}, {"max_us", v(s.max_us)}, {"mean_us", v(s.mean_us)}};
}

nlohmann::json cyclictest_json(const CyclictestResult& c) {
  nlohmann::json j = latency_stats_json(c.latency);
  j.update({{"ran", c.ran},
            {"tool", c.tool},
            {"reason", c.reason},
            {"command", c.command},
            {"policy", c.policy},
            {"overflows", c.overflows},
            {"stopped", c.stopped}});
  return j;
}

}  // namespace takt::platform
