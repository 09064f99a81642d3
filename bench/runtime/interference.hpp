// The multiprogrammed condition of P³LS³ §5: one higher-priority periodic load per core,
// busy (computing and touching memory) about 25 % of the time, in its own process.
#pragma once

#include "os/cpu.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>

namespace takt::bench {

struct InterferenceSettings {
  std::chrono::nanoseconds period = std::chrono::milliseconds(1);
  double utilization = 0.25;
  int fifo_priority = 50;
};

/// Runs the load while alive: a child process with one thread per CPU of `cpus`, each
/// pinned to its CPU and in SCHED_FIFO at `fifo_priority` when the privilege exists
/// (else SCHED_OTHER, see policy()). Each period it spins until utilization · period
/// after the period's start, writing to a 256 KiB buffer, then sleeps until the next
/// period (absolute time). Its wake-up latency shortens the spin, the kernel's work to
/// wake it counts as its CPU time: cpu_time() measured 25.0 % of each CPU at the
/// default 25 % here (`takt bench runtime --quick`, the `measured` figure).
/// Create it only while the calling process is single-threaded (it forks).
class Interference {
 public:
  Interference(const os::CpuSet& cpus, InterferenceSettings settings);
  ~Interference();
  Interference(const Interference&) = delete;
  Interference& operator=(const Interference&) = delete;
  /// "SCHED_FIFO/50", or "SCHED_OTHER" with the reason.
  [[nodiscard]] const std::string& policy() const noexcept { return policy_; }
  [[nodiscard]] bool realtime() const noexcept { return realtime_; }
  /// The load process. It ends with the process that made it (PR_SET_PDEATHSIG), also
  /// when that one is killed and runs no destructor.
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  /// The CPU time the load process has used so far (its process CPU-time clock); nullopt
  /// if it cannot be read. Over an interval, divided by the interval and the CPUs, the
  /// share of each CPU the load really took.
  [[nodiscard]] std::optional<std::chrono::nanoseconds> cpu_time() const;

 private:
  pid_t pid_ = -1;
  std::string policy_;
  bool realtime_ = false;
};

}  // namespace takt::bench
