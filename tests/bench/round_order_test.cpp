// The order in which takt bench runtime asks its runtimes for rounds.
#include "bench/runtime/runtime_bench.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>
#include <vector>

namespace {

using takt::bench::round_position;

std::vector<std::size_t> order(std::size_t round, std::size_t n) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(round_position(round, i, n));
  return out;
}

TEST(RoundOrder, EveryRoundRunsEachRuntimeOnce) {
  for (std::size_t n = 1; n <= 4; ++n) {
    for (std::size_t round = 0; round < 40; ++round) {
      const auto o = order(round, n);
      EXPECT_EQ(std::set<std::size_t>(o.begin(), o.end()).size(), n) << "n " << n << " round " << round;
    }
  }
}

TEST(RoundOrder, TheFirstRoundsByHand) {
  // Runtimes 0 1 2 3 (serial, takt, oneTBB, OpenMP). Round 0 as listed, round 1
  // backwards, round 2 rotated by one, round 3 that backwards.
  EXPECT_EQ(order(0, 4), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(order(1, 4), (std::vector<std::size_t>{3, 2, 1, 0}));
  EXPECT_EQ(order(2, 4), (std::vector<std::size_t>{1, 2, 3, 0}));
  EXPECT_EQ(order(3, 4), (std::vector<std::size_t>{0, 3, 2, 1}));
}

TEST(RoundOrder, EachRuntimeRunsJustBeforeAndJustAfterAnotherEquallyOften) {
  // With the order only rotating, 1 (takt) ran just before 2 (oneTBB) in 3 of every 4
  // rounds and just after it in none. Over any 2·n consecutive rounds each ordered pair
  // of neighbours occurs as often as the reversed pair, and each runtime runs first
  // equally often.
  for (std::size_t n = 2; n <= 4; ++n) {
    std::map<std::pair<std::size_t, std::size_t>, int> before;
    std::map<std::size_t, int> first;
    for (std::size_t round = 0; round < 2 * n; ++round) {
      const auto o = order(round, n);
      ++first[o[0]];
      for (std::size_t i = 0; i + 1 < n; ++i) ++before[{o[i], o[i + 1]}];
    }
    for (const auto& [pair, count] : before) {
      const auto reversed = before.find(std::pair{pair.second, pair.first});
      EXPECT_EQ(count, reversed == before.end() ? 0 : reversed->second)
          << "n " << n << ": " << pair.first << " before " << pair.second;
    }
    for (std::size_t r = 0; r < n; ++r) EXPECT_EQ(first[r], 2) << "n " << n << ": runtime " << r;
  }
}

}  // namespace
