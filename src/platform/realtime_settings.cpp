// What real-time facilities a run uses, the FIFO levels of each thread role, and the one message without them.
#include "platform/realtime_settings.hpp"

#include "os/realtime.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace takt::platform {

int fifo::rank_priority(int rank, int ranks) {
  const int levels = rank_highest - rank_lowest + 1;
  rank = std::max(rank, 1);
  ranks = std::max(ranks, rank);
  if (ranks <= levels) return rank_highest - (rank - 1);
  // Proportional: rank 1 → 79, rank `ranks` → 1, order kept (non-strictly).
  const long long scaled = static_cast<long long>(rank - 1) * (levels - 1) / (ranks - 1);
  return rank_highest - static_cast<int>(scaled);
}

RealtimeSettings RealtimeSettings::probe() {
  const os::Privileges& p = os::privileges();
  RealtimeSettings s;
  s.fifo = p.fifo;
  s.lock_memory = p.mlock;
  s.forced_off = p.forced_off;
  s.privileges = p.summary();
  s.isolated = os::isolated_cpus();
  return s;
}

std::string RealtimeSettings::describe() const {
  if (fifo) {
    return fmt::format("real-time: SCHED_FIFO (takt's levels {}..{}), memory {}", fifo::rank_lowest,
                       fifo::dispatch,
                       lock_memory          ? std::string("locked (mlockall)")
                       : not_locked.empty() ? std::string("not locked (mlockall refused)")
                                            : "not locked (" + not_locked + ")");
  }
  if (forced_off) {
    return "real-time: off (TAKT_NO_RT is set): every thread runs in SCHED_OTHER with unlocked memory, so "
           "timing is best effort; unset TAKT_NO_RT to use SCHED_FIFO";
  }
  // Where the run declined to lock (too little memory), a higher RLIMIT_MEMLOCK would not help.
  return "real-time: not available (" + privileges +
         "): every thread runs in SCHED_OTHER, so timing is best effort; run as root or grant "
         "CAP_SYS_NICE and an RLIMIT_RTPRIO of at least 90" +
         (not_locked.empty() || not_locked == "RLIMIT_MEMLOCK" ? " (and RLIMIT_MEMLOCK for mlockall)" : "");
}

bool enter_realtime(const RealtimeSettings& settings, const os::CpuSet& cpus, int priority) {
  bool pinned = true;
  if (!cpus.empty()) pinned = os::pin_current_thread(cpus);
  if (settings.fifo) os::set_fifo(priority);
  os::prefault_stack(64 * 1024);
  return pinned;
}

}  // namespace takt::platform
