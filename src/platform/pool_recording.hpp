// Recording a runtime pool's strands: the strand observer that turns the runtime's strand events into recorder events.
//
// Installed on a pool with Extension::set_observer(). Every strand boundary becomes a
// strand_begin / strand_end event of the job the strand belongs to, on the recorder of
// the worker it ran on; a continuation resumed by a thief also records a steal (the
// victim is the worker whose spawn pushed that continuation) and, like a strand joined
// after a park on another worker, a migration. Which job a strand belongs to is asked
// of the policy (a federated pool runs one job at a time; gedf-paws tells jobs apart
// by the key of the computation the worker runs). Nothing here allocates or locks.
//
// Preemption (gedf-paws): the policy calls preempted() on the worker whose strand
// yields, which ends that strand's slice (flag preempted) and records a preemption;
// a strand handed back and given to another worker later is begun there with
// resumed(). A strand kept in its worker's deque (a frozen level) resumes without an
// event of its own; its next boundary then finds it not open and begins it at the
// worker's previous boundary (the worker returns to its frozen levels first, rule C).
#pragma once

#include "os/cpu.hpp"
#include "platform/recorder.hpp"
#include "takt/runtime/extension.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace takt::platform {

/// The job a worker's strand belongs to.
struct JobRef {
  bool valid = false;
  std::uint32_t task = 0;
  std::uint64_t job = 0;
};

/// A strand that a worker has begun and not ended.
struct OpenStrand {
  bool valid = false;
  JobRef job;
  std::uint64_t id = 0;
};

/// Strand id of strand `strand` of runtime task `task`, as recorded in events' `arg`.
constexpr std::uint64_t strand_id(std::uint64_t task, std::uint32_t strand) noexcept {
  return task + (static_cast<std::uint64_t>(strand) << 32);
}

/// The last worker seen ending a strand of each runtime task (spawn or sync), by hash of
/// the task id, with that strand's job: where a thief's continuation came from, and whose
/// it is. Any worker writes and reads at any time. Collisions only lose information: a
/// sequence lock (odd while written; a writer that finds another writing gives up) keeps
/// a reader from taking fields of two writes.
class LastWorkerTable {
 public:
  static constexpr std::size_t size = 4096;
  LastWorkerTable() : slots_(new Slot[size]) {}

  void remember(std::uint64_t task, std::uint32_t worker, const JobRef& job) noexcept;
  /// The worker and job last remembered for `task`; false where its slot holds another
  /// task or is being written now.
  bool read(std::uint64_t task, std::uint32_t& worker, JobRef& job) const noexcept;
  /// The slot that holds `task` (tasks of the same slot collide).
  static std::size_t slot_of(std::uint64_t task) noexcept {
    return (task * 0x9E3779B97F4A7C15ULL >> 52) % size;
  }

 private:
  struct Slot {
    std::atomic<std::uint32_t> sequence{0};
    std::atomic<std::uint64_t> task{0};
    std::atomic<std::uint32_t> worker{0};
    std::atomic<std::uint32_t> job_task{0};
    std::atomic<std::uint64_t> job{0};
  };
  std::unique_ptr<Slot[]> slots_;
};

class PoolRecording final : public ext::StrandObserver {
 public:
  using Resolver = JobRef (*)(void* context, std::size_t worker) noexcept;

  /// `worker_cpus[i mod n]` is worker i's CPU (as the pool pins it).
  PoolRecording(std::size_t workers, const os::CpuSet& worker_cpus, Resolver resolver, void* context);

  /// Call on worker `worker`'s thread before it runs anything (PoolConfig::on_worker_start).
  void worker_started(std::size_t worker, ThreadRecorder* recorder) noexcept;
  /// The recorder of worker `worker` (nullptr before it started or when not attached).
  [[nodiscard]] ThreadRecorder* recorder(std::size_t worker) const noexcept;

  void on_event(const ext::StrandEvent& event) noexcept override;

  /// On worker `worker`'s thread, when its strand is preempted at a yield point: ends
  /// the open strand (flag preempted), records a preemption, and returns the strand.
  OpenStrand preempted(std::size_t worker, std::chrono::nanoseconds at) noexcept;
  /// On worker `worker`'s thread, when it resumes a strand handed back earlier.
  void resumed(std::size_t worker, const OpenStrand& strand, std::chrono::nanoseconds at) noexcept;

 private:
  struct alignas(64) WorkerState {
    std::atomic<ThreadRecorder*> recorder{nullptr};
    OpenStrand open;                        ///< owner thread only
    std::chrono::nanoseconds last_end{0};   ///< owner thread only
  };
  void begin(WorkerState& w, ThreadRecorder* rec, const JobRef& job, std::uint64_t id,
             std::chrono::nanoseconds at) noexcept;
  void end(WorkerState& w, ThreadRecorder* rec, const JobRef& job, std::uint64_t id, std::chrono::nanoseconds at,
           bool preempted) noexcept;

  [[nodiscard]] int last_cpu(std::uint64_t task) const noexcept;
  /// The job of the worker that last ended a strand of `task` (a thief's continuation
  /// belongs to it; the thief's own key is not set yet when its resume is reported).
  [[nodiscard]] JobRef last_job(std::uint64_t task) const noexcept;
  [[nodiscard]] int cpu_of(std::size_t worker) const noexcept;

  std::size_t workers_;
  std::unique_ptr<WorkerState[]> state_;
  std::vector<int> cpus_;
  Resolver resolver_;
  void* context_;
  LastWorkerTable table_;
};

}  // namespace takt::platform
