// CPU sets, the machine's CPUs (online, allowed, isolated) and thread affinity.
#pragma once

#include "takt/cpu_set.hpp"

namespace takt::os {

/// The public CpuSet (include/takt/cpu_set.hpp), under the name the layers use.
using CpuSet = takt::CpuSet;

/// CPUs the kernel has online (/sys/devices/system/cpu/online).
CpuSet online_cpus();
/// CPUs the calling thread may run on (sched_getaffinity of this thread: the process's
/// CPUs until the thread pins itself), up to CpuSet::kMaxId whatever the kernel's
/// CPU_SETSIZE; empty when the kernel refuses to say.
CpuSet allowed_cpus();
/// CPUs isolated from the general scheduler (isolcpus=, /sys/devices/system/cpu/isolated);
/// empty when none are.
CpuSet isolated_cpus();

/// Restricts the calling thread to `cpus`. When the kernel refuses (a CPU outside
/// the allowed set, a container limit), warns once and returns false: the thread
/// keeps running where it may.
bool pin_current_thread(const CpuSet& cpus);
/// The CPU the calling thread runs on right now.
int current_cpu();

}  // namespace takt::os
