// Tests of the RT-OpenMP decomposition (rt-openmp §IV.A), golden on Fig. 2 and hand-derived cases.
#include "analysis/decomposition.hpp"
#include "model/task_set_parser.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace std::chrono_literals;
using takt::analysis::decompose;
using takt::model::Segment;
using takt::model::Task;

namespace {

Task synchronous(std::chrono::nanoseconds period, std::vector<Segment> segments) {
  Task t;
  t.name = "t";
  t.period = period;
  t.deadline = period;
  t.segments = std::move(segments);
  return t;
}

double ms(std::chrono::nanoseconds d) { return static_cast<double>(d.count()) / 1e6; }

}  // namespace

TEST(Decomposition, GoldenRtOpenMpFigure2Task1) {
  // Task 1 of Fig. 2: T = D = 10, segments <0.6, 1>, <0.2, 4>, <0.4, 1> (time unit 1 ms).
  // C = 1.8, P = 1.2, total slack D − 2.5P = 7, threshold 2.5·1.8/7 = 4.5/7 = 0.643:
  // every segment (m ≥ 1) is heavy, so P^h = C^h = 0 and l_j = m_j·10/(2.5·1.8) − 1 =
  // m_j·20/9 − 1: 11/9 = 1.22, 71/9 = 7.89 (printed as 7.88), 11/9 = 1.22. The deadlines
  // d_j = 2.5·e_j·(1 + l_j) are 10/3, 40/9 and 20/9, adding up to 10.
  Task t = synchronous(10ms, {{600us, 1, {}}, {200us, 4, {}}, {400us, 1, {}}});
  auto d = decompose(t);
  ASSERT_TRUE(d.feasible);
  EXPECT_NEAR(d.total_slack_ns, 7e6, 1e-6);
  EXPECT_NEAR(d.heavy_threshold, 4.5 / 7, 1e-12);
  EXPECT_NEAR(d.heavy_threshold, 0.643, 5e-4);
  EXPECT_TRUE(d.any_heavy);
  ASSERT_EQ(d.segments.size(), 3u);
  for (const auto& s : d.segments) EXPECT_TRUE(s.heavy);
  EXPECT_NEAR(d.segments[0].slack, 11.0 / 9, 1e-9);
  EXPECT_NEAR(d.segments[1].slack, 71.0 / 9, 1e-9);
  EXPECT_NEAR(d.segments[2].slack, 11.0 / 9, 1e-9);
  EXPECT_NEAR(d.segments[0].slack, 1.22, 5e-3);
  EXPECT_NEAR(d.segments[1].slack, 7.88, 1e-2);
  // Deadlines within 1 ns of the exact values (cumulative deadlines rounded down).
  EXPECT_NEAR(ms(d.segments[0].deadline), 10.0 / 3, 1e-6);
  EXPECT_NEAR(ms(d.segments[1].deadline), 40.0 / 9, 1e-6);
  EXPECT_NEAR(ms(d.segments[2].deadline), 20.0 / 9, 1e-6);
  EXPECT_EQ(d.segments[0].deadline, 3333333ns);  // ⌊10/3 ms⌋
  EXPECT_EQ(d.segments[1].release, 3333333ns);
  EXPECT_EQ(d.segments[2].release, 7777777ns);  // ⌊70/9 ms⌋
  EXPECT_EQ(d.segments[0].deadline + d.segments[1].deadline + d.segments[2].deadline, 10ms);
}

TEST(Decomposition, GoldenRtOpenMpFigure2Task2) {
  // Task 2: one strand of 16/21 time units, T = D = 8. Threshold 2.5C/(D − 2.5P) =
  // (40/21)/(128/21) = 0.3125 < 1: heavy, slack l = 8/(2.5·16/21) − 1 = 4.2 − 1 = 3.2,
  // deadline 3.2·2.5·(16/21)·... = 2.5·e·4.2 = 8. In a time unit of 105 µs every value is
  // a whole number of nanoseconds: e = 80 µs, T = 840 µs.
  Task t = synchronous(840us, {{80us, 1, {}}});
  auto d = decompose(t);
  ASSERT_TRUE(d.feasible);
  EXPECT_NEAR(d.heavy_threshold, 0.3125, 1e-12);
  EXPECT_TRUE(d.segments[0].heavy);
  EXPECT_NEAR(d.segments[0].slack, 3.2, 1e-12);
  EXPECT_EQ(d.segments[0].deadline, 840us);
  EXPECT_EQ(d.segments[0].release, 0ns);
}

TEST(Decomposition, AllLightSegmentsShareTheSlackByLength) {
  // T = D = 100 ms, <10, 1>, <20, 1>: C = P = 30, threshold 2.5·30/(100 − 75) = 3, so
  // m = 1 ≤ 3: both light; d_j = e_j·D/P: 10·100/30 = 33.33 and 20·100/30 = 66.67.
  Task t = synchronous(100ms, {{10ms, 1, {}}, {20ms, 1, {}}});
  auto d = decompose(t);
  ASSERT_TRUE(d.feasible);
  EXPECT_FALSE(d.any_heavy);
  EXPECT_NEAR(d.heavy_threshold, 3.0, 1e-12);
  EXPECT_EQ(d.segments[0].deadline, 33333333ns);
  EXPECT_EQ(d.segments[1].release, 33333333ns);
  EXPECT_EQ(d.segments[1].deadline, 66666667ns);
  // l = d/(2.5e) − 1 = (100/30)/2.5 − 1 = 1/3 for both.
  EXPECT_NEAR(d.segments[0].slack, 1.0 / 3, 1e-9);
  EXPECT_NEAR(d.segments[1].slack, 1.0 / 3, 1e-9);
}

TEST(Decomposition, HeavyAndLightSegments) {
  // Two tasks with T = D = 100 ms, threshold 2.5C/(D − 2.5P) = 125/62.5 = 2, and the same
  // windows (rt-openmp §IV.A):
  // - <10, 1>, <5, 8>: C = 50, P = 15, slack 100 − 37.5 = 62.5: segment 1 (m = 1) light,
  //   segment 2 (m = 8) heavy. C^h = 10, P^h = 10. Light: d_1 = 2.5·10 = 25 (l = 0). Heavy:
  //   l_2 = 8(100 − 25)/(2.5(50 − 10)) − 1 = 600/100 − 1 = 5, d_2 = 2.5·5·6 = 75.
  // - <10, 2>, <5, 6>: C = 20 + 30 = 50, P = 15: heavy means m > threshold, strictly, so
  //   segment 1 (m = 2, at the threshold) is light and segment 2 heavy. C^h = 20, P^h = 10.
  //   d_1 = 25; l_2 = 6(100 − 25)/(2.5(50 − 20)) − 1 = 450/75 − 1 = 5, d_2 = 75. (Taking
  //   m ≥ threshold as heavy would make both heavy, C^h = P^h = 0: d_j = e·m·D/C, 40 and 60.)
  for (const std::vector<Segment>& segments : {std::vector<Segment>{{10ms, 1, {}}, {5ms, 8, {}}},
                                               std::vector<Segment>{{10ms, 2, {}}, {5ms, 6, {}}}}) {
    SCOPED_TRACE(segments[0].strands);
    auto d = decompose(synchronous(100ms, segments));
    ASSERT_TRUE(d.feasible);
    EXPECT_NEAR(d.heavy_threshold, 2.0, 1e-12);
    EXPECT_FALSE(d.segments[0].heavy);
    EXPECT_TRUE(d.segments[1].heavy);
    EXPECT_EQ(d.segments[0].deadline, 25ms);
    EXPECT_NEAR(d.segments[0].slack, 0.0, 1e-12);
    EXPECT_EQ(d.segments[1].release, 25ms);
    EXPECT_EQ(d.segments[1].deadline, 75ms);
    EXPECT_NEAR(d.segments[1].slack, 5.0, 1e-12);
  }
}

TEST(Decomposition, NoSlackWhenTheDeadlineIsShort) {
  // D = 10 ms, P = 4 ms: 2.5P = 10 ms = D, no slack.
  Task t = synchronous(10ms, {{4ms, 2, {}}});
  auto d = decompose(t);
  EXPECT_FALSE(d.feasible);
  EXPECT_NEAR(d.total_slack_ns, 0.0, 1e-9);
  EXPECT_TRUE(d.segments.empty());
}

TEST(Decomposition, ConstrainedDeadlineDividesTheDeadline) {
  // T = 20 ms, D = 10 ms: the windows add up to D (the paper's T for D = T).
  Task t = synchronous(20ms, {{600us, 1, {}}, {200us, 4, {}}, {400us, 1, {}}});
  t.deadline = 10ms;
  auto d = decompose(t);
  EXPECT_EQ(d.segments[0].deadline + d.segments[1].deadline + d.segments[2].deadline, 10ms);
  EXPECT_EQ(d.segments[0].deadline, 3333333ns);
}

TEST(Decomposition, ProportionalWindowsWithoutSlack) {
  // D = T = 10 ms, <4, 1>, <2, 3>: P = 6, 2.5P = 15 > 10: no slack for decompose(). The
  // proportional windows are d = e·D/P: 4·10/6 = 6.666… and 2·10/6 = 3.333… ms; cumulative
  // ends rounded down, ⌊40/6⌋ = 6666666 ns and 10 ms, so d_2 = 3333334 ns.
  Task t = synchronous(10ms, {{4ms, 1, {}}, {2ms, 3, {}}});
  EXPECT_FALSE(decompose(t).feasible);
  auto d = takt::analysis::decompose_proportionally(t);
  EXPECT_FALSE(d.feasible);
  EXPECT_TRUE(d.proportional);
  EXPECT_FALSE(d.any_heavy);
  ASSERT_EQ(d.segments.size(), 2u);
  EXPECT_EQ(d.segments[0].release, 0ns);
  EXPECT_EQ(d.segments[0].deadline, 6666666ns);
  EXPECT_EQ(d.segments[1].release, 6666666ns);
  EXPECT_EQ(d.segments[1].deadline, 3333334ns);
  // Each window is at least its strand length (D ≥ P); l = d/(2.5e) − 1 = (10/6)/2.5 − 1 = −1/3.
  EXPECT_GE(d.segments[0].deadline, 4ms);
  EXPECT_GE(d.segments[1].deadline, 2ms);
  EXPECT_NEAR(d.segments[0].slack, -1.0 / 3, 1e-9);
  EXPECT_NEAR(d.total_slack_ns, -5e6, 1e-6);  // D − 2.5P = 10 − 15
}
