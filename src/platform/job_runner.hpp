// Running one released job on the calling thread: record its start and finish, catch its failure, report it
// done.
#pragma once

#include "platform/periodic_task.hpp"
#include "platform/recorder.hpp"
#include "platform/release_engine.hpp"
#include "takt/task.hpp"

#include <span>
#include <vector>

namespace takt::platform {

/// Runs `release` of task `task` on the calling thread: records the start (the job's
/// first instruction is task.run()'s), calls task.run(), records the finish, then
/// tells the engine. A run() that throws fails the job: it counts as missed, its
/// message is kept by the recorder, and the run goes on. Returns false when the job
/// failed. `recorder` may be null.
bool run_job(Task& task, const PeriodicTask& timing, const Release& release, ThreadRecorder* recorder,
             ReleaseEngine& engine) noexcept;

/// A ReleaseSink that runs every job on the lane's own thread (run_job). With one
/// lane per task, the thread that wakes at the release is the one that runs the job.
class InlineSink final : public ReleaseSink {
 public:
  /// `tasks[i]` runs the jobs of engine task i; the span must outlive the sink.
  InlineSink(ReleaseEngine& engine, std::span<Task* const> tasks, ThreadRecorder* recorder)
      : engine_(engine), tasks_(tasks), recorder_(recorder) {}
  void release(const Release& release) override;

 private:
  ReleaseEngine& engine_;
  std::span<Task* const> tasks_;
  ThreadRecorder* recorder_;
};

}  // namespace takt::platform
