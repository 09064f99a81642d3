// Scheduling latency (RT-OpenMP Table II): a high-priority job released while a low-priority job occupies the
// cores.
#include "bench/latency/latency_bench.hpp"
#include "bench/latency/pinned_thread.hpp"

#include "os/clock.hpp"
#include "os/futex.hpp"
#include "platform/job_runner.hpp"
#include "platform/metrics.hpp"
#include "platform/recorder.hpp"
#include "platform/release_engine.hpp"

#include <fmt/core.h>

#include <atomic>
#include <optional>

namespace takt::bench {

using std::chrono::nanoseconds;
using namespace std::chrono_literals;

namespace {

// SCHED_FIFO priorities of the roles (1 lowest, 99 highest).
constexpr int low_job_priority = 10;
constexpr int high_job_priority = 80;
constexpr int central_lane_priority = 81;

/// The high-priority job does nothing: its release latency is the whole measurement.
struct EmptyJob : Task {
  void run(const Job&) override {}
};

/// Spins on its core for `busy` out of every `period`, from `origin` until `end`.
void low_priority_job(nanoseconds origin, nanoseconds end, nanoseconds period, nanoseconds busy,
                      const std::atomic<bool>& stop) {
  for (std::int64_t k = 0; !stop.load(std::memory_order_relaxed); ++k) {
    const nanoseconds start = origin + period * k;
    if (start >= end) break;
    os::sleep_until(start);
    while (os::monotonic_now() < start + busy && !stop.load(std::memory_order_relaxed)) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }
}

/// Hands each release to one worker thread through a futex word (a central lane).
class HandoffSink final : public platform::ReleaseSink {
 public:
  explicit HandoffSink(platform::ReleaseEngine& engine) : engine_(engine) {}

  void release(const platform::Release& r) override {
    // At most one job of the task is in flight: the slot is free when the lane
    // releases (the engine skips a release that finds the previous job running).
    slot_ = r;
    sequence_.fetch_add(1, std::memory_order_release);
    os::futex_wake(sequence_, 1);
  }

  /// The worker: waits for each release and runs the (empty) job.
  void work(platform::ThreadRecorder* recorder, const std::atomic<bool>& stop) {
    std::uint32_t seen = 0;
    while (!stop.load(std::memory_order_acquire)) {
      const std::uint32_t now_seq = sequence_.load(std::memory_order_acquire);
      if (now_seq == seen) {
        os::futex_wait_until(sequence_, seen, os::monotonic_now() + 50ms);  // bounded: re-check stop
        continue;
      }
      seen = now_seq;
      const platform::Release r = slot_;
      recorder->job_start(r.task, r.job, r.release, os::monotonic_now());
      const nanoseconds done = os::monotonic_now();
      recorder->job_finish(r.task, r.job, r.release, r.deadline, done, false);
      engine_.finished(r.task, r.job, done);
    }
  }

 private:
  platform::ReleaseEngine& engine_;
  platform::Release slot_;
  std::atomic<std::uint32_t> sequence_{0};
};

}  // namespace

SchedulingLatency measure_scheduling_latency(const std::vector<int>& cpus, bool fifo, bool handoff,
                                             nanoseconds duration, std::chrono::microseconds period) {
  const nanoseconds T = period;
  auto priority = [&](int p) { return fifo ? std::optional<int>(p) : std::nullopt; };

  std::vector<platform::PeriodicTask> specs;
  if (handoff) {
    specs.push_back({"high", T, T, T * 3 / 10, 1});
  } else {
    for (int cpu : cpus) specs.push_back({fmt::format("high@cpu{}", cpu), T, T, T * 3 / 10, 1});
  }
  platform::ReleaseConfig config;
  config.duration = duration;
  platform::ReleaseEngine engine(specs, config);
  const std::size_t threads = specs.size() + 2;
  platform::Recorder recorder(
      {threads, platform::Recorder::events_per_thread_for(*engine.planned_releases(), 4, specs.size())});

  const nanoseconds origin = os::monotonic_now() + 50ms;  // every thread pinned and ready by then
  engine.start(origin);
  std::atomic<bool> stop{false};
  std::vector<std::thread> all;
  for (int cpu : cpus) {
    all.push_back(start_pinned(cpu, priority(low_job_priority), [&, origin] {
      low_priority_job(origin, origin + duration + T, T, T * 6 / 10, stop);
    }));
  }

  EmptyJob job;
  std::vector<Task*> tasks(specs.size(), &job);
  std::optional<HandoffSink> hand;
  std::thread worker;
  if (handoff) {
    hand.emplace(engine);
    platform::ThreadRecorder* worker_recorder = recorder.attach("worker");
    worker = start_pinned(cpus.back(), priority(high_job_priority),
                          [&, worker_recorder] { hand->work(worker_recorder, stop); });
    all.push_back(start_pinned(cpus.front(), priority(central_lane_priority), [&] {
      platform::ThreadRecorder* rec = recorder.attach("lane");
      engine.run(*hand, rec);
    }));
  } else {
    for (std::uint32_t i = 0; i < cpus.size(); ++i) {
      all.push_back(start_pinned(cpus[i], priority(high_job_priority), [&, i] {
        platform::ThreadRecorder* rec = recorder.attach(fmt::format("lane cpu{}", cpus[i]));
        platform::InlineSink sink(engine, tasks, rec);
        const std::uint32_t mine[] = {i};
        engine.run_lane(mine, sink, rec);
      }));
    }
  }
  // Lanes return when their releases are done; then the load and the worker stop.
  for (std::size_t i = cpus.size(); i < all.size(); ++i) all[i].join();
  stop.store(true);
  for (std::size_t i = 0; i < cpus.size(); ++i) all[i].join();
  if (worker.joinable()) worker.join();

  platform::RunInfo info;
  info.origin = origin;
  info.end = os::monotonic_now();
  platform::RunMetrics m = platform::compute_metrics(specs, recorder, info, std::nullopt, std::nullopt);
  SchedulingLatency result;
  std::vector<std::int64_t> samples;
  samples.reserve(m.jobs.size());
  for (const auto& j : m.jobs) {
    if (auto lat = j.release_latency()) samples.push_back(lat->count());
    if (j.start && j.start_cpu >= 0) ++result.started_on[j.start_cpu];
  }
  result.stats = platform::latency_stats(std::move(samples));
  for (const auto& t : m.tasks) {
    result.released += t.released;
    result.skipped += t.skipped;
  }
  return result;
}

}  // namespace takt::bench
