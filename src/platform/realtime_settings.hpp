// What real-time facilities a run uses (SCHED_FIFO, mlockall, PM QoS), the FIFO levels of each thread role, and the one message without them.
//
// FIFO levels used by the policies (1 lowest, 99 highest). takt's maximum is 90, below
// the kernel's own real-time threads (migration, watchdog at 99):
//   dispatch (90)  release lanes, and partitioned-dm's team threads while they
//                  dispatch (Algorithm 1 "raise priority to system maximum");
//   worker (80)    workers of federated and gedf-paws pools, shared-core executors;
//   segment 79..1  partitioned-dm strands: deadline-monotonic rank 1 (highest) is 79.
// Without the privilege (or with TAKT_NO_RT=1) every thread stays in SCHED_OTHER and
// the run says so once, naming what to change.
#pragma once

#include "os/cpu.hpp"
#include "os/realtime.hpp"

#include <cstdio>
#include <string>

namespace takt::platform {

namespace fifo {
inline constexpr int dispatch = 90;
static_assert(dispatch <= os::fifo_highest_used, "os::privileges() probes up to os::fifo_highest_used");
inline constexpr int worker = 80;
inline constexpr int rank_highest = 79;
inline constexpr int rank_lowest = 1;

/// The FIFO level of priority rank `rank` (1 is the highest) out of `ranks`, for the
/// threads ranked below the workers (partitioned-dm strands by deadline-monotonic
/// rank, federated shared-core executors by deadline order):
/// 79, 78, ... down to 1 while there are at most 79 ranks; more ranks are
/// spread over 79..1 proportionally (several ranks then share a level, keeping the order).
int rank_priority(int rank, int ranks);
}  // namespace fifo

struct RealtimeSettings {
  bool fifo = false;          ///< threads are raised to SCHED_FIFO
  bool lock_memory = false;   ///< mlockall is applied
  /// Why the run's own mlockall was not done although the probe allowed it (os::lock_memory's
  /// reason, e.g. "too little memory to lock it"); "" otherwise.
  std::string not_locked;
  bool forced_off = false;    ///< TAKT_NO_RT asked for the fallback
  std::string privileges;     ///< os::privileges().summary()
  os::CpuSet isolated;        ///< isolated CPUs of this machine (reported)

  /// Probes the privileges (os::privileges()).
  static RealtimeSettings probe();
  /// One line saying what the run gets, e.g. "real-time: SCHED_FIFO, memory locked"
  /// or, without privileges, what runs instead and what to change.
  [[nodiscard]] std::string describe() const;
};

/// Prepares the calling thread for real-time work: pins it to `cpus` (when not empty),
/// raises it to SCHED_FIFO `priority` when `settings.fifo`, and pre-faults 64 KiB of its
/// stack. Returns false when pinning was refused (the os layer warned once).
bool enter_realtime(const RealtimeSettings& settings, const os::CpuSet& cpus, int priority);

}  // namespace takt::platform
