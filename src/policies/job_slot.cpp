// One task's job as a policy hands it around: the released job, its entry in the topology, and the computation a pool runs.
#include "policies/job_slot.hpp"

#include "os/clock.hpp"
#include "platform/thread_recording.hpp"
#include "sched/topics.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

namespace takt::policies {

PriorityKeys::PriorityKeys(std::size_t tasks) noexcept : tasks_(tasks) {
  while (bits_ < 32 && (std::uint64_t{1} << bits_) < tasks) ++bits_;
  mask_ = (std::uint64_t{1} << bits_) - 1;
}

void PriorityKeys::check_range(const platform::ReleaseEngine& engine, std::string_view policy) const {
  const std::optional<std::chrono::nanoseconds> latest = engine.latest_deadline();
  const std::int64_t range = std::numeric_limits<std::int64_t>::max() >> bits_;
  if (latest && latest->count() > range) {
    throw Error(fmt::format(
        "{}: with {} task(s) it orders jobs by deadline for deadlines up to {:.1f} h after the start, and "
        "a deadline of this run may lie {:.1f} h after it: shorten the run so that its last deadline comes "
        "before {:.1f} h (--duration or --jobs)",
        policy, tasks_, static_cast<double>(range) / 3.6e12, static_cast<double>(latest->count()) / 3.6e12,
        static_cast<double>(range) / 3.6e12));
  }
}

std::chrono::nanoseconds PriorityKeys::key(std::chrono::nanoseconds deadline, std::uint32_t task,
                                           const platform::ReleaseEngine& engine) const noexcept {
  const std::int64_t range = std::numeric_limits<std::int64_t>::max() >> bits_;
  const std::int64_t after = std::clamp<std::int64_t>((deadline - engine.origin()).count(), 0, range);
  return std::chrono::nanoseconds((after << bits_) | static_cast<std::int64_t>(task));
}

std::chrono::nanoseconds PriorityKeys::deadline_of(std::chrono::nanoseconds key,
                                                   const platform::ReleaseEngine& engine) const noexcept {
  return engine.origin() + std::chrono::nanoseconds(key.count() >> bits_);
}

JobSlot::JobSlot(std::uint32_t index, Task& task, const platform::PeriodicTask& timing,
                 platform::ReleaseEngine& engine, sched::Scheduler& scheduler, int priority) noexcept
    : index_(index), task_(task), timing_(timing), engine_(engine), scheduler_(scheduler), entry_(index) {
  entry_.payload = this;
  entry_.priority = priority;
}

void JobSlot::fill(const platform::Release& release, int cluster, std::chrono::nanoseconds key) noexcept {
  release_ = release;
  job_.store(release.job, std::memory_order_release);
  set_key(key);
  entry_.id = (static_cast<std::uint64_t>(index_) << 40) ^ release.job;
  entry_.release = release.release;
  entry_.deadline = release.deadline;
  entry_.cluster = cluster;
  entry_.pe = sched::kAny;
}

void JobSlot::check_entry(int cluster, std::string_view policy, std::string_view name) {
  sched::Task probe;
  probe.id = entry_.id;
  probe.cluster = cluster;
  probe.pe = sched::kAny;
  try {
    scheduler_.check_entry(probe);
  } catch (const takt::Error&) {
    const sched::TopologySpec spec = scheduler_.spec();
    throw takt::Error(fmt::format(
        "the entry of topology '{}' ({}) cannot take the jobs of task '{}': {} admits each job bound to no "
        "PE, in cluster {}; write the entry as one pipe (entry: NAME) or as a family indexed by cluster "
        "(entry: \"NAME[cluster]\")",
        spec.name, spec.entry.text(), name, policy, cluster));
  }
}

void JobSlot::admit() {
  scheduler_.notify(sched::topics::time, sched::TimeMessage{engine_.now()});
  scheduler_.admit(entry_);
}

void JobSlot::run() {
  platform::ThreadRecorder* rec = platform::current_recorder();
  if (rec != nullptr) rec->job_start(index_, release_.job, release_.release, os::monotonic_now());
  const takt::Job job = platform::make_job(timing_, release_);
  task_.run(job);
}

void describe_exception(std::exception_ptr error, char* out, std::size_t size) noexcept {
  if (size == 0) return;
  out[0] = '\0';
  if (!error) return;
  const char* text = "the task threw an exception that is not a std::exception";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    text = e.what();
  } catch (...) {
  }
  std::size_t n = std::strlen(text);
  if (n >= size) n = size - 1;
  std::memcpy(out, text, n);
  out[n] = '\0';
}

void JobSlot::finished(std::exception_ptr error) noexcept {
  const std::chrono::nanoseconds at = os::monotonic_now();
  char message[platform::ThreadRecorder::error_length];
  describe_exception(error, message, sizeof message);
  complete(platform::current_recorder(), at, error ? message : nullptr);
}

void JobSlot::run_inline(platform::ThreadRecorder* recorder, void (*before_engine)(void*), void* context) noexcept {
  if (recorder != nullptr) recorder->job_start(index_, release_.job, release_.release, os::monotonic_now());
  const takt::Job job = platform::make_job(timing_, release_);
  // The thread's CPU time in the job: its executed time, without the time other threads
  // (jobs of earlier deadlines on a shared core) preempted it.
  const std::chrono::nanoseconds cpu_before = os::thread_cpu_time();
  std::exception_ptr error;
  try {
    task_.run(job);
  } catch (...) {
    error = std::current_exception();
  }
  const std::chrono::nanoseconds cpu_time = os::thread_cpu_time() - cpu_before;
  const std::chrono::nanoseconds at = os::monotonic_now();
  char message[platform::ThreadRecorder::error_length];
  describe_exception(error, message, sizeof message);
  complete(recorder, at, error ? message : nullptr, before_engine, context, cpu_time);
}

void JobSlot::complete(platform::ThreadRecorder* recorder, std::chrono::nanoseconds at, const char* error,
                       void (*before_engine)(void*), void* context,
                       std::optional<std::chrono::nanoseconds> cpu_time) noexcept {
  const platform::Release r = release_;
  if (recorder != nullptr) {
    if (error != nullptr) recorder->job_error(index_, r.job, error);
    recorder->job_finish(index_, r.job, r.release, r.deadline, at, error != nullptr, cpu_time);
  }
  // Out of the topology before the engine may release the next job into this slot.
  scheduler_.exit(entry_);
  if (before_engine != nullptr) before_engine(context);
  engine_.finished(index_, r.job, at);
}

bool wake_workers_for(ext::Extension& pool, sched::Scheduler& scheduler, int first_pe, std::size_t workers,
                      bool even_if_none) noexcept {
  // One shared queue: every worker would take the same task first.
  std::size_t able = 0;
  bool shared = true;
  const sched::Task* first = nullptr;
  for (std::size_t k = 0; k < workers; ++k) {
    const sched::Task* head = scheduler.peek(first_pe + static_cast<int>(k));
    if (head == nullptr) {
      shared = false;
      continue;
    }
    if (able++ == 0) first = head;
    shared = shared && head == first;
  }
  if (able > 0 && !shared) {
    pool.notify_work_all();
  } else if (able > 0 || even_if_none) {
    pool.notify_work();
  }
  return able > 0;
}

}  // namespace takt::policies
