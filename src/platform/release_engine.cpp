// The release engine: periodic absolute-time releases, the overrun policy, limits and stopping.
#include "platform/release_engine.hpp"

#include "takt/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>

namespace takt::platform {

using std::chrono::nanoseconds;

// Shared between a task's lane and the threads that finish its jobs.
struct alignas(64) ReleaseEngine::TaskState {
  // Written by finished().
  std::atomic<std::uint64_t> finished_through{0};  ///< index + 1 of the last finished job; 0: none
  std::atomic<std::int64_t> last_finish_ns{0};
  /// When the lane made the latest release (lane-written; read by abandon_if_stalled()).
  std::atomic<std::int64_t> last_release_ns{0};
  // Set by the lane when it must hear about the next finish (a late release waits
  // for it, or the lane is draining); read by finished().
  std::atomic<bool> wants_wake{false};
  // Written by the lane only; atomics so that counts() may read them at any time.
  std::atomic<std::uint64_t> released_through{0};  ///< index + 1 of the last released job; 0: none
  std::atomic<std::uint64_t> released{0};
  std::atomic<std::uint64_t> skipped{0};
  std::atomic<std::uint64_t> late{0};
  std::atomic<bool> claimed{false};  ///< belongs to a lane
  std::uint64_t next = 0;            ///< next job index the lane considers (lane only)
};

ReleaseEngine::ReleaseEngine(std::vector<PeriodicTask> tasks, ReleaseConfig config, ReleaseClock& clock)
    : tasks_(std::move(tasks)), config_(config), clock_(clock) {
  for (const auto& t : tasks_) {
    if (t.period <= nanoseconds::zero()) {
      throw Error(
          fmt::format("task '{}': the period must be positive (got {} ns)", t.name, t.period.count()));
    }
    if (t.deadline <= nanoseconds::zero()) {
      throw Error(
          fmt::format("task '{}': the deadline must be positive (got {} ns)", t.name, t.deadline.count()));
    }
    if (t.offset < nanoseconds::zero()) {
      throw Error(
          fmt::format("task '{}': the offset must not be negative (got {} ns)", t.name, t.offset.count()));
    }
  }
  if (config_.duration && *config_.duration <= nanoseconds::zero()) {
    throw Error("the run's duration must be positive");
  }
  if (config_.jobs_per_task && *config_.jobs_per_task == 0)
    throw Error("the number of jobs per task must be positive");
  if (config_.drain < nanoseconds::zero()) throw Error("the drain time must not be negative");
  state_.reset(new TaskState[tasks_.size()]);
}

ReleaseEngine::~ReleaseEngine() = default;

void ReleaseEngine::start(nanoseconds origin) {
  if (started_.load(std::memory_order_acquire)) throw Error("the release engine was already started");
  origin_ns_.store(origin.count(), std::memory_order_relaxed);
  started_.store(true, std::memory_order_release);
}

nanoseconds ReleaseEngine::origin() const noexcept {
  return nanoseconds(origin_ns_.load(std::memory_order_acquire));
}
bool ReleaseEngine::started() const noexcept { return started_.load(std::memory_order_acquire); }

nanoseconds ReleaseEngine::release_time(std::uint32_t task, std::uint64_t k) const noexcept {
  const auto& t = tasks_[task];
  return origin() + t.offset + t.period * static_cast<std::int64_t>(k);
}

bool ReleaseEngine::within_limits(std::uint32_t task, std::uint64_t k) const noexcept {
  if (config_.jobs_per_task && k >= *config_.jobs_per_task) return false;
  if (config_.duration) {
    const auto& t = tasks_[task];
    if (t.offset + t.period * static_cast<std::int64_t>(k) >= *config_.duration) return false;
  }
  return true;
}

std::optional<std::uint64_t> ReleaseEngine::planned_releases() const {
  if (!config_.duration && !config_.jobs_per_task) return std::nullopt;
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < tasks_.size(); ++i) {
    std::uint64_t n = config_.jobs_per_task.value_or(UINT64_MAX);
    if (config_.duration) {
      const auto& t = tasks_[i];
      std::uint64_t by_time =
          t.offset >= *config_.duration
              ? 0
              : static_cast<std::uint64_t>((*config_.duration - t.offset - nanoseconds(1)) / t.period) + 1;
      n = std::min(n, by_time);
    }
    total += n;
  }
  return total;
}

namespace {
/// How long a lane waits for the report of a finish before it skips a release under
/// "skip" (see run_lane).
constexpr nanoseconds kFinishReportGrace = std::chrono::milliseconds(1);
}  // namespace

void ReleaseEngine::wake_lanes() noexcept {
  epoch_.fetch_add(1, std::memory_order_acq_rel);
  clock_.notify(epoch_);
}

void ReleaseEngine::finished(std::uint32_t task, std::uint64_t job, nanoseconds at) noexcept {
  TaskState& s = state_[task];
  s.last_finish_ns.store(at.count(), std::memory_order_relaxed);
  // seq_cst pairs with the lane's store of wants_wake and its re-check of
  // finished_through: at least one of the two sides sees the other.
  s.finished_through.store(job + 1, std::memory_order_seq_cst);
  if (s.wants_wake.load(std::memory_order_seq_cst)) wake_lanes();
}

void ReleaseEngine::note_stop_time() noexcept {
  std::int64_t none = INT64_MAX;
  stop_ns_.compare_exchange_strong(none, clock_.now().count(), std::memory_order_acq_rel);
}

nanoseconds ReleaseEngine::stop_time() const noexcept {
  return nanoseconds(stop_ns_.load(std::memory_order_acquire));
}

void ReleaseEngine::request_stop() noexcept {
  note_stop_time();
  stop_.store(true, std::memory_order_seq_cst);
  wake_lanes();
}

void ReleaseEngine::abandon() noexcept {
  note_stop_time();
  abandon_.store(true, std::memory_order_seq_cst);
  stop_.store(true, std::memory_order_seq_cst);
  wake_lanes();
}

bool ReleaseEngine::stop_requested() const noexcept { return stop_.load(std::memory_order_acquire); }
bool ReleaseEngine::abandoned() const noexcept { return abandon_.load(std::memory_order_acquire); }
bool ReleaseEngine::stalled() const noexcept { return stalled_.load(std::memory_order_acquire); }

namespace {
/// a + b, saturated at nanoseconds::max() (both non-negative).
nanoseconds saturating_add(nanoseconds a, nanoseconds b) noexcept {
  return a > nanoseconds::max() - b ? nanoseconds::max() : a + b;
}
}  // namespace

std::optional<nanoseconds> ReleaseEngine::last_release_of(std::uint32_t task) const noexcept {
  const PeriodicTask& t = tasks_[task];
  std::optional<nanoseconds> last;
  if (config_.duration) last = *config_.duration;  // a bound: releases are before it
  if (config_.jobs_per_task) {
    // Job N - 1's nominal release, offset + (N - 1)·T, saturated (N may be huge).
    const std::uint64_t k = *config_.jobs_per_task - 1;
    const auto room = static_cast<std::uint64_t>((nanoseconds::max() - t.offset) / t.period);
    const nanoseconds by_jobs =
        k > room ? nanoseconds::max() : t.offset + t.period * static_cast<std::int64_t>(k);
    last = last ? std::min(*last, by_jobs) : by_jobs;
  }
  return last;
}

std::optional<nanoseconds> ReleaseEngine::latest_over_tasks(bool plus_deadline) const noexcept {
  std::optional<nanoseconds> latest;
  for (std::uint32_t i = 0; i < tasks_.size(); ++i) {
    const std::optional<nanoseconds> last = last_release_of(i);
    if (!last) return std::nullopt;
    const nanoseconds value = plus_deadline ? saturating_add(*last, tasks_[i].deadline) : *last;
    latest = std::max(latest.value_or(nanoseconds::zero()), value);
  }
  return latest;
}

std::optional<nanoseconds> ReleaseEngine::latest_deadline() const noexcept { return latest_over_tasks(true); }

std::optional<nanoseconds> ReleaseEngine::releasing_ends() const noexcept {
  const std::optional<nanoseconds> end = latest_over_tasks(false);
  if (!end || *end > nanoseconds::max() - origin()) return std::nullopt;
  return origin() + *end;
}

std::vector<Event> ReleaseEngine::unconsidered_releases(nanoseconds until, std::size_t limit,
                                                        std::uint64_t* left_out) const {
  std::vector<Event> out;
  std::uint64_t others = 0;
  for (std::uint32_t t = 0; t < tasks_.size(); ++t) {
    const TaskState& s = state_[t];
    // A lane counts every release it considers as released or skipped, in order.
    std::uint64_t k = s.released.load(std::memory_order_acquire) + s.skipped.load(std::memory_order_acquire);
    for (; within_limits(t, k) && release_time(t, k) <= until; ++k) {
      if (out.size() >= limit) {
        ++others;
        continue;
      }
      Event e;
      e.kind = EventKind::skip;
      e.time = until;
      e.release = release_time(t, k);
      e.aux = e.release;
      e.task = t;
      e.job = k;
      e.flags = event_flag::at_stop;
      out.push_back(e);
    }
  }
  if (left_out != nullptr) *left_out = others;
  return out;
}

namespace {
/// How much longer than the lanes' own drain limit abandon_if_stalled() waits, so that
/// a lane that can end by itself does so first.
constexpr nanoseconds kStallGrace = std::chrono::milliseconds(500);
}  // namespace

std::optional<Stall> ReleaseEngine::abandon_if_stalled() {
  if (!started() || stop_requested()) return std::nullopt;
  const std::optional<nanoseconds> ends = releasing_ends();
  if (!ends) return std::nullopt;
  const nanoseconds now = clock_.now();
  if (now <= *ends) return std::nullopt;
  std::optional<Stall> stall;
  nanoseconds last_event = *ends;
  nanoseconds longest = nanoseconds::zero();
  for (std::uint32_t i = 0; i < tasks_.size(); ++i) {
    const TaskState& s = state_[i];
    longest = std::max({longest, tasks_[i].deadline, tasks_[i].work});
    last_event = std::max({last_event, nanoseconds(s.last_release_ns.load(std::memory_order_relaxed)),
                           nanoseconds(s.last_finish_ns.load(std::memory_order_relaxed))});
    // finished_through first: it never passes released_through, so a release and its
    // finish between the two loads cannot make a finished job look in flight.
    const std::uint64_t finished = s.finished_through.load(std::memory_order_acquire);
    const std::uint64_t released = s.released_through.load(std::memory_order_acquire);
    if (!stall && released != finished) stall = Stall{i, released - 1, {}, {}};
  }
  if (!stall) return std::nullopt;
  const nanoseconds patience = longest > nanoseconds::max() - config_.drain - kStallGrace
                                   ? nanoseconds::max()
                                   : longest + config_.drain + kStallGrace;
  if (now - last_event <= patience) return std::nullopt;
  stall->quiet = now - last_event;
  stall->patience = patience;
  stalled_.store(true, std::memory_order_release);
  abandon();
  return stall;
}

ReleaseCounts ReleaseEngine::counts(std::uint32_t task) const noexcept {
  const TaskState& s = state_[task];
  ReleaseCounts c;
  c.released = s.released.load(std::memory_order_relaxed);
  c.skipped = s.skipped.load(std::memory_order_relaxed);
  c.late = s.late.load(std::memory_order_relaxed);
  // finished_through first: it never passes released_through (see abandon_if_stalled).
  const std::uint64_t finished = s.finished_through.load(std::memory_order_acquire);
  c.in_flight = s.released_through.load(std::memory_order_acquire) != finished;
  return c;
}

std::uint64_t ReleaseEngine::jobs_in_flight() const noexcept {
  std::uint64_t n = 0;
  for (std::uint32_t i = 0; i < tasks_.size(); ++i) n += counts(i).in_flight ? 1 : 0;
  return n;
}

void ReleaseEngine::run(ReleaseSink& sink, ThreadRecorder* recorder) {
  std::vector<std::uint32_t> all(tasks_.size());
  std::iota(all.begin(), all.end(), 0u);
  run_lane(all, sink, recorder);
}

void ReleaseEngine::run_lane(std::span<const std::uint32_t> lane, ReleaseSink& sink,
                             ThreadRecorder* recorder) {
  if (!started()) throw Error("the release engine must be started (start(origin)) before a lane runs");
  for (std::uint32_t t : lane) {
    if (t >= tasks_.size()) throw Error(fmt::format("release lane names task {} of {}", t, tasks_.size()));
    if (state_[t].claimed.exchange(true)) {
      throw Error(
          fmt::format("task '{}' is in two release lanes; give each task to one lane", tasks_[t].name));
    }
  }

  auto record = [&](EventKind kind, std::uint32_t t, std::uint64_t k, nanoseconds release,
                    nanoseconds eligible, std::uint8_t flags) {
    if (recorder == nullptr) return;
    Event e;
    e.kind = kind;
    e.time = clock_.now();
    e.release = release;
    e.aux = eligible;
    e.task = t;
    e.job = k;
    e.flags = flags;
    recorder->record(e);
  };

  bool draining = false;
  nanoseconds drain_until = nanoseconds::max();
  bool stop_drain_set = false;
  // When the stop came (stop_time(); the moment this lane first saw it if that is
  // earlier, for a stop flag without a time): releases due by then were part of the run
  // (skipped at the stop), later ones were not. Not the moment the lane saw it: a lane
  // inside a long job (partitioned-dm) sees the stop only when the job ends, and the
  // releases due meanwhile came after the stop.
  nanoseconds stop_seen = nanoseconds::max();

  for (;;) {
    const std::uint32_t seen = epoch_.load(std::memory_order_acquire);
    const bool stopping = stop_.load(std::memory_order_acquire);
    nanoseconds now = clock_.now();
    if (stopping && stop_seen == nanoseconds::max()) stop_seen = std::min(now, stop_time());
    nanoseconds wake = nanoseconds::max();
    bool more_to_release = false;  // a release of this lane is still ahead or pending
    bool any_in_flight = false;
    nanoseconds latest_deadline_in_flight = nanoseconds::min();
    bool stop_arrived = false;  // during this pass, while the sink ran a job
    bool released = false;      // this pass released a job

    for (std::uint32_t t : lane) {
      TaskState& s = state_[t];
      const PeriodicTask& task = tasks_[t];
      for (;;) {
        const std::uint64_t k = s.next;
        if (!within_limits(t, k)) break;
        const nanoseconds r = release_time(t, k);
        if (stopping && r > stop_seen) break;  // after the stop: not part of the run
        if (r > now) {
          if (!stopping) {
            more_to_release = true;
            wake = std::min(wake, r);
          }
          break;
        }
        if (stopping) {
          // Due before the stop was seen, but releasing has ended: accounted as skipped.
          record(EventKind::skip, t, k, r, r, event_flag::at_stop);
          s.skipped.fetch_add(1, std::memory_order_relaxed);
          ++s.next;
          continue;
        }
        const std::uint64_t released_through = s.released_through.load(std::memory_order_relaxed);
        s.wants_wake.store(false, std::memory_order_relaxed);
        std::uint64_t finished_through = s.finished_through.load(std::memory_order_seq_cst);
        bool previous_finished = finished_through == released_through;
        if (!previous_finished) {
          // Hear about the finish; re-check after announcing it (see finished()).
          s.wants_wake.store(true, std::memory_order_seq_cst);
          finished_through = s.finished_through.load(std::memory_order_seq_cst);
          previous_finished = finished_through == released_through;
          if (!previous_finished && config_.overrun == OverrunPolicy::wait) {
            more_to_release = true;  // pending: released when the previous job finishes
            break;
          }
          if (!previous_finished && now < r + kFinishReportGrace) {
            // Skip only a release that the previous job really overran: a job may have
            // finished before r and not be reported yet (its thread takes its finish
            // time, then records it; this lane may be the thread that preempted it).
            more_to_release = true;
            wake = std::min(wake, r + kFinishReportGrace);
            break;
          }
          s.wants_wake.store(false, std::memory_order_relaxed);
        }
        const nanoseconds previous_finish =
            released_through > 0 && previous_finished
                ? nanoseconds(s.last_finish_ns.load(std::memory_order_relaxed))
                : nanoseconds::min();
        const bool overran = !previous_finished || previous_finish > r;
        if (overran && config_.overrun == OverrunPolicy::skip) {
          record(EventKind::skip, t, k, r, r, 0);
          s.skipped.fetch_add(1, std::memory_order_relaxed);
          ++s.next;
          continue;
        }
        Release rel;
        rel.task = t;
        rel.job = k;
        rel.release = r;
        rel.eligible = overran ? previous_finish : r;
        rel.deadline = r + task.deadline;
        rel.late = overran;
        s.released_through.store(k + 1, std::memory_order_release);
        s.last_release_ns.store(now.count(), std::memory_order_relaxed);
        s.released.fetch_add(1, std::memory_order_relaxed);
        if (overran) s.late.fetch_add(1, std::memory_order_relaxed);
        ++s.next;
        record(EventKind::release, t, k, r, rel.eligible, overran ? event_flag::late : 0);
        sink.release(rel);
        released = true;
        now = clock_.now();  // the sink may have run the job
        if (stop_.load(std::memory_order_acquire)) {
          // A stop that came while the sink ran the job (a lane that runs its jobs
          // itself, partitioned-dm): release nothing more; start the pass again.
          stop_arrived = true;
          break;
        }
      }
      if (stop_arrived) break;
      if (s.released_through.load(std::memory_order_relaxed) !=
          s.finished_through.load(std::memory_order_acquire)) {
        any_in_flight = true;
        latest_deadline_in_flight =
            std::max(latest_deadline_in_flight,
                     release_time(t, s.released_through.load(std::memory_order_relaxed) - 1) + task.deadline);
      }
    }

    if (released) sink.pass_done();
    if (stop_arrived) continue;
    if (!more_to_release) {
      if (!any_in_flight || abandon_.load(std::memory_order_acquire)) break;
      if (!draining) {
        draining = true;
        drain_until =
            stopping ? now + config_.drain : std::max(now, latest_deadline_in_flight) + config_.drain;
        stop_drain_set = stopping;
      } else if (stopping && !stop_drain_set) {
        drain_until = std::min(drain_until, now + config_.drain);
        stop_drain_set = true;
      }
      if (now >= drain_until) break;  // the jobs still running are abandoned
      // Hear about every finish now; if one slipped in before the flag, look again.
      bool finish_slipped_in = false;
      for (std::uint32_t t : lane) {
        TaskState& s = state_[t];
        const std::uint64_t rt = s.released_through.load(std::memory_order_relaxed);
        if (rt == s.finished_through.load(std::memory_order_acquire)) continue;
        s.wants_wake.store(true, std::memory_order_seq_cst);
        if (rt == s.finished_through.load(std::memory_order_seq_cst)) finish_slipped_in = true;
      }
      if (finish_slipped_in) continue;
      wake = std::min(wake, drain_until);
    }
    clock_.wait(epoch_, seen, wake);
  }
  for (std::uint32_t t : lane) state_[t].wants_wake.store(false, std::memory_order_relaxed);
}

}  // namespace takt::platform
