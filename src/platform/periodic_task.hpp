// The timing of a periodic task as the platform sees it, and one released job.
#pragma once

#include "takt/task.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace takt::platform {

/// Period, relative deadline and offset of one task of the run. Job k is released
/// at origin + offset + k·period and is due at its release + deadline.
struct PeriodicTask {
  std::string name;
  std::chrono::nanoseconds period{};
  std::chrono::nanoseconds deadline{};  ///< relative deadline
  std::chrono::nanoseconds offset{};
  unsigned cores = 1;  ///< cores granted to the task (passed to its jobs)
  /// Declared work C (the task set's `work:`, or derived from its segments or DAG); 0 when
  /// the task declares none. The metrics compare what the jobs executed with it.
  std::chrono::nanoseconds work{};
};

/// What happens to a release that finds the task's previous job still running.
enum class OverrunPolicy {
  skip,  ///< the release is skipped (counted, and counted as a missed job)
  wait,  ///< the job is released as soon as the previous one finishes (counted as
         ///< late); its deadline stays release + deadline
};

std::string_view to_string(OverrunPolicy policy);
/// "skip" or "wait"; throws takt::Error naming the accepted values.
OverrunPolicy parse_overrun_policy(std::string_view text);

/// One job made runnable by the release engine.
struct Release {
  std::uint32_t task = 0;               ///< index of the task in the run's task list
  std::uint64_t job = 0;                ///< job index k
  std::chrono::nanoseconds release{};   ///< nominal release: origin + offset + k·period
  std::chrono::nanoseconds eligible{};  ///< when it could start: the release, or the
                                        ///< previous job's finish when it was late
  std::chrono::nanoseconds deadline{};  ///< absolute deadline: release + relative deadline
  bool late = false;                    ///< released after its nominal time (overrun "wait")
};

/// The takt::Job view that a task's run() receives for `release`. The view refers to
/// `task.name`, which must outlive it.
inline Job make_job(const PeriodicTask& task, const Release& release) {
  Job job;
  job.task = task.name;
  job.index = release.job;
  job.release = release.release;
  job.deadline = release.deadline;
  job.period = task.period;
  job.relative_deadline = task.deadline;
  job.cores = task.cores;
  return job;
}

}  // namespace takt::platform
