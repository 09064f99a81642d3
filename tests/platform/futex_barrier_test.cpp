// Tests of the futex barrier: reuse over many rounds, nobody leaves early, one last arriver per round.
#include "platform/futex_barrier.hpp"

#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using takt::platform::FutexBarrier;

namespace {

#ifdef TAKT_TSAN
constexpr int rounds = 300;
#else
constexpr int rounds = 3000;
#endif

/// `parties` threads go through `rounds` rounds. Before arriving in round r a thread
/// counts itself in arrivals[r]; after leaving it checks that everybody had arrived
/// (nobody passes early) and nobody has yet arrived for round r + 2 (nobody laps).
void exercise(std::uint32_t parties, std::chrono::nanoseconds spin) {
  FutexBarrier barrier(parties, spin);
  std::vector<std::atomic<std::uint32_t>> arrivals(rounds + 2);
  std::vector<std::atomic<std::uint32_t>> last_ones(rounds);
  std::atomic<int> early{0}, lapped{0};
  std::vector<std::thread> team;
  for (std::uint32_t t = 0; t < parties; ++t) {
    team.emplace_back([&, t] {
      for (int r = 0; r < rounds; ++r) {
        arrivals[r].fetch_add(1);
        if ((r + static_cast<int>(t)) % 7 == 0) std::this_thread::yield();  // stagger arrivals
        if (barrier.arrive_and_wait()) last_ones[r].fetch_add(1);
        if (arrivals[r].load() != parties) early.fetch_add(1);
        if (arrivals[r + 2].load() != 0) lapped.fetch_add(1);
      }
    });
  }
  for (auto& th : team) th.join();
  EXPECT_EQ(early.load(), 0) << "a thread left before the whole team arrived";
  EXPECT_EQ(lapped.load(), 0) << "a thread ran two rounds ahead";
  for (int r = 0; r < rounds; ++r) ASSERT_EQ(last_ones[r].load(), 1u) << "round " << r;
  EXPECT_EQ(barrier.generation(), static_cast<std::uint32_t>(rounds));
}

}  // namespace

TEST(FutexBarrier, TwoThreadsSleepingManyRounds) { exercise(2, 0ns); }
TEST(FutexBarrier, MoreThreadsThanCoresSleeping) { exercise(5, 0ns); }
TEST(FutexBarrier, SpinThenSleep) { exercise(3, 20us); }

TEST(FutexBarrier, OnePartyNeverBlocks) {
  FutexBarrier barrier(1);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(barrier.arrive_and_wait());
  EXPECT_EQ(barrier.generation(), 10u);
  EXPECT_THROW(FutexBarrier(0), takt::Error);
}
