// The runtime benchmark: every runtime measured in its own child process.
//
// The parent stays single-threaded: it prepares the inputs (matrices, synthetic tasks,
// takt's static-memory measurement) and forks one child per (runtime, kernel,
// condition). A child sets its runtime up and warms it up; then the parent asks the
// children in turn for rounds of a few timed repetitions, which they send back through
// a pipe. A child answers only once its idle threads sleep, so libgomp's spinning idle
// threads and oneTBB's lingering workers do not compete with another runtime's round.
#include "bench/runtime/runtime_bench.hpp"

#include "apps/fib.hpp"
#include "apps/matmul.hpp"
#include "apps/synthetic.hpp"
#include "apps/uts.hpp"
#include "bench/runtime/interference.hpp"
#include "bench/runtime/kernels.hpp"
#include "bench/runtime/sample_statistics.hpp"
#include "model/duration.hpp"
#include "os/clock.hpp"
#include "os/cpu.hpp"
#include "os/realtime.hpp"
#include "platform/metrics_json.hpp"
#include "platform/percentile.hpp"
#include "platform/signal_stop.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"

#include <fmt/core.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace takt::bench {
namespace {

using Clock = std::chrono::steady_clock;

enum class Runtime { serial, takt, onetbb, openmp };
constexpr Runtime kRuntimes[] = {Runtime::serial, Runtime::takt, Runtime::onetbb, Runtime::openmp};
/// Rounds per kernel and condition: 20, or one per 5 repetitions when there are more
/// than 100, or one per repetition when there are fewer than 20.
int rounds_for(int repetitions) { return std::min(repetitions, std::max(20, repetitions / 5)); }

const char* name(Runtime r) {
  switch (r) {
    case Runtime::serial:
      return "serial";
    case Runtime::takt:
      return "takt";
    case Runtime::onetbb:
      return "onetbb";
    case Runtime::openmp:
      return "openmp";
  }
  return "?";
}

enum class Condition { isolated, multiprogrammed };
const char* name(Condition c) { return c == Condition::isolated ? "isolated" : "multiprogrammed"; }

enum class KernelKind { fib, uts, matmul, synthetic };

/// One kernel configuration. Inputs live in the parent and reach children through fork.
struct Kernel {
  std::string name;  ///< JSON "kernel"
  std::string size;  ///< human-readable size
  KernelKind kind = KernelKind::fib;
  int repetitions = 10;
  std::size_t workers = 0;  ///< 0: the benchmark's worker count
  bool conditions_both = true;
  bool with_serial = true;
  std::uint64_t fib_n = 0;
  apps::UtsConfig uts;
  const apps::SyntheticTask* synthetic = nullptr;
  StaticMemory takt_memory;  ///< measured with takt::measure before the timed runs
};

struct Inputs {
  std::size_t matrix_n = 128;
  std::vector<double> a, b, c, expected;
  std::vector<apps::SyntheticTask> synthetic;
};

/// Counts per sample, round by round (as Rounds holds the samples).
using CountRounds = std::vector<std::vector<std::uint64_t>>;

/// What a runtime's child reported: samples in ms round by round, whether every result
/// was right, takt counters (in total, and takt's steals, sleeps and idle time of each
/// sample).
struct ChildResult {
  Rounds rounds;
  CountRounds steal_rounds, sleep_rounds, idle_rounds;  ///< takt only; idle in µs
  bool correct = true;
  std::uint64_t steals = 0;
  std::uint64_t spawns = 0;
  std::uint64_t not_quiet = 0;  ///< rounds after which a thread still ran at the wait's limit
};

bool matrix_equal(const std::vector<double>& x, const std::vector<double>& y) { return x == y; }

/// The CPUs a run with `workers` threads uses: the first `workers` of `cpus`. Every
/// runtime's threads are kept there (takt pins one worker per CPU; oneTBB's and
/// OpenMP's threads inherit the child's mask and move freely among them), and the
/// multiprogrammed load runs there: with fewer workers than CPUs, threads left free on
/// all CPUs could escape a preempted CPU to an idle one, which takt's pinned workers
/// cannot.
os::CpuSet used_cpus(const os::CpuSet& cpus, std::size_t workers) {
  os::CpuSet used;
  for (std::size_t i = 0; i < workers && i < cpus.size(); ++i) used.add(cpus[i]);
  return used;
}

bool write_all(int fd, const void* data, std::size_t size);
bool read_all(int fd, void* data, std::size_t size);
bool wait_until_other_threads_sleep(std::chrono::milliseconds limit);
constexpr std::chrono::milliseconds kQuietLimit{500};

/// The child's side: sets the runtime up and says so once its threads sleep (the parent
/// starts the children one after another), then serves rounds until told to stop. A
/// round is a request of n repetitions (n > 0; 0 ends): warm-up runs (2, or 20 for
/// matmul, in the first round; then 1, or 5), n timed runs, and the samples sent back;
/// the child answers only once its runtime's idle threads sleep, so that no spinning
/// thread of this child shares the machine with the next round of another runtime. At
/// the end it sends whether every result was right and takt's steal and spawn counts
/// over the timed runs.
void serve_kernel(Runtime runtime, const Kernel& kernel, Inputs& in, std::size_t workers,
                  const RuntimeBenchOptions& options, int requests, int replies) {
  ChildResult out;
  const int threads = static_cast<int>(workers);
  // Before any runtime thread exists, so that they all inherit the mask.
  if (const os::CpuSet all = os::allowed_cpus(); workers < all.size()) {
    (void)os::pin_current_thread(used_cpus(all, workers));
  }
  std::function<bool()> once;
  std::optional<Pool> pool;
  std::optional<tbb::global_control> tbb_limit;
  std::optional<tbb::task_arena> arena;

  if (runtime == Runtime::takt) {
    PoolConfig config;
    config.workers = workers;
    config.memory = kernel.takt_memory;
    config.name = "bench";
    config.pin = options.pin;
    config.caller_joins = options.caller_joins && workers >= 2;
    pool.emplace(config);
    // The caller is worker 0: on worker 0's CPU, as the pinned workers are on theirs.
    if (config.caller_joins && options.pin) os::pin_current_thread(os::CpuSet{pool->cpus()[0]});
  } else if (runtime == Runtime::onetbb) {
    tbb_limit.emplace(tbb::global_control::max_allowed_parallelism, workers);
    arena.emplace(threads);
  } else if (runtime == Runtime::openmp) {
    use_openmp_schedule(options.openmp_schedule);  // this thread opens every parallel region
  }
  auto on_takt = [&](auto f) { return pool->run(f); };
  auto on_tbb = [&](auto f) { return arena->execute(f); };

  switch (kernel.kind) {
    case KernelKind::fib: {
      const std::uint64_t n = kernel.fib_n;
      const std::uint64_t expected = apps::fib_serial(n);
      switch (runtime) {
        case Runtime::serial:
          once = [=] { return apps::fib_serial(n) == expected; };
          break;
        case Runtime::takt:
          once = [&, n, expected] { return on_takt([n] { return apps::fib(n); }) == expected; };
          break;
        case Runtime::onetbb:
          once = [&, n, expected] { return on_tbb([n] { return fib_onetbb(n); }) == expected; };
          break;
        case Runtime::openmp:
          once = [=] { return fib_openmp(n, threads) == expected; };
          break;
      }
      break;
    }
    case KernelKind::uts: {
      const apps::UtsConfig config = kernel.uts;
      const apps::UtsResult expected = apps::uts_serial(config);
      switch (runtime) {
        case Runtime::serial:
          once = [=] { return apps::uts_serial(config) == expected; };
          break;
        case Runtime::takt:
          once = [&, config, expected] { return on_takt([&] { return apps::uts(config); }) == expected; };
          break;
        case Runtime::onetbb:
          once = [&, config, expected] { return on_tbb([&] { return uts_onetbb(config); }) == expected; };
          break;
        case Runtime::openmp:
          once = [=] { return uts_openmp(config, threads) == expected; };
          break;
      }
      break;
    }
    case KernelKind::matmul: {
      const std::size_t n = in.matrix_n;
      const double* a = in.a.data();
      const double* b = in.b.data();
      double* c = in.c.data();
      switch (runtime) {
        case Runtime::serial:
          once = [=] {
            apps::matmul_serial(a, b, c, n);
            return true;
          };
          break;
        case Runtime::takt:
          once = [&, a, b, c, n] {
            on_takt([=] { apps::matmul(a, b, c, n); });
            return true;
          };
          break;
        case Runtime::onetbb:
          once = [&, a, b, c, n] {
            on_tbb([=] { matmul_onetbb(a, b, c, n); });
            return true;
          };
          break;
        case Runtime::openmp:
          once = [=] {
            matmul_openmp(a, b, c, n, threads);
            return true;
          };
          break;
      }
      break;
    }
    case KernelKind::synthetic: {
      const apps::SyntheticTask* task = kernel.synthetic;
      switch (runtime) {
        case Runtime::serial:
          once = [=] {
            apps::run_synthetic_serial(*task);
            return true;
          };
          break;
        case Runtime::takt:
          once = [&, task] {
            on_takt([=] { apps::run_synthetic(*task); });
            return true;
          };
          break;
        case Runtime::onetbb:
          once = [&, task] {
            on_tbb([=] { synthetic_onetbb(*task); });
            return true;
          };
          break;
        case Runtime::openmp:
          once = [=] {
            synthetic_openmp(*task, threads);
            return true;
          };
          break;
      }
      break;
    }
  }

  // After each round, one untimed run whose result is checked in full: fib and UTS
  // check every run already; matmul's product starts as NaN (a runtime that left rows
  // unwritten would otherwise keep an earlier run's right values: the parent's depth
  // measurement has filled c before the fork), synthetic tallies the nodes run (their
  // count and the sum of their keys: every node once, none twice).
  std::function<bool()> checked = once;
  if (kernel.kind == KernelKind::matmul) {
    checked = [&] {
      std::fill(in.c.begin(), in.c.end(), std::numeric_limits<double>::quiet_NaN());
      return once() && matrix_equal(in.c, in.expected);
    };
  } else if (kernel.kind == KernelKind::synthetic) {
    checked = [&once, task = kernel.synthetic] {
      apps::NodeTally tally;
      task->tally = &tally;
      const bool ok = once();
      task->tally = nullptr;
      return ok && task->ran_every_node_once(tally);
    };
  }

  // Set up: tell the parent once this process is quiet, so that the next child's set-up
  // and the rounds do not overlap with it. The first round warms up more.
  wait_until_other_threads_sleep(kQuietLimit);  // set-up is not measured: a miss is not counted
  const char ready = 'r';
  if (!write_all(replies, &ready, 1)) throw takt::Error("the parent went away");
  const int first_warmups = kernel.kind == KernelKind::matmul ? 20 : 2;
  const int round_warmups = kernel.kind == KernelKind::matmul ? 5 : 1;
  for (bool first = true;; first = false) {
    std::uint64_t repetitions = 0;
    if (!read_all(requests, &repetitions, sizeof repetitions)) throw takt::Error("the parent went away");
    if (repetitions == 0) break;
    for (int i = 0; i < (first ? first_warmups : round_warmups); ++i) out.correct = once() && out.correct;
    if (pool) pool->reset_statistics();
    std::vector<double> samples;
    std::vector<std::uint64_t> steals, sleeps, idle_us;  // takt: what each run's workers did
    samples.reserve(repetitions);
    steals.reserve(repetitions);
    sleeps.reserve(repetitions);
    idle_us.reserve(repetitions);
    for (std::uint64_t i = 0; i < repetitions; ++i) {
      const WorkerStatistics before = pool ? pool->total_statistics() : WorkerStatistics{};
      auto t0 = Clock::now();
      bool ok = once();
      auto t1 = Clock::now();
      out.correct = ok && out.correct;
      samples.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      if (pool) {
        const WorkerStatistics after = pool->total_statistics();
        steals.push_back(after.steals - before.steals);
        sleeps.push_back(after.sleeps - before.sleeps);
        idle_us.push_back(after.idle_ns > before.idle_ns ? (after.idle_ns - before.idle_ns) / 1000 : 0);
      }
    }
    if (pool) {
      WorkerStatistics total = pool->total_statistics();
      out.steals += total.steals;
      out.spawns += total.spawns;
    }
    out.correct = checked() && out.correct;  // after the statistics: its steals are not counted
    if (!wait_until_other_threads_sleep(kQuietLimit)) ++out.not_quiet;
    if (!write_all(replies, samples.data(), samples.size() * sizeof(double)) ||
        !write_all(replies, steals.data(), steals.size() * sizeof(std::uint64_t)) ||
        !write_all(replies, sleeps.data(), sleeps.size() * sizeof(std::uint64_t)) ||
        !write_all(replies, idle_us.data(), idle_us.size() * sizeof(std::uint64_t))) {
      throw takt::Error("the parent went away");
    }
  }
  std::uint64_t summary[4] = {out.correct ? 1u : 0u, out.steals, out.spawns, out.not_quiet};
  if (!write_all(replies, summary, sizeof summary)) throw takt::Error("the parent went away");
}

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t w = ::write(fd, p, size);
    if (w < 0 && errno == EINTR) continue;  // a signal handled (a stop asked for)
    if (w <= 0) return false;
    p += w;
    size -= static_cast<std::size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    ssize_t r = ::read(fd, p, size);
    if (r < 0 && errno == EINTR) continue;  // a signal handled (a stop asked for)
    if (r <= 0) return false;
    p += r;
    size -= static_cast<std::size_t>(r);
  }
  return true;
}

/// Waits (up to `limit`) until every thread of this process but the caller is asleep:
/// libgomp's idle threads spin for a while after a parallel region (GOMP_SPINCOUNT) and
/// oneTBB's workers linger before they sleep. Reads each thread's state from
/// /proc/self/task/*/stat ('R': running or runnable). False when a thread still ran at
/// the limit (true, without waiting, when /proc cannot be read).
bool wait_until_other_threads_sleep(std::chrono::milliseconds limit) {
  const pid_t self = static_cast<pid_t>(::syscall(SYS_gettid));
  const auto until = Clock::now() + limit;
  for (;;) {
    bool busy = false;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task", ec)) {
      if (entry.path().filename() == std::to_string(self)) continue;
      std::ifstream stat(entry.path() / "stat");
      std::string line;
      std::getline(stat, line);
      // "tid (comm) S ...": the state follows the last ')' (comm may hold spaces).
      auto close = line.rfind(')');
      if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'R') {
        busy = true;
        break;
      }
    }
    if (ec || !busy) return true;
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

/// One runtime's child process for one kernel and condition: started once, asked for
/// rounds of repetitions in turn with the other runtimes' children.
class RuntimeChild {
 public:
  RuntimeChild(Runtime runtime, const Kernel& kernel, Inputs& in, std::size_t workers,
               const RuntimeBenchOptions& options)
      : runtime_(runtime), kernel_(kernel.name) {
    int to_child[2], from_child[2];
    if (::pipe(to_child) != 0) throw takt::Error("bench: pipe failed");
    if (::pipe(from_child) != 0) {
      ::close(to_child[0]);
      ::close(to_child[1]);
      throw takt::Error("bench: pipe failed");
    }
    std::fflush(stdout);
    std::fflush(stderr);
    pid_ = ::fork();
    if (pid_ < 0) throw takt::Error(fmt::format("bench: fork failed ({})", std::strerror(errno)));
    if (pid_ == 0) {
      // The parent decides when a child ends (a Ctrl-C to the terminal's process group
      // reaches the children too): it finishes the round under way, then ends them.
      std::signal(SIGINT, SIG_IGN);
      std::signal(SIGTERM, SIG_IGN);
      std::signal(SIGHUP, SIG_IGN);  // a closed terminal reaches the group too
      ::close(to_child[1]);
      ::close(from_child[0]);
      int code = 0;
      try {
        serve_kernel(runtime, kernel, in, workers, options, to_child[0], from_child[1]);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "takt bench: %s on %s failed: %s\n", kernel.name.c_str(), name(runtime),
                     e.what());
        code = 3;
      }
      ::_exit(code);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    requests_ = to_child[1];
    replies_ = from_child[0];
    char ready = 0;
    if (!read_all(replies_, &ready, 1)) fail();
  }
  RuntimeChild(const RuntimeChild&) = delete;
  RuntimeChild& operator=(const RuntimeChild&) = delete;
  ~RuntimeChild() {
    if (pid_ > 0) {
      ::close(requests_);
      ::close(replies_);
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  /// Times `repetitions` runs; adds the samples (ms), and for takt each run's steals,
  /// sleeps and idle time (µs), to `result` as one more round.
  void round(std::uint64_t repetitions, ChildResult& result) {
    std::vector<double> got(repetitions);
    if (!write_all(requests_, &repetitions, sizeof repetitions) ||
        !read_all(replies_, got.data(), got.size() * sizeof(double))) {
      fail();
    }
    result.rounds.push_back(std::move(got));
    if (runtime_ != Runtime::takt) return;
    std::vector<std::uint64_t> steals(repetitions), sleeps(repetitions), idle_us(repetitions);
    if (!read_all(replies_, steals.data(), steals.size() * sizeof(std::uint64_t)) ||
        !read_all(replies_, sleeps.data(), sleeps.size() * sizeof(std::uint64_t)) ||
        !read_all(replies_, idle_us.data(), idle_us.size() * sizeof(std::uint64_t))) {
      fail();
    }
    result.steal_rounds.push_back(std::move(steals));
    result.sleep_rounds.push_back(std::move(sleeps));
    result.idle_rounds.push_back(std::move(idle_us));
  }

  /// Ends the child; its correctness and takt counters go into `result`.
  void finish(ChildResult& result) {
    std::uint64_t stop = 0;
    std::uint64_t summary[4] = {};
    if (!write_all(requests_, &stop, sizeof stop) || !read_all(replies_, summary, sizeof summary)) fail();
    result.correct = summary[0] == 1;
    result.steals = summary[1];
    result.spawns = summary[2];
    result.not_quiet = summary[3];
    ::close(requests_);
    ::close(replies_);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail(status);
  }

 private:
  [[noreturn]] void fail(int status = -1) {
    if (pid_ > 0 && status == -1) {
      ::close(requests_);
      ::close(replies_);
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    throw takt::Error(fmt::format("bench: the {} child for {} did not finish (status {})", name(runtime_),
                                  kernel_, status));
  }

  Runtime runtime_;
  std::string kernel_;
  pid_t pid_ = -1;
  int requests_ = -1, replies_ = -1;
};

struct Row {
  std::string kernel, size;
  Runtime runtime;
  Condition condition;
  std::size_t workers;
  SampleStatistics stats;
  bool correct;
  std::uint64_t steals = 0, spawns = 0;
  std::optional<double> ns_per_spawn;
  Rounds rounds;  ///< samples in ms, round by round, in the order taken
  std::uint64_t not_quiet = 0;
  CountRounds steal_rounds, sleep_rounds;  ///< takt: each sample's steals and sleeps, as `rounds`
  CountRounds idle_rounds;                 ///< takt: each sample's idle time of all workers, µs
};

struct IdleShares {
  double median = 0, p95 = 0;  ///< percent of the workers' time
};

/// takt: the share of each run that its workers spent idle (idle time over workers ×
/// run time), median and p95 over the runs; nothing for other runtimes.
std::optional<IdleShares> idle_shares(const Row& row) {
  if (row.idle_rounds.size() != row.rounds.size() || row.rounds.empty()) return std::nullopt;
  std::vector<double> shares;
  for (std::size_t i = 0; i < row.rounds.size(); ++i) {
    for (std::size_t j = 0; j < row.rounds[i].size() && j < row.idle_rounds[i].size(); ++j) {
      const double run_us = row.rounds[i][j] * 1000.0 * static_cast<double>(row.workers);
      if (run_us > 0) shares.push_back(100.0 * static_cast<double>(row.idle_rounds[i][j]) / run_us);
    }
  }
  if (shares.empty()) return std::nullopt;
  std::sort(shares.begin(), shares.end());
  return IdleShares{platform::nearest_rank(std::span<const double>(shares), 50),
                    platform::nearest_rank(std::span<const double>(shares), 95)};
}

const Row* find(const std::vector<Row>& rows, const std::string& kernel, Runtime r, Condition c) {
  for (const Row& row : rows) {
    if (row.kernel == kernel && row.runtime == r && row.condition == c) return &row;
  }
  return nullptr;
}

struct Target {
  std::string name, kernel, condition, measure;
  double value = 0, limit = 0;
  bool pass = false;
  std::optional<TailComparison> noise;  ///< multiprogrammed targets: how sure the order is
  /// Multiprogrammed targets: each runtime's tail in ms (p95 − median), takt's and
  /// oneTBB's, printed beside the ratios (a faster median makes the same tail a larger
  /// ratio).
  std::optional<std::pair<double, double>> tails_ms;
  /// Multiprogrammed targets: whether the load preempted the runtimes (SCHED_FIFO). In
  /// SCHED_OTHER it competes with them, which is not the condition (P³LS³ §5) the target
  /// is stated for: the target is then reported, but as not applicable.
  std::optional<bool> load_preempts;
  /// Empty where both rows' results were right (checked against the serial ones); else
  /// whose were wrong. Such a target does not pass, whatever its times.
  std::string results_wrong;
  /// Why the samples cannot decide the target ("" where they can): one repetition per
  /// runtime, whose p95 is its median. Such a target is not applicable and does not pass.
  std::string undecided;
  [[nodiscard]] bool applicable() const { return load_preempts.value_or(true) && undecided.empty(); }
};

/// Whose results were wrong of a target's two rows ("" where both were right).
std::string wrong_results(const Row& takt, const Row& other) {
  if (takt.correct && other.correct) return "";
  if (!takt.correct && !other.correct)
    return fmt::format("takt's and {}'s results were wrong", name(other.runtime));
  return fmt::format("{}'s results were wrong", takt.correct ? name(other.runtime) : "takt");
}

/// Whether a tail comparison's 95 % interval tells takt's p95/median from oneTBB's.
const char* noise_verdict(const TailComparison& c) {
  if (c.rounds < 2) return "no interval from one round";
  if (c.high < 0) return "smaller beyond the noise";
  if (c.low > 0) return "larger beyond the noise";
  return "within the noise";
}

/// Ignores SIGPIPE while it lives: a request written to a child that has died then fails
/// with EPIPE, and the parent reports which child did not finish, instead of being
/// killed by the signal.
class IgnoreSigpipe {
 public:
  IgnoreSigpipe() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGPIPE, &ignore, &previous_);
  }
  ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &previous_, nullptr); }
  IgnoreSigpipe(const IgnoreSigpipe&) = delete;
  IgnoreSigpipe& operator=(const IgnoreSigpipe&) = delete;

 private:
  struct sigaction previous_ {};
};

}  // namespace

std::size_t round_position(std::size_t round, std::size_t i, std::size_t n) {
  const std::size_t rotation = (round / 2) % n;
  return round % 2 == 0 ? (i + rotation) % n : (n - 1 - i + rotation) % n;
}

std::string runtime_bench_machine_problem(const RuntimeBenchOptions& options) {
  const os::CpuSet cpus = os::allowed_cpus();
  if (options.workers <= cpus.size()) return {};
  return fmt::format(
      "--workers {}: this process may use {} CPU(s) ({}); more threads than CPUs "
      "would share them, which the comparison does not measure; give at most {}",
      options.workers, cpus.size(), cpus.to_string(), cpus.size());
}

int run_runtime_bench(const RuntimeBenchOptions& options) {
  IgnoreSigpipe ignore_sigpipe;
  const nlohmann::json provenance = platform::provenance();  // the run's start, in every write
  if (!options.json_path.empty()) {
    // Fail before a long run, without leaving a file behind.
    std::filesystem::path path(options.json_path);
    std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    bool writable = std::filesystem::exists(path)
                        ? ::access(path.c_str(), W_OK) == 0
                        : std::filesystem::is_directory(dir) && ::access(dir.c_str(), W_OK) == 0;
    if (!writable)
      throw takt::Error(fmt::format("cannot write '{}'; choose a writable --json path", options.json_path));
  }
  static const char* const known[] = {"fib",    "fib-1worker", "uts",         "uts-t3-style",
                                      "matmul", "synthetic-1", "synthetic-2", "synthetic-3"};
  for (const std::string& k : options.kernels) {
    if (std::find(std::begin(known), std::end(known), k) == std::end(known)) {
      throw takt::Error(
          fmt::format("unknown kernel '{}' in --kernels; choose from fib, fib-1worker, uts, "
                      "uts-t3-style, matmul, synthetic-1, synthetic-2, synthetic-3",
                      k));
    }
  }
  std::vector<Runtime> selected;
  for (Runtime r : kRuntimes) {
    if (options.runtimes.empty() ||
        std::find(options.runtimes.begin(), options.runtimes.end(), name(r)) != options.runtimes.end()) {
      selected.push_back(r);
    }
  }
  for (const std::string& r : options.runtimes) {
    if (std::none_of(std::begin(kRuntimes), std::end(kRuntimes), [&](Runtime k) { return r == name(k); })) {
      throw takt::Error(
          fmt::format("unknown runtime '{}' in --runtimes; choose from takt, onetbb, openmp, serial", r));
    }
  }
  if (std::string problem = runtime_bench_machine_problem(options); !problem.empty())
    throw takt::Error(problem);
  const os::CpuSet cpus = os::allowed_cpus();
  const std::size_t workers = options.workers != 0 ? options.workers : cpus.size();
  const os::CpuSet cpus_used = used_cpus(cpus, workers);  // every runtime's threads and the load
  const bool quick = options.quick;

  // ---- inputs (prepared once, in the parent) -------------------------------------------
  Inputs in;
  in.a.resize(in.matrix_n * in.matrix_n);
  in.b.resize(in.a.size());
  in.c.assign(in.a.size(), 0.0);
  in.expected.resize(in.a.size());
  for (std::size_t i = 0; i < in.a.size(); ++i) {
    in.a[i] = static_cast<double>(i % 17) * 0.25 - 2.0;
    in.b[i] = static_cast<double>(i % 13) * 0.5 - 3.0;
  }
  apps::matmul_serial(in.a.data(), in.b.data(), in.expected.data(), in.matrix_n);
  fmt::print("takt bench runtime: {} workers on CPUs {}{}; takt's workers {}, {}\n", workers,
             cpus.to_string(), quick ? " (quick)" : "", options.pin ? "pinned" : "not pinned",
             options.caller_joins
                 ? "the calling thread joins as worker 0 (P threads in all, as oneTBB and OpenMP)"
                 : "P worker threads and a blocked calling thread");
  fmt::print("OpenMP's loops (matmul, synthetic): schedule({}){}\n", options.openmp_schedule.to_string(),
             options.openmp_schedule == OpenmpSchedule{}
                 ? ", the centralized queue of RTWS §III"
                 : "; the targets against OpenMP are stated for dynamic,1");
  fmt::print("calibrating the synthetic tasks' busy loop...\n");
  in.synthetic.push_back(apps::make_synthetic_task(1, 101, quick ? 0.1 : 1.0));
  in.synthetic.push_back(apps::make_synthetic_task(2, 102, quick ? 0.02 : 0.25));
  in.synthetic.push_back(apps::make_synthetic_task(3, 103, quick ? 0.02 : 0.25));

  std::vector<Kernel> kernels;
  auto add = [&](Kernel k) {
    if (!options.kernels.empty() &&
        std::find(options.kernels.begin(), options.kernels.end(), k.name) == options.kernels.end()) {
      return;
    }
    if (options.repetitions > 0) k.repetitions = options.repetitions;
    kernels.push_back(std::move(k));
  };
  // Repetitions: the multiprogrammed targets compare p95s (nearest rank), and the p95
  // of N samples is the ⌈0.95·N⌉-th smallest: with N = 30 the second largest, so one
  // unlucky run decides it. 100 samples leave 5 above the p95 (40 leave 2, for the
  // kernels whose runs take 100 ms and more).
  const std::uint64_t fib_n = options.fib_n != 0 ? options.fib_n : (quick ? 25 : 30);
  {
    Kernel k;
    k.name = "fib";
    k.size = fmt::format("n={}", fib_n);
    k.kind = KernelKind::fib;
    k.fib_n = fib_n;
    k.repetitions = quick ? 5 : 100;
    add(k);
    k.name = "fib-1worker";
    k.workers = 1;
    k.conditions_both = false;
    k.with_serial = false;
    k.repetitions = quick ? 3 : 7;
    add(k);
  }
  {
    Kernel k;
    k.name = "uts";
    k.size = "P3LS3 tree, 70949 nodes";
    k.kind = KernelKind::uts;
    k.uts = apps::uts_p3ls3;
    k.repetitions = quick ? 5 : 100;
    add(k);
    if (!quick) {
      k.name = "uts-t3-style";
      k.size = "T3 shape, seed 19, 970025 nodes";
      k.uts = apps::uts_t3_style;
      k.repetitions = 40;
      add(k);
    }
  }
  {
    Kernel k;
    k.name = "matmul";
    k.size = "128x128 rows";
    k.kind = KernelKind::matmul;
    k.repetitions = quick ? 50 : 1000;
    add(k);
  }
  for (int type = 1; type <= 3; ++type) {
    const apps::SyntheticTask& task = in.synthetic[type - 1];
    Kernel k;
    k.name = fmt::format("synthetic-{}", type);
    // The nominal work (the node times summed) beside the serial row's time shows what a
    // node really costs: type 1's 5-10 ns nodes run several times longer (docs/programs.md).
    k.size = fmt::format("{} segments, {} nodes of {}-{} ns, nominal work {:.2f} ms",
                         task.segment_nodes.size(), task.nodes(), task.min_node_ns, task.max_node_ns,
                         static_cast<double>(task.work_ns()) / 1e6);
    k.kind = KernelKind::synthetic;
    k.synthetic = &task;
    k.repetitions = quick ? 3 : (type == 1 ? 100 : 40);
    add(k);
  }

  if (kernels.empty()) {
    throw takt::Error(
        "--kernels selects no kernel; choose from fib, fib-1worker, uts, uts-t3-style, matmul, "
        "synthetic-1, synthetic-2, synthetic-3");
  }

  // ---- takt's static memory: the measurement run of P³LS³ §4.2, per kernel ---------------
  for (Kernel& k : kernels) {
    Measurement m;
    switch (k.kind) {
      case KernelKind::fib:
        m = measure([n = k.fib_n] { return apps::fib(n); });
        break;
      case KernelKind::uts:
        m = measure([c = k.uts] { return apps::uts(c); });
        break;
      case KernelKind::matmul:
        m = measure([&in] { apps::matmul(in.a.data(), in.b.data(), in.c.data(), in.matrix_n); });
        break;
      case KernelKind::synthetic: {
        apps::SyntheticTask shape = *k.synthetic;  // same loop structure, no busy waiting
        shape.units_per_ns = 0.0;
        m = measure([&shape] { apps::run_synthetic(shape); });
        break;
      }
    }
    k.takt_memory = m.recommended();
  }

  // ---- measure ---------------------------------------------------------------------------
  std::vector<Row> rows;
  std::vector<Target> targets;
  std::string interference_policy;
  bool load_realtime = false;  // the multiprogrammed load ran in SCHED_FIFO
  InterferenceSettings load_settings;
  load_settings.period = options.load_period;
  // The share of each CPU the load really took while it ran (its CPU time over the
  // time it ran and its CPUs): below the setting by what the load lost to others.
  std::optional<double> load_measured;
  // row's statistic over the same statistic of `other`'s row (kernel, condition); the
  // median by default, as printed.
  auto ratio = [&](const Row& row, Runtime other,
                   double SampleStatistics::*of = &SampleStatistics::median_ms) -> std::optional<double> {
    const Row* o = find(rows, row.kernel, other, row.condition);
    if (o == nullptr || o->stats.*of <= 0) return std::nullopt;
    return row.stats.*of / o->stats.*of;
  };
  // The JSON is written after every kernel (complete = false) and once more at the end,
  // so a run that is cut short (a timeout, Ctrl-C, a failing child) keeps the kernels it
  // finished. Each write goes through a temporary file renamed into place.
  bool stopped = false;  // stop_requested() ended the measuring
  auto stop_now = [&] {
    if (!stopped && options.stop_requested && options.stop_requested()) stopped = true;
    return stopped;
  };
  auto save_json = [&](bool complete) {
    if (options.json_path.empty()) return;
    // complete false: written after a kernel, the run not (yet) finished; stopped_by: by
    // which signal a stop came, as every benchmark's JSON says it.
    nlohmann::json j = platform::benchmark_header(
        "runtime", provenance, complete, stopped ? platform::first_handled_signal_name() : std::string());
    j["stopped"] = stopped;  // a stop ended the measuring early (complete stays false)
    j["quick"] = quick;
    j["workers"] = workers;
    j["takt_pinned"] = options.pin;
    j["openmp_schedule"] = options.openmp_schedule.to_string();
    j["takt_caller_joins"] = options.caller_joins;
    j["cpus"] = cpus.to_string();
    j["cpus_used"] = cpus_used.to_string();
    j["multiprogrammed_load"] = {
        {"period_ms", std::chrono::duration<double, std::milli>(load_settings.period).count()},
        {"utilization", load_settings.utilization},
        {"phases", "staggered by period/P"},
        // null until the load starts (or is given up)
        {"policy", interference_policy.empty() ? nlohmann::json() : nlohmann::json(interference_policy)},
        {"measured_utilization", load_measured ? nlohmann::json(*load_measured) : nlohmann::json()}};
    j["method"] =
        "each runtime in its own forked child process, started once per kernel and condition, one after "
        "another; repetitions split into rounds (20, or one per 5 repetitions above 100) that run the "
        "runtimes in turn (order rotating, reversed every other round), each round after warm-up runs and once the previous runtime's "
        "idle threads sleep; every runtime's threads on the first `workers` allowed CPUs, where the "
        "multiprogrammed load runs; steady_clock around each run; nearest-rank percentiles";
    j["runtimes"] = nlohmann::json::array();
    for (Runtime r : selected) j["runtimes"].push_back(name(r));
    for (const Row& row : rows) {
      nlohmann::json r;
      r["kernel"] = row.kernel;
      r["size"] = row.size;
      r["runtime"] = name(row.runtime);
      r["condition"] = name(row.condition);
      r["workers"] = row.workers;
      r["repetitions"] = row.stats.count;
      r["median_ms"] = row.stats.median_ms;
      r["p95_ms"] = row.stats.p95_ms;
      r["max_ms"] = row.stats.max_ms;
      r["min_ms"] = row.stats.min_ms;
      r["mean_ms"] = row.stats.mean_ms;
      r["correct"] = row.correct;
      for (Runtime other : {Runtime::onetbb, Runtime::openmp}) {
        const std::string to = std::string("ratio_to_") + name(other);
        if (auto v = ratio(row, other)) r[to] = *v;  // of the medians
        if (auto v = ratio(row, other, &SampleStatistics::p95_ms)) r["p95_" + to] = *v;
        if (auto v = ratio(row, other, &SampleStatistics::max_ms)) r["max_" + to] = *v;
      }
      if (row.ns_per_spawn) r["ns_per_spawn"] = *row.ns_per_spawn;
      r["rounds_ms"] = row.rounds;  // the samples, round by round, in the order taken
      r["rounds_not_quiet"] = row.not_quiet;
      if (row.runtime == Runtime::takt) {
        // This row's own mode: a pool of one worker has its worker thread and the
        // caller blocks, whatever takt_caller_joins says (fib-1worker, --workers 1).
        r["caller_joins"] = options.caller_joins && row.workers >= 2;
        r["steals"] = row.steals;
        r["spawns"] = row.spawns;
        r["rounds_steals"] = row.steal_rounds;  // each sample's, laid out as rounds_ms
        r["rounds_sleeps"] = row.sleep_rounds;
        r["rounds_idle_us"] = row.idle_rounds;  // the workers' idle time (WorkerStatistics::idle_ns), summed
      }
      j["rows"].push_back(r);
    }
    for (const Target& t : targets) {
      nlohmann::json target = {{"name", t.name},           {"kernel", t.kernel},
                               {"condition", t.condition}, {"measure", t.measure},
                               {"value", t.value},         {"limit", t.limit},
                               {"pass", t.pass},           {"results_correct", t.results_wrong.empty()}};
      if (t.noise) {
        target["difference"] = t.noise->difference;
        // One round: no interval (a bootstrap of one round resamples that round only).
        target["interval_95"] =
            t.noise->rounds >= 2 ? nlohmann::json{t.noise->low, t.noise->high} : nlohmann::json();
        target["interval_method"] =
            fmt::format("paired percentile bootstrap of the rounds, {} resamples, seed {}",
                        t.noise->resamples, t.noise->seed);
        target["noise_verdict"] = noise_verdict(*t.noise);
      }
      if (t.tails_ms) target["tail_ms"] = {{"takt", t.tails_ms->first}, {"onetbb", t.tails_ms->second}};
      if (t.load_preempts) target["load_preempts"] = *t.load_preempts;
      target["applicable"] = t.applicable();
      target["not_applicable"] =
          !t.undecided.empty() ? nlohmann::json(t.undecided)
          : !t.load_preempts.value_or(true)
              ? nlohmann::json("the load ran in SCHED_OTHER, competing with the runtimes")
              : nlohmann::json();
      j["targets"].push_back(target);
    }
    platform::write_json_file(options.json_path, j);
  };
  for (Condition condition : {Condition::isolated, Condition::multiprogrammed}) {
    std::optional<Interference> load;
    std::optional<std::chrono::nanoseconds> load_cpu_before;
    std::chrono::nanoseconds load_since{};
    if (condition == Condition::multiprogrammed) {
      // No load without a kernel to measure under it (fib-1worker runs isolated only):
      // the JSON would report a load that measured nothing.
      if (std::none_of(kernels.begin(), kernels.end(), [](const Kernel& k) { return k.conditions_both; })) {
        interference_policy = "not started: no kernel selected runs in the multiprogrammed condition";
        break;
      }
      if (stop_now()) {
        interference_policy = "not started: stopped before the multiprogrammed condition";
        break;
      }
      load.emplace(cpus_used, load_settings);
      interference_policy = load->policy();
      load_realtime = load->realtime();
      load_cpu_before = load->cpu_time();
      load_since = os::monotonic_now();
    }
    for (const Kernel& k : kernels) {
      if (condition == Condition::multiprogrammed && !k.conditions_both) continue;
      if (stop_now()) break;
      // One child per runtime, asked in turn for rounds of a few repetitions each (the
      // order rotating, and reversed every other round: round_position), so that slow
      // phases of a shared machine hit all runtimes alike.
      const int rounds = rounds_for(k.repetitions);
      std::map<Runtime, ChildResult> results;
      std::vector<std::pair<Runtime, std::unique_ptr<RuntimeChild>>> children;
      for (Runtime runtime : selected) {
        if (runtime == Runtime::serial && !k.with_serial) continue;
        std::size_t w = runtime == Runtime::serial ? 1 : (k.workers != 0 ? k.workers : workers);
        children.emplace_back(runtime, std::make_unique<RuntimeChild>(runtime, k, in, w, options));
      }
      int rounds_done = 0;
      for (int round = 0; round < rounds; ++round, ++rounds_done) {
        if (stop_now()) break;  // the rounds every runtime finished are kept
        const int reps = k.repetitions / rounds + (round < k.repetitions % rounds ? 1 : 0);
        for (std::size_t i = 0; i < children.size(); ++i) {
          auto& [runtime, child] = children[round_position(static_cast<std::size_t>(round), i, children.size())];
          child->round(static_cast<std::uint64_t>(reps), results[runtime]);
        }
      }
      for (auto& [runtime, child] : children) child->finish(results[runtime]);
      if (rounds_done < rounds) {
        fmt::print("  {:<16} {:<15} stopped after {} of {} rounds{}\n", k.name, name(condition), rounds_done,
                   rounds, rounds_done == 0 ? ": no row" : "");
        if (rounds_done == 0) break;
      }
      for (auto& [runtime, r] : results) {
        std::size_t w = runtime == Runtime::serial ? 1 : (k.workers != 0 ? k.workers : workers);
        std::vector<double> all;
        for (const auto& round : r.rounds) all.insert(all.end(), round.begin(), round.end());
        Row row{k.name,   k.size,   runtime, condition, w,           summarize(all), r.correct,
                r.steals, r.spawns, {},      r.rounds,  r.not_quiet, r.steal_rounds, r.sleep_rounds,
                r.idle_rounds};
        fmt::print("  {:<16} {:<15} {:<7} median {:9.3f} ms  p95 {:9.3f}  max {:9.3f}{}\n", k.name,
                   name(condition), name(runtime), row.stats.median_ms, row.stats.p95_ms, row.stats.max_ms,
                   r.correct ? "" : "  WRONG RESULT");
        if (auto idle = idle_shares(row)) {
          fmt::print("    takt's workers idle: median {:.2f} %, p95 {:.2f} % of {} per run\n", idle->median,
                     idle->p95, w == 1 ? std::string("the worker's time") : fmt::format("the {} workers' time", w));
        }
        if (r.not_quiet > 0) {
          fmt::print(
              "    warning: {} of {}'s rounds ended with one of its threads still running after {} ms; the "
              "next runtime's round may have shared the CPUs with it\n",
              r.not_quiet, name(runtime), kQuietLimit.count());
        }
        rows.push_back(row);
      }
      if (load && load_cpu_before) {
        const auto cpu_now = load->cpu_time();
        const auto wall = os::monotonic_now() - load_since;
        if (cpu_now && wall > std::chrono::nanoseconds::zero()) {
          load_measured = static_cast<double>((*cpu_now - *load_cpu_before).count()) /
                          (static_cast<double>(wall.count()) * static_cast<double>(cpus_used.size()));
        }
      }
      // After each kernel, where the file takes it (a stream or FIFO gets the last only).
      if (platform::takes_checkpoints(options.json_path)) save_json(false);
    }
    if (stopped) break;
  }
  if (stopped) fmt::print("stopped early: the table and the targets are of the rounds measured\n");

  // ---- ns per spawn: (time on one worker - serial time) / spawns -------------------------
  const std::uint64_t spawns = apps::fib_spawns(fib_n);
  // Only on the fib-1worker rows, whose time it is computed from (it was also copied onto
  // takt's multi-worker fib rows, which did not measure it).
  const Row* serial_fib = find(rows, "fib", Runtime::serial, Condition::isolated);
  for (Row& row : rows) {
    if (row.kernel == "fib-1worker" && serial_fib != nullptr) {
      row.ns_per_spawn = (row.stats.median_ms - serial_fib->stats.median_ms) * 1e6 / static_cast<double>(spawns);
    }
  }
  if (serial_fib == nullptr && std::any_of(rows.begin(), rows.end(), [](const Row& r) {
        return r.kernel == "fib-1worker";
      })) {
    fmt::print("ns per spawn: not computed (it needs the serial fib row: add fib to --kernels and serial to "
               "--runtimes)\n");
  }

  // ---- ratios and targets --------------------------------------------------------------
  auto median_target = [&](const std::string& title, const std::string& kernel, Runtime other, double limit) {
    const Row* t = find(rows, kernel, Runtime::takt, Condition::isolated);
    const Row* o = find(rows, kernel, other, Condition::isolated);
    if (t == nullptr || o == nullptr) return;
    Target target{title,
                  kernel,
                  "isolated",
                  fmt::format("takt median / {} median", name(other)),
                  t->stats.median_ms / o->stats.median_ms,
                  limit,
                  false,
                  std::nullopt,
                  std::nullopt,
                  std::nullopt,
                  wrong_results(*t, *o),
                  {}};
    target.pass = target.value <= limit && target.results_wrong.empty();
    targets.push_back(target);
  };
  median_target(fmt::format("fib({}) <= 0.5x oneTBB", fib_n), "fib", Runtime::onetbb, 0.5);
  median_target("matmul <= 1.1x oneTBB", "matmul", Runtime::onetbb, 1.1);
  median_target("synthetic type 1 <= 0.5x OpenMP", "synthetic-1", Runtime::openmp, 0.5);
  for (const Kernel& k : kernels) {
    if (!k.conditions_both) continue;
    const Row* t = find(rows, k.name, Runtime::takt, Condition::multiprogrammed);
    const Row* o = find(rows, k.name, Runtime::onetbb, Condition::multiprogrammed);
    if (t == nullptr || o == nullptr || t->stats.median_ms <= 0 || o->stats.median_ms <= 0) continue;
    double ours = t->stats.p95_ms / t->stats.median_ms;
    double theirs = o->stats.p95_ms / o->stats.median_ms;
    Target target{fmt::format("{} multiprogrammed p95/median <= oneTBB's", k.name),
                  k.name,
                  "multiprogrammed",
                  "takt p95/median vs oneTBB p95/median",
                  ours,
                  theirs,
                  ours <= theirs,
                  compare_tail_ratios(t->rounds, o->rounds),
                  std::pair{t->stats.p95_ms - t->stats.median_ms, o->stats.p95_ms - o->stats.median_ms},
                  load_realtime,
                  wrong_results(*t, *o),
                  {}};
    if (t->stats.count < 2 || o->stats.count < 2) {
      target.undecided = fmt::format(
          "{} repetition(s) of takt's and {} of oneTBB's: with one, p95 is the median; "
          "give --repetitions 2 or more (20 or more for a p95 below the maximum)",
          t->stats.count, o->stats.count);
    }
    target.pass = target.pass && target.results_wrong.empty() && target.undecided.empty();
    targets.push_back(target);
  }

  // ---- report ---------------------------------------------------------------------------
  fmt::print("\n{:<16} {:<15} {:<7} {:>10} {:>10} {:>10} {:>9} {:>9} {:>8}\n", "kernel", "condition",
             "runtime", "median_ms", "p95_ms", "max_ms", "/oneTBB", "/OpenMP", "ns/spawn");
  bool all_correct = true;
  for (const Row& row : rows) {
    auto tbb = ratio(row, Runtime::onetbb);
    auto omp = ratio(row, Runtime::openmp);
    fmt::print(
        "{:<16} {:<15} {:<7} {:>10.3f} {:>10.3f} {:>10.3f} {:>9} {:>9} {:>8}{}\n", row.kernel,
        name(row.condition), name(row.runtime), row.stats.median_ms, row.stats.p95_ms, row.stats.max_ms,
        tbb ? fmt::format("{:.2f}", *tbb) : "-", omp ? fmt::format("{:.2f}", *omp) : "-",
        row.ns_per_spawn ? fmt::format("{:.1f}", *row.ns_per_spawn) : "", row.correct ? "" : "  WRONG");
    all_correct = all_correct && row.correct;
  }
  fmt::print("\nmultiprogrammed load: one thread per CPU, busy {:.0f} % of every {} (phases staggered), {}{}\n",
             load_settings.utilization * 100, model::format_duration(load_settings.period), interference_policy,
             load_measured ? fmt::format("; measured: {:.1f} % of each CPU while it ran", *load_measured * 100)
                           : std::string());
  if (targets.empty()) {
    fmt::print(
        "targets: none among these runs (each compares takt with oneTBB or OpenMP on the same kernel: "
        "give --runtimes with them)\n");
  } else {
    fmt::print("targets{}:\n", quick ? " (quick mode: smaller sizes than the targets are stated for)" : "");
  }
  for (const Target& t : targets) {
    if (t.noise) {
      // Three decimals: the two tails often differ in the third.
      const std::string interval = t.noise->rounds >= 2
                                       ? fmt::format("95 % bootstrap interval [{:+.3f}, {:+.3f}]: {}",
                                                     t.noise->low, t.noise->high, noise_verdict(*t.noise))
                                       : std::string(noise_verdict(*t.noise));
      fmt::print("  {:<52} {:>6.3f} vs {:>6.3f}  {}  (difference {:+.3f}, {})\n", t.name, t.value, t.limit,
                 t.applicable() ? (t.pass ? "PASS" : "FAIL") : "n/a ", t.noise->difference, interval);
      if (!t.undecided.empty()) fmt::print("  {:<52} n/a: {}\n", "", t.undecided);
      if (!t.load_preempts.value_or(true)) {
        fmt::print("  {:<52} n/a: the load ran in SCHED_OTHER, competing with the runtimes instead of "
                   "preempting them (P3LS3's condition, which the target is stated for, needs SCHED_FIFO)\n",
                   "");
      }
      if (t.tails_ms) {
        fmt::print("  {:<52} tail p95 - median: takt {:.3f} ms, oneTBB {:.3f} ms\n", "", t.tails_ms->first,
                   t.tails_ms->second);
      }
    } else {
      fmt::print("  {:<52} {:>6.2f} vs {:>6.2f}  {}\n", t.name, t.value, t.limit, t.pass ? "PASS" : "FAIL");
    }
    if (!t.results_wrong.empty()) fmt::print("  {:<52} FAIL whatever the times: {}\n", "", t.results_wrong);
  }
  auto with_noise =
      std::find_if(targets.begin(), targets.end(), [](const Target& t) { return t.noise.has_value(); });
  if (with_noise != targets.end()) {
    fmt::print(
        "  (interval: {} bootstrap resamples of the rounds, takt's and oneTBB's round i together; one that "
        "holds 0 means the samples cannot order the two tails)\n",
        with_noise->noise->resamples);
  }

  if (!options.json_path.empty()) {
    save_json(!stopped);
    fmt::print("results written to {}{}\n", options.json_path, stopped ? " (complete: false, stopped: true)" : "");
  }
  return all_correct ? 0 : 3;
}

}  // namespace takt::bench
