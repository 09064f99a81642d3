// Checks that depend on timing, made again where the machine stalled.
#pragma once

#include <gtest/gtest.h>

#include <source_location>
#include <string>

namespace takt::testing {

/// A test's checks that depend on timing (deadline misses, how long something took, and
/// without SCHED_FIFO which job ended first) fail where the machine stalls. A VM's host
/// takes its vCPUs away at times: docs/latency.md shows maxima of several ms in every
/// row, a policy test saw 37 ms, and a CI run of 1.2 s on a 2-core VM saw 14 of 120 short
/// jobs (period 10 ms) and 7 of 60 long ones miss, where a quiet run misses none. A stall
/// makes the job in flight miss and skips the releases it covers; without SCHED_FIFO, a
/// stall right after a release can let a job end after the one it preempted.
/// scripts/stall-machine makes such stalls (40 to 150 ms) on purpose.
///
/// `run()` runs the case once, EXPECTs what must hold in every run, and returns what of
/// the rest failed (empty when it all held); a run where something failed is made again,
/// up to `runs` runs, and the test fails (at the caller's line) only when every run
/// failed. The faults such checks guard against (a policy that does not preempt, strands
/// counted twice) fail them in every run, by far.
template <class Run>
void expect_held_in_some_run(int runs, Run run,
                             std::source_location where = std::source_location::current()) {
  std::string reports;
  for (int r = 1; r <= runs; ++r) {
    const std::string report = run();
    if (report.empty()) return;
    reports += "  run " + std::to_string(r) + ": " + report + "\n";
  }
  ADD_FAILURE_AT(where.file_name(), static_cast<int>(where.line()))
      << "a check that depends on timing failed in each of " << runs << " runs:\n"
      << reports;
}

}  // namespace takt::testing
