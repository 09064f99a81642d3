// Real-time scheduling classes and memory locking, with the fallback path.
#include "os/realtime.hpp"

#include "os/cpu.hpp"
#include "os/diagnostics.hpp"
#include "os/thread_start.hpp"
#include "os/usage.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <alloca.h>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace takt::os {
namespace {

// sched_setattr has no glibc wrapper on Debian 12.
struct SchedAttr {
  std::uint32_t size;
  std::uint32_t sched_policy;
  std::uint64_t sched_flags;
  std::int32_t sched_nice;
  std::uint32_t sched_priority;
  std::uint64_t sched_runtime;
  std::uint64_t sched_deadline;
  std::uint64_t sched_period;
};
#ifndef SCHED_DEADLINE
constexpr int SCHED_DEADLINE = 6;
#endif

int sched_setattr_self(const SchedAttr& attr) {
  return static_cast<int>(syscall(SYS_sched_setattr, 0, &attr, 0));
}

bool try_fifo_on_this_thread(int priority) {
  sched_param p{};
  p.sched_priority = priority;
  if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) != 0) return false;
  p.sched_priority = 0;
  pthread_setschedparam(pthread_self(), SCHED_OTHER, &p);
  return true;
}

/// The highest SCHED_FIFO priority this thread may take: 99 with CAP_SYS_NICE (root),
/// else RLIMIT_RTPRIO's soft limit if the kernel accepts it; 0 when none.
int highest_fifo_priority_on_this_thread() {
  if (try_fifo_on_this_thread(fifo_max_priority)) return fifo_max_priority;
  rlimit limit{};
  if (getrlimit(RLIMIT_RTPRIO, &limit) != 0) return 0;
  const rlim_t highest =
      limit.rlim_cur < static_cast<rlim_t>(fifo_max_priority) ? limit.rlim_cur : fifo_max_priority;
  if (highest < static_cast<rlim_t>(fifo_min_priority)) return 0;
  return try_fifo_on_this_thread(static_cast<int>(highest)) ? static_cast<int>(highest) : 0;
}

/// Whether the calling thread holds `capability` in its effective set (capget).
bool has_effective_capability(int capability) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  return (data[capability / 32].effective & (1u << (capability % 32))) != 0;
}

/// Tries a 1 % SCHED_DEADLINE reservation; where it is refused, `why` says what to change.
bool try_deadline_on_this_thread(std::string& why) {
  SchedAttr a{};
  a.size = sizeof a;
  a.sched_policy = SCHED_DEADLINE;
  a.sched_runtime = 100'000;
  a.sched_deadline = 10'000'000;
  a.sched_period = 10'000'000;
  if (sched_setattr_self(a) != 0) {
    const int err = errno;
    const CpuSet allowed = allowed_cpus(), online = online_cpus();
    if (err == EPERM && !has_effective_capability(CAP_SYS_NICE)) {
      // Checked first by the kernel: without it the CPUs do not matter.
      why = "run as root or grant CAP_SYS_NICE";
    } else if (err == EPERM && allowed.size() < online.size()) {
      // The kernel admits SCHED_DEADLINE only for a thread that may run on every CPU of
      // its root domain: a process started under taskset or a narrower cpuset is refused.
      why = fmt::format(
          "probably because this process may use CPUs {} of {}: the kernel admits it only for "
          "threads allowed on every CPU of their root domain, so start takt without taskset or a "
          "narrower cpuset",
          allowed.to_string(), online.to_string());
    } else if (err == EPERM) {
      why =
          "refused although CAP_SYS_NICE is held: see /proc/sys/kernel/sched_rt_runtime_us and whether "
          "isolcpus or cpuset partitions split the CPUs";
    } else if (err == EBUSY) {
      why = "the kernel's admission test refused a 1 % reservation: the CPUs' real-time bandwidth is taken";
    } else {
      why = std::strerror(err);
    }
    return false;
  }
  SchedAttr back{};
  back.size = sizeof back;
  back.sched_policy = SCHED_OTHER;
  sched_setattr_self(back);
  return true;
}

Privileges probe() {
  Privileges p;
  p.forced_off = realtime_forced_off();
  if (p.forced_off) return p;
  // Probe on a helper thread so the caller's own class never changes.
  std::thread t = start_thread("the thread that probes the real-time privileges", [&p] {
    p.max_fifo_priority = highest_fifo_priority_on_this_thread();
    p.deadline = try_deadline_on_this_thread(p.deadline_refused);
  });
  t.join();
  p.fifo = p.max_fifo_priority >= fifo_highest_used;
  p.memlock = check_mlockall();
  p.mlock = p.memlock.ok;
  return p;
}

std::string_view yes_no(bool b) { return b ? "yes" : "no"; }

}  // namespace

namespace {

/// Whether this process is in the initial user namespace (its uid_map maps every id to
/// itself): only there does CAP_IPC_LOCK lift RLIMIT_MEMLOCK (the kernel asks
/// capable(), in the initial namespace); in a rootless container capget reports the
/// bit all the same. True where the file cannot be read (no user namespaces).
bool initial_user_namespace() {
  std::FILE* f = std::fopen("/proc/self/uid_map", "r");
  if (f == nullptr) return true;
  unsigned long inside = 1, outside = 1, count = 0;
  const int read = std::fscanf(f, "%lu %lu %lu", &inside, &outside, &count);
  std::fclose(f);
  return read == 3 && inside == 0 && outside == 0 && count == 4294967295ul;
}

}  // namespace

// (An mlock of one page, the probe before, succeeds under any user's default limit of
// 64 KiB to 8 MiB, where mlockall is refused as soon as the mappings exceed it: one
// thread stack of 8 MiB does.)
MlockallCheck check_mlockall() {
  MlockallCheck c;
  if (has_effective_capability(CAP_IPC_LOCK) && initial_user_namespace()) {
    c.ok = true;
    return c;
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0) return c;
  if (limit.rlim_cur == RLIM_INFINITY) {
    c.ok = true;
    return c;
  }
  // VmSize: the first field of /proc/self/statm, in pages.
  unsigned long pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  if (pages == 0) return c;
  c.limit = limit.rlim_cur;
  c.mapped = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  c.ok = c.mapped <= c.limit;
  c.limited = !c.ok;
  return c;
}

bool realtime_forced_off() {
  const char* v = std::getenv("TAKT_NO_RT");
  return v != nullptr && *v != '\0' && std::string_view(v) != "0";
}

std::string Privileges::summary() const {
  if (forced_off) return "real-time privileges switched off by TAKT_NO_RT (SCHED_OTHER, unlocked memory)";
  std::string fifo_text(yes_no(fifo));
  if (!fifo && max_fifo_priority > 0) {
    fifo_text = fmt::format(
        "no (priorities up to {} only, by RLIMIT_RTPRIO; takt's threads use up to {}: "
        "raise it, e.g. ulimit -r 99)",
        max_fifo_priority, fifo_highest_used);
  }
  std::string mlock_text(yes_no(mlock));
  if (!mlock && memlock.limited) {
    mlock_text = fmt::format(
        "no (RLIMIT_MEMLOCK {} KiB is below the {} MiB this process maps; raise it, e.g. ulimit -l unlimited)",
        memlock.limit / 1024, (memlock.mapped + (1 << 20) - 1) >> 20);
  }
  const std::string deadline_text =
      deadline || deadline_refused.empty() ? std::string(yes_no(deadline)) : "no (" + deadline_refused + ")";
  return fmt::format("SCHED_FIFO {}, SCHED_DEADLINE {}, mlockall {}", fifo_text, deadline_text, mlock_text);
}

const Privileges& privileges() {
  static const Privileges p = probe();
  return p;
}

bool set_fifo(int priority) { return set_fifo(pthread_self(), priority); }

bool set_fifo(pthread_t thread, int priority) {
  if (priority < fifo_min_priority || priority > fifo_max_priority) {
    warn_once("fifo.range", fmt::format("SCHED_FIFO priority {} is outside {}..{}; clamped", priority,
                                        fifo_min_priority, fifo_max_priority));
    priority = priority < fifo_min_priority ? fifo_min_priority : fifo_max_priority;
  }
  if (realtime_forced_off()) {
    warn_once("fifo", "TAKT_NO_RT is set: threads run in SCHED_OTHER instead of SCHED_FIFO");
    return false;
  }
  sched_param p{};
  p.sched_priority = priority;
  int rc = pthread_setschedparam(thread, SCHED_FIFO, &p);
  if (rc != 0) {
    warn_once("fifo", fmt::format("cannot use SCHED_FIFO ({}): threads run in SCHED_OTHER, so timing "
                                  "is best effort. Run as root or grant CAP_SYS_NICE / an RLIMIT_RTPRIO "
                                  "of at least {}",
                                  std::strerror(rc), priority));
    return false;
  }
  return true;
}

PiMutex::PiMutex() {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  // Where the kernel lacks PI futexes the mutex stays an ordinary one, with one warning.
  (void)pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
  if (const int pi = pthread_mutex_init(&mutex_, &attr); pi != 0) {
    warn_once("pi-mutex",
              fmt::format("priority inheritance is not available here ({}): a thread that holds a "
                          "lock of takt's (a shared core's queue) is not raised to the priority "
                          "of one that waits for it; a kernel with PI futexes "
                          "(CONFIG_FUTEX_PI) has it",
                          std::strerror(pi)));
    pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_NONE);
    if (const int plain = pthread_mutex_init(&mutex_, &attr); plain != 0) {
      pthread_mutexattr_destroy(&attr);
      throw Error(fmt::format("cannot create a mutex: {}", std::strerror(plain)));
    }
  }
  pthread_mutexattr_destroy(&attr);
}

PiMutex::~PiMutex() { pthread_mutex_destroy(&mutex_); }

void PiMutex::lock() noexcept { pthread_mutex_lock(&mutex_); }

void PiMutex::unlock() noexcept { pthread_mutex_unlock(&mutex_); }

bool set_other() {
  sched_param p{};
  p.sched_priority = 0;
  return pthread_setschedparam(pthread_self(), SCHED_OTHER, &p) == 0;
}

bool set_deadline(const DeadlineReservation& r) {
  if (realtime_forced_off()) {
    warn_once("deadline", "TAKT_NO_RT is set: threads run in SCHED_OTHER instead of SCHED_DEADLINE");
    return false;
  }
  SchedAttr a{};
  a.size = sizeof a;
  a.sched_policy = SCHED_DEADLINE;
  a.sched_runtime = static_cast<std::uint64_t>(r.runtime.count());
  a.sched_deadline = static_cast<std::uint64_t>(r.deadline.count());
  a.sched_period = static_cast<std::uint64_t>(r.period.count());
  if (sched_setattr_self(a) != 0) {
    int err = errno;
    warn_once("deadline",
              fmt::format("cannot use SCHED_DEADLINE ({}){}: the thread keeps its current class",
                          std::strerror(err),
                          err == EBUSY ? ", the kernel's admission test refused the reservation" : ""));
    return false;
  }
  return true;
}

std::string current_policy() {
  int policy = sched_getscheduler(0);
  sched_param p{};
  sched_getparam(0, &p);
  switch (policy) {
    case SCHED_FIFO: return fmt::format("SCHED_FIFO/{}", p.sched_priority);
    case SCHED_RR: return fmt::format("SCHED_RR/{}", p.sched_priority);
    case SCHED_DEADLINE: return "SCHED_DEADLINE";
    case SCHED_BATCH: return "SCHED_BATCH";
    case SCHED_IDLE: return "SCHED_IDLE";
    default: return "SCHED_OTHER";
  }
}

namespace {

/// One number read from a cgroup file; nullopt for "max", a missing file or no number.
std::optional<std::uint64_t> cgroup_number(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return std::nullopt;
  unsigned long long v = 0;
  const bool read = std::fscanf(f, "%llu", &v) == 1;
  std::fclose(f);
  return read ? std::optional<std::uint64_t>(v) : std::nullopt;
}

/// The least room left under a memory.max of this process's cgroup (v2) and its
/// ancestors up to the root of the hierarchy: memory.max less memory.current, where the
/// file cache of memory.stat (active_file, inactive_file) counts as free, as the kernel
/// reclaims it before it fails an allocation (and as MemAvailable counts it). Nullopt
/// where no level has a limit or none can be read (cgroup v1).
std::optional<std::uint64_t> cgroup_room() {
  std::FILE* f = std::fopen("/proc/self/cgroup", "r");
  if (f == nullptr) return std::nullopt;
  std::string relative;
  bool found = false;
  char line[4096];
  while (std::fgets(line, sizeof line, f) != nullptr) {
    std::string_view l(line);
    if (l.substr(0, 3) != "0::") continue;
    l.remove_prefix(3);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.remove_suffix(1);
    relative = std::string(l);
    found = true;
    break;
  }
  std::fclose(f);
  if (!found) return std::nullopt;
  std::optional<std::uint64_t> least;
  // From the process's own cgroup up to the root ("/"), whose files exist only inside a
  // cgroup namespace (a container's own limit).
  for (;;) {
    while (relative.size() > 1 && relative.back() == '/') relative.pop_back();
    const std::string dir = "/sys/fs/cgroup" + (relative == "/" ? std::string() : relative);
    const std::optional<std::uint64_t> max = cgroup_number(dir + "/memory.max");
    const std::optional<std::uint64_t> current = cgroup_number(dir + "/memory.current");
    if (max && current) {
      const std::uint64_t cache = key_number(dir + "/memory.stat", "active_file", 1, ' ').value_or(0) +
                                  key_number(dir + "/memory.stat", "inactive_file", 1, ' ').value_or(0);
      const std::uint64_t used = *current > cache ? *current - cache : 0;
      const std::uint64_t room = *max > used ? *max - used : 0;
      if (!least || room < *least) least = room;
    }
    if (relative.empty() || relative == "/") break;
    const std::size_t slash = relative.rfind('/');
    relative = slash == 0 || slash == std::string::npos ? "/" : relative.substr(0, slash);
  }
  return least;
}

}  // namespace

std::uint32_t process_thread_count() {
  return static_cast<std::uint32_t>(key_number("/proc/self/status", "Threads", 1).value_or(0));
}

MemoryForLocking measure_memory_for_locking() {
  MemoryForLocking m;
  std::uint64_t accessible = 0;
  if (std::FILE* f = std::fopen("/proc/self/maps", "r")) {
    char line[4096];
    while (std::fgets(line, sizeof line, f) != nullptr) {
      unsigned long long begin = 0, end = 0;
      char perms[5] = {};
      if (std::sscanf(line, "%llx-%llx %4s", &begin, &end, perms) == 3 && end > begin &&
          (perms[0] != '-' || perms[1] != '-' || perms[2] != '-')) {
        accessible += end - begin;
      }
      // A line longer than the buffer (a long path) continues in the next read.
      while (std::strchr(line, '\n') == nullptr && std::fgets(line, sizeof line, f) != nullptr) {
      }
    }
    std::fclose(f);
  }
  const std::uint64_t resident = key_number("/proc/self/status", "VmRSS", 1024).value_or(0);
  m.to_populate = accessible > resident ? accessible - resident : 0;
  m.available = key_number("/proc/meminfo", "MemAvailable", 1024).value_or(0);
  if (const std::optional<std::uint64_t> room = cgroup_room();
      room && (m.available == 0 || *room < m.available)) {
    m.available = *room;
    m.cgroup_limited = true;
  }
  m.threads = process_thread_count();
  m.thread_stack = default_thread_stack();
  return m;
}

std::string locking_refusal(const MemoryForLocking& m) {
  if (m.available == 0 && !m.cgroup_limited) return "";  // not known: lock as asked
  if (m.to_populate <= m.available - m.available / 8) return "";
  constexpr std::uint64_t MiB = 1 << 20;
  std::string stacks;
  if (m.threads > 1 && m.thread_stack > 0) {
    stacks = fmt::format(" ({} threads, each with a stack of {} MiB, ulimit -s)", m.threads,
                         (m.thread_stack + MiB - 1) / MiB);
  }
  return fmt::format(
      "locking would make {} MiB resident{} where {} MiB {}; run fewer tasks (each "
      "light task of federated has a thread of its own), lower the thread stack size (ulimit -s), or set "
      "TAKT_NO_RT=1",
      (m.to_populate + MiB - 1) / MiB, stacks, m.available / MiB,
      m.cgroup_limited ? "are left under this process's cgroup (memory.max)"
                       : "are available (MemAvailable)");
}

bool lock_memory(std::string* why) {
  if (realtime_forced_off()) {
    warn_once("mlock", "TAKT_NO_RT is set: memory is not locked (page faults may delay jobs)");
    if (why) *why = "TAKT_NO_RT";
    return false;
  }
  if (const std::string refusal = locking_refusal(measure_memory_for_locking()); !refusal.empty()) {
    warn_once("mlock-memory", "memory is not locked: " + refusal + " (page faults may delay jobs)");
    if (why) *why = "too little memory to lock it";
    return false;
  }
  if (mlockall(MCL_CURRENT) != 0) {
    const int err = errno;
    warn_once("mlock-refused",
              fmt::format("cannot lock memory ({}): page faults may delay jobs. Run as root or "
                          "raise RLIMIT_MEMLOCK (ulimit -l)",
                          std::strerror(err)));
    if (why) *why = err == ENOMEM ? "RLIMIT_MEMLOCK" : std::strerror(err);
    return false;
  }
  // Without MCL_CURRENT the call leaves the mappings locked above as they are. With
  // MCL_FUTURE alone, each thread started later (the lanes, partitioned-dm's team
  // members) had its whole stack zeroed and locked as it was made: 60 such threads took
  // over 100 ms, after the release clock had started, and the first jobs missed.
  if (mlockall(MCL_FUTURE | MCL_ONFAULT) != 0) (void)mlockall(MCL_CURRENT | MCL_FUTURE);
  return true;
}

void unlock_memory() noexcept { (void)munlockall(); }

void prefault_stack(std::size_t bytes) {
  auto* p = static_cast<volatile char*>(alloca(bytes));
  for (std::size_t i = 0; i < bytes; i += 4096) p[i] = 0;
}

}  // namespace takt::os
