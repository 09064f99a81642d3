// The extension interface: an external work source (PAWS rule D), yield points that
// hand a strand back to the policy (rule F) or keep it in a local deque, running keys.
#include "apps/fib.hpp"
#include "runtime/pool_state.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using takt::Pool;
using takt::QueueStrategy;
using takt::ext::Job;
using takt::ext::SuspendedStrand;
using takt::ext::Work;
using takt::testing::config;

/// A job whose computation is a function; counts and records its completion.
struct FunctionJob final : Job {
  template <class F>
  FunctionJob(std::chrono::nanoseconds key, F f) : Job(key), body(std::move(f)) {}
  void run() override { body(); }
  void finished(std::exception_ptr error) noexcept override {
    failed = error != nullptr;
    done.store(true, std::memory_order_release);
  }
  void wait() const {
    while (!done.load(std::memory_order_acquire)) std::this_thread::sleep_for(100us);
  }
  std::function<void()> body;
  std::atomic<bool> done{false};
  bool failed = false;
};

TEST(WorkSource, IdleWorkersTakeJobsFromIt) {
  std::vector<std::unique_ptr<FunctionJob>> jobs;
  std::vector<std::uint64_t> results(40);
  for (int i = 0; i < 40; ++i) {
    jobs.push_back(std::make_unique<FunctionJob>(0ns, [&results, i] { results[i] = takt::apps::fib(10 + i % 8); }));
  }
  struct Source final : takt::ext::WorkSource {
    std::vector<std::unique_ptr<FunctionJob>>* jobs;
    std::atomic<std::size_t> next{0};
    Work take(std::size_t) noexcept override {
      std::size_t i = next.fetch_add(1);
      Work w;
      if (i < jobs->size()) w.job = (*jobs)[i].get();
      return w;
    }
  } source;
  source.jobs = &jobs;
  Pool pool(config(2));
  pool.extension().set_work_source(&source);
  for (auto& job : jobs) job->wait();
  pool.extension().set_work_source(nullptr);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(results[i], takt::apps::fib_serial(10 + i % 8));
  EXPECT_EQ(pool.total_statistics().jobs, 40u);
}

/// A yield policy that preempts with one given job, and keeps what it is handed back
/// so that a work source can give it to the pool again.
struct Preemptor final : takt::ext::YieldPolicy, takt::ext::WorkSource {
  std::mutex mutex;
  Job* next_job = nullptr;
  std::vector<SuspendedStrand> handed_back;
  std::atomic<int> suspensions{0};
  bool give_back = true;

  Work preempt(const takt::ext::YieldPoint& point) noexcept override {
    std::lock_guard lock(mutex);
    last_point = point;
    Work w;
    w.job = next_job;
    next_job = nullptr;
    return w;
  }
  void suspended(SuspendedStrand strand) noexcept override {
    std::lock_guard lock(mutex);
    handed_back.push_back(strand);
    suspensions.fetch_add(1);
  }
  void refused(std::size_t worker) noexcept override {
    refusals.fetch_add(1);
    refused_worker.store(static_cast<int>(worker));
  }
  std::atomic<int> refusals{0};
  std::atomic<int> refused_worker{-1};
  Work take(std::size_t) noexcept override {
    std::lock_guard lock(mutex);
    Work w;
    if (give_back && !handed_back.empty()) {
      w.strand = handed_back.back();
      handed_back.pop_back();
    }
    return w;
  }
  takt::ext::YieldPoint last_point;
};

TEST(YieldPolicy, HandsBackAStrandAndResumesItLater) {
  auto c = config(2);
  c.suspended_strands = 1;
  Pool pool(c);
  Preemptor policy;
  std::atomic<bool> b_ran{false};
  FunctionJob b(10ns, [&] {
    b_ran = true;
    takt::apps::fib(15);
  });
  policy.next_job = &b;
  pool.extension().set_yield_policy(&policy);
  pool.extension().set_work_source(&policy);

  std::uint64_t sum = 0;
  int before = -1;
  FunctionJob a(20ns, [&] {
    for (int i = 0; i < 200; ++i) {
      if (i == 50) {
        before = takt::current_worker();
        pool.extension().request_yield(static_cast<std::size_t>(before));
      }
      takt::Scope scope;
      std::uint64_t x = 0;
      scope.spawn([&x, i] { x = takt::apps::fib(5 + i % 5); });
      scope.sync();
      sum += x;
    }
  });
  pool.extension().submit(a);
  a.wait();
  b.wait();
  std::uint64_t expected = 0;
  for (int i = 0; i < 200; ++i) expected += takt::apps::fib_serial(5 + i % 5);
  EXPECT_EQ(sum, expected);
  EXPECT_TRUE(b_ran.load());
  EXPECT_EQ(policy.suspensions.load(), 1);
  EXPECT_TRUE(policy.last_point.hand_back);  // a root strand has no local ancestor
  EXPECT_EQ(policy.last_point.key, 20ns);
  EXPECT_EQ(policy.last_point.at, takt::ext::YieldPoint::At::spawn);
  EXPECT_EQ(pool.total_statistics().yields, 1u);
  pool.extension().set_yield_policy(nullptr);
  pool.extension().set_work_source(nullptr);
}

TEST(YieldPolicy, WithoutReserveTheYieldIsRefused) {
  Pool pool(config(2));  // suspended_strands = 0
  Preemptor policy;
  FunctionJob b(10ns, [] {});
  policy.next_job = &b;
  pool.extension().set_yield_policy(&policy);
  std::atomic<int> requested{-2};
  std::uint64_t r = pool.run([&] {
    requested = takt::current_worker();
    pool.extension().request_yield(static_cast<std::size_t>(takt::current_worker()));
    return takt::apps::fib(12);
  });
  EXPECT_EQ(r, takt::apps::fib_serial(12));
  EXPECT_EQ(pool.total_statistics().refused_yields, 1u);
  EXPECT_EQ(policy.suspensions.load(), 0);
  // The policy hears of the refusal, on the worker it asked.
  EXPECT_EQ(policy.refusals.load(), 1);
  EXPECT_EQ(policy.refused_worker.load(), requested);
  pool.extension().set_yield_policy(nullptr);
}

TEST(YieldPolicy, NoMoreStrandsAreHandedBackThanSuspendedStrandsWhateverTheirDepth) {
  // suspended_strands = 1 reserves D = 64 blocks, and a job's root strand takes only
  // its depth (1) of them: the reserve let 64 root strands be handed back at once, and
  // gedf-paws, which keeps suspended_strands entries for them, wrote through a null
  // entry (a crash with 17 strands handed back on 2 workers). On one worker: A is handed
  // back for B; B's yield for C must be refused while A is out, and A resumes after B.
  auto c = config(1);
  c.suspended_strands = 1;
  Pool pool(c);
  struct Policy final : takt::ext::YieldPolicy, takt::ext::WorkSource {
    std::mutex mutex;
    std::deque<Job*> preempt_with;
    std::vector<SuspendedStrand> handed_back;
    std::atomic<int> suspensions{0}, refusals{0};
    Work preempt(const takt::ext::YieldPoint&) noexcept override {
      std::lock_guard lock(mutex);
      Work w;
      if (!preempt_with.empty()) {
        w.job = preempt_with.front();
        preempt_with.pop_front();
      }
      return w;
    }
    void suspended(SuspendedStrand strand) noexcept override {
      std::lock_guard lock(mutex);
      handed_back.push_back(strand);
      suspensions.fetch_add(1);
    }
    void refused(std::size_t) noexcept override { refusals.fetch_add(1); }
    Work take(std::size_t) noexcept override {
      std::lock_guard lock(mutex);
      Work w;
      if (!handed_back.empty()) {
        w.strand = handed_back.back();
        handed_back.pop_back();
      }
      return w;
    }
  } policy;
  // A job that asks its own worker to yield, then reaches a yield point (a spawn).
  auto yielding = [&pool](std::uint64_t& out, int n) {
    return [&pool, &out, n] {
      pool.extension().request_yield(static_cast<std::size_t>(takt::current_worker()));
      takt::Scope scope;
      std::uint64_t x = 0;
      scope.spawn([&x, n] { x = takt::apps::fib(n); });
      scope.sync();
      out = x;
    };
  };
  std::uint64_t a_result = 0, b_result = 0;
  FunctionJob a(30ns, yielding(a_result, 12));
  FunctionJob b(20ns, yielding(b_result, 13));
  FunctionJob c_job(10ns, [] {});
  policy.preempt_with = {&b, &c_job};
  pool.extension().set_yield_policy(&policy);
  pool.extension().set_work_source(&policy);
  pool.extension().submit(a);
  a.wait();
  b.wait();
  EXPECT_EQ(a_result, takt::apps::fib_serial(12));
  EXPECT_EQ(b_result, takt::apps::fib_serial(13));
  EXPECT_EQ(policy.suspensions.load(), 1) << "only A may be out";
  EXPECT_EQ(policy.refusals.load(), 1) << "B's yield";
  EXPECT_EQ(pool.total_statistics().refused_yields, 1u);
  EXPECT_FALSE(c_job.done.load()) << "C was never given to the pool";
  pool.extension().set_yield_policy(nullptr);
  pool.extension().set_work_source(nullptr);
}

TEST(YieldPolicy, ARequestForACallerHoldingWorkerZeroIsRefusedAndReported) {
  // With caller_joins, worker 0 is the calling thread and runs no other job, so a yield
  // request there cannot be granted. It was dropped silently: no refused(), no count,
  // and a policy that tracks its requests (gedf-paws) kept worker 0 asked for ever.
  auto c = config(2);
  c.caller_joins = true;
  Pool pool(c);
  Preemptor policy;
  FunctionJob b(10ns, [] {});
  policy.next_job = &b;
  const int worker = pool.run([&] {
    // Where the root starts, the caller as worker 0: after the spawn below worker 1 may
    // steal the continuation and end the root (the test read the worker at the end and
    // failed once, in a fresh clone's run, with 1).
    const int started_on = takt::current_worker();
    std::thread other([&] {  // set_yield_policy waits for the workers' calls, not for this one
      pool.extension().set_yield_policy(&policy);
      pool.extension().request_yield(0);
    });
    other.join();
    takt::Scope scope;
    scope.spawn([] {});  // a yield point on worker 0, before any steal: refused there
    scope.sync();
    return started_on;
  });
  pool.extension().set_yield_policy(nullptr);
  EXPECT_EQ(worker, 0);
  EXPECT_EQ(policy.refusals.load(), 1);
  EXPECT_EQ(policy.refused_worker.load(), 0);
  EXPECT_EQ(pool.total_statistics().refused_yields, 1u);
  EXPECT_EQ(policy.suspensions.load(), 0);
}

TEST(YieldPolicy, PriorityAwarePoolKeepsALocalStrandInItsDeque) {
  // One worker: job A's child yields with A's continuation below it in the deque, so the
  // child stays in A's deque (frozen level) while B runs; then the worker returns to it.
  auto c = config(1, QueueStrategy::priority_aware);
  c.priority_levels = 2;
  Pool pool(c);
  Preemptor policy;
  std::mutex order_mutex;
  std::vector<char> order;
  auto record = [&](char what) {
    std::lock_guard lock(order_mutex);
    order.push_back(what);
  };
  FunctionJob b(100ns, [&] { record('B'); });
  policy.next_job = &b;
  pool.extension().set_yield_policy(&policy);
  FunctionJob a(200ns, [&] {
    takt::Scope scope;
    scope.spawn([&] {
      pool.extension().request_yield(0);
      takt::Scope inner;
      inner.spawn([&] { record('a'); });  // the yield point is this spawn
      inner.sync();
    });
    scope.sync();
    record('A');
  });
  pool.extension().submit(a);
  a.wait();
  b.wait();
  EXPECT_EQ(order, (std::vector<char>{'B', 'a', 'A'}));
  EXPECT_FALSE(policy.last_point.hand_back);
  EXPECT_EQ(policy.suspensions.load(), 0);  // not handed back: kept locally
  EXPECT_EQ(pool.total_statistics().yields, 1u);
  pool.extension().set_yield_policy(nullptr);
}

/// Preempts whenever asked, with whatever waits: jobs not yet started and strands handed
/// back earlier. Also the pool's work source.
struct Shuffler final : takt::ext::YieldPolicy, takt::ext::WorkSource {
  std::mutex mutex;
  std::deque<Work> waiting;
  std::atomic<int> handed_back{0};
  /// Until set, idle workers get only handed-back strands: new jobs start by preemption.
  std::atomic<bool> idle_may_start_jobs{false};
  Work next(bool jobs_too) {
    std::lock_guard lock(mutex);
    Work w;
    for (auto it = waiting.begin(); it != waiting.end(); ++it) {
      if (it->job == nullptr || jobs_too) {
        w = *it;
        waiting.erase(it);
        break;
      }
    }
    return w;
  }
  Work preempt(const takt::ext::YieldPoint&) noexcept override { return next(true); }
  void suspended(SuspendedStrand strand) noexcept override {
    handed_back.fetch_add(1);
    std::lock_guard lock(mutex);
    Work w;
    w.strand = strand;
    waiting.push_back(w);
  }
  Work take(std::size_t) noexcept override { return next(idle_may_start_jobs.load()); }
};

class Preemption : public ::testing::TestWithParam<QueueStrategy> {};
INSTANTIATE_TEST_SUITE_P(Runtime, Preemption,
                         ::testing::Values(QueueStrategy::work_stealing, QueueStrategy::priority_aware),
                         [](const auto& info) { return std::string(takt::testing::name(info.param)); });

TEST_P(Preemption, RepeatedPreemptionsKeepEveryResultRight) {
  auto c = config(2, GetParam());
  c.suspended_strands = 6;
  c.priority_levels = 3;
  Pool pool(c);
  Shuffler policy;
  constexpr int kJobs = 24;
  std::vector<std::unique_ptr<FunctionJob>> jobs;
  std::vector<std::uint64_t> sums(kJobs, 0);
  const auto give_up = std::chrono::steady_clock::now() + 10s;  // for all jobs together
  for (int j = 0; j < kJobs; ++j) {
    jobs.push_back(std::make_unique<FunctionJob>(std::chrono::nanoseconds(j % 5), [&sums, &policy, give_up, j] {
      auto phase = [](int i) {
        takt::Scope scope;
        std::uint64_t x = 0;
        scope.spawn([&x, i] { x = takt::apps::fib(8 + i % 6); });
        std::uint64_t y = takt::apps::fib(7 + i % 4);
        scope.sync();
        return x + y;
      };
      // Until some strand was handed back (at most 10 s), every job passes spawn and sync
      // points of its root strand only (the child is a leaf), where a yield always hands
      // the strand back while jobs still wait: otherwise, on a loaded machine, every job
      // could start and finish between the driver's requests, or (priority-aware) every
      // yield could land in a child and freeze its level, leaving the hand-back untested.
      while (policy.handed_back.load() == 0 && std::chrono::steady_clock::now() < give_up) {
        takt::Scope scope;
        scope.spawn([] {});
        scope.sync();
      }
      // 30 short phases: many spawn and sync points for the yields to hit.
      for (int i = 0; i < 30; ++i) sums[j] += phase(i);
    }));
    if (j > 0) {
      Work w;
      w.job = jobs.back().get();
      policy.waiting.push_back(w);
    }
  }
  pool.extension().set_yield_policy(&policy);
  pool.extension().set_work_source(&policy);
  pool.extension().submit(*jobs[0]);  // the others start by preempting it (and each other)
  std::atomic<bool> done{false};
  std::thread driver([&] {
    std::uint64_t n = 0;
    auto start = std::chrono::steady_clock::now();
    while (!done.load()) {
      pool.extension().request_yield(n++ % 2);
      std::this_thread::sleep_for(50us);
      if (std::chrono::steady_clock::now() - start > 20ms) {
        policy.idle_may_start_jobs = true;  // never stall if preemptions are rare
        pool.extension().notify_work();
      }
    }
  });
  for (auto& job : jobs) job->wait();
  done = true;
  driver.join();
  pool.extension().set_yield_policy(nullptr);
  pool.extension().set_work_source(nullptr);
  std::uint64_t expected = 0;
  for (int i = 0; i < 30; ++i) expected += takt::apps::fib_serial(8 + i % 6) + takt::apps::fib_serial(7 + i % 4);
  for (int j = 0; j < kJobs; ++j) {
    EXPECT_EQ(sums[j], expected) << "job " << j;
    EXPECT_FALSE(jobs[j]->failed);
  }
  takt::WorkerStatistics s = pool.total_statistics();
  EXPECT_GT(s.yields, 0u);
  EXPECT_GT(policy.handed_back.load(), 0);
  EXPECT_EQ(s.jobs, static_cast<std::uint64_t>(kJobs));

  // All handed-back strands were resumed and finished, and every reserve block came
  // back: the free count is the configured total (6 strands x depth 64 = 384 blocks, set
  // above) and the free list holds exactly that many blocks.
  EXPECT_TRUE(policy.waiting.empty());
  takt::detail::PoolState& state = pool.state();
  EXPECT_EQ(state.reserve_total, 6u * 64u);
  EXPECT_EQ(state.reserve_free, state.reserve_total);
  std::size_t listed = 0;
  for (auto* b = state.reserve_head; b != nullptr && listed <= state.reserve_total; b = b->chain_next) ++listed;
  EXPECT_EQ(listed, state.reserve_total);
}

TEST(Extension, RunningKeyShowsTheComputationOfAWorker) {
  Pool pool(config(1));
  std::chrono::nanoseconds key{};
  EXPECT_FALSE(pool.extension().running_key(0, key));
  EXPECT_EQ(pool.extension().workers(), 1u);
  bool seen = pool.run(1234ns, [&] {
    std::chrono::nanoseconds inside{};
    return pool.extension().running_key(0, inside) && inside == 1234ns;
  });
  EXPECT_TRUE(seen);
}

/// Waits up to `limit` for `flag`; true when it was set.
bool wait_for(const std::atomic<bool>& flag, std::chrono::milliseconds limit = 5000ms) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(100us);
  }
  return true;
}

/// A Preemptor whose preempt() signals that it runs, then takes 50 ms.
struct SlowPreemptor final : takt::ext::YieldPolicy, takt::ext::WorkSource {
  Preemptor inner;
  std::atomic<bool> in_preempt{false};
  Work preempt(const takt::ext::YieldPoint& point) noexcept override {
    in_preempt = true;
    std::this_thread::sleep_for(50ms);
    return inner.preempt(point);
  }
  void suspended(SuspendedStrand strand) noexcept override { inner.suspended(strand); }
  void refused(std::size_t worker) noexcept override { inner.refused(worker); }
  Work take(std::size_t worker) noexcept override { return inner.take(worker); }
};

TEST(YieldPolicy, APolicyRemovedDuringAHandBackStillGetsTheStrand) {
  // The worker loaded the policy, called preempt() and handed the strand back; the
  // scheduler then loaded the pool's policy again to call suspended(). Removed in
  // between, the strand went to nobody: job a never finished and the pool's destructor
  // waited for ever. Now the preempting policy gets it, and set_yield_policy(nullptr)
  // returns only after that call. (On failure the pool and policy are leaked, not
  // destroyed, so that the test ends instead of hanging.)
  auto c = config(2);
  c.suspended_strands = 1;
  auto* pool = new Pool(c);
  auto* policy = new SlowPreemptor;
  // The jobs on the heap too: on failure they stay with the leaked pool.
  auto* b_job = new FunctionJob(10ns, [] { takt::apps::fib(12); });
  FunctionJob& b = *b_job;
  policy->inner.next_job = &b;
  pool->extension().set_yield_policy(policy);
  pool->extension().set_work_source(policy);  // gives the handed-back strand back
  auto* a_job = new FunctionJob(20ns, [pool] {
    for (int i = 0; i < 100; ++i) {
      if (i == 20) pool->extension().request_yield(static_cast<std::size_t>(takt::current_worker()));
      takt::Scope scope;
      scope.spawn([] { takt::apps::fib(5); });
      scope.sync();
    }
  });
  FunctionJob& a = *a_job;
  pool->extension().submit(a);
  ASSERT_TRUE(wait_for(policy->in_preempt)) << "the yield was never requested";
  pool->extension().set_yield_policy(nullptr);  // while preempt() runs
  EXPECT_EQ(policy->inner.suspensions.load(), 1) << "set_yield_policy returned before the hand-back ended";
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (!(a.done.load() && b.done.load()) && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(1ms);
  if (!a.done.load() || !b.done.load()) {
    ADD_FAILURE() << "job a " << (a.done.load() ? "finished" : "never finished") << ", b "
                  << (b.done.load() ? "finished" : "never finished") << "; suspended() was called "
                  << policy->inner.suspensions.load() << " time(s)";
    return;  // pool, policy and jobs leaked on purpose
  }
  EXPECT_FALSE(a.failed);
  pool->extension().set_work_source(nullptr);
  delete pool;
  delete policy;
  delete a_job;
  delete b_job;
}

TEST(WorkSource, NoWorkerIsInsideTheOldSourceOnceTheSetterReturns) {
  // Idle workers call the source's take() in their loop. A source removed and then
  // destroyed while a worker was still inside take() (or about to call it with the
  // pointer it had loaded) was used after its destruction; set_work_source now waits for
  // such calls, and the next call loads the new pointer.
  struct Slow final : takt::ext::WorkSource {
    std::atomic<int> inside{0};
    std::atomic<bool> entered{false};
    std::atomic<bool> removed{false};
    std::atomic<int> calls_after_removal{0};
    Work take(std::size_t) noexcept override {
      inside.fetch_add(1);
      if (removed.load()) calls_after_removal.fetch_add(1);
      entered = true;
      std::this_thread::sleep_for(5ms);
      inside.fetch_sub(1);
      return {};
    }
  } source;
  Pool pool(config(2));
  for (int round = 0; round < 5; ++round) {
    source.entered = false;
    pool.extension().set_work_source(&source);  // wakes the sleeping workers: they call take()
    ASSERT_TRUE(wait_for(source.entered));
    pool.extension().set_work_source(nullptr);
    source.removed = true;
    EXPECT_EQ(source.inside.load(), 0) << "round " << round << ": a worker is still inside take()";
    std::this_thread::sleep_for(20ms);  // idle workers go on looking for work
    EXPECT_EQ(source.calls_after_removal.load(), 0) << "round " << round;
    source.removed = false;
  }
}

// PAWS: a thief's level takes the key of the computation it stole from. The thief read
// the victim level's key after its commit; a thief preempted right there (a test hook
// holds it) let the victim finish its part, go idle and start job b (key 5) on that
// level, and then gave a's continuation b's key.
std::atomic<bool> g_commit_armed{false}, g_committed{false}, g_b_started{false};

TEST(PriorityAware, AStolenContinuationKeepsItsComputationsKey) {
  auto c = config(2, QueueStrategy::priority_aware);
  c.priority_levels = 2;
  Pool pool(c);
  g_committed = false;
  g_b_started = false;
  g_commit_armed = true;
  takt::detail::after_commit_for_testing.store([] {
    if (!g_commit_armed.exchange(false)) return;
    g_committed = true;
    (void)wait_for(g_b_started, 2000ms);  // a preempted thief, until b runs on the victim
  });
  std::chrono::nanoseconds continuation_key{-1};
  std::atomic<bool> child_saw_commit{false};
  FunctionJob a(20ns, [&] {
    takt::Scope scope;
    scope.spawn([&] { child_saw_commit = wait_for(g_committed); });
    // The continuation, stolen by the other worker.
    (void)pool.extension().running_key(static_cast<std::size_t>(takt::current_worker()), continuation_key);
    scope.sync();
  });
  FunctionJob b(5ns, [] { g_b_started = true; });
  pool.extension().submit(a);
  const bool committed = wait_for(g_committed);
  if (committed) pool.extension().submit(b);
  a.wait();
  if (committed) b.wait();
  takt::detail::after_commit_for_testing.store(nullptr);
  ASSERT_TRUE(committed) << "the continuation was not stolen";
  ASSERT_TRUE(child_saw_commit.load());
  EXPECT_TRUE(g_b_started.load());
  EXPECT_EQ(continuation_key, 20ns) << "a's continuation ran with another job's key";
}

TEST(CentralizedGreedy, AStolenContinuationKeepsItsComputationsKey) {
  // A thief of the central queue took the stolen continuation under its own level's
  // key (0 here, or the job it last ran), not the computation's: running_key, a yield
  // point's key and a handed-back strand's key were wrong for it.
  Pool pool(config(2, QueueStrategy::centralized_greedy));
  std::atomic<bool> continued{false};
  std::chrono::nanoseconds key{-1};
  int child_worker = -1, continuation_worker = -1;
  FunctionJob a(20ns, [&] {
    takt::Scope scope;
    scope.spawn([&] {
      child_worker = takt::current_worker();
      (void)wait_for(continued, 10'000ms);  // until the continuation ran elsewhere (a loaded machine: long)
    });
    continuation_worker = takt::current_worker();
    (void)pool.extension().running_key(static_cast<std::size_t>(continuation_worker), key);
    continued = true;
    scope.sync();
  });
  pool.extension().submit(a);
  a.wait();
  ASSERT_NE(child_worker, continuation_worker) << "the continuation was not stolen";
  EXPECT_EQ(key, 20ns) << "the stolen continuation ran with another key";
}

TEST(Extension, AJobSubmittedWhileInFlightIsAnErrorAndMayBeSubmittedAgainOnceFinished) {
  // Until 2026-11-28 the second submit linked the job into the pool's queue a second
  // time (its next pointer overwritten): the queue lost jobs or ran one twice.
  Pool pool(config(2));
  std::atomic<bool> go{false};
  std::atomic<int> runs{0};
  FunctionJob a(0ns, [&] {
    while (!go.load()) std::this_thread::sleep_for(100us);
    ++runs;
  });
  pool.extension().submit(a);
  std::string message;
  try {
    pool.extension().submit(a);
  } catch (const takt::Error& e) {
    message = e.what();
  }
  go = true;  // before any check: the job must end for the pool to end
  EXPECT_NE(message.find("takt::ext::Job submitted to pool 'test' while it is in flight"), std::string::npos)
      << "message: '" << message << "'";
  a.wait();
  EXPECT_EQ(runs.load(), 1);
  a.done = false;
  pool.extension().submit(a);  // finished: it may go again
  a.wait();
  EXPECT_EQ(runs.load(), 2);
}

/// For the death tests of giving a strand back: a pool of 2 workers whose job `a`
/// yields to `b` at its first spawn, its strand handed back to `policy` and kept there
/// (the policy is not the pool's work source). strand() returns it, or ends the
/// process with exit code 5 (no yield happened) or 3 (nothing handed back): no fatal
/// message then, so the death test fails.
struct OneSuspendedStrand {
  OneSuspendedStrand() {
    policy.next_job = &b;
    pool.extension().set_yield_policy(&policy);
    pool.extension().submit(a);
  }
  SuspendedStrand strand() {
    for (int i = 0; i < 300'000 && !b.done.load(); ++i) std::this_thread::sleep_for(100us);
    if (!b.done.load()) std::_Exit(5);
    for (int i = 0; i < 50000; ++i) {
      {
        std::lock_guard lock(policy.mutex);
        if (!policy.handed_back.empty()) return policy.handed_back.front();
      }
      std::this_thread::sleep_for(100us);
    }
    std::_Exit(3);
  }
  static takt::PoolConfig one_suspended(takt::PoolConfig c) {
    c.suspended_strands = 1;
    return c;
  }
  Pool pool{one_suspended(config(2))};
  Preemptor policy;
  FunctionJob b{10ns, [] {}};
  FunctionJob a{20ns, [this] {
                  pool.extension().request_yield(static_cast<std::size_t>(takt::current_worker()));
                  takt::Scope scope;
                  scope.spawn([] {});
                  scope.sync();
                }};
};

TEST(ExtensionDeathTest, APolicyHandingOutAJobInFlightEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        // The source hands out the job that was just submitted and still runs.
        Pool pool(config(2));
        std::atomic<bool> started{false};
        FunctionJob a(0ns, [&] {
          started = true;
          for (;;) std::this_thread::sleep_for(100us);  // in flight until the process ends
        });
        struct Source final : takt::ext::WorkSource {
          Job* job = nullptr;
          std::atomic<bool> given{false};
          Work take(std::size_t) noexcept override {
            Work w;
            if (!given.exchange(true)) w.job = job;
            return w;
          }
        } source;
        pool.extension().submit(a);
        while (!started.load()) std::this_thread::sleep_for(100us);
        source.job = &a;
        pool.extension().set_work_source(&source);
        std::this_thread::sleep_for(30s);  // the fatal message comes first (at once)
        std::_Exit(4);                     // none came: the test fails, and does not hang
      },
      ::testing::KilledBySignal(SIGABRT),
      "takt: fatal: pool 'test': the work source handed out an ext::Job that is still in flight");
}

TEST(ExtensionDeathTest, AWorkWithAJobAndAStrandEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        // A strand handed back to a policy, then given out together with a job.
        OneSuspendedStrand suspended;
        const SuspendedStrand strand = suspended.strand();
        FunctionJob other(10ns, [] {});
        struct Both final : takt::ext::WorkSource {
          Work work;
          std::atomic<bool> given{false};
          Work take(std::size_t) noexcept override { return given.exchange(true) ? Work{} : work; }
        } source;
        source.work.job = &other;
        source.work.strand = strand;
        suspended.pool.extension().set_work_source(&source);
        std::this_thread::sleep_for(30s);  // the fatal message comes first (at once)
        std::_Exit(4);                     // none came: the test fails, and does not hang
      },
      ::testing::KilledBySignal(SIGABRT),
      "takt: fatal: pool 'test': the work source handed out an ext::Work with both a job and a suspended "
      "strand");
}

TEST(ExtensionDeathTest, AStrandGivenBackTwiceEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        // A strand handed back to a policy, then given back twice by a work source.
        // Until 2026-11-28 the second give-back entered the strand's block again: the
        // strand's continuation ran twice (or a finished one ran again).
        OneSuspendedStrand suspended;
        const SuspendedStrand strand = suspended.strand();
        struct Twice final : takt::ext::WorkSource {
          SuspendedStrand strand;
          std::atomic<int> given{0};
          Work take(std::size_t) noexcept override {
            Work w;
            if (given.fetch_add(1) < 2) w.strand = strand;
            return w;
          }
        } source;
        source.strand = strand;
        suspended.pool.extension().set_work_source(&source);
        std::this_thread::sleep_for(30s);  // the fatal message comes first (at once)
        std::_Exit(4);                     // none came: the test fails, and does not hang
      },
      ::testing::KilledBySignal(SIGABRT),
      "takt: fatal: pool 'test': a suspended strand was given back that is not with the policy now");
}

}  // namespace
