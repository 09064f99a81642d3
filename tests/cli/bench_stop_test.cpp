// `takt bench sched`, `takt bench latency` and `takt bench policies` stopped by SIGINT: the
// measurements made are printed and written (marked partial), and takt then ends by the
// signal (status 130).
#include "../support/command_test.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using takt::testing::Outcome;
using takt::testing::slurp;

class BenchStop : public takt::testing::CommandTest {};

constexpr int kEndedBySigint = 128 + SIGINT;

/// How often `what` occurs in `text`.
std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(BenchStop, SchedKeepsEveryScalingStepMeasured) {
  // 40 scaling steps of a fraction of a second each, stopped after 3 s: the steps that
  // the progress lines reported are all in the JSON and the table. Before, the JSON was
  // written only after the whole scaling part, so a stop lost them.
  const std::filesystem::path json = dir_ / "sched.json";
  const takt::testing::Interrupted r = signal_takt_after(
      {"bench", "sched", "--json", json.string(), "--repeats", "2", "--skip-per-stage", "--skip-idle"},
      std::chrono::seconds(3));
  const Outcome& o = r.outcome;
  ASSERT_EQ(o.status, kEndedBySigint) << o.err;
  EXPECT_NE(o.err.find("takt bench sched: stopped by SIGINT"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("stopped by SIGINT: partial"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("Admit and schedule per task against the number of PEs"), std::string::npos) << o.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j.value("stopped_by", ""), "SIGINT");
  EXPECT_FALSE(j.contains("baselines"));
  ASSERT_TRUE(j.contains("scaling")) << j.dump();
  std::size_t steps = 0;
  for (const auto& [name, t] : j["scaling"]["topologies"].items()) {
    steps += t["admit_ns"].size();
    // --skip-idle: the idle calls were not timed, so null, not zeros that read as measured.
    EXPECT_TRUE(t["idle_schedule_ns"].is_null()) << name << ": " << t.dump();
    EXPECT_TRUE(t["idle_schedule_growth_ratio"].is_null()) << name << ": " << t.dump();
  }
  EXPECT_EQ(o.out.find(" idle "), std::string::npos) << "no idle line without idle times\n" << o.out;
  EXPECT_GE(steps, 1u);
  EXPECT_LT(steps, 40u);
  EXPECT_EQ(steps, count(o.err, "scaling: ")) << "every step reported is written\n" << o.err;
}

TEST_F(BenchStop, LatencyPrintsAndWritesTheMeasurementsMade) {
  // Measurements of 1 s under SCHED_OTHER (2 cores: 2 scheduling, 3 barrier and 2 OpenMP
  // barrier rows; more on more cores), stopped after 2.5 s. Before, nothing was printed.
  const std::filesystem::path json = dir_ / "latency.json";
  const std::vector<std::string> args{
      "bench", "latency", "--seconds", "1", "--no-fifo", "--no-cyclictest", "--no-pm-qos", "--json",
      json.string()};
  const takt::testing::Interrupted r = signal_takt_after(args, std::chrono::milliseconds(2500));
  const Outcome& o = r.outcome;
  ASSERT_EQ(o.status, kEndedBySigint) << o.err;
  EXPECT_NE(o.err.find("takt bench latency: stopped by SIGINT"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("stopped by SIGINT: only the measurements made until then"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("== SCHED_OTHER =="), std::string::npos) << o.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j.value("stopped_by", ""), "SIGINT");
  ASSERT_TRUE(j.contains("conditions")) << j.dump();
  ASSERT_EQ(j["conditions"].size(), 1u);
  const std::size_t results = j["conditions"][0]["results"].size();
  EXPECT_GE(results, 1u);
  EXPECT_LT(results, 5u);
  // Every measurement begun (a progress line each) is finished and kept.
  EXPECT_EQ(results, count(o.err, "takt: SCHED_OTHER: ")) << o.err;
  EXPECT_EQ(count(o.out, "scheduling_latency") + count(o.out, "barrier_latency"), results) << o.out;
}

TEST_F(BenchStop, LatencyEndsCyclictestEarlyAndKeepsItsSamples) {
  // cyclictest (or takt's timer probe where it cannot run) for 30 s, stopped after 2 s:
  // it gets SIGINT and its samples until then are kept; takt does not wait 30 s.
  const std::filesystem::path json = dir_ / "latency.json";
  const takt::testing::Interrupted r = signal_takt_after(
      {"bench", "latency", "--seconds", "30", "--no-fifo", "--no-pm-qos", "--json", json.string()},
      std::chrono::seconds(2));
  const Outcome& o = r.outcome;
  ASSERT_EQ(o.status, kEndedBySigint) << o.err;
  EXPECT_LT(r.after_signal, std::chrono::seconds(15)) << o.err;
  EXPECT_NE(o.err.find("ended early"), std::string::npos) << o.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["complete"], false);
  ASSERT_TRUE(j.contains("conditions")) << j.dump();
  ASSERT_EQ(j["conditions"].size(), 1u);
  const nlohmann::json& ct = j["conditions"][0]["cyclictest"];
  EXPECT_EQ(ct["ran"], true) << ct.dump();
  EXPECT_EQ(ct.value("stopped", false), true) << ct.dump();
  EXPECT_GT(ct.value("samples", std::uint64_t{0}), 0u) << ct.dump();
  EXPECT_TRUE(j["conditions"][0]["results"].empty());
}

TEST_F(BenchStop, PoliciesEndsItsCyclictestBaselineEarlyAndKeepsItsSamples) {
  // The baseline (cyclictest for 30 s) stopped after 2 s: cyclictest gets SIGINT, its
  // samples until then are the baseline, no set runs, and the JSON says it is partial.
  // Before, takt died of the signal there (nothing written but a placeholder, and
  // cyclictest ran on).
  const std::filesystem::path json = dir_ / "policies.json";
  const takt::testing::Interrupted r = signal_takt_after({"bench", "policies", "--cyclictest-seconds", "30",
                                                          "--utilization", "30", "--workload", "fine", "--sets",
                                                          "1", "--json", json.string()},
                                                         std::chrono::seconds(2));
  const Outcome& o = r.outcome;
  ASSERT_EQ(o.status, kEndedBySigint) << o.err;
  EXPECT_LT(r.after_signal, std::chrono::seconds(15)) << o.err;
  EXPECT_NE(o.err.find("stopped by SIGINT during cyclictest, before any set ran"), std::string::npos) << o.err;
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j.value("stopped_by", ""), "SIGINT") << "as the other benchmarks' JSON says it";
  EXPECT_EQ(j["cyclictest"]["ran"], true) << j["cyclictest"].dump();
  EXPECT_GT(j["cyclictest"].value("samples", std::uint64_t{0}), 0u) << j["cyclictest"].dump();
}

}  // namespace
