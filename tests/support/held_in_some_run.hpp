// Checks that depend on timing, made again where the machine stalled.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace takt::testing {

/// A test's checks that depend on timing (deadline misses, which job ended first, how
/// long something took) fail where the machine stalls: a stall of the VM (tens of ms, up
/// to ~150 ms, docs/latency.md) makes the job in flight miss and skips the releases it
/// covers (a CI run of 1.2 s on a 2-core VM saw 14 of 120 short jobs and 7 of 60 long
/// ones miss, where a quiet run misses none), and without SCHED_FIFO a stall right after a
/// release can let a job end after the one it preempted. `run()` runs the case once,
/// EXPECTs what does not depend on timing, and returns what of the rest failed (empty
/// when it all held); a run where something failed is made again, up to `runs` runs, and
/// the test fails only when every run failed. The faults such checks guard against (a
/// policy that does not preempt, strands counted twice) fail them in every run, by far.
template <class Run>
void expect_held_in_some_run(int runs, Run run) {
  std::string reports;
  for (int r = 1; r <= runs; ++r) {
    const std::string report = run();
    if (report.empty()) return;
    reports += "  run " + std::to_string(r) + ": " + report + "\n";
  }
  ADD_FAILURE() << "a check that depends on timing failed in each of " << runs << " runs:\n" << reports;
}

}  // namespace takt::testing
