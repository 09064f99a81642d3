// Tests of `takt bench cpus`, run as a program: a Ctrl-C keeps the CPUs measured before it.
// (The speeds are measurements of the machine and are not asserted.)
#include "../support/command_test.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <string>

namespace {

using namespace std::chrono_literals;

class BenchCpus : public takt::testing::CommandTest {};

TEST_F(BenchCpus, CtrlCWritesTheCpusMeasuredMarkedPartialAndEndsBySigint) {
  // Phases of 6 s; SIGINT at 9 s: the first CPU was measured alone (by 6 s, plus
  // takt's start), the next measurement (the second CPU alone until 12 s, or with one
  // CPU the phase with every CPU busy) is in flight. 3 s of margin on either side for a
  // loaded machine. It wrote nothing before (SIGINT's default action).
  const std::string json = (dir_ / "cpus.json").string();
  const takt::testing::Interrupted r = signal_takt_when(
      {"bench", "cpus", "--seconds", "6", "--json", json},
      [](const std::string&, std::chrono::steady_clock::duration elapsed) { return elapsed >= 9000ms; });
  const takt::testing::Outcome& o = r.outcome;
  ASSERT_TRUE(r.signalled) << o.out << o.err;
  EXPECT_EQ(o.status, 128 + SIGINT) << o.err;  // ended by the signal, after writing
  EXPECT_NE(o.err.find("takt bench cpus: stopping"), std::string::npos) << o.err;
  // The measurement in flight is cut short (it would have gone on for 3 s; 2.5 s leaves
  // the JSON's write and the exit room on a machine where another test runs beside).
  EXPECT_LT(r.after_signal, 2500ms);
  const nlohmann::json j = nlohmann::json::parse(takt::testing::slurp(json));
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["stopped_by"], "SIGINT");
  const nlohmann::json& cpus = j["cpus"];
  ASSERT_GE(cpus.size(), 1u);
  EXPECT_GT(cpus[0]["alone_p50_iterations_per_ns"].get<double>(), 0.0);
  EXPECT_TRUE(j["worst_stretch_alone"].is_number());
  EXPECT_TRUE(j["worst_stretch_together"].is_null());
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    SCOPED_TRACE(i);
    if (i > 0) {
      EXPECT_TRUE(cpus[i]["alone_p50_iterations_per_ns"].is_null()) << cpus[i].dump();
    }
    EXPECT_TRUE(cpus[i]["together_p50_iterations_per_ns"].is_null()) << cpus[i].dump();
  }
  EXPECT_NE(o.out.find("partial: stopped by SIGINT: 1 of " + std::to_string(cpus.size()) +
                       " CPU(s) measured alone"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("results written to " + json + " (partial)"), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("takt bench cpus: stopped by SIGINT: 1 of"), std::string::npos) << o.err;
}

}  // namespace
