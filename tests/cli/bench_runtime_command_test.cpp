// Tests of `takt bench runtime`, run as a program: its JSON rows, the caller mode it
// records, and its error for an unknown kernel. (Its speed targets are not tested here:
// they are measurements, checked by running the benchmark, docs/benchmarks-runtime.md.)
#include "../support/command_test.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>

namespace {

using takt::testing::Outcome;

class BenchRuntime : public takt::testing::CommandTest {
 protected:
  nlohmann::json run_matmul(const std::string& extra) {
    const std::string json = (dir_ / "runtime.json").string();
    // TAKT_NO_RT=1: the multiprogrammed load competes in SCHED_OTHER instead of
    // preempting the tests that run beside this one.
    Outcome r = takt("bench runtime --quick --kernels matmul --workers 2 --json " + json + " " + extra, "TAKT_NO_RT=1");
    EXPECT_EQ(r.status, 0) << r.err;
    std::ifstream in(json);
    return nlohmann::json::parse(in);
  }
};

TEST_F(BenchRuntime, EveryRuntimeAndConditionGetsACorrectRowAndTheCallerModeIsRecorded) {
  nlohmann::json j = run_matmul("");
  EXPECT_EQ(j["benchmark"], "runtime");
  EXPECT_EQ(j["workers"], 2);
  EXPECT_TRUE(j["takt_caller_joins"].get<bool>());
  std::set<std::string> seen;
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["kernel"], "matmul");
    EXPECT_TRUE(row["correct"].get<bool>()) << row.dump();
    EXPECT_GT(row["median_ms"].get<double>(), 0.0);
    EXPECT_LE(row["median_ms"].get<double>(), row["p95_ms"].get<double>());
    EXPECT_LE(row["p95_ms"].get<double>(), row["max_ms"].get<double>());
    seen.insert(row["runtime"].get<std::string>() + "/" + row["condition"].get<std::string>());
  }
  for (const char* runtime : {"takt", "onetbb", "openmp", "serial"}) {
    for (const char* condition : {"isolated", "multiprogrammed"}) {
      EXPECT_EQ(seen.count(std::string(runtime) + "/" + condition), 1u) << runtime << " " << condition;
    }
  }
}

TEST_F(BenchRuntime, NoCallerJoinsIsRecorded) {
  nlohmann::json j = run_matmul("--no-caller-joins");
  EXPECT_FALSE(j["takt_caller_joins"].get<bool>());
  EXPECT_FALSE(j["rows"].empty());
}

TEST_F(BenchRuntime, AnUnknownKernelIsAClearError) {
  Outcome r = takt("bench runtime --quick --kernels matmull");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unknown kernel 'matmull'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("choose from"), std::string::npos) << r.err;
}

}  // namespace
