// gedf-paws's preemption choice at a release: idle workers count against the work still waiting.
#include "policies/edf_preemption.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace std::chrono_literals;
using std::chrono::nanoseconds;
using takt::policies::edf_preemption_victim;
using takt::policies::worker_view;
using takt::policies::WorkerView;

namespace {
WorkerView idle() { return WorkerView{}; }
WorkerView running(nanoseconds key, bool asked = false) { return WorkerView{true, key, asked}; }
}  // namespace

TEST(EdfPreemption, AnIdleWorkerTakesTheOnlyWaitingJob) {
  const std::vector<WorkerView> workers{idle(), running(90ms)};
  std::vector<nanoseconds> waiting{10ms};
  EXPECT_FALSE(edf_preemption_victim(workers, waiting));
}

TEST(EdfPreemption, TwoJobsReleasedTogetherAndOneIdleWorkerPreemptTheLatestRunningJob) {
  // J1 (10 ms) and J2 (20 ms) are admitted in one lane pass; the idle worker has not
  // taken J1 yet when J2 is admitted. It takes one of them; the other must displace the
  // 90 ms job. Before, admit() saw the idle worker and asked for no preemption, so one
  // of them waited behind a later deadline until some worker went idle.
  const std::vector<WorkerView> workers{running(50ms), idle(), running(90ms)};
  std::vector<nanoseconds> waiting{10ms, 20ms};
  EXPECT_EQ(edf_preemption_victim(workers, waiting), 2u);
}

TEST(EdfPreemption, TheLeftOverJobPreemptsOnlyALaterKey) {
  // The idle worker takes 10 ms; the left-over 95 ms is later than every running key.
  const std::vector<WorkerView> workers{running(50ms), idle(), running(90ms)};
  std::vector<nanoseconds> waiting{95ms, 10ms};
  EXPECT_FALSE(edf_preemption_victim(workers, waiting));
  // Equal keys do not preempt either.
  std::vector<nanoseconds> equal{90ms, 10ms};
  EXPECT_FALSE(edf_preemption_victim(workers, equal));
}

TEST(EdfPreemption, AWorkerAskedAlreadyTakesOneWaitingJobAndIsNotAskedTwice) {
  // Worker 2 (90 ms) was asked for the 10 ms job; a 20 ms release preempts worker 0.
  const std::vector<WorkerView> workers{running(50ms), running(30ms), running(90ms, true)};
  std::vector<nanoseconds> waiting{20ms, 10ms};
  EXPECT_EQ(edf_preemption_victim(workers, waiting), 0u);
  // With only the 10 ms job waiting, the asked worker takes it: nothing more to do.
  std::vector<nanoseconds> one{10ms};
  EXPECT_FALSE(edf_preemption_victim(workers, one));
}

TEST(EdfPreemption, EveryWorkerBusyWithAnEarlierKeyLeavesTheJobWaiting) {
  const std::vector<WorkerView> workers{running(5ms), running(8ms)};
  std::vector<nanoseconds> waiting{10ms};
  EXPECT_FALSE(edf_preemption_victim(workers, waiting));
  EXPECT_FALSE(edf_preemption_victim(std::vector<WorkerView>{}, waiting));
}

TEST(EdfPreemption, AYieldRequestCountsOnlyWhileItsComputationRuns) {
  // A request is consumed at a yield point; a computation that ends without one (a
  // sequential job) left the worker marked as asked for as long as it then ran other
  // jobs without spawns or syncs, so releases counted it as a taker and asked nobody.
  EXPECT_TRUE(worker_view(true, 200ms, nanoseconds(200ms).count()).yield_pending);
  EXPECT_FALSE(worker_view(true, 200ms, nanoseconds(150ms).count()).yield_pending);  // another job now
  EXPECT_FALSE(worker_view(true, 200ms, -1).yield_pending);
  EXPECT_FALSE(worker_view(false, 0ms, nanoseconds(200ms).count()).yield_pending);  // idle: a taker anyway
  EXPECT_FALSE(worker_view(false, 0ms, nanoseconds(200ms).count()).running);
  // m = 2: worker 0 was asked while it ran the job of key 150 ms, which ended without a
  // yield point; it now runs the job of key 200 ms, worker 1 that of 190 ms. A release
  // of key 105 ms must preempt worker 0 (the latest key): with the stale request
  // counted, it was the taker of the 105 ms job and nobody was asked.
  const std::vector<WorkerView> workers{worker_view(true, 200ms, nanoseconds(150ms).count()),
                                        worker_view(true, 190ms, -1)};
  std::vector<nanoseconds> waiting{105ms};
  EXPECT_EQ(edf_preemption_victim(workers, waiting), 0u);
  // Still running the computation it was asked for, it takes the 105 ms job itself.
  const std::vector<WorkerView> asked{worker_view(true, 200ms, nanoseconds(200ms).count()),
                                      worker_view(true, 190ms, -1)};
  std::vector<nanoseconds> again{105ms};
  EXPECT_FALSE(edf_preemption_victim(asked, again));
}
