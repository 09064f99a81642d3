// Preallocated per-thread event buffers: recording on the hot path without allocation or locks.
//
// A Recorder is sized before the run: a number of thread slots, each with room for a
// fixed number of events. Every thread that records (a release lane, a worker)
// attaches once and gets its own ThreadRecorder; only that thread writes to it. A
// full buffer drops further events and counts them; it never grows, blocks or
// crashes.
//
// Job events (release, skip, start, finish) do not depend on which thread records
// them: the job ledger, one preallocated entry per planned job (jobs 0 .. n−1 of each
// task, RecorderConfig::ledger_jobs), keeps the first release or skip, start and
// finish of every job it covers, whichever thread records them, so a busy thread never
// loses a job's outcome. Job events of jobs beyond the ledger (and repeated ones) go to
// the thread's buffer, whose last `reserved_per_thread` places take only job events;
// when even those are dropped, Recorder::first_job_drop() says from when job outcomes
// may be missing. Results are read after the run (or, for the progress counters, at
// any time).
#pragma once

#include "platform/event.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace takt::platform {

struct RecorderConfig {
  std::size_t threads = 8;                  ///< thread slots (lanes + workers + spare)
  std::size_t events_per_thread = 1 << 16;  ///< capacity of each slot's buffer
  /// Places of each buffer kept for job events (at most events_per_thread).
  std::size_t reserved_per_thread = 0;
  /// Per task (by index): the jobs 0 .. n−1 whose job events the job ledger keeps.
  /// Tasks beyond the vector have none.
  std::vector<std::uint64_t> ledger_jobs{};
};

/// The job events of the planned jobs, outside the per-thread buffers: per job, the
/// first release or skip, the first start and the first finish recorded, by any thread
/// (lock-free; each place is claimed once with an atomic or). Jobs outside it, and
/// repeated job events, are left to the caller.
class JobLedger {
 public:
  /// Allocates and touches one entry per job of `jobs_per_task`.
  explicit JobLedger(std::span<const std::uint64_t> jobs_per_task);
  ~JobLedger();
  JobLedger(const JobLedger&) = delete;
  JobLedger& operator=(const JobLedger&) = delete;

  /// Keeps `e` (a release, skip, start or finish with its cpu filled in) when its job has
  /// an entry and its place is still free; false otherwise.
  bool record(const Event& e) noexcept;
  /// Jobs of `task` with an entry.
  [[nodiscard]] std::uint64_t jobs(std::uint32_t task) const noexcept;
  /// The kept events, as recorded, by task, job and kind (release or skip, start,
  /// finish); an event being written concurrently is left out.
  void append_events(std::vector<Event>& out) const;

  /// Bytes of one entry (for sizing).
  static std::size_t entry_bytes() noexcept;

 private:
  struct Entry;
  std::unique_ptr<Entry[]> entries_;
  std::vector<std::size_t> first_;  ///< per task, its first entry; one more at the end
};

/// What a thread measured about itself when it closed its recorder.
struct ThreadSummary {
  std::string name;
  int cpu = -1;  ///< the CPU it last recorded on
  std::chrono::nanoseconds cpu_time{};
  long voluntary_switches = 0;
  long involuntary_switches = 0;
  bool closed = false;  ///< false: the thread never called close() (its numbers are 0)
  std::size_t events = 0;
  std::uint64_t dropped = 0;
};

/// An error a job reported (its run threw), kept for the report.
struct JobError {
  std::uint32_t task = 0;
  std::uint64_t job = 0;
  std::string message;
};

/// The recording handle of one thread. All functions are for the owning thread only,
/// except the const readers, which may run concurrently (they see a prefix).
class ThreadRecorder {
 public:
  /// Appends `e` (no allocation, no lock). Fills in e.cpu when it is -1. When the
  /// thread is found on another CPU than at its previous record, first records a
  /// migration (flag thread_moved). A full buffer counts the event as dropped; strand,
  /// steal, preemption and migration events count as dropped once only the reserved
  /// places are left.
  void record(Event e) noexcept;

  // Convenience recorders; `at` is the time of the event (os::monotonic_now()).
  void job_start(std::uint32_t task, std::uint64_t job, std::chrono::nanoseconds release,
                 std::chrono::nanoseconds at) noexcept;
  /// Records the finish and counts the job for the progress line (missed when it
  /// failed or `at` is after `deadline`). `cpu_time`: the CPU time of the thread that ran
  /// the whole job (flag cpu_timed, in `arg`).
  void job_finish(std::uint32_t task, std::uint64_t job, std::chrono::nanoseconds release,
                  std::chrono::nanoseconds deadline, std::chrono::nanoseconds at, bool failed,
                  std::optional<std::chrono::nanoseconds> cpu_time = std::nullopt) noexcept;
  void strand_begin(std::uint32_t task, std::uint64_t job, std::uint64_t strand,
                    std::chrono::nanoseconds at) noexcept;
  /// `cpu_time`: the CPU time the thread spent in the segment (flag cpu_timed, in `aux`),
  /// when the caller measured it.
  void strand_end(std::uint32_t task, std::uint64_t job, std::uint64_t strand, std::chrono::nanoseconds at,
                  bool preempted = false,
                  std::optional<std::chrono::nanoseconds> cpu_time = std::nullopt) noexcept;
  void steal(std::uint32_t task, std::uint64_t job, int victim_cpu, std::chrono::nanoseconds at) noexcept;
  void preemption(std::uint32_t task, std::uint64_t job, std::uint64_t strand,
                  std::chrono::nanoseconds at) noexcept;
  void migration(std::uint32_t task, std::uint64_t job, int from_cpu, std::chrono::nanoseconds at) noexcept;

  /// Keeps the message of a failed job (the first few per thread; later ones are
  /// only counted). Copies into preallocated storage: no allocation.
  void job_error(std::uint32_t task, std::uint64_t job, std::string_view message) noexcept;

  /// Captures the thread's CPU time and context switches; call on the thread as its
  /// last use of this recorder.
  void close() noexcept;

  [[nodiscard]] std::size_t size() const noexcept { return size_.load(std::memory_order_acquire); }
  [[nodiscard]] std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }
  /// The time of the first event this thread dropped (none: nothing dropped yet). Every
  /// later detail event of the thread is dropped too, so events before it are complete.
  [[nodiscard]] std::optional<std::chrono::nanoseconds> first_drop() const noexcept;
  /// The time of the first job event (release, skip, start, finish) this thread dropped.
  [[nodiscard]] std::optional<std::chrono::nanoseconds> first_job_drop() const noexcept;
  [[nodiscard]] std::uint64_t jobs_done() const noexcept {
    return jobs_done_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t misses() const noexcept { return misses_.load(std::memory_order_relaxed); }
  /// The recorded events (a consistent prefix while the thread still records).
  [[nodiscard]] const Event* data() const noexcept { return events_.get(); }

  static constexpr std::size_t kept_errors = 4;
  static constexpr std::size_t error_length = 240;

 private:
  friend class Recorder;
  ThreadRecorder() = default;
  void reset(std::size_t capacity, std::size_t reserved, std::string_view name, JobLedger* ledger);
  void append(const Event& e) noexcept;

  JobLedger* ledger_ = nullptr;
  std::unique_ptr<Event[]> events_;
  std::size_t capacity_ = 0;
  std::size_t detail_capacity_ = 0;  ///< capacity_ less the places reserved for job events
  std::atomic<std::size_t> size_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::int64_t> first_drop_ns_{kNoDrop};
  std::atomic<std::int64_t> first_job_drop_ns_{kNoDrop};  ///< of a release, skip, start or finish
  static constexpr std::int64_t kNoDrop = std::numeric_limits<std::int64_t>::max();
  /// The time stored in `ns`, or nothing for kNoDrop.
  static std::optional<std::chrono::nanoseconds> drop_time(const std::atomic<std::int64_t>& ns) noexcept;
  std::atomic<std::uint64_t> jobs_done_{0};
  std::atomic<std::uint64_t> misses_{0};
  int last_cpu_ = -1;

  struct ErrorSlot {
    std::uint32_t task = 0;
    std::uint64_t job = 0;
    std::array<char, error_length> message{};
  };
  std::array<ErrorSlot, kept_errors> errors_{};
  std::atomic<std::size_t> error_count_{0};  ///< all errors, kept or not

  std::array<char, 32> name_{};
  std::atomic<bool> attached_{false};  ///< set after name_ is written
  // Written by close(), published by closed_.
  std::chrono::nanoseconds cpu_time_{};
  long voluntary_ = 0;
  long involuntary_ = 0;
  std::atomic<bool> closed_{false};
};

/// Counts summed over every thread (for the progress line).
struct RecorderProgress {
  std::uint64_t jobs_done = 0;
  std::uint64_t misses = 0;
};

class Recorder {
 public:
  /// Allocates and touches every buffer now, so that recording never page-faults
  /// for the first time on the hot path.
  explicit Recorder(RecorderConfig config);
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// A free slot for the calling thread, named `thread_name` (e.g. "lane 0",
  /// "worker 3"). Lock-free. Returns nullptr when every slot is taken: that thread's
  /// events are then not recorded (counted in unattached()).
  ThreadRecorder* attach(std::string_view thread_name) noexcept;
  /// Counts one event that could not be recorded for want of a slot.
  void count_unattached() noexcept { unattached_.fetch_add(1, std::memory_order_relaxed); }

  [[nodiscard]] const RecorderConfig& config() const { return config_; }
  [[nodiscard]] RecorderProgress progress() const noexcept;
  /// Every event recorded so far (the ledger's, then each thread's), ordered by time
  /// (ties keep that order).
  [[nodiscard]] std::vector<Event> events() const;
  [[nodiscard]] std::vector<ThreadSummary> threads() const;
  /// Kept job errors, in slot order.
  [[nodiscard]] std::vector<JobError> errors() const;
  /// All job errors, kept or not.
  [[nodiscard]] std::uint64_t error_count() const noexcept;
  [[nodiscard]] std::uint64_t dropped() const noexcept;
  /// The earliest ThreadRecorder::first_drop() of every thread: the events of every
  /// thread before it are complete (none: no event was dropped).
  [[nodiscard]] std::optional<std::chrono::nanoseconds> first_drop() const noexcept;
  /// The earliest ThreadRecorder::first_job_drop(): a job outside the ledger that has
  /// not finished by then may have lost its start or finish (none: no job event was
  /// dropped).
  [[nodiscard]] std::optional<std::chrono::nanoseconds> first_job_drop() const noexcept;
  /// Per task, the jobs the ledger keeps (RecorderConfig::ledger_jobs).
  [[nodiscard]] const std::vector<std::uint64_t>& ledger_jobs() const noexcept { return config_.ledger_jobs; }
  [[nodiscard]] std::uint64_t unattached() const noexcept {
    return unattached_.load(std::memory_order_relaxed);
  }

  /// A buffer size for a run: `jobs` jobs in total, each recording about
  /// `events_per_job` events (release, start, finish, plus strands), spread over
  /// `threads` threads, with a safety factor of 2 (a thread may take more than its share).
  static std::size_t events_per_thread_for(std::uint64_t jobs, std::size_t events_per_job,
                                           std::size_t threads);

 private:
  template <class F>
  void for_each_attached(F f) const;
  /// The earliest of first_of(thread) over the attached threads.
  template <class FirstOf>
  std::optional<std::chrono::nanoseconds> earliest(FirstOf first_of) const noexcept;

  RecorderConfig config_;
  std::unique_ptr<JobLedger> ledger_;
  std::unique_ptr<ThreadRecorder[]> slots_;
  std::atomic<std::size_t> claimed_{0};
  std::atomic<std::uint64_t> unattached_{0};
};

}  // namespace takt::platform
