// Tests of importing .rtpt files (WUSTL federated-scheduling tools).
#include "model/rtpt.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

using namespace std::chrono_literals;
using takt::model::parse_rtpt;

namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_rtpt(text, "x.rtpt");
  } catch (const takt::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(Rtpt, ReadsCoresProgramsAndTiming) {
  const std::string text =
      "2 5\n"
      "heat --rows 1024\n"
      "1 500000000 0 20000000 1 0 0 900000000 0 5000 30\n"
      "synthetic_task 2 1 0 600000 4 0 200000\n"
      "0 1400000 0 800000 0 10000000 0 10000000 0 0 100\n";
  auto set = parse_rtpt(text, "x.rtpt");
  ASSERT_TRUE(set.global.cores.has_value());
  EXPECT_EQ(set.global.cores->cpus, (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(set.global.policy, takt::model::Policy::federated);
  ASSERT_EQ(set.tasks.size(), 2u);
  const auto& heat = set.tasks[0];
  EXPECT_EQ(heat.name, "heat-1");
  EXPECT_EQ(heat.program, "heat");
  EXPECT_EQ(heat.args, (std::vector<std::string>{"--rows", "1024"}));
  EXPECT_EQ(heat.work(), 1500ms);
  EXPECT_EQ(heat.span(), 20ms);
  EXPECT_EQ(heat.period, 1s);
  EXPECT_EQ(heat.deadline, 900ms);
  EXPECT_EQ(heat.offset, 5us);
  const auto& synth = set.tasks[1];
  EXPECT_EQ(synth.program, "segments");
  EXPECT_TRUE(synth.args.empty());
  ASSERT_EQ(synth.segments.size(), 2u);
  EXPECT_EQ(synth.segments[0].strands, 1);
  EXPECT_EQ(synth.segments[0].length, 600us);
  EXPECT_EQ(synth.segments[1].strands, 4);
  EXPECT_EQ(synth.segments[1].length, 200us);
  // The timing line agrees with the segments (C = 0.6 + 4·0.2 = 1.4 ms, P = 0.8 ms), so no
  // separate measured values are kept.
  EXPECT_FALSE(synth.measured_work.has_value());
  EXPECT_EQ(synth.work(), 1400us);
  // Run length: the longest iterations × period = max(30 · 1 s, 100 · 10 ms) = 30 s.
  EXPECT_EQ(set.global.duration, 30s);
}

TEST(Rtpt, ErrorsPointAtTheLineAndColumn) {
  EXPECT_EQ(error_of("0\n").rfind("x.rtpt:1:1: the first line must be 'first_core last_core'", 0), 0u)
      << error_of("0\n");
  EXPECT_EQ(
      error_of("0 3\nprog\n1 2 3\n").rfind("x.rtpt:3:1: the timing line of task 'prog-1' must have 11", 0),
      0u)
      << error_of("0 3\nprog\n1 2 3\n");
  EXPECT_EQ(
      error_of("0 3\nprog\n0 5 0 1 0 10 0 x 0 0 1\n").rfind("x.rtpt:3:16: deadline nanoseconds must be", 0),
      0u)
      << error_of("0 3\nprog\n0 5 0 1 0 10 0 x 0 0 1\n");
  EXPECT_NE(error_of("0 3\nprog\n0 5 0 1 0 10 0 11 0 0 1\n")
                .find("x.rtpt:3:14: task 'prog-1': deadline 11ns exceeds"),
            std::string::npos);
  EXPECT_NE(error_of("0 3\nprog\n0 5 0 6 0 10 0 10 0 0 1\n").find("span 6ns exceeds work 5ns"),
            std::string::npos);
  EXPECT_NE(error_of("0 3\nprog\n0 5 0 1 0 10 0 10 0 1000000000 1\n").find("below 1000000000"),
            std::string::npos);
  EXPECT_NE(error_of("0 3\nprog\n").find("has no timing line"), std::string::npos);
  EXPECT_NE(error_of("0 3\nsynthetic_task 2 1 0 5\n0 5 0 5 0 10 0 10 0 0 1\n").find("needs 6 numbers"),
            std::string::npos);
  // Zero segments: "with 0 segments needs 0 numbers after it" asked for what was given.
  EXPECT_NE(error_of("0 3\nsynthetic_task 0\n0 5 0 5 0 10 0 10 0 0 1\n")
                .find("x.rtpt:2:16: synthetic_task needs at least 1 segment (got 0)"),
            std::string::npos)
      << error_of("0 3\nsynthetic_task 0\n0 5 0 5 0 10 0 10 0 0 1\n");
  // A Latin-1 'é' (0xE9) in a program name: reported here, at its place in the .rtpt file
  // (takt convert used to fail on it in the converted text, or in the JSON writer).
  EXPECT_EQ(error_of("0 3\nprogr\xE9m\n0 5 0 1 0 10 0 10 0 0 1\n")
                .rfind("x.rtpt:2:6: byte 0xE9 is not UTF-8 text; save the file as UTF-8", 0),
            0u)
      << error_of("0 3\nprogr\xE9m\n0 5 0 1 0 10 0 10 0 0 1\n");
}

TEST(Rtpt, ALimitPassedNamesTheLimit) {
  // "last_core is too large" and "period seconds is too large" did not say how large may be.
  EXPECT_EQ(error_of("0 65536\nprog\n0 5 0 1 0 10 0 10 0 0 1\n"),
            "x.rtpt:1:3: last_core is too large (at most 65535, the largest CPU number takt handles)");
  EXPECT_EQ(error_of("0 65535\nprog\n0 5 0 1 0 10 0 10 0 0 1\n").find("last_core"), std::string::npos);
  EXPECT_EQ(error_of("0 3\nprog\n0 5 0 1 4000000001 0 0 10 0 0 1\n"),
            "x.rtpt:3:9: period seconds is too large (at most 4000000000, about 127 years)");
}

TEST(Rtpt, SyntheticSegmentsLongerThanTheDeadlineFailAtTheirLine) {
  // The timing line is consistent (span 0.5 ms ≤ D = 0.7 ms), but the segments of line 2
  // have the critical path 0.6 + 0.2 = 0.8 ms > 0.7 ms. This used to pass here and fail only
  // when `takt convert` parsed its own output ("<converted>:15:7").
  const std::string text =
      "0 3\n"
      "synthetic_task 2 1 0 600000 4 0 200000\n"
      "0 1400000 0 500000 0 700000 0 700000 0 0 1\n";
  EXPECT_EQ(error_of(text).rfind("x.rtpt:2:1: task 'synthetic_task-1': the critical path of its segments "
                                 "(800us) exceeds the deadline 700us",
                                 0),
            0u)
      << error_of(text);
  // Equal to the deadline is fine.
  EXPECT_EQ(
      error_of("0 3\nsynthetic_task 2 1 0 600000 4 0 100000\n0 1000000 0 700000 0 700000 0 700000 0 0 1\n"),
      "no error");
}

TEST(Rtpt, AReleasePlusThePeriodBeyondTheLargestDurationFailsAtTheRelease) {
  // Release 4·10^9 s + period 4·10^9 s > 2^62 ns: each value was accepted, and takt
  // convert then failed at a line of its own converted text. The release is the 9th
  // number, at column 47 of "0 5000000 0 1000000 4000000000 0 4000000000 0 4000000000 0 1".
  const std::string text = "0 3\nprog\n0 5000000 0 1000000 4000000000 0 4000000000 0 4000000000 0 1\n";
  EXPECT_EQ(
      error_of(text).rfind("x.rtpt:3:47: task 'prog-1': release 4000000000s plus the period 4000000000s "
                           "is more than the largest duration",
                           0),
      0u)
      << error_of(text);
}

TEST(Rtpt, AProgramNamedWithAControlCharacterIsRefusedAtItsLine) {
  // The program's name becomes the task's name: convert refused its own output.
  const std::string text =
      "0 3\na\x01"
      "b\n0 5 0 1 0 10 0 10 0 0 1\n";
  EXPECT_EQ(
      error_of(text).rfind("x.rtpt:2:1: the program holds a control character or line break (U+0001", 0), 0u)
      << error_of(text);
}

TEST(Rtpt, AByteOrderMarkIsNoPartOfTheFirstNumber) {
  // "first_core must be a non-negative whole number, not '\xEF\xBB\xBF0'" (the mark is invisible).
  const auto set = parse_rtpt(
      "\xEF\xBB\xBF"
      "2 5\nprog\n0 5 0 1 0 10 0 10 0 0 1\n",
      "x.rtpt");
  ASSERT_TRUE(set.global.cores.has_value());
  EXPECT_EQ(set.global.cores->cpus, (std::vector<int>{2, 3, 4, 5}));
}

TEST(Rtpt, SizesBeyond64BitsFailAtTheirColumn) {
  // Run length 10^12 iterations × 10 s = 10^22 ns > 2^62 ns: it wrapped to 1864712049.423024128 s.
  // The iterations are the 11th number, at column 23 of "0 5 0 1 10 0 10 0 0 0 1000000000000".
  const std::string run = "0 3\nprog\n0 5 0 1 10 0 10 0 0 0 1000000000000\n";
  EXPECT_EQ(error_of(run).rfind("x.rtpt:3:23: task 'prog-1': 1000000000000 iterations of the period 10s run "
                                "longer than 2^62 ns",
                                0),
            0u)
      << error_of(run);
  // 4611686 iterations of 1000 s = 4.611686·10^18 ns ≤ 2^62 ns: accepted as the run length.
  auto set = parse_rtpt("0 3\nprog\n0 5 0 1 1000 0 1000 0 0 0 4611686\n", "x.rtpt");
  EXPECT_EQ(set.global.duration, std::chrono::seconds(4'611'686'000));
  // Segment work 10^8 strands × 100 s = 10^19 ns > 2^62 ns, at the strands of the first
  // segment (column 18 of "synthetic_task 2 100000000 100 0 1 0 1").
  const std::string work = "0 3\nsynthetic_task 2 100000000 100 0 1 0 1\n0 5 0 1 0 10 0 10 0 0 1\n";
  EXPECT_EQ(
      error_of(work).rfind("x.rtpt:2:18: with this segment (100000000 × 100s) the work of the segments", 0),
      0u)
      << error_of(work);
  // More than 18 digits is too large, not "not a whole number" (until 2026-11-29); leading
  // zeros do not count: 0000000000000000001 (19 characters) is 1.
  const std::string many = "0 3\nprog\n0 5 0 1 10 0 10 0 0 0 4611686018427387904\n";
  EXPECT_EQ(error_of(many).rfind("x.rtpt:3:23: iterations 4611686018427387904 is too large: at most "
                                 "999999999999999999 (18 digits)",
                                 0),
            0u)
      << error_of(many);
  auto padded = parse_rtpt("0 3\nprog\n0 5 0 1 10 0 10 0 0 0 0000000000000000001\n", "x.rtpt");
  EXPECT_EQ(padded.global.duration, std::chrono::seconds(10));
}
