// Tests of the release engine on real threads and CLOCK_MONOTONIC: hand-off to a worker, overruns, stopping,
// signals.
#include "platform/job_runner.hpp"
#include "platform/metrics.hpp"
#include "platform/release_engine.hpp"
#include "platform/signal_stop.hpp"
#include "platform/stop_flag.hpp"
#include "takt/error.hpp"

#include "os/clock.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

using namespace std::chrono_literals;
using std::chrono::nanoseconds;
using namespace takt::platform;

namespace {

/// A worker thread that runs released jobs from a queue (the lane hands them off).
class QueueExecutor final : public ReleaseSink {
 public:
  QueueExecutor(ReleaseEngine& engine, Recorder& recorder, std::function<void(const Release&)> body)
      : engine_(engine), body_(std::move(body)) {
    worker_ = std::thread([this, &recorder] {
      ThreadRecorder* rec = recorder.attach("worker");
      for (;;) {
        Release r;
        {
          std::unique_lock lock(mutex_);
          ready_.wait(lock, [this] { return closed_ || !queue_.empty(); });
          if (queue_.empty()) break;
          r = queue_.front();
          queue_.pop_front();
        }
        rec->job_start(r.task, r.job, r.release, takt::os::monotonic_now());
        body_(r);
        const nanoseconds done = takt::os::monotonic_now();
        rec->job_finish(r.task, r.job, r.release, r.deadline, done, false);
        engine_.finished(r.task, r.job, done);
      }
      rec->close();
    });
  }
  ~QueueExecutor() override { close(); }

  void release(const Release& r) override {
    {
      std::lock_guard guard(mutex_);
      queue_.push_back(r);
    }
    ready_.notify_one();
  }

  void close() {
    {
      std::lock_guard guard(mutex_);
      closed_ = true;
    }
    ready_.notify_one();
    if (worker_.joinable()) worker_.join();
  }

 private:
  ReleaseEngine& engine_;
  std::function<void(const Release&)> body_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Release> queue_;
  bool closed_ = false;
  std::thread worker_;
};

PeriodicTask periodic(nanoseconds period, nanoseconds deadline) {
  return PeriodicTask{"t", period, deadline, 0ns, 1};
}

RunMetrics finish(ReleaseEngine& engine, Recorder& recorder) {
  RunInfo info;
  info.origin = engine.origin();
  info.end = takt::os::monotonic_now();
  return compute_metrics(engine.tasks(), recorder, info, std::nullopt, std::nullopt);
}

}  // namespace

TEST(ReleaseEngineThreads, HandsJobsToAWorkerAndAccountsForEveryRelease) {
  ReleaseConfig config;
  config.jobs_per_task = 40;
  ReleaseEngine engine({periodic(2ms, 2ms)}, config);
  Recorder recorder({4, 1024});
  QueueExecutor executor(engine, recorder, [](const Release&) { takt::os::spin_for(100us); });
  ThreadRecorder* lane = recorder.attach("lane");
  engine.start(takt::os::monotonic_now() + 2ms);
  engine.run(executor, lane);
  executor.close();
  RunMetrics m = finish(engine, recorder);
  const TaskMetrics& t = m.tasks[0];
  EXPECT_EQ(t.jobs, 40u) << "every release is a job, released or skipped";
  EXPECT_EQ(t.released + t.skipped, 40u);
  EXPECT_EQ(t.released, engine.counts(0).released);
  EXPECT_EQ(t.abandoned + t.unfinished, 0u);
  EXPECT_EQ(t.response.count, t.released);
  EXPECT_GE(t.response.min, 100us) << "a job spins 100 µs";
  EXPECT_GE(m.system.release_latency.min, 0ns);
  EXPECT_EQ(engine.jobs_in_flight(), 0u);
}

TEST(ReleaseEngineThreads, InjectedOverrunIsSkippedUnderSkip) {
  ReleaseConfig config;
  config.jobs_per_task = 20;
  config.overrun = OverrunPolicy::skip;
  ReleaseEngine engine({periodic(2ms, 2ms)}, config);
  Recorder recorder({4, 1024});
  // The first job run with index k ≥ 2 (job 2 itself may be skipped on a loaded
  // machine) takes ≥ 7 ms from its release r: the releases at r + 2, 4 and 6 ms find it
  // running and are skipped.
  bool overran = false;  // only the worker thread touches it
  QueueExecutor executor(engine, recorder, [&overran](const Release& r) {
    if (r.job >= 2 && !overran) {
      overran = true;
      std::this_thread::sleep_for(7ms);
    }
  });
  engine.start(takt::os::monotonic_now() + 2ms);
  engine.run(executor, recorder.attach("lane"));
  executor.close();
  RunMetrics m = finish(engine, recorder);
  EXPECT_GE(engine.counts(0).skipped, 3u);
  EXPECT_EQ(engine.counts(0).late, 0u);
  EXPECT_EQ(m.tasks[0].jobs, 20u);
  EXPECT_EQ(m.tasks[0].released + m.tasks[0].skipped, 20u);
  EXPECT_GE(m.tasks[0].misses, 4u) << "the overrunning job itself and the three skipped releases";
}

TEST(ReleaseEngineThreads, InjectedOverrunIsReleasedLateUnderWait) {
  ReleaseConfig config;
  config.jobs_per_task = 10;
  config.overrun = OverrunPolicy::wait;
  ReleaseEngine engine({periodic(2ms, 2ms)}, config);
  Recorder recorder({4, 1024});
  QueueExecutor executor(engine, recorder, [](const Release& r) {
    if (r.job == 2) std::this_thread::sleep_for(7ms);
  });
  engine.start(takt::os::monotonic_now() + 2ms);
  engine.run(executor, recorder.attach("lane"));
  executor.close();
  RunMetrics m = finish(engine, recorder);
  EXPECT_EQ(engine.counts(0).skipped, 0u);
  EXPECT_EQ(engine.counts(0).released, 10u) << "under wait every job is released";
  EXPECT_GE(engine.counts(0).late, 3u) << "jobs 3, 4, 5 wait for job 2";
  EXPECT_GE(m.tasks[0].late, 3u);
  for (const JobResult& j : m.jobs) {
    if (j.late) {
      EXPECT_GT(j.eligible, j.release);
      EXPECT_EQ(j.deadline, j.release + 2ms) << "deadline stays release-based";
    }
  }
}

TEST(ReleaseEngineThreads, StopFromAnotherThreadEndsAnUnlimitedRun) {
  // A period of 30 s: after the first release the lane sleeps until the second unless
  // request_stop() wakes it (with 1 ms it woke every millisecond anyway, so a stop that
  // did not wake it passed too).
  ReleaseEngine engine({periodic(30s, 30s)}, ReleaseConfig{});
  Recorder recorder({4, 4096});
  QueueExecutor executor(engine, recorder, [](const Release&) {});
  engine.start(takt::os::monotonic_now());
  std::thread stopper([&] {
    std::this_thread::sleep_for(30ms);
    engine.request_stop();
  });
  const auto t0 = takt::os::monotonic_now();
  engine.run(executor, recorder.attach("lane"));
  const auto took = takt::os::monotonic_now() - t0;
  stopper.join();
  executor.close();
  EXPECT_TRUE(engine.stop_requested());
  EXPECT_GE(engine.counts(0).released, 1u);
  EXPECT_LT(took, 5s) << "the lane woke up for the stop";
}

TEST(ReleaseEngineThreads, SigtermStopsTheRunThroughSignalStop) {
  // A period of 30 s: the lane sleeps until then unless the signal wakes it, so even a
  // sender delayed by seconds on a loaded machine leaves the answer clear (the release
  // at 300 ms of a shorter period could come first).
  ReleaseEngine engine({periodic(30s, 30s)}, ReleaseConfig{});
  Recorder recorder({4, 1024});
  QueueExecutor executor(engine, recorder, [](const Release&) {});
  SignalStop signals(engine);
  engine.start(takt::os::monotonic_now());
  std::thread sender([] {
    std::this_thread::sleep_for(20ms);
    std::raise(SIGTERM);  // handled on this thread; the lane sleeps until 30 s and must wake
  });
  const auto t0 = takt::os::monotonic_now();
  engine.run(executor, recorder.attach("lane"));
  const auto took = takt::os::monotonic_now() - t0;
  sender.join();
  executor.close();
  EXPECT_EQ(signals.signals_received(), 1);
  EXPECT_EQ(signals.last_signal(), SIGTERM);
  EXPECT_TRUE(engine.stop_requested());
  EXPECT_FALSE(engine.abandoned());
  EXPECT_EQ(engine.counts(0).released, 1u) << "only the release at 0 ms";
  EXPECT_LT(took, 10s) << "woken by the signal, not by the next release";
}

TEST(ReleaseEngineThreads, SecondSignalAbandons) {
  ReleaseEngine engine({periodic(5ms, 5ms)}, ReleaseConfig{});
  SignalStop signals(engine);
  std::raise(SIGINT);
  std::raise(SIGINT);
  EXPECT_TRUE(engine.stop_requested());
  EXPECT_TRUE(engine.abandoned());
  EXPECT_EQ(signals.signals_received(), 2);
}

TEST(ReleaseEngineThreads, TheSignalHandlerLeavesErrnoAsItFoundIt) {
  // A StopFlag writes its notice to stderr from the handler; with stderr closed the write
  // fails (EBADF). Until 2026-11-29 that errno replaced the interrupted code's, which may
  // be between a failing call and its EINTR check (cyclictest's poll loop, write_all).
  StopFlag flag("\nnotice\n");
  SignalStop signals(flag);
  const int saved = ::dup(STDERR_FILENO);
  ASSERT_GE(saved, 0);
  ::close(STDERR_FILENO);
  errno = EINTR;
  std::raise(SIGINT);
  const int after = errno;
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  EXPECT_TRUE(flag.requested());
  EXPECT_EQ(after, EINTR) << std::strerror(after);
}

TEST(ReleaseEngineThreads, SignalsWithoutATargetAreCountedAndReachTheTargetAttachedLater) {
  // A command holds its SignalStop from before the run until its results are written.
  // Before, the run's SignalStop put the default handlers back when the run ended, so a
  // second Ctrl-C 10 ms after the first killed takt while it wrote the table and trace.
  ReleaseEngine first({periodic(5ms, 5ms)}, ReleaseConfig{});
  ReleaseEngine second({periodic(5ms, 5ms)}, ReleaseConfig{});
  SignalStop signals;
  std::raise(SIGINT);  // before the run: counted, nothing to stop yet
  EXPECT_EQ(signals.signals_received(), 1);
  signals.attach(first);
  EXPECT_TRUE(first.stop_requested());  // the signal that came before
  EXPECT_FALSE(first.abandoned());
  std::raise(SIGTERM);
  EXPECT_TRUE(first.abandoned());
  signals.detach();  // the run is over: the engine may go; its outputs are written now
  signals.attach(second);
  EXPECT_TRUE(second.stop_requested());
  EXPECT_TRUE(second.abandoned());
  EXPECT_EQ(signals.last_signal(), SIGTERM);
  // A second SignalStop while one is alive is refused, naming the fix.
  try {
    SignalStop another;
    FAIL() << "expected an error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("handle_signals = false"), std::string::npos) << e.what();
  }
}

namespace {
int sa_flags_of(int sig) {
  struct sigaction now {};
  sigaction(sig, nullptr, &now);
  return now.sa_flags;
}
}  // namespace

TEST(ReleaseEngineThreads, ASignalThatNoTargetGotIsReportedAndTheHandlersRestartCallsOnceDetached) {
  // run_task_set() keeps its SignalStop, detached, while it writes the results. A first
  // Ctrl-C then was only counted and nothing reported it (takt bench policies went on
  // to its next set); and without SA_RESTART a table written to a full pipe failed with
  // EINTR. Now the signal is reported, and the detached handlers restart system calls.
  struct sigaction before {};
  sigaction(SIGTERM, nullptr, &before);
  {
    ReleaseEngine engine({periodic(5ms, 5ms)}, ReleaseConfig{});
    SignalStop signals(engine);
    EXPECT_EQ(sa_flags_of(SIGINT) & SA_RESTART, 0) << "a blocking call must see EINTR during the run";
    EXPECT_EQ(signals.signal_since_detach(), 0);
    signals.detach();
    EXPECT_NE(sa_flags_of(SIGINT) & SA_RESTART, 0);
    EXPECT_NE(sa_flags_of(SIGTERM) & SA_RESTART, 0);
    EXPECT_EQ(signals.signal_since_detach(), 0);
    std::raise(SIGTERM);
    EXPECT_FALSE(engine.stop_requested());
    EXPECT_EQ(signals.signal_since_detach(), SIGTERM);
    signals.restore_handlers();
    struct sigaction now {};
    sigaction(SIGTERM, nullptr, &now);
    EXPECT_EQ(now.sa_handler, before.sa_handler) << "the handler of before is back";
    EXPECT_EQ(signals.signal_since_detach(), SIGTERM);
  }
  {
    // A signal the target got before detach() is not one "since detach".
    ReleaseEngine engine({periodic(5ms, 5ms)}, ReleaseConfig{});
    SignalStop signals(engine);
    std::raise(SIGINT);
    EXPECT_TRUE(engine.stop_requested());
    signals.detach();
    EXPECT_EQ(signals.signal_since_detach(), 0);
    std::raise(SIGINT);  // the second: counted, not passed on to the (detached) engine
    EXPECT_FALSE(engine.abandoned());
    EXPECT_EQ(signals.signal_since_detach(), SIGINT);
  }
}

TEST(ReleaseEngineThreads, ASignalIgnoredBeforeStaysIgnored) {
  // A shell starts a script's background jobs with SIGINT ignored; SignalStop installed
  // its handler anyway, so a Ctrl-C meant for the foreground stopped them.
  struct sigaction ignore {}, before {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGINT, &ignore, &before);
  {
    ReleaseEngine engine({periodic(5ms, 5ms)}, ReleaseConfig{});
    SignalStop signals(engine);
    std::raise(SIGINT);
    EXPECT_EQ(signals.signals_received(), 0);
    EXPECT_FALSE(engine.stop_requested());
    signals.detach();  // installs the counting handlers: SIGINT still ignored
    std::raise(SIGINT);
    EXPECT_EQ(signals.signals_received(), 0);
    std::raise(SIGTERM);  // not ignored before: handled
    EXPECT_EQ(signals.signals_received(), 1);
  }
  struct sigaction now {};
  sigaction(SIGINT, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_IGN) << "still ignored after the SignalStop";
  sigaction(SIGINT, &before, nullptr);
}

TEST(ReleaseEngineThreads, ADetachedSignalStopStillLetsTheThirdSignalEndTheProcess) {
  // Counting signals without a target must not trap the user: the third one restores
  // the default action and re-raises (exit by SIGINT), as during a run.
  EXPECT_EXIT(
      {
        SignalStop signals;
        std::raise(SIGINT);
        std::raise(SIGINT);
        std::raise(SIGINT);
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGINT), "");
}

namespace {
// Counts its jobs and remembers the threads that ran them (one lane runs a task's jobs).
struct SpinTask : takt::Task {
  void run(const takt::Job&) override {
    takt::os::spin_for(50us);
    const std::lock_guard lock(mutex);
    ++runs;
    threads.insert(std::this_thread::get_id());
  }
  std::mutex mutex;
  int runs = 0;
  std::set<std::thread::id> threads;
};
}  // namespace

TEST(ReleaseEngineThreads, OneInlineLanePerTask) {
  ReleaseConfig config;
  config.duration = 40ms;
  // A lane descheduled for longer than a period (a loaded machine, ThreadSanitizer) finishes
  // a job after the next release: with the default policy (skip) that release would be
  // skipped and the counts below would depend on the machine's load; waiting releases it
  // late instead, so every job runs.
  config.overrun = OverrunPolicy::wait;
  std::vector<PeriodicTask> specs{PeriodicTask{"a", 4ms, 4ms, 0ns, 1}, PeriodicTask{"b", 5ms, 5ms, 1ms, 1}};
  ReleaseEngine engine(specs, config);
  Recorder recorder({2, 1024});
  SpinTask a, b;
  takt::Task* tasks[] = {&a, &b};
  engine.start(takt::os::monotonic_now() + 2ms);
  std::vector<std::thread> lanes;
  for (std::uint32_t i = 0; i < 2; ++i) {
    lanes.emplace_back([&, i] {
      ThreadRecorder* rec = recorder.attach(i == 0 ? "lane a" : "lane b");
      InlineSink sink(engine, tasks, rec);
      const std::uint32_t mine[] = {i};
      engine.run_lane(mine, sink, rec);
      rec->close();
    });
  }
  for (auto& l : lanes) l.join();
  RunMetrics m = finish(engine, recorder);
  EXPECT_EQ(m.tasks[0].jobs, 10u);  // 0, 4, ..., 36 ms
  EXPECT_EQ(m.tasks[1].jobs, 8u);   // 1, 6, ..., 36 ms
  // Every released job ran to its end, on its task's own lane: one thread per task,
  // not the same for both.
  EXPECT_EQ(a.runs, 10);
  EXPECT_EQ(b.runs, 8);
  EXPECT_EQ(m.tasks[0].response.count + m.tasks[1].response.count, 18u);
  ASSERT_EQ(a.threads.size(), 1u);
  ASSERT_EQ(b.threads.size(), 1u);
  EXPECT_NE(*a.threads.begin(), *b.threads.begin());
  ASSERT_EQ(m.jobs.size(), 18u);
  for (const JobResult& j : m.jobs) {
    ASSERT_TRUE(j.start.has_value());
    EXPECT_GE(*j.start, j.eligible) << "a job never starts before its release";
  }
  EXPECT_EQ(m.system.threads.size(), 2u);
  EXPECT_TRUE(m.system.threads[0].closed);
}
