// The burdens of the burdened DAG (per spawn, per sync) and their calibration on this machine.
#pragma once

#include "os/cpu.hpp"
#include "takt/runtime/extension.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace takt::profiler {

/// What a steal or a non-trivial join adds to a path of the DAG when it happens (the
/// burdened DAG of Cilkview, which RTWS §V.B uses for L̂): `spawn` weighs on every
/// continuation edge (the continuation after a spawn may be stolen and then starts a
/// steal later), `sync` on every return edge (a child that finishes on another worker
/// than its parent joins through the join protocol).
struct Burden {
  std::chrono::nanoseconds spawn{0};
  std::chrono::nanoseconds sync{0};
};

/// Order statistics of one burden's samples.
struct BurdenSamples {
  std::size_t count = 0;
  std::chrono::nanoseconds p50{0}, p90{0}, p99{0}, max{0};
};

/// The result of the calibration micro-benchmark.
struct BurdenCalibration {
  Burden burden;        ///< the medians: what the profiler adds per edge
  BurdenSamples steal;  ///< spawn → the continuation resumed by a thief
  BurdenSamples join;   ///< a stolen-from child's end → its parent resumed after the sync
  std::size_t iterations = 0;
  std::size_t workers = 0;                 ///< 2, on the first two CPUs of `cpus`
  std::chrono::nanoseconds child_time{0};  ///< the children's length in the run that counted
};

struct CalibrationOptions {
  /// CPUs to run the two workers on; empty: the CPUs this process may use.
  os::CpuSet cpus;
  /// Spawn/sync rounds measured (after `warmup` rounds that are not).
  std::size_t iterations = 2000;
  std::size_t warmup = 200;
  /// How long each spawned child busy-waits: long enough for the idle worker to steal
  /// the continuation and reach the sync before the child ends.
  std::chrono::nanoseconds child_time = std::chrono::microseconds(20);
  /// SCHED_FIFO priority of the two workers (0: SCHED_OTHER). The caller checks the
  /// privilege (os::privileges()); without it the request falls back with a warning.
  int fifo_priority = 0;
};

/// Measures the burdens on this machine (docs/profiling.md, "How the burden is
/// calibrated"). A pool of two pinned workers runs `iterations` rounds of
///     Scope s; s.spawn(child busy-waiting child_time); s.sync();
/// The child runs at once on the spawning worker (work first) while the other, idle
/// worker steals the continuation, reaches the sync and parks; the child then finishes
/// last and resumes the parent. The strand events' timestamps give, per round, the steal
/// latency (spawn → stolen continuation starts) and the join latency (child ends → parent
/// continues after the sync). The burdens are the medians. When fewer than a quarter
/// of the rounds were stolen and joined so (the machine is busy), the run is repeated
/// with children 4 and then 16 times as long. Throws takt::Error when fewer than two
/// CPUs are available or no run had enough rounds to measure.
BurdenCalibration calibrate_burden(const CalibrationOptions& options = {});

/// The samples of one calibration run, in round order.
struct CalibrationSamples {
  std::vector<std::chrono::nanoseconds> steals;  ///< spawn → the stolen continuation's resume
  std::vector<std::chrono::nanoseconds> joins;   ///< the child's end → the parent's joined
};
/// Reads the strand events of a calibration run (the root task's `rounds` rounds of
/// spawn-then-sync): round i ends root strand 2i by its spawn, starts strand 2i + 1 by
/// the resume and ends it by the sync, and strand 2i + 2 starts by the joined event.
/// Rounds from `warmup` on whose continuation was stolen give a steal sample; of those,
/// the rounds whose parent reached the sync before the child ended and was joined after
/// it (the join protocol) also give a join sample.
CalibrationSamples calibration_samples(std::span<const ext::StrandEvent> events, std::size_t rounds,
                                       std::size_t warmup);

}  // namespace takt::profiler
