// Tests of the per-thread event recorder: concurrent recording, overflow counted, slots exhausted, progress.
#include "platform/recorder.hpp"
#include "os/cpu.hpp"

#include "takt/error.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <map>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using std::chrono::nanoseconds;
using namespace takt::platform;

namespace {

/// Keeps the calling thread on the CPU it runs on until the end of the scope: a move to
/// another CPU between two records adds a migration event, which takes a place in the
/// buffer (two moves made the counts of the tests below one off).
class StayOnThisCpu {
 public:
  StayOnThisCpu() : all_(takt::os::allowed_cpus()) {
    const int cpu = ::sched_getcpu();
    if (cpu >= 0) (void)takt::os::pin_current_thread(takt::os::CpuSet{cpu});
  }
  ~StayOnThisCpu() { (void)takt::os::pin_current_thread(all_); }
  StayOnThisCpu(const StayOnThisCpu&) = delete;
  StayOnThisCpu& operator=(const StayOnThisCpu&) = delete;

 private:
  takt::os::CpuSet all_;
};

}  // namespace

TEST(Recorder, ThreadsRecordConcurrentlyWhileProgressIsRead) {
  constexpr int threads = 4;
  constexpr int jobs = 2000;
  Recorder recorder({threads, 4 * jobs});
  std::atomic<bool> stop{false};
  // The workers wait halfway until the reader has seen progress that is neither 0 nor
  // the total (at most 5 s), so the reads are made while the threads record.
  std::atomic<bool> seen_midway{false};
  std::thread reader([&] {
    std::uint64_t last = 0;
    while (!stop.load()) {
      auto p = recorder.progress();
      EXPECT_GE(p.jobs_done, last) << "progress never goes back";
      last = p.jobs_done;
      if (p.jobs_done > 0 && p.jobs_done < static_cast<std::uint64_t>(threads * jobs)) seen_midway = true;
      (void)recorder.dropped();
    }
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      ThreadRecorder* rec = recorder.attach("worker " + std::to_string(t));
      ASSERT_NE(rec, nullptr);
      for (int k = 0; k < jobs; ++k) {
        if (k == jobs / 2) {
          const auto give_up = std::chrono::steady_clock::now() + 5s;
          while (!seen_midway.load() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
        }
        const nanoseconds release = 1ms * k;
        rec->job_start(static_cast<std::uint32_t>(t), static_cast<std::uint64_t>(k), release, release + 1us);
        // Every 10th job misses its deadline (finish after release + 5 µs).
        const nanoseconds finish = release + (k % 10 == 0 ? 9us : 3us);
        rec->job_finish(static_cast<std::uint32_t>(t), static_cast<std::uint64_t>(k), release, release + 5us,
                        finish, false);
      }
      rec->close();
    });
  }
  for (auto& w : workers) w.join();
  stop = true;
  reader.join();
  EXPECT_TRUE(seen_midway.load()) << "progress was never read while the threads recorded";

  auto p = recorder.progress();
  EXPECT_EQ(p.jobs_done, static_cast<std::uint64_t>(threads * jobs));
  EXPECT_EQ(p.misses, static_cast<std::uint64_t>(threads * jobs / 10));
  std::vector<Event> events = recorder.events();
  std::size_t starts = 0, finishes = 0;
  std::map<std::uint32_t, std::uint64_t> per_task;
  for (const Event& e : events) {
    if (e.kind == EventKind::start) ++starts;
    if (e.kind == EventKind::finish) {
      ++finishes;
      ++per_task[e.task];
    }
    EXPECT_GE(e.cpu, 0) << "the recorder fills in the CPU";
  }
  EXPECT_EQ(starts, static_cast<std::size_t>(threads * jobs));
  EXPECT_EQ(finishes, static_cast<std::size_t>(threads * jobs));
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(per_task[static_cast<std::uint32_t>(t)], static_cast<std::uint64_t>(jobs));
  EXPECT_TRUE(std::is_sorted(events.begin(), events.end(),
                             [](const Event& a, const Event& b) { return a.time < b.time; }));
  EXPECT_EQ(recorder.dropped(), 0u);
  auto summaries = recorder.threads();
  ASSERT_EQ(summaries.size(), static_cast<std::size_t>(threads));
  for (const auto& s : summaries) {
    EXPECT_TRUE(s.closed);
    EXPECT_GE(s.cpu, 0);
    EXPECT_EQ(s.name.rfind("worker ", 0), 0u);
  }
}

TEST(Recorder, FullBufferDropsAndCountsNeverCrashes) {
  const StayOnThisCpu here;  // no migration event: exactly the 25 records below
  Recorder recorder({1, 10});
  ThreadRecorder* rec = recorder.attach("lane");
  for (int i = 0; i < 25; ++i) rec->job_start(0, static_cast<std::uint64_t>(i), 0ns, 1us * i);
  // 10 are kept and each of the other 15 is counted once.
  EXPECT_EQ(rec->size(), 10u);
  EXPECT_EQ(rec->dropped(), 15u);
  EXPECT_EQ(recorder.dropped(), rec->dropped());
  EXPECT_EQ(recorder.events().size(), 10u);
}

TEST(Recorder, StrandEventsLeaveTheReservedPlacesToJobEvents) {
  const StayOnThisCpu here;
  Recorder recorder({1, 10, 4});
  ThreadRecorder* rec = recorder.attach("worker");
  // 20 strand events: only 10 - 4 = 6 fit (a migration event, if the thread moves,
  // is a detail event too and takes one of the 6).
  for (int i = 0; i < 20; ++i) rec->strand_begin(0, 0, static_cast<std::uint64_t>(i), 1us * i);
  EXPECT_EQ(rec->size(), 6u);
  // The reserved 4 take the jobs' outcomes.
  rec->job_start(0, 1, 0ns, 30us);
  rec->job_finish(0, 1, 0ns, 1ms, 40us, false);
  rec->job_start(0, 2, 0ns, 50us);
  rec->job_finish(0, 2, 0ns, 1ms, 60us, false);
  EXPECT_EQ(rec->size(), 10u);
  int finishes = 0;
  for (const Event& e : recorder.events()) finishes += e.kind == EventKind::finish ? 1 : 0;
  EXPECT_EQ(finishes, 2);
  // Full now: a further finish is dropped and counted.
  const std::uint64_t dropped = rec->dropped();
  rec->job_finish(0, 3, 0ns, 1ms, 70us, false);
  EXPECT_EQ(rec->size(), 10u);
  EXPECT_EQ(rec->dropped(), dropped + 1);
}

TEST(Recorder, TheJobLedgerKeepsEveryPlannedJobWhicheverThreadRecordsIt) {
  // A lane and one busy executor, 8 places each, 100 planned jobs of task 0: the
  // executor's strand events fill its buffer, and before the ledger its later starts
  // and finishes were dropped (and reported as unfinished jobs, so as misses).
  Recorder recorder({2, 8, 0, {100}});
  ThreadRecorder* lane = recorder.attach("lane");
  ThreadRecorder* executor = recorder.attach("executor");
  for (std::uint64_t k = 0; k < 100; ++k) {
    const nanoseconds release = 1ms * k;
    Event e;
    e.kind = EventKind::release;
    e.time = release + 1us;
    e.release = release;
    e.aux = release;
    e.task = 0;
    e.job = k;
    e.flags = k == 7 ? event_flag::late : 0;
    lane->record(e);
    executor->job_start(0, k, release, release + 2us);
    executor->strand_begin(0, k, 0, release + 3us);
    executor->strand_end(0, k, 0, release + 4us);
    executor->job_finish(0, k, release, release + 1ms, release + 5us, k == 9);
  }
  EXPECT_GT(executor->dropped(), 0u) << "the strand events overflowed";
  EXPECT_FALSE(recorder.first_job_drop()) << "no job event was dropped";
  std::map<EventKind, std::uint64_t> count;
  for (const Event& e : recorder.events()) {
    ++count[e.kind];
    if (e.kind == EventKind::strand_begin || e.kind == EventKind::strand_end ||
        e.kind == EventKind::migration) {
      continue;
    }
    SCOPED_TRACE(std::to_string(e.job) + " " + std::string(to_string(e.kind)));
    EXPECT_EQ(e.task, 0u);
    EXPECT_EQ(e.release, 1ms * e.job);
    EXPECT_GE(e.cpu, 0);
    if (e.kind == EventKind::release) {
      EXPECT_EQ(e.time, e.release + 1us);
      EXPECT_EQ(e.aux, e.release);
      EXPECT_EQ(e.flags, e.job == 7 ? event_flag::late : 0);
    }
    if (e.kind == EventKind::start) {
      EXPECT_EQ(e.time, e.release + 2us);
    }
    if (e.kind == EventKind::finish) {
      EXPECT_EQ(e.time, e.release + 5us);
      EXPECT_EQ(e.flags, e.job == 9 ? event_flag::failed : 0);
    }
  }
  EXPECT_EQ(count[EventKind::release], 100u);
  EXPECT_EQ(count[EventKind::start], 100u);
  EXPECT_EQ(count[EventKind::finish], 100u);
  EXPECT_EQ(recorder.progress().jobs_done, 100u);

  // Beyond the ledger (job 100) and repeated (job 5's second finish), job events go to
  // the thread's buffer, full here: dropped, and the first such drop is kept.
  executor->job_start(0, 100, 100ms, 100ms + 2us);
  executor->job_finish(0, 5, 5ms, 6ms, 100ms + 3us, false);
  ASSERT_TRUE(recorder.first_job_drop());
  EXPECT_EQ(*recorder.first_job_drop(), 100ms + 2us);
  EXPECT_EQ(recorder.ledger_jobs(), std::vector<std::uint64_t>{100});
}

TEST(Recorder, AFinishCarriesTheCpuTimeOfTheThreadThatRanTheJob) {
  // Job 0 in the ledger, job 1 beyond it (in the thread's buffer): both keep it.
  Recorder recorder({1, 8, 0, {1}});
  ThreadRecorder* rec = recorder.attach("executor");
  rec->job_finish(0, 0, 0ns, 1ms, 500us, false, 300us);
  rec->job_finish(0, 1, 1ms, 2ms, 1500us, true, 200us);
  rec->job_finish(0, 2, 2ms, 3ms, 2500us, false);
  std::map<std::uint64_t, Event> finish;
  for (const Event& e : recorder.events()) {
    if (e.kind == EventKind::finish) finish[e.job] = e;
  }
  ASSERT_EQ(finish.size(), 3u);
  EXPECT_EQ(finish[0].flags, event_flag::cpu_timed);
  EXPECT_EQ(finish[0].arg, 300'000u);
  EXPECT_EQ(finish[1].flags, event_flag::cpu_timed | event_flag::failed);
  EXPECT_EQ(finish[1].arg, 200'000u);
  EXPECT_EQ(finish[2].flags, 0);
  EXPECT_EQ(finish[2].arg, 0u);
}

TEST(Recorder, KeepsTheTimeOfTheFirstDroppedEvent) {
  const StayOnThisCpu here;
  Recorder recorder({2, 4});
  ThreadRecorder* a = recorder.attach("a");
  ThreadRecorder* b = recorder.attach("b");
  EXPECT_FALSE(recorder.first_drop());
  // Four places each: a's fifth event (50 µs) and b's fifth (5 µs) are the first dropped
  // (one place earlier if the thread moved CPU and a migration event took a place).
  for (int i = 1; i <= 6; ++i) {
    a->job_start(0, static_cast<std::uint64_t>(i), 0ns, 10us * i);
    b->job_start(1, static_cast<std::uint64_t>(i), 0ns, 1us * i);
  }
  ASSERT_TRUE(a->first_drop() && b->first_drop());
  EXPECT_GE(*a->first_drop(), 40us);
  EXPECT_LE(*a->first_drop(), 50us);
  EXPECT_GE(*b->first_drop(), 4us);
  EXPECT_LE(*b->first_drop(), 5us);
  EXPECT_EQ(recorder.first_drop(), b->first_drop()) << "the earliest over the threads";
}

TEST(Recorder, SlotsRunOutGracefully) {
  Recorder recorder({2, 16});
  EXPECT_NE(recorder.attach("a"), nullptr);
  EXPECT_NE(recorder.attach("b"), nullptr);
  EXPECT_EQ(recorder.attach("c"), nullptr);
  EXPECT_EQ(recorder.unattached(), 1u);
  EXPECT_THROW(Recorder({0, 16}), takt::Error);
  EXPECT_THROW(Recorder({1, 0}), takt::Error);
}

TEST(Recorder, KeepsTheFirstErrorsAndCountsAll) {
  Recorder recorder({1, 16});
  ThreadRecorder* rec = recorder.attach("lane");
  std::string long_message(1000, 'x');
  rec->job_error(3, 1, "first");
  rec->job_error(3, 2, long_message);
  for (int i = 0; i < 10; ++i) rec->job_error(4, 10 + static_cast<std::uint64_t>(i), "more");
  auto errors = recorder.errors();
  ASSERT_EQ(errors.size(), ThreadRecorder::kept_errors);
  EXPECT_EQ(errors[0].task, 3u);
  EXPECT_EQ(errors[0].job, 1u);
  EXPECT_EQ(errors[0].message, "first");
  EXPECT_EQ(errors[1].message.size(), ThreadRecorder::error_length - 1) << "truncated, not overflowed";
  EXPECT_EQ(recorder.error_count(), 12u);
}

TEST(Recorder, MovedThreadIsRecordedAsAMigration) {
  Recorder recorder({1, 16});
  ThreadRecorder* rec = recorder.attach("lane");
  Event e;
  e.kind = EventKind::start;
  e.cpu = 0;
  rec->record(e);
  e.kind = EventKind::finish;
  e.cpu = 1;
  e.time = 5us;
  rec->record(e);
  auto events = recorder.events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[1].kind, EventKind::migration);
  EXPECT_EQ(events[1].arg, 0u);
  EXPECT_EQ(events[1].cpu, 1);
  EXPECT_NE(events[1].flags & event_flag::thread_moved, 0);
}

TEST(Recorder, BufferSizing) {
  // 1000 jobs × 3 events over 2 threads = 1500 each, doubled, plus 1024 slack.
  EXPECT_EQ(Recorder::events_per_thread_for(1000, 3, 2), 4024u);
}
