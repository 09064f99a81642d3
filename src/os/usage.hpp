// Resource usage: context switches, per-CPU busy time, numbers of /proc files.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace takt::os {

struct ContextSwitches {
  long voluntary = 0;    ///< the thread blocked (sleep, futex wait)
  long involuntary = 0;  ///< the thread was preempted
};

/// Context switches of the calling thread so far (getrusage RUSAGE_THREAD).
ContextSwitches thread_context_switches();
/// Context switches of the whole process so far (getrusage RUSAGE_SELF).
ContextSwitches process_context_switches();

/// Busy (non-idle, non-iowait) time of every CPU since boot, indexed by CPU id,
/// from /proc/stat. Differences of two readings give CPU time per core.
std::vector<std::chrono::nanoseconds> cpu_busy_times();

/// Time the hypervisor ran something else while each CPU (a vCPU) had work, since
/// boot, indexed by CPU id (the steal column of /proc/stat; 0 on bare metal).
std::vector<std::chrono::nanoseconds> cpu_steal_times();

/// `ticks` clock ticks of /proc/stat at `hz` ticks per second (sysconf(_SC_CLK_TCK)),
/// exactly, without overflow for any tick count a CPU can reach.
std::chrono::nanoseconds ticks_to_time(long long ticks, long hz);

/// The number after `key` and `separator` on a line of a "key: value" file
/// (/proc/meminfo, /proc/self/status: "VmRSS:  1234 kB"; a cgroup's memory.stat with
/// separator ' '), times `unit`; nullopt where the file or the key is missing.
std::optional<std::uint64_t> key_number(const std::string& path, std::string_view key, std::uint64_t unit = 1,
                                        char separator = ':');

}  // namespace takt::os
