// PAWS rules B, C, E in a priority_aware pool: per-key deques; the owner returns to the
// highest-priority one; a thief steals from the highest-priority deque of a busy worker;
// queued jobs start earliest-deadline first.
#include "apps/fib.hpp"
#include "runtime/pool_state.hpp"
#include "takt/runtime.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using takt::Pool;
using takt::QueueStrategy;
using takt::ext::Job;
using takt::ext::Work;
using takt::testing::config;

struct FunctionJob final : Job {
  FunctionJob(std::chrono::nanoseconds key, std::function<void()> f) : Job(key), body(std::move(f)) {}
  void run() override { body(); }
  void finished(std::exception_ptr) noexcept override { done.store(true, std::memory_order_release); }
  void wait() const {
    while (!done.load(std::memory_order_acquire)) std::this_thread::sleep_for(100us);
  }
  std::function<void()> body;
  std::atomic<bool> done{false};
};

struct Log {
  std::mutex mutex;
  std::vector<std::string> entries;
  void add(std::string s) {
    std::lock_guard lock(mutex);
    entries.push_back(std::move(s));
  }
  std::vector<std::string> get() {
    std::lock_guard lock(mutex);
    return entries;
  }
};

/// Preempts the computation with key `from` by job `to` (one table entry per key).
struct TablePolicy final : takt::ext::YieldPolicy {
  std::mutex mutex;
  std::vector<std::pair<std::chrono::nanoseconds, Job*>> table;
  Work preempt(const takt::ext::YieldPoint& point) noexcept override {
    std::lock_guard lock(mutex);
    Work w;
    for (auto& [key, job] : table) {
      if (key == point.key && job != nullptr) {
        w.job = job;
        job = nullptr;
      }
    }
    return w;
  }
  void suspended(takt::ext::SuspendedStrand) noexcept override {}
};

/// A job body that spawns a child which yields (with the job's continuation below it in
/// the deque, so the child is kept in the job's deque), then logs.
std::function<void()> yielding_job(Pool& pool, Log& log, std::string name) {
  return [&pool, &log, name] {
    takt::Scope scope;
    scope.spawn([&pool] {
      pool.extension().request_yield(static_cast<std::size_t>(takt::current_worker()));
      takt::Scope inner;
      inner.spawn([] {});  // yield point
      inner.sync();
    });
    scope.sync();
    log.add(name);
  };
}

TEST(PriorityAware, OwnerResumesTheHighestPriorityDequeFirst) {
  // One worker, three deques. A (key 200) is preempted by B (key 300), which is preempted
  // by C (key 100). When C is done the worker holds A's and B's deques: rule C takes the
  // highest priority (A, deadline 200) before B, although B was preempted last.
  auto c = config(1, QueueStrategy::priority_aware);
  c.priority_levels = 3;
  Pool pool(c);
  Log log;
  FunctionJob job_c(100ns, [&] { log.add("C"); });
  FunctionJob job_b(300ns, yielding_job(pool, log, "B"));
  FunctionJob job_a(200ns, yielding_job(pool, log, "A"));
  TablePolicy policy;
  policy.table = {{200ns, &job_b}, {300ns, &job_c}};
  pool.extension().set_yield_policy(&policy);
  pool.extension().submit(job_a);
  job_a.wait();
  job_b.wait();
  job_c.wait();
  EXPECT_EQ(log.get(), (std::vector<std::string>{"C", "A", "B"}));
  EXPECT_EQ(pool.total_statistics().yields, 2u);
  pool.extension().set_yield_policy(nullptr);
}

// Rule C with a frozen level whose strand was stolen and whose trade is not delivered
// yet: the owner must go on to its next frozen level in key order, not take a job.
// Two workers. W holds worker 1 while worker 0 runs A (key 200), preempted by B (100),
// preempted by C (50): A's and B's levels are frozen. C releases W; worker 1 steals B's
// continuation (it parks at B's sync), then B's frozen strand, and a test hook holds it
// before it delivers that trade until J has run (at most 10 s; a fixed 300 ms hold let
// the trade arrive first when worker 0 stalled that long on a loaded machine). C then
// queues J (key 10) and ends. Worker 0 finds B's level waiting for its trade; it must
// resume A's before it starts J: while the trade is held back, worker 0 alone runs A and
// J, within milliseconds. An owner that took J before A logs J first; one that stopped
// at B's level to wait for its trade runs neither A nor J while the thief is held, so
// the hold reaches its bound, which fails the test.
std::atomic<bool> g_frozen_hold_armed{false}, g_frozen_thief_held{false};
std::atomic<bool> g_j_ran{false}, g_hold_gave_up{false};

TEST(PriorityAware, OwnerSkipsAFrozenLevelWaitingForItsTradeAndResumesTheNext) {
  auto c = config(2, QueueStrategy::priority_aware);
  c.priority_levels = 3;
  Pool pool(c);
  Log log;
  auto wait_until = [](const std::atomic<bool>& flag) {
    for (int i = 0; i < 100000 && !flag.load(); ++i) std::this_thread::sleep_for(50us);
    return flag.load();
  };
  std::atomic<bool> w_started{false}, release_w{false};
  bool held = false;
  FunctionJob job_j(10ns, [&] {
    log.add("J");
    g_j_ran = true;
  });
  FunctionJob job_c(50ns, [&] {
    release_w = true;
    held = wait_until(g_frozen_thief_held);
    pool.extension().submit(job_j);
    log.add("C");
  });
  FunctionJob job_b(100ns, yielding_job(pool, log, "B"));
  FunctionJob job_a(200ns, yielding_job(pool, log, "A"));
  FunctionJob job_w(1000ns, [&] {
    w_started = true;
    wait_until(release_w);
  });
  TablePolicy policy;
  policy.table = {{200ns, &job_b}, {100ns, &job_c}};
  pool.extension().set_yield_policy(&policy);
  takt::detail::after_settle_for_testing.store([](bool frozen) {
    if (!frozen || !g_frozen_hold_armed.exchange(false)) return;
    g_frozen_thief_held = true;
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    while (!g_j_ran.load() && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(50us);
    g_hold_gave_up = !g_j_ran.load();
  });
  g_frozen_thief_held = false;
  g_j_ran = false;
  g_hold_gave_up = false;
  g_frozen_hold_armed = true;
  pool.extension().submit(job_w);
  ASSERT_TRUE(wait_until(w_started));
  pool.extension().submit(job_a);
  for (FunctionJob* job : {&job_w, &job_a, &job_b, &job_c, &job_j}) job->wait();
  takt::detail::after_settle_for_testing.store(nullptr);
  pool.extension().set_yield_policy(nullptr);
  ASSERT_TRUE(held) << "B's frozen strand was not stolen";
  EXPECT_FALSE(g_hold_gave_up.load()) << "J did not run within 10 s while B's trade was held back";
  EXPECT_EQ(log.get(), (std::vector<std::string>{"C", "A", "J", "B"}));
}

TEST(PriorityAware, QueuedJobsStartEarliestDeadlineFirst) {
  for (QueueStrategy strategy : {QueueStrategy::priority_aware, QueueStrategy::work_stealing}) {
    Pool pool(config(1, strategy));
    Log log;
    std::atomic<bool> release{false};
    std::atomic<bool> blocking{false};
    FunctionJob blocker(0ns, [&] {
      blocking = true;
      while (!release.load()) std::this_thread::yield();
    });
    pool.extension().submit(blocker);
    while (!blocking.load()) std::this_thread::yield();
    std::vector<std::unique_ptr<FunctionJob>> jobs;
    for (int key : {5, 3, 9, 1}) {
      jobs.push_back(std::make_unique<FunctionJob>(std::chrono::nanoseconds(key),
                                                   [&log, key] { log.add(std::to_string(key)); }));
      pool.extension().submit(*jobs.back());
    }
    release = true;
    for (auto& job : jobs) job->wait();
    if (strategy == QueueStrategy::priority_aware) {
      EXPECT_EQ(log.get(), (std::vector<std::string>{"1", "3", "5", "9"}));
    } else {
      EXPECT_EQ(log.get(), (std::vector<std::string>{"5", "3", "9", "1"}));  // FIFO
    }
  }
}

TEST(PriorityAware, ThiefStealsFromTheHighestPriorityDequeOfABusyWorker) {
  // Worker 0 ends up holding two preempted computations, A (key 300) and B (key 100), in
  // two deques, while it runs C. Worker 1, released from its own job, must steal from
  // B's deque first (rule E), then from A's.
  auto c = config(2, QueueStrategy::priority_aware);
  c.priority_levels = 3;
  Pool pool(c);
  Log log;
  std::atomic<bool> setup_done{false};
  std::atomic<bool> observed{false};
  auto continuation_logger = [&](std::string name) {
    return [&pool, &log, name] {
      takt::Scope scope;
      scope.spawn([&pool] {
        pool.extension().request_yield(static_cast<std::size_t>(takt::current_worker()));
        takt::Scope inner;
        inner.spawn([] {});
        inner.sync();
      });
      // Runs when this continuation is resumed: by worker 0 itself or stolen by worker 1.
      log.add(name + "@" + std::to_string(takt::current_worker()));
      scope.sync();
    };
  };
  FunctionJob job_a(300ns, continuation_logger("A"));
  FunctionJob job_b(100ns, continuation_logger("B"));
  FunctionJob job_c(500ns, [&] {
    setup_done = true;
    while (!observed.load()) std::this_thread::yield();
  });
  FunctionJob job_w(0ns, [&] {
    while (!setup_done.load()) std::this_thread::yield();
  });
  TablePolicy policy;
  policy.table = {{300ns, &job_b}, {100ns, &job_c}};
  struct Assign final : takt::ext::WorkSource {
    std::mutex mutex;
    Job* for_worker[2] = {nullptr, nullptr};
    Work take(std::size_t worker) noexcept override {
      std::lock_guard lock(mutex);
      Work w;
      w.job = for_worker[worker];
      for_worker[worker] = nullptr;
      return w;
    }
  } source;
  source.for_worker[0] = &job_a;
  source.for_worker[1] = &job_w;
  pool.extension().set_yield_policy(&policy);
  pool.extension().set_work_source(&source);
  job_w.wait();
  // Let worker 1 steal (it is idle now); then let C finish.
  // Up to 10 s: on a loaded machine worker 1 may wait long for a CPU.
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  while (log.get().size() < 2 && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(1ms);
  observed = true;
  job_a.wait();
  job_b.wait();
  job_c.wait();
  std::vector<std::string> entries = log.get();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0], "B@1");  // the higher-priority deque first
  EXPECT_EQ(entries[1], "A@1");
  pool.extension().set_yield_policy(nullptr);
  pool.extension().set_work_source(nullptr);
}

}  // namespace
