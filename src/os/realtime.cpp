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
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

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

/// The whole text of a small file of /proc ("" where it cannot be read).
std::string proc_text(const char* path) {
  std::string text;
  if (std::FILE* f = std::fopen(path, "r")) {
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
    std::fclose(f);
  }
  return text;
}

/// The fields of one line of text split at `separator`.
std::vector<std::string_view> fields(std::string_view line, char separator) {
  std::vector<std::string_view> out;
  for (;;) {
    const std::size_t at = line.find(separator);
    out.push_back(line.substr(0, at));
    if (at == std::string_view::npos) return out;
    line.remove_prefix(at + 1);
  }
}

/// A path of /proc/self/mountinfo with its octal escapes ("\040" for a space) undone.
std::string unescape_mount_path(std::string_view path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '\\' && i + 3 < path.size() && path[i + 1] >= '0' && path[i + 1] <= '3' &&
        path[i + 2] >= '0' && path[i + 2] <= '7' && path[i + 3] >= '0' && path[i + 3] <= '7') {
      out += static_cast<char>((path[i + 1] - '0') * 64 + (path[i + 2] - '0') * 8 + (path[i + 3] - '0'));
      i += 3;
    } else {
      out += path[i];
    }
  }
  return out;
}

/// Where one cgroup hierarchy is mounted: the folder of its root and the cgroup path that
/// root stands for (not "/" where a container sees only its own part of the hierarchy).
struct CgroupMount {
  std::string point;
  std::string root;
};

/// The mount of the cgroup v2 hierarchy (`v1_controller` empty) or of the v1 hierarchy
/// that holds `v1_controller`, from the text of /proc/self/mountinfo:
/// "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTIONS".
std::optional<CgroupMount> find_cgroup_mount(std::string_view mountinfo, std::string_view v1_controller) {
  for (std::string_view line : fields(mountinfo, '\n')) {
    const std::vector<std::string_view> f = fields(line, ' ');
    std::size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (f.size() < 5 || dash + 3 >= f.size()) continue;
    const std::string_view type = f[dash + 1];
    if (v1_controller.empty() ? type != "cgroup2" : type != "cgroup") continue;
    if (!v1_controller.empty()) {
      const std::vector<std::string_view> options = fields(f[dash + 3], ',');
      if (std::find(options.begin(), options.end(), v1_controller) == options.end()) continue;
    }
    return CgroupMount{unescape_mount_path(f[4]), unescape_mount_path(f[3])};
  }
  return std::nullopt;
}

/// This process's cgroup path in the v2 hierarchy (`v1_controller` empty: the line
/// "0::PATH") or in the v1 hierarchy of `v1_controller` ("N:memory,...:PATH"), from the
/// text of /proc/self/cgroup.
std::optional<std::string> find_cgroup_path(std::string_view cgroups, std::string_view v1_controller) {
  for (std::string_view line : fields(cgroups, '\n')) {
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    if (v1_controller.empty()) {
      if (line.substr(0, first) != "0" || !controllers.empty()) continue;
    } else {
      const std::vector<std::string_view> names = fields(controllers, ',');
      if (std::find(names.begin(), names.end(), v1_controller) == names.end()) continue;
    }
    return std::string(line.substr(second + 1));
  }
  return std::nullopt;
}

/// One hierarchy's limit files: cgroup v2's memory.max and memory.current, v1's
/// memory.limit_in_bytes and memory.usage_in_bytes (whose "no limit" is a number near
/// 2^63); both count the file cache of memory.stat as free (v2: active_file and
/// inactive_file; v1: total_active_file and total_inactive_file). In v1 a parent's
/// limit covers its children only where its memory.use_hierarchy is 1 (always so since
/// Linux 5.16; v2 always).
struct CgroupMemoryFiles {
  const char* limit;
  const char* usage;
  const char* active_file;
  const char* inactive_file;
  const char* use_hierarchy;  ///< nullptr: every ancestor's limit counts
};
constexpr CgroupMemoryFiles kCgroupV2{"memory.max", "memory.current", "active_file", "inactive_file",
                                      nullptr};
constexpr CgroupMemoryFiles kCgroupV1{"memory.limit_in_bytes", "memory.usage_in_bytes", "total_active_file",
                                      "total_inactive_file", "memory.use_hierarchy"};

/// The least room left under a limit of the cgroup `path` and its ancestors, up to the
/// root of the hierarchy mounted as `mount`; nullopt where no level has a limit or none
/// can be read.
std::optional<std::uint64_t> least_room(std::string path, const CgroupMount& mount,
                                        const CgroupMemoryFiles& files) {
  std::string root = mount.root;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  // A path outside the mount's root (or outside a cgroup namespace: "/../x") has no folder.
  if (path.find("/..") != std::string::npos) return std::nullopt;
  if (root != "/" &&
      (path.compare(0, root.size(), root) != 0 || (path.size() > root.size() && path[root.size()] != '/'))) {
    return std::nullopt;
  }
  // The folder of a cgroup path below the mount's root.
  auto folder = [&](const std::string& cgroup) {
    const std::string relative = root == "/" ? cgroup : cgroup.substr(root.size());
    return mount.point + (relative == "/" ? std::string() : relative);
  };
  std::optional<std::uint64_t> least;
  // From the process's own cgroup up to the mount's root: the hierarchy's root, or a
  // container's own cgroup (its limit) where that is all it sees.
  for (;;) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    const std::string dir = folder(path);
    const std::optional<std::uint64_t> limit = cgroup_number(dir + "/" + files.limit);
    const std::optional<std::uint64_t> usage = cgroup_number(dir + "/" + files.usage);
    // v1 writes "no limit" as the largest page count in bytes (9223372036854771712).
    if (limit && usage && *limit < (std::uint64_t{1} << 62)) {
      const std::string stat = dir + "/memory.stat";
      const std::uint64_t cache = key_number(stat, files.active_file, 1, ' ').value_or(0) +
                                  key_number(stat, files.inactive_file, 1, ' ').value_or(0);
      const std::uint64_t used = *usage > cache ? *usage - cache : 0;
      const std::uint64_t room = *limit > used ? *limit - used : 0;
      if (!least || room < *least) least = room;
    }
    if (path.size() <= root.size() || path == "/") break;
    const std::size_t slash = path.rfind('/');
    path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
    // v1: a parent that does not account its children's memory does not limit them.
    if (files.use_hierarchy != nullptr && cgroup_number(folder(path) + "/" + files.use_hierarchy) == 0u)
      break;
  }
  return least;
}

}  // namespace

std::optional<CgroupRoom> cgroup_memory_room(std::string_view cgroups, std::string_view mountinfo) {
  std::optional<CgroupRoom> least;
  auto consider = [&](std::string_view v1_controller, const CgroupMemoryFiles& files) {
    const std::optional<std::string> path = find_cgroup_path(cgroups, v1_controller);
    const std::optional<CgroupMount> mount = find_cgroup_mount(mountinfo, v1_controller);
    if (!path || !mount) return;
    const std::optional<std::uint64_t> room = least_room(*path, *mount, files);
    if (room && (!least || *room < least->bytes)) least = CgroupRoom{*room, files.limit};
  };
  consider("", kCgroupV2);
  consider("memory", kCgroupV1);
  return least;
}

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
  if (const std::optional<CgroupRoom> room =
          cgroup_memory_room(proc_text("/proc/self/cgroup"), proc_text("/proc/self/mountinfo"));
      room && (m.available == 0 || room->bytes < m.available)) {
    m.available = room->bytes;
    m.cgroup_limit = room->limit;
  }
  m.threads = process_thread_count();
  m.thread_stack = default_thread_stack();
  return m;
}

std::string locking_refusal(const MemoryForLocking& m) {
  if (m.available == 0 && m.cgroup_limit.empty()) return "";  // not known: lock as asked
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
      m.cgroup_limit.empty() ? std::string("are available (MemAvailable)")
                             : fmt::format("are left under this process's cgroup ({})", m.cgroup_limit));
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
