// Preallocated per-thread event buffers: recording on the hot path without allocation or locks.
#include "platform/recorder.hpp"

#include "os/clock.hpp"
#include "os/cpu.hpp"
#include "os/usage.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstring>

namespace takt::platform {

namespace {

bool is_job_event(EventKind kind) noexcept {
  return kind == EventKind::release || kind == EventKind::skip || kind == EventKind::start ||
         kind == EventKind::finish;
}

// A job's places in the ledger: its release or skip, its start, its finish. Bit p of
// Entry::state claims place p; bit p + 4 says it is written.
constexpr int kReleasePlace = 0;
constexpr int kStartPlace = 1;
constexpr int kFinishPlace = 2;
constexpr std::uint8_t kWritten = 4;

int place_of(EventKind kind) noexcept {
  return kind == EventKind::start ? kStartPlace : kind == EventKind::finish ? kFinishPlace : kReleasePlace;
}

}  // namespace

struct JobLedger::Entry {
  std::atomic<std::uint8_t> state{0};
  EventKind release_kind = EventKind::release;  ///< release or skip
  std::uint8_t release_flags = 0;
  std::uint8_t finish_flags = 0;
  std::array<std::int16_t, 3> cpu{};  ///< per place
  /// The nominal release: every place's event carries the same one, and each writer
  /// stores it.
  std::atomic<std::int64_t> nominal{0};
  std::array<std::int64_t, 3> time{};  ///< per place
  std::int64_t eligible = 0;           ///< the release's (or skip's) aux
  std::uint64_t finish_arg = 0;        ///< the finish's arg (its CPU time when cpu_timed)
};

JobLedger::JobLedger(std::span<const std::uint64_t> jobs_per_task) {
  first_.reserve(jobs_per_task.size() + 1);
  std::size_t n = 0;
  for (std::uint64_t jobs : jobs_per_task) {
    first_.push_back(n);
    n += static_cast<std::size_t>(jobs);
  }
  first_.push_back(n);
  // Value-initialised: every page is written once before the run.
  entries_ = std::make_unique<Entry[]>(n);
}

JobLedger::~JobLedger() = default;

std::size_t JobLedger::entry_bytes() noexcept { return sizeof(Entry); }

std::uint64_t JobLedger::jobs(std::uint32_t task) const noexcept {
  return task + 1 < first_.size() ? first_[task + 1] - first_[task] : 0;
}

bool JobLedger::record(const Event& e) noexcept {
  if (e.job >= jobs(e.task)) return false;
  Entry& entry = entries_[first_[e.task] + e.job];
  const int place = place_of(e.kind);
  const auto claim = static_cast<std::uint8_t>(1u << place);
  if ((entry.state.fetch_or(claim, std::memory_order_acq_rel) & claim) != 0) return false;
  entry.nominal.store(e.release.count(), std::memory_order_relaxed);
  entry.time[place] = e.time.count();
  entry.cpu[place] = e.cpu;
  if (place == kReleasePlace) {
    entry.release_kind = e.kind;
    entry.release_flags = e.flags;
    entry.eligible = e.aux.count();
  } else if (place == kFinishPlace) {
    entry.finish_flags = e.flags;
    entry.finish_arg = e.arg;
  }
  entry.state.fetch_or(static_cast<std::uint8_t>(claim << kWritten), std::memory_order_release);
  return true;
}

void JobLedger::append_events(std::vector<Event>& out) const {
  for (std::uint32_t task = 0; task + 1 < first_.size(); ++task) {
    for (std::size_t i = first_[task]; i < first_[task + 1]; ++i) {
      const Entry& entry = entries_[i];
      const std::uint8_t state = entry.state.load(std::memory_order_acquire);
      if ((state >> kWritten) == 0) continue;
      for (int place : {kReleasePlace, kStartPlace, kFinishPlace}) {
        if ((state & (1u << (place + kWritten))) == 0) continue;
        Event e;
        e.kind = place == kReleasePlace ? entry.release_kind
                 : place == kStartPlace ? EventKind::start
                                        : EventKind::finish;
        e.time = std::chrono::nanoseconds(entry.time[place]);
        e.release = std::chrono::nanoseconds(entry.nominal.load(std::memory_order_relaxed));
        e.task = task;
        e.job = i - first_[task];
        e.cpu = entry.cpu[place];
        if (place == kReleasePlace) {
          e.aux = std::chrono::nanoseconds(entry.eligible);
          e.flags = entry.release_flags;
        } else if (place == kFinishPlace) {
          e.flags = entry.finish_flags;
          e.arg = entry.finish_arg;
        }
        out.push_back(e);
      }
    }
  }
}

void ThreadRecorder::reset(std::size_t capacity, std::size_t reserved, std::string_view name,
                           JobLedger* ledger) {
  ledger_ = ledger;
  // Value-initialising the array writes every page once: the buffer is resident
  // (and locked, under mlockall) before the run starts.
  events_ = std::make_unique<Event[]>(capacity);
  capacity_ = capacity;
  detail_capacity_ = capacity - std::min(reserved, capacity);
  std::size_t n = std::min(name.size(), name_.size() - 1);
  std::memcpy(name_.data(), name.data(), n);
  name_[n] = '\0';
}

void ThreadRecorder::append(const Event& e) noexcept {
  std::size_t n = size_.load(std::memory_order_relaxed);  // only this thread writes size_
  const bool job_event = is_job_event(e.kind);
  if (n >= (job_event ? capacity_ : detail_capacity_)) {
    dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (first_drop_ns_.load(std::memory_order_relaxed) == kNoDrop) {
      first_drop_ns_.store(e.time.count(), std::memory_order_relaxed);
    }
    if (job_event && first_job_drop_ns_.load(std::memory_order_relaxed) == kNoDrop) {
      first_job_drop_ns_.store(e.time.count(), std::memory_order_relaxed);
    }
    return;
  }
  events_[n] = e;
  size_.store(n + 1, std::memory_order_release);  // publishes the slot to readers
}

void ThreadRecorder::record(Event e) noexcept {
  if (e.cpu < 0) e.cpu = static_cast<std::int16_t>(os::current_cpu());
  if (last_cpu_ >= 0 && e.cpu != last_cpu_) {
    Event m = e;
    m.kind = EventKind::migration;
    m.arg = static_cast<std::uint64_t>(last_cpu_);
    m.flags = event_flag::thread_moved;
    m.aux = {};
    append(m);
  }
  last_cpu_ = e.cpu;
  if (ledger_ != nullptr && is_job_event(e.kind) && ledger_->record(e)) return;
  append(e);
}

void ThreadRecorder::job_start(std::uint32_t task, std::uint64_t job, std::chrono::nanoseconds release,
                               std::chrono::nanoseconds at) noexcept {
  Event e;
  e.kind = EventKind::start;
  e.time = at;
  e.release = release;
  e.task = task;
  e.job = job;
  record(e);
}

void ThreadRecorder::job_finish(std::uint32_t task, std::uint64_t job, std::chrono::nanoseconds release,
                                std::chrono::nanoseconds deadline, std::chrono::nanoseconds at, bool failed,
                                std::optional<std::chrono::nanoseconds> cpu_time) noexcept {
  Event e;
  e.kind = EventKind::finish;
  e.time = at;
  e.release = release;
  e.task = task;
  e.job = job;
  e.flags = failed ? event_flag::failed : 0;
  if (cpu_time) {
    e.flags |= event_flag::cpu_timed;
    e.arg = static_cast<std::uint64_t>(std::max(cpu_time->count(), std::int64_t{0}));
  }
  record(e);
  jobs_done_.store(jobs_done_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  if (failed || at > deadline)
    misses_.store(misses_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

namespace {
Event strand_event(EventKind kind, std::uint32_t task, std::uint64_t job, std::uint64_t arg,
                   std::chrono::nanoseconds at) {
  Event e;
  e.kind = kind;
  e.time = at;
  e.task = task;
  e.job = job;
  e.arg = arg;
  return e;
}
}  // namespace

void ThreadRecorder::strand_begin(std::uint32_t task, std::uint64_t job, std::uint64_t strand,
                                  std::chrono::nanoseconds at) noexcept {
  record(strand_event(EventKind::strand_begin, task, job, strand, at));
}

void ThreadRecorder::strand_end(std::uint32_t task, std::uint64_t job, std::uint64_t strand,
                                std::chrono::nanoseconds at, bool preempted,
                                std::optional<std::chrono::nanoseconds> cpu_time) noexcept {
  Event e = strand_event(EventKind::strand_end, task, job, strand, at);
  e.flags = preempted ? event_flag::preempted : 0;
  if (cpu_time) {
    e.flags |= event_flag::cpu_timed;
    e.aux = *cpu_time;
  }
  record(e);
}

void ThreadRecorder::steal(std::uint32_t task, std::uint64_t job, int victim_cpu,
                           std::chrono::nanoseconds at) noexcept {
  record(strand_event(EventKind::steal, task, job, static_cast<std::uint64_t>(victim_cpu), at));
}

void ThreadRecorder::preemption(std::uint32_t task, std::uint64_t job, std::uint64_t strand,
                                std::chrono::nanoseconds at) noexcept {
  record(strand_event(EventKind::preemption, task, job, strand, at));
}

void ThreadRecorder::migration(std::uint32_t task, std::uint64_t job, int from_cpu,
                               std::chrono::nanoseconds at) noexcept {
  record(strand_event(EventKind::migration, task, job, static_cast<std::uint64_t>(from_cpu), at));
}

void ThreadRecorder::job_error(std::uint32_t task, std::uint64_t job, std::string_view message) noexcept {
  std::size_t n = error_count_.load(std::memory_order_relaxed);
  if (n < kept_errors) {
    ErrorSlot& slot = errors_[n];
    slot.task = task;
    slot.job = job;
    std::size_t len = std::min(message.size(), error_length - 1);
    std::memcpy(slot.message.data(), message.data(), len);
    slot.message[len] = '\0';
  }
  error_count_.store(n + 1, std::memory_order_release);
}

void ThreadRecorder::close() noexcept {
  cpu_time_ = os::thread_cpu_time();
  auto cs = os::thread_context_switches();
  voluntary_ = cs.voluntary;
  involuntary_ = cs.involuntary;
  if (last_cpu_ < 0) last_cpu_ = os::current_cpu();
  closed_.store(true, std::memory_order_release);
}

Recorder::Recorder(RecorderConfig config) : config_(config) {
  if (config_.threads == 0) throw Error("the event recorder needs at least one thread slot");
  if (config_.events_per_thread == 0)
    throw Error("the event recorder needs room for at least one event per thread");
  if (!config_.ledger_jobs.empty()) ledger_ = std::make_unique<JobLedger>(config_.ledger_jobs);
  slots_.reset(new ThreadRecorder[config_.threads]);
  for (std::size_t i = 0; i < config_.threads; ++i) {
    slots_[i].reset(config_.events_per_thread, config_.reserved_per_thread, "", ledger_.get());
  }
}

ThreadRecorder* Recorder::attach(std::string_view thread_name) noexcept {
  std::size_t i = claimed_.fetch_add(1, std::memory_order_relaxed);
  if (i >= config_.threads) {
    unattached_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  ThreadRecorder& slot = slots_[i];
  std::size_t n = std::min(thread_name.size(), slot.name_.size() - 1);
  std::memcpy(slot.name_.data(), thread_name.data(), n);
  slot.name_[n] = '\0';
  slot.attached_.store(true, std::memory_order_release);
  return &slot;
}

namespace {}  // namespace

template <class F>
void Recorder::for_each_attached(F f) const {
  for (std::size_t i = 0; i < config_.threads; ++i) {
    if (slots_[i].attached_.load(std::memory_order_acquire)) f(slots_[i]);
  }
}

RecorderProgress Recorder::progress() const noexcept {
  RecorderProgress p;
  for_each_attached([&](const ThreadRecorder& t) {
    p.jobs_done += t.jobs_done();
    p.misses += t.misses();
  });
  return p;
}

std::vector<Event> Recorder::events() const {
  std::vector<Event> out;
  if (ledger_) ledger_->append_events(out);
  for_each_attached([&](const ThreadRecorder& t) { out.insert(out.end(), t.data(), t.data() + t.size()); });
  std::stable_sort(out.begin(), out.end(), [](const Event& a, const Event& b) { return a.time < b.time; });
  return out;
}

std::vector<ThreadSummary> Recorder::threads() const {
  std::vector<ThreadSummary> out;
  for_each_attached([&](const ThreadRecorder& t) {
    ThreadSummary s;
    s.name = t.name_.data();
    s.events = t.size();
    s.dropped = t.dropped();
    if (t.closed_.load(std::memory_order_acquire)) {
      s.closed = true;
      s.cpu = t.last_cpu_;
      s.cpu_time = t.cpu_time_;
      s.voluntary_switches = t.voluntary_;
      s.involuntary_switches = t.involuntary_;
    }
    out.push_back(std::move(s));
  });
  return out;
}

std::vector<JobError> Recorder::errors() const {
  std::vector<JobError> out;
  for_each_attached([&](const ThreadRecorder& t) {
    std::size_t n = std::min(t.error_count_.load(std::memory_order_acquire), ThreadRecorder::kept_errors);
    for (std::size_t i = 0; i < n; ++i) {
      out.push_back(JobError{t.errors_[i].task, t.errors_[i].job, std::string(t.errors_[i].message.data())});
    }
  });
  // Each thread keeps its first few; together in job order (thread by thread they read
  // 9, 15, 21, 24, 0, 3 under gedf-paws, where any worker runs any job).
  std::stable_sort(out.begin(), out.end(), [](const JobError& a, const JobError& b) {
    return a.task != b.task ? a.task < b.task : a.job < b.job;
  });
  return out;
}

std::uint64_t Recorder::error_count() const noexcept {
  std::uint64_t n = 0;
  for_each_attached([&](const ThreadRecorder& t) { n += t.error_count_.load(std::memory_order_acquire); });
  return n;
}

std::uint64_t Recorder::dropped() const noexcept {
  std::uint64_t n = 0;
  for_each_attached([&](const ThreadRecorder& t) { n += t.dropped(); });
  return n;
}

std::optional<std::chrono::nanoseconds> ThreadRecorder::drop_time(
    const std::atomic<std::int64_t>& ns) noexcept {
  const std::int64_t value = ns.load(std::memory_order_relaxed);
  if (value == kNoDrop) return std::nullopt;
  return std::chrono::nanoseconds(value);
}

std::optional<std::chrono::nanoseconds> ThreadRecorder::first_drop() const noexcept {
  return drop_time(first_drop_ns_);
}

std::optional<std::chrono::nanoseconds> ThreadRecorder::first_job_drop() const noexcept {
  return drop_time(first_job_drop_ns_);
}

template <class FirstOf>
std::optional<std::chrono::nanoseconds> Recorder::earliest(FirstOf first_of) const noexcept {
  std::optional<std::chrono::nanoseconds> first;
  for_each_attached([&](const ThreadRecorder& t) {
    if (auto d = first_of(t); d && (!first || *d < *first)) first = d;
  });
  return first;
}

std::optional<std::chrono::nanoseconds> Recorder::first_drop() const noexcept {
  return earliest([](const ThreadRecorder& t) { return t.first_drop(); });
}

std::optional<std::chrono::nanoseconds> Recorder::first_job_drop() const noexcept {
  return earliest([](const ThreadRecorder& t) { return t.first_job_drop(); });
}

std::size_t Recorder::events_per_thread_for(std::uint64_t jobs, std::size_t events_per_job,
                                            std::size_t threads) {
  if (threads == 0) threads = 1;
  std::uint64_t total = jobs * events_per_job;
  std::uint64_t per_thread = (total + threads - 1) / threads * 2 + 1024;
  return static_cast<std::size_t>(per_thread);
}

}  // namespace takt::platform
