// The task API: what a program run by takt implements (init, run per job, finalize).
//
// A task is the WUSTL tools' `task_t{init, run, finalize}` in C++: takt calls
// `init(args)` once before the first job, `run(job)` once per job (job k released
// at offset + k·period), and `finalize()` once after the last job. A task is either
//   - registered in-process under a name (<takt/program.hpp>), or
//   - built as a shared object exporting the C entry point of <takt/task_abi.h>;
//     `takt::export_task<T>()` below writes that entry point for a C++ class.
// This header is self-contained (no takt library needed), so a shared object that
// includes it links against nothing of takt. Tutorial: docs/writing-tasks.md.
#pragma once

#include "takt/task_abi.h"

#include <chrono>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace takt {

/// What init() receives: the task's name and its `args:` from the task-set file.
struct TaskArgs {
  std::string_view task;          ///< the task's name; valid during init() only, copy what you keep
  std::vector<std::string> args;  ///< the task's arguments, in file order
  unsigned cores = 1;             ///< cores granted to the task (1 for a sequential task)
};

/// One job of a task, as run() sees it. Times are CLOCK_MONOTONIC (clock_gettime).
struct Job {
  std::string_view task;                ///< the task's name
  std::uint64_t index = 0;              ///< job index k, from 0
  std::chrono::nanoseconds release{};   ///< origin + offset + k·period
  std::chrono::nanoseconds deadline{};  ///< absolute deadline: release + relative deadline
  std::chrono::nanoseconds period{};    ///< the task's period
  std::chrono::nanoseconds relative_deadline{};
  unsigned cores = 1;  ///< cores this job may use
};

/// A task as a C++ class with virtual functions (for in-process registration).
/// run() may throw: the job then has status failed (counted among the misses), the
/// error is reported, and the run goes on with the next job.
class Task {
 public:
  virtual ~Task() = default;
  virtual void init(const TaskArgs& args) { (void)args; }
  virtual void run(const Job& job) = 0;
  virtual void finalize() {}
};

/// A task class usable with export_task and takt::programs().add<T>(): default-constructible with
/// `run(const Job&)`; `init(const TaskArgs&)` and `finalize()` are optional. It need not
/// derive from takt::Task.
template <class T>
concept TaskClass = std::default_initializable<T> && requires(T& t, const Job& job) {
  t.run(job);
};

namespace detail {

inline void copy_message(char* out, std::size_t size, const char* message) {
  if (out == nullptr || size == 0) return;
  std::size_t n = std::strlen(message);
  if (n >= size) n = size - 1;
  std::memcpy(out, message, n);
  out[n] = '\0';
}

template <class F>
int guarded(char* error, std::size_t error_size, F&& body) noexcept {
  try {
    body();
    return TAKT_TASK_OK;
  } catch (const std::exception& e) {
    copy_message(error, error_size, e.what());
  } catch (...) {
    copy_message(error, error_size, "the task threw an exception that is not a std::exception");
  }
  return TAKT_TASK_FAILED;
}

template <TaskClass T>
int c_init(const takt_task_args_v1* a, void** state, char* error, std::size_t error_size) {
  return guarded(error, error_size, [&] {
    TaskArgs args;
    args.task = a->task_name != nullptr ? a->task_name : "";
    args.cores = a->cores;
    for (std::uint32_t i = 0; i < a->argc; ++i) args.args.emplace_back(a->argv[i]);
    auto task = std::make_unique<T>();
    if constexpr (requires(T & t) { t.init(args); }) task->init(args);
    *state = task.release();
  });
}

template <TaskClass T>
int c_run(void* state, const takt_job_v1* j, char* error, std::size_t error_size) {
  return guarded(error, error_size, [&] {
    Job job;
    job.task = j->task_name != nullptr ? j->task_name : "";
    job.index = j->index;
    job.release = std::chrono::nanoseconds(j->release_ns);
    job.deadline = std::chrono::nanoseconds(j->deadline_ns);
    job.period = std::chrono::nanoseconds(j->period_ns);
    job.relative_deadline = std::chrono::nanoseconds(j->relative_deadline_ns);
    job.cores = j->cores;
    static_cast<T*>(state)->run(job);
  });
}

template <TaskClass T>
void c_finalize(void* state) {
  std::unique_ptr<T> task(static_cast<T*>(state));
  if constexpr (requires(T & t) { t.finalize(); }) {
    try {
      task->finalize();
    } catch (...) {
      // finalize has no way to report through the C ABI; the state is released anyway.
    }
  }
}

}  // namespace detail

/// The C descriptor (<takt/task_abi.h>) for task class T, named `name` in messages.
/// A shared object exports it with:
///
///     extern "C" TAKT_TASK_EXPORT const takt_task_v1* takt_task_entry(void) {
///       return takt::export_task<MyTask>("mytask");
///     }
///
/// Exceptions thrown by T's functions are caught inside the shared object and turned
/// into the ABI's error message, so none crosses the C boundary.
template <TaskClass T>
const takt_task_v1* export_task(const char* name) {
  static const takt_task_v1 descriptor{TAKT_TASK_ABI_VERSION, sizeof(takt_task_v1), name,
                                       &detail::c_init<T>,    &detail::c_run<T>,    &detail::c_finalize<T>};
  return &descriptor;
}

}  // namespace takt
