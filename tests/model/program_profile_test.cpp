// Tests of the program-profile file (measured work and span, input of the rtws generator).
#include "model/program_profile.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

using namespace std::chrono_literals;
using takt::model::parse_program_profiles;
using takt::model::write_program_profiles;

TEST(ProgramProfile, ParsesAndRoundTrips) {
  const std::string text = R"(programs:
  - {name: chol, program: cholesky, args: [3000, 32], work: 32.31s, span: 1.23s, burdened_span: 1.3s}
  - name: fib
    program: fib
    work: 1ms
    span: 10us
)";
  auto profiles = parse_program_profiles(text, "p.yaml");
  ASSERT_EQ(profiles.size(), 2u);
  EXPECT_EQ(profiles[0].work, 32310ms);
  EXPECT_EQ(profiles[0].burdened_span, 1300ms);
  EXPECT_EQ(profiles[0].args, (std::vector<std::string>{"3000", "32"}));
  EXPECT_FALSE(profiles[1].burdened_span.has_value());
  auto again = parse_program_profiles(write_program_profiles(profiles, "header"), "q.yaml");
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].name, "chol");
  EXPECT_EQ(again[0].span, 1230ms);
  EXPECT_EQ(again[1].work, 1ms);
}

TEST(ProgramProfile, Validates) {
  auto error_of = [](const std::string& text) {
    try {
      (void)parse_program_profiles(text, "p.yaml");
    } catch (const takt::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("programs:\n  - {name: a, program: a, work: 1ms, span: 2ms}\n").find("p.yaml:2:"),
            std::string::npos);
  EXPECT_NE(error_of("programs:\n  - {name: a, program: a, work: 1ms}\n").find("needs 'span'"),
            std::string::npos);
  EXPECT_NE(error_of("programs:\n  - {name: a, program: a, work: 1ms, span: 1ms, colour: red}\n")
                .find("unknown key"),
            std::string::npos);
  EXPECT_NE(error_of("programs: []\n").find("non-empty"), std::string::npos);
  // Empty names and programs were taken, and takt generate then wrote tasks without a
  // program, which failed only when they were run.
  EXPECT_NE(error_of("programs:\n  - {name: \"\", program: a, work: 1ms, span: 1ms}\n")
                .find("p.yaml:2:12: a program's name must not be empty"),
            std::string::npos)
      << error_of("programs:\n  - {name: \"\", program: a, work: 1ms, span: 1ms}\n");
  EXPECT_NE(error_of("programs:\n  - {name: a, program: '', work: 1ms, span: 1ms}\n")
                .find("program 'a': program must not be empty"),
            std::string::npos);
}

TEST(ProgramProfile, EachEntrySaysHowItWasMeasured) {
  // `measured:` (takt profile --profiles) round-trips; jobs and percentile are required
  // in it and checked, machine and date are free text.
  const std::string text = R"y(programs:
  - name: fib-12
    program: fib
    args: [12]
    work: 1ms
    span: 10us
    measured: {jobs: 3, percentile: 99.9, machine: "AMD EPYC, 2 CPU(s)", date: 2026-11-29}
  - {name: old, program: fib, work: 1ms, span: 10us}
)y";
  auto profiles = parse_program_profiles(text, "p.yaml");
  ASSERT_TRUE(profiles[0].measured.has_value());
  EXPECT_EQ(profiles[0].measured->jobs, 3);
  EXPECT_EQ(profiles[0].measured->percentile, 99.9);
  EXPECT_EQ(profiles[0].measured->machine, "AMD EPYC, 2 CPU(s)");
  EXPECT_EQ(profiles[0].measured->date, "2026-11-29");
  EXPECT_FALSE(profiles[1].measured.has_value());
  const std::string written = write_program_profiles(profiles);
  EXPECT_NE(written.find("    measured: {jobs: 3, percentile: 99.9, machine: \"AMD EPYC, 2 CPU(s)\", date: "
                         "2026-11-29}\n"),
            std::string::npos)
      << written;
  auto again = parse_program_profiles(written, "q.yaml");
  ASSERT_TRUE(again[0].measured.has_value());
  EXPECT_EQ(again[0].measured->percentile, 99.9);
  EXPECT_FALSE(again[1].measured.has_value());
  auto error_of = [](const std::string& measured) {
    try {
      (void)parse_program_profiles(
          "programs:\n  - {name: a, program: a, work: 1ms, span: 1ms, measured: " + measured + "}\n",
          "p.yaml");
    } catch (const takt::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // Written exactly: 99.99995 was written as 100 (6 significant digits), "the maximum".
  profiles[0].measured->percentile = 99.99995;
  EXPECT_EQ(parse_program_profiles(write_program_profiles(profiles), "r.yaml")[0].measured->percentile,
            99.99995);
  EXPECT_NE(error_of("{jobs: 3}").find("measured needs 'percentile'"), std::string::npos);
  EXPECT_NE(error_of("{jobs: 0, percentile: 50}").find("measured jobs"), std::string::npos);
  EXPECT_NE(error_of("{jobs: 3, percentile: 0}")
                .find("measured percentile must be a number above 0 and at most "
                      "100 (100: the maximum), got '0'"),
            std::string::npos)
      << error_of("{jobs: 3, percentile: 0}");
  EXPECT_NE(error_of("{jobs: 3, percentile: 100.5}").find("got '100.5'"), std::string::npos);
  EXPECT_NE(error_of("{jobs: 3, percentile: 50, when: now}").find("unknown key"), std::string::npos);
  EXPECT_NE(error_of("3").find("measured"), std::string::npos);
}
