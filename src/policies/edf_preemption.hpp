// Global EDF's preemption choice at a release (gedf-paws): which worker, if any, to ask to yield.
//
// Idle workers take waiting work by themselves (earliest key first), and so does a
// worker already asked to yield, at its next yield point. Only the waiting work beyond
// those takers needs a preemption: the earliest of it should displace the running
// computation with the latest key, if that key is later.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace takt::policies {

/// What a worker does, as the lane sees it at a release.
struct WorkerView {
  bool running = false;            ///< runs a computation (false: idle, it takes waiting work itself)
  std::chrono::nanoseconds key{};  ///< the running computation's key
  bool yield_pending = false;      ///< asked to yield already: takes the queue's head at its next yield point
};

/// A worker's view from what the runtime reports (`running`, `key`) and `asked`: the
/// running key that a yield request not yet consumed targeted (-1: none). A request is
/// consumed only at a yield point (a spawn or sync), so it outlives a computation that
/// ends without one (a sequential job, or a job's last strand); it counts only while
/// the worker still runs the key it was made for. Otherwise it takes nothing, and the
/// worker is a candidate for the next preemption like any running worker.
WorkerView worker_view(bool running, std::chrono::nanoseconds key, std::int64_t asked) noexcept;

/// `waiting`: the keys of the work admitted to the global queue and not yet taken (the
/// released job's among them), in any order; reordered. Returns the worker to ask to
/// yield: the running one, not yet asked, with the latest key, when that key is later
/// than the earliest waiting key that no idle or asked worker will take; else nullopt.
std::optional<std::size_t> edf_preemption_victim(std::span<const WorkerView> workers,
                                                 std::span<std::chrono::nanoseconds> waiting);

}  // namespace takt::policies
