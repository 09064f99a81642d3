// Tests of `takt bench layout`, run as a program. (The times are measurements of the
// machine and are not asserted; the rows, their exchanged depths and the ratios' own
// arithmetic are.)
#include "../support/command_test.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sched.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

class BenchLayout : public takt::testing::CommandTest {};

TEST_F(BenchLayout, EveryLayoutIsMeasuredWithNoneOneAndSixBlocksExchanged) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "needs two CPUs this process may use";
  const std::string json = (dir_ / "layout.json").string();
  const takt::testing::Outcome o = takt("bench layout --fib-n 16 --runs 4 --json " + json);
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  const nlohmann::json j = nlohmann::json::parse(takt::testing::slurp(json));
  EXPECT_EQ(j["benchmark"], "layout");
  EXPECT_TRUE(j["complete"].get<bool>());
  EXPECT_EQ(j["fib_n"], 16);
  const int depth = j["depth"].get<int>();
  ASSERT_GE(depth, 8);
  // 40 % of the chain, and the six depths from three above it to two below (within 1..D).
  const int middle = std::max(1, static_cast<int>(0.4 * depth + 0.5));
  std::vector<int> six;
  for (int d = std::max(1, middle - 3); d <= std::min(depth, middle + 2); ++d) six.push_back(d);
  const std::vector<std::vector<int>> exchanges{{}, {middle}, six};
  const nlohmann::json& rows = j["rows"];
  ASSERT_EQ(rows.size(), 6u) << j.dump();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json& row = rows[i];
    EXPECT_EQ(row["layout"], i < 3 ? "position order" : "shuffled");
    EXPECT_EQ(row["exchanged_depths"].get<std::vector<int>>(), exchanges[i % 3]) << row.dump();
    EXPECT_EQ(row["samples"], 4);
    ASSERT_EQ(row["samples_ms"].size(), 4u);
    EXPECT_GT(row["median_ms"].get<double>(), 0.0);
    EXPECT_LE(row["median_ms"].get<double>(), row["p95_ms"].get<double>());
    const double base = rows[i - i % 3]["median_ms"].get<double>();
    EXPECT_DOUBLE_EQ(row["ratio_to_unexchanged"].get<double>(), row["median_ms"].get<double>() / base);
  }
  EXPECT_NE(o.out.find("position order"), std::string::npos) << o.out;
}

TEST_F(BenchLayout, OptionsOutOfRangeSayWhatTheyExpect) {
  // CLI11's own words were "Value 0 not in range 1 to 100000".
  takt::testing::Outcome o = takt("bench layout --runs 0");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--runs: expects a whole number from 1 to 100000, not '0'"), std::string::npos)
      << o.err;
  o = takt("bench layout --fib-n 41");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("--fib-n: expects a whole number from 8 to 40, not '41'"), std::string::npos) << o.err;
}

TEST_F(BenchLayout, OneAllowedCpuIsRefusedWithWhatToChange) {
  const takt::testing::Outcome o = takt("bench layout --fib-n 10 --runs 1", "taskset -c 0");
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("runs two workers on two CPUs; this process may use 1 (0)"), std::string::npos)
      << o.err;
}

}  // namespace
