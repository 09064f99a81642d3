// Real-time scheduling classes and memory locking, with the fallback path.
//
// Every request here either succeeds or falls back (SCHED_OTHER, unlocked memory)
// and warns once, naming what was missing. The environment variable TAKT_NO_RT=1
// forces the fallback path, so the fallback can be tested on a privileged machine.
#pragma once

#include <pthread.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace takt::os {

/// What check_mlockall() found.
struct MlockallCheck {
  bool ok = false;
  bool limited = false;                 ///< the limit decided (then limit and mapped are set)
  std::uint64_t limit = 0, mapped = 0;  ///< bytes
};

/// What the process may do, probed on a short-lived helper thread.
struct Privileges {
  bool fifo = false;      ///< SCHED_FIFO accepted at every priority takt uses (up to fifo_highest_used)
  bool deadline = false;  ///< SCHED_DEADLINE accepted
  /// Why the probe's SCHED_DEADLINE reservation was refused (summary() says it), "" if
  /// it was accepted or the reason is not known.
  std::string deadline_refused;
  bool mlock = false;     ///< mlockall accepted (mlockall_would_succeed() at the probe)
  /// The probe's check behind `mlock` (where the limit decided: the limit and what the
  /// process mapped then).
  MlockallCheck memlock;
  int max_fifo_priority = 0;  ///< the highest SCHED_FIFO priority accepted (0: none)
  bool forced_off = false;  ///< TAKT_NO_RT asked for the fallback path
  /// One line for reports, e.g. "SCHED_FIFO yes, SCHED_DEADLINE yes, mlockall yes".
  [[nodiscard]] std::string summary() const;
};

/// Probes once and caches the answer.
const Privileges& privileges();

/// Whether mlockall(MCL_CURRENT | MCL_FUTURE) would be accepted now: always with
/// CAP_IPC_LOCK (in the initial user namespace) or an unlimited RLIMIT_MEMLOCK,
/// otherwise only while the process's mappings (VmSize) fit under the limit.
MlockallCheck check_mlockall();
inline bool mlockall_would_succeed() { return check_mlockall().ok; }

/// True when TAKT_NO_RT is set to anything but "" or "0".
bool realtime_forced_off();

/// SCHED_FIFO priorities run 1 (lowest) .. 99 (highest).
inline constexpr int fifo_min_priority = 1;
inline constexpr int fifo_max_priority = 99;
/// The highest SCHED_FIFO priority takt's own threads use (a dispatcher, 90). Where the
/// process may only use lower ones (RLIMIT_RTPRIO), Privileges::fifo is false: runs fall
/// back to SCHED_OTHER as a whole instead of mixing classes.
inline constexpr int fifo_highest_used = 90;

/// Puts the calling thread in SCHED_FIFO at `priority`. Without the privilege,
/// leaves it in SCHED_OTHER, warns once and returns false.
bool set_fifo(int priority);

/// set_fifo() for another thread of this process (a dispatcher re-ranking the threads
/// it runs jobs on). Lock-free in user space: one sched_setscheduler system call.
bool set_fifo(pthread_t thread, int priority);

/// Puts the calling thread back in SCHED_OTHER (nice 0).
bool set_other();

/// SCHED_DEADLINE reservation of the calling thread: `runtime` every `period`,
/// to be used by `deadline` after each period start.
struct DeadlineReservation {
  std::chrono::nanoseconds runtime;
  std::chrono::nanoseconds deadline;
  std::chrono::nanoseconds period;
};
/// Puts the calling thread in SCHED_DEADLINE. Without the privilege (or when the
/// kernel's admission test refuses), leaves it unchanged, warns once and returns false.
bool set_deadline(const DeadlineReservation& reservation);

/// The calling thread's class as text: "SCHED_OTHER", "SCHED_FIFO/42", "SCHED_DEADLINE".
std::string current_policy();

/// A mutex with priority inheritance (PTHREAD_PRIO_INHERIT): a SCHED_FIFO thread that
/// waits for it lends its priority to the holder, so that a holder preempted by a
/// middle-priority thread cannot delay it (unbounded priority inversion). Lockable.
/// Where the kernel has no PI futexes it is an ordinary mutex, and says so once
/// (warn_once); a mutex that cannot be created at all is a takt::Error.
class PiMutex {
 public:
  PiMutex();
  ~PiMutex();
  PiMutex(const PiMutex&) = delete;
  PiMutex& operator=(const PiMutex&) = delete;
  void lock() noexcept;
  void unlock() noexcept;

 private:
  pthread_mutex_t mutex_;
};

/// What locking this process's memory now would take, against what is free: mlockall
/// makes every page of every accessible mapping resident, a thread's whole stack (8 MiB
/// under the usual ulimit -s) too, used or not. (Mappings made after the lock are
/// locked page by page as they are touched: lock_memory.)
struct MemoryForLocking {
  /// Bytes to make resident: those of the mappings that can be accessed less VmRSS (an
  /// estimate).
  std::uint64_t to_populate = 0;
  /// MemAvailable of /proc/meminfo, or the room left under this process's cgroup or one
  /// of its ancestors (cgroup_memory_room) where that is smaller; 0 where neither is known.
  std::uint64_t available = 0;
  /// The cgroup file whose limit gives `available` ("memory.max", "memory.limit_in_bytes");
  /// "" where it is MemAvailable.
  std::string cgroup_limit;
  std::uint32_t threads = 0;       ///< this process's threads now
  std::uint64_t thread_stack = 0;  ///< a new thread's stack size (pthread's default, from ulimit -s)
};

/// The room a cgroup memory limit leaves: `bytes` more can be used before the limit of
/// the file `limit` is reached.
struct CgroupRoom {
  std::uint64_t bytes = 0;
  std::string limit;
};

/// The least room left under a memory limit of the cgroup a process is in or one of its
/// ancestors, from the text of its /proc/PID/cgroup and /proc/PID/mountinfo: in the
/// cgroup v2 hierarchy (memory.max less memory.current) and in the v1 hierarchy of the
/// memory controller (memory.limit_in_bytes less memory.usage_in_bytes), each found
/// where mountinfo says it is mounted (/sys/fs/cgroup, /sys/fs/cgroup/unified,
/// /sys/fs/cgroup/memory, or a container's own mounts). The file cache (memory.stat's
/// active_file and inactive_file; v1: total_active_file, total_inactive_file) counts as
/// free, as the kernel reclaims it before it fails an allocation and as MemAvailable
/// counts it. Nullopt where no level has a limit or none can be read.
std::optional<CgroupRoom> cgroup_memory_room(std::string_view cgroups, std::string_view mountinfo);

/// This process's threads now (Threads of /proc/self/status; 0 if unknown).
std::uint32_t process_thread_count();

/// Reads the numbers of MemoryForLocking for this process now.
MemoryForLocking measure_memory_for_locking();

/// Why locking `m` would not be wise ("" where it is): the pages to populate would take
/// more than seven eighths of the memory available (an eighth is left for everything
/// else: the run's own later allocations, other processes). The text gives both sizes
/// and what to change (fewer tasks or threads, a smaller ulimit -s, TAKT_NO_RT=1).
std::string locking_refusal(const MemoryForLocking& m);

/// Locks the process's memory: mlockall(MCL_CURRENT) makes every page mapped now
/// resident, then mlockall(MCL_FUTURE | MCL_ONFAULT) locks what is mapped later page by
/// page as it is touched, so that a thread started after the lock does not wait while
/// its whole stack is made resident (on a kernel without MCL_ONFAULT, before Linux 4.4:
/// MCL_FUTURE alone). Without the privilege, or where locking would take nearly all the
/// memory left (locking_refusal), warns once per reason and returns false; `why`, when
/// given, then gets the reason in a few words ("TAKT_NO_RT", "too little memory to lock
/// it", "RLIMIT_MEMLOCK").
bool lock_memory(std::string* why = nullptr);

/// munlockall(): after a run, so that under a finite RLIMIT_MEMLOCK the results (event
/// copies, metrics) can still grow the process.
void unlock_memory() noexcept;

/// Touches `bytes` of the calling thread's stack so that its pages are resident
/// before time-critical work starts.
void prefault_stack(std::size_t bytes);

}  // namespace takt::os
