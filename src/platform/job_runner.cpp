// Running one released job on the calling thread: record its start and finish, catch its failure, report it
// done.
#include "platform/job_runner.hpp"

#include "os/clock.hpp"

#include <exception>

namespace takt::platform {

bool run_job(Task& task, const PeriodicTask& timing, const Release& release, ThreadRecorder* recorder,
             ReleaseEngine& engine) noexcept {
  const Job job = make_job(timing, release);
  if (recorder != nullptr) recorder->job_start(release.task, release.job, release.release, engine.now());
  const auto cpu_before = os::thread_cpu_time();
  bool failed = false;
  try {
    task.run(job);
  } catch (const std::exception& e) {
    failed = true;
    if (recorder != nullptr) recorder->job_error(release.task, release.job, e.what());
  } catch (...) {
    failed = true;
    if (recorder != nullptr) {
      recorder->job_error(release.task, release.job,
                          "the task threw an exception that is not a std::exception");
    }
  }
  const auto cpu_time = os::thread_cpu_time() - cpu_before;
  const auto finish = engine.now();
  if (recorder != nullptr) {
    recorder->job_finish(release.task, release.job, release.release, release.deadline, finish, failed,
                         cpu_time);
  }
  engine.finished(release.task, release.job, finish);
  return !failed;
}

void InlineSink::release(const Release& release) {
  run_job(*tasks_[release.task], engine_.tasks()[release.task], release, recorder_, engine_);
}

}  // namespace takt::platform
