// Concurrency tests (also run under ThreadSanitizer): shared pipes and the reconfiguration stress test.
#include "policies/builtin_topologies.hpp"
#include "sched/scheduler.hpp"
#include "sched_test_util.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace takt::sched;
using namespace takt::sched::test;
using takt::policies::builtin_topology;

namespace {

#ifdef TAKT_TSAN
constexpr int kScale = 1;  // ThreadSanitizer runs 5-15 times slower
#else
constexpr int kScale = 4;
#endif

/// What happened to one task, counted by the threads that touched it.
struct Record {
  std::atomic<int> running{0};  // > 1 would mean dispatched twice at once
  std::atomic<int> dispatches{0};
  std::atomic<int> exits{0};
  int lifetime = 1;  // dispatches before it exits
};

struct Workload {
  explicit Workload(std::size_t n) : tasks(n), records(n) {
    std::mt19937 rng(2024);
    for (std::size_t i = 0; i < n; ++i) {
      Task& t = tasks[i];
      t.id = i;
      t.deadline = std::chrono::microseconds(rng() % 10000);
      t.priority = static_cast<int>(rng() % 8);
      t.payload = &records[i];
      records[i].lifetime = 1 + static_cast<int>(rng() % 3);
    }
  }
  std::vector<Task> tasks;
  std::vector<Record> records;
  std::atomic<int> doubles{0};
  std::atomic<std::size_t> exited{0};
};

/// One dispatch of `t` by a worker: check exclusivity, then give it back or finish it.
void handle(Scheduler& s, Workload& w, Task& t, std::mt19937& rng) {
  Record& r = *static_cast<Record*>(t.payload);
  if (r.running.fetch_add(1) != 0) w.doubles.fetch_add(1);
  const int n = r.dispatches.fetch_add(1) + 1;
  std::this_thread::yield();  // let others race for it
  r.running.fetch_sub(1);
  if (n >= r.lifetime) {
    EXPECT_TRUE(s.exit(t));
    r.exits.fetch_add(1);
    w.exited.fetch_add(1);
  } else if (rng() % 4 == 0) {
    EXPECT_TRUE(s.block(t));
    s.unblock(t);
  } else {
    s.relinquish(t);
  }
}

}  // namespace

TEST(Concurrency, ProcessingElementsSharingAPipeNeverTakeATaskTwice) {
  const std::size_t n = 2000 * kScale;
  Workload w(n);
  Scheduler s(builtin_topology("federated"), ProcessingElements::uniform(4));  // one cluster, one shared pipe
  for (Task& t : w.tasks) t.cluster = 0;
  std::thread admitter([&] {
    for (Task& t : w.tasks) s.admit(t);
  });
  std::vector<std::thread> workers;
  for (int pe = 0; pe < 4; ++pe) {
    workers.emplace_back([&, pe] {
      std::mt19937 rng(static_cast<unsigned>(pe));
      while (w.exited.load() < n) {
        if (Task* t = s.schedule(pe)) {
          handle(s, w, *t, rng);
        } else {
          std::this_thread::yield();
        }
      }
    });
  }
  admitter.join();
  for (auto& t : workers) t.join();
  EXPECT_EQ(w.doubles.load(), 0);
  for (const Record& r : w.records) {
    ASSERT_EQ(r.exits.load(), 1);
    ASSERT_EQ(r.dispatches.load(), r.lifetime);
  }
  EXPECT_EQ(s.attached_tasks(), 0u);
  EXPECT_EQ(s.verify(), "");
}

TEST(Concurrency, ADispatchOfATaskWhileItIsRelinquishedFindsItWhole) {
  // dispatch(task, pe) may overlap the task's own calls. relinquish() published the task
  // as schedulable before it set the task's entry pipe and queued it there: a dispatch()
  // in between claimed it and left a null entry pipe (a crash), or removed nothing, and
  // the relinquish then queued a running task (verify() found it queued, and its pipe
  // slots ran out). Here PE 0 takes the task by schedule() and PE 1 by dispatch(), each
  // relinquishing it again at once.
  Scheduler s(builtin_topology("federated"), ProcessingElements::uniform(2));
  Task task;
  task.id = 1;
  task.cluster = 0;
  s.admit(task);
  // Until each side has taken the task 2000 times (at most 10 s): a fixed number of
  // rounds could all pass on one side before the other thread ran (a busy machine).
  const int enough = 2000 * kScale;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::atomic<int> running{0}, doubles{0}, taken_by_dispatch{0}, taken_by_schedule{0};
  auto hold = [&] {
    if (running.fetch_add(1) != 0) doubles.fetch_add(1);
    running.fetch_sub(1);
    s.relinquish(task);
  };
  auto go_on = [&] {
    return (taken_by_dispatch.load() < enough || taken_by_schedule.load() < enough) &&
           std::chrono::steady_clock::now() < give_up;
  };
  std::thread scheduler_pe([&] {
    while (go_on()) {
      if (s.schedule(0) != nullptr) {
        taken_by_schedule.fetch_add(1);
        hold();
      }
    }
  });
  std::thread dispatcher_pe([&] {
    while (go_on()) {
      if (s.dispatch(task, 1)) {
        taken_by_dispatch.fetch_add(1);
        hold();
      }
    }
  });
  scheduler_pe.join();
  dispatcher_pe.join();
  EXPECT_EQ(doubles.load(), 0);
  EXPECT_GT(taken_by_dispatch.load(), 0);
  EXPECT_GT(taken_by_schedule.load(), 0);
  EXPECT_EQ(task.state(), TaskState::schedulable);
  EXPECT_EQ(s.verify(), "");
  EXPECT_TRUE(s.exit(task));
  EXPECT_EQ(s.verify(), "");
}

TEST(Concurrency, ReconfigurationUnderLoadLosesAndDuplicatesNothing) {
  // Two admitters, three workers dispatching / relinquishing / blocking / exiting,
  // one thread sending AFFINITY notifications, and one swapping instances, whole
  // topologies and processing elements as fast as it can. Afterwards every task
  // must have been dispatched exactly `lifetime` times, never by two PEs at once,
  // and have exited exactly once; nothing may be left in any pipe.
  const std::size_t n = 1500 * kScale;
  Workload w(n);
  const std::vector<int> clusters = {0, 0, 1, 1};
  for (std::size_t i = 0; i < n; ++i) {
    w.tasks[i].pe = static_cast<int>(i % 4);
    w.tasks[i].cluster = clusters[i % 4];
  }
  const TopologySpec balanced = topology(
      "topology:\n"
      "  name: balanced\n"
      "  pipes: {in: one, sorted: one, q: per-pe}\n"
      "  entry: in\n"
      "  instances:\n"
      "    order: {component: fcfs, input: in, output: sorted}\n"
      "    lb: {component: load-balancer, inputs: sorted, outputs: \"q[*]\"}\n"
      "    clock: {component: lamport}\n"
      "    affinity: {component: affinity}\n"
      "  pes: {terminal: \"q[pe]\", steal: q}\n");
  // A balancer with two inputs: its updates take its instance lock.
  const TopologySpec merged = topology(
      "topology:\n"
      "  name: merged\n"
      "  pipes: {in: one, sorted: one, a: one, b: one, q: per-pe}\n"
      "  entry: in\n"
      "  instances:\n"
      "    order: {component: edf, input: in, output: sorted}\n"
      "    split: {component: distributor, input: sorted, outputs: [a, b]}\n"
      "    lb: {component: load-balancer, inputs: [a, b], outputs: \"q[*]\"}\n"
      "    affinity: {component: affinity}\n"
      "  pes: {terminal: \"q[pe]\", steal: q}\n");
  const std::vector<TopologySpec> topologies = {builtin_topology("gedf-paws"), builtin_topology("federated"),
                                                balanced, builtin_topology("partitioned-dm"), merged};
  Scheduler s(topologies[0], ProcessingElements::with_clusters(clusters));

  std::atomic<bool> admitting{true};
  std::atomic<int> admitters_left{2};
  std::atomic<int> swaps{0};
  std::vector<std::thread> threads;
  for (int a = 0; a < 2; ++a) {
    threads.emplace_back([&, a] {
      for (std::size_t i = static_cast<std::size_t>(a); i < n; i += 2) {
        // Halfway, wait for a good number of swaps, so that they certainly happen
        // while tasks are in flight, however the threads get scheduled.
        if (i == n / 2 + static_cast<std::size_t>(a)) {
          while (swaps.load() < 20) std::this_thread::yield();
        }
        s.admit(w.tasks[i]);
      }
      if (admitters_left.fetch_sub(1) == 1) admitting.store(false);
    });
  }
  for (int k = 0; k < 3; ++k) {
    threads.emplace_back([&, k] {
      std::mt19937 rng(100u + static_cast<unsigned>(k));
      while (w.exited.load() < n) {
        const int pe = static_cast<int>(rng() % 4);
        if (Task* t = s.schedule(pe)) {
          handle(s, w, *t, rng);
        } else {
          std::this_thread::yield();
        }
      }
    });
  }
  threads.emplace_back([&] {
    std::mt19937 rng(7);
    while (w.exited.load() < n) {
      Task& t = w.tasks[rng() % n];
      if (t.attached()) {
        const int pe = static_cast<int>(rng() % 4);
        s.notify(topics::affinity, AffinityMessage{&t, clusters[static_cast<std::size_t>(pe)], pe});
      }
      std::this_thread::yield();
    }
  });
  std::thread swapper([&] {
    std::mt19937 rng(11);
    const char* orders[] = {"edf", "deadline-monotonic", "fixed-priority", "head-queue"};
    bool pe3_online = true;
    for (int round = 0; admitting.load() || w.exited.load() < n * 3 / 4; ++round) {
      switch (round % 4) {
        case 0:
          s.swap_topology(topologies[rng() % topologies.size()]);
          break;
        case 1: {
          const std::string name = s.spec().name;
          if (name == "balanced") {
            s.swap_instance("order", (rng() % 2) ? "fcfs" : "lcfs");
          } else if (name == "merged" && rng() % 2 == 0) {
            s.swap_instance("lb", (rng() % 2) ? "advanced-balancer" : "load-balancer");
          } else {
            s.swap_instance("order", orders[rng() % 4]);
          }
          break;
        }
        case 2:
          if (pe3_online) {
            s.remove_pe(3);
          } else {
            s.add_pe(3, 1);
          }
          pe3_online = !pe3_online;
          break;
        case 3:
          s.swap_instance("affinity", "affinity");
          break;
      }
      swaps.fetch_add(1);
      std::this_thread::yield();
    }
    // Finish on a topology where every task is reachable from every PE.
    if (!pe3_online) s.add_pe(3, 1);
    s.swap_topology(topologies[0]);
  });
  swapper.join();
  // A task lost in a pipe no PE reaches would hang the workers: give up after a while.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (w.exited.load() < n && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(w.exited.load(), n) << "tasks stuck; loads: " << [&] {
    std::string loads;
    for (const PipeLoad& l : s.pipe_loads()) loads += l.pipe + "=" + std::to_string(l.tasks) + " ";
    return loads;
  }();
  for (auto& t : threads) t.join();

  EXPECT_EQ(w.doubles.load(), 0);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(w.records[i].exits.load(), 1) << "task " << i;
    ASSERT_EQ(w.records[i].dispatches.load(), w.records[i].lifetime) << "task " << i;
    ASSERT_FALSE(w.tasks[i].attached());
  }
  EXPECT_EQ(s.attached_tasks(), 0u);
  for (const PipeLoad& l : s.pipe_loads()) EXPECT_EQ(l.tasks, 0u) << l.pipe;
  EXPECT_EQ(s.verify(), "");
  RecordProperty("reconfigurations", static_cast<int>(s.reconfigurations()));
  std::printf("%d reconfiguration rounds while tasks flowed\n", swaps.load());
  EXPECT_GE(swaps.load(), 20);
  EXPECT_GE(s.reconfigurations(), static_cast<std::uint64_t>(swaps.load()));
}
