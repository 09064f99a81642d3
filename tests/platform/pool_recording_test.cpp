// The last-worker table of a pool's recording: which worker last ended a strand of a
// runtime task, and its job (where a thief's continuation came from, and whose it is).
#include "platform/pool_recording.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

namespace {

using takt::platform::JobRef;
using takt::platform::LastWorkerTable;

/// Two task ids that share a slot.
std::pair<std::uint64_t, std::uint64_t> colliding() {
  std::vector<std::uint64_t> first(LastWorkerTable::size, 0);
  for (std::uint64_t task = 1;; ++task) {
    std::uint64_t& seen = first[LastWorkerTable::slot_of(task)];
    if (seen != 0) return {seen, task};
    seen = task;
  }
}

TEST(LastWorkerTable, ReadsWhatWasRememberedAndLosesWhatACollisionOverwrote) {
  LastWorkerTable table;
  const auto [a, b] = colliding();
  std::uint32_t worker = 0;
  JobRef job;
  EXPECT_FALSE(table.read(a, worker, job));
  table.remember(a, 3, JobRef{true, 2, 9});
  ASSERT_TRUE(table.read(a, worker, job));
  EXPECT_EQ(worker, 3u);
  EXPECT_TRUE(job.valid);
  EXPECT_EQ(job.task, 2u);
  EXPECT_EQ(job.job, 9u);
  EXPECT_FALSE(table.read(b, worker, job)) << "b shares a's slot and was not remembered";
  table.remember(b, 1, JobRef{true, 5, 6});
  EXPECT_FALSE(table.read(a, worker, job)) << "b took the slot";
  ASSERT_TRUE(table.read(b, worker, job));
  EXPECT_EQ(worker, 1u);
  EXPECT_EQ(job.task, 5u);
  EXPECT_EQ(job.job, 6u);
}

TEST(LastWorkerTable, AReaderNeverTakesFieldsOfTwoWrites) {
  // Two workers write two tasks of one slot, each always with its own values (worker k,
  // job k of task k); a third reads both. Every read that succeeds has one write's
  // fields. Until 2026-11-29 the writes were not exclusive: the slot's key could be one
  // writer's and the job the other's (a steal attributed to the wrong job).
  LastWorkerTable table;
  const auto [a, b] = colliding();
  std::atomic<bool> stop{false};
  auto writer = [&](std::uint64_t task, std::uint32_t k) {
    while (!stop.load(std::memory_order_relaxed)) {
      table.remember(task, k, JobRef{true, k, k});
      // A pause between writes (as between two strands' ends), in which reads succeed.
      volatile int spin = 0;
      while (spin < 64) spin = spin + 1;
    }
  };
  std::thread wa(writer, a, 1);
  std::thread wb(writer, b, 2);
  std::uint64_t reads = 0, mixed = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (int i = 0; i < 200000 || (reads < 1000 && std::chrono::steady_clock::now() < until); ++i) {
    for (const auto& [task, k] : {std::pair{a, 1u}, std::pair{b, 2u}}) {
      std::uint32_t worker = 0;
      JobRef job;
      if (!table.read(task, worker, job)) continue;
      ++reads;
      if (worker != k || job.task != k || job.job != k) ++mixed;
    }
  }
  stop = true;
  wa.join();
  wb.join();
  EXPECT_GT(reads, 0u) << "no read succeeded: the test checked nothing";
  EXPECT_EQ(mixed, 0u) << "of " << reads << " reads";
}

}  // namespace
