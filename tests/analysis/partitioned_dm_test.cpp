// Tests of partitioned-dm: priorities and FBB-FFD placement, golden on rt-openmp Fig. 2(c).
#include "analysis/partitioned_dm.hpp"
#include "analysis/core_interference.hpp"
#include "model/task_set_parser.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>

using namespace std::chrono_literals;
using takt::analysis::analyse_partitioned_dm;
using takt::analysis::CoreInterference;
using takt::model::Cores;
using takt::model::Fit;

namespace {

takt::model::TaskSet figure2() {
  return takt::model::parse_task_set_file(std::string(TAKT_SOURCE_DIR) + "/examples/rt-openmp-fig2.yaml");
}

}  // namespace

TEST(PartitionedDm, GoldenFigure2WorstFitTable) {
  // rt-openmp Fig. 2(c) (cores numbered from 1 there, from 0 here):
  //   strand  deadline  priority  core
  //   s_1^1   10/3      2         1
  //   s_1^2   40/9      3         1
  //   s_1^3   40/9      3         2
  //   s_1^4   40/9      3         3
  //   s_1^5   40/9      3         1
  //   s_1^6   20/9      1         1
  //   s_2^1   8         4         2
  auto r = analyse_partitioned_dm(figure2(), {Cores::of_count(3), Fit::worst_fit});
  EXPECT_TRUE(r.schedulable);
  ASSERT_EQ(r.strands.size(), 7u);
  const std::vector<int> priority{2, 3, 3, 3, 3, 1, 4};
  const std::vector<int> core{0, 0, 1, 2, 0, 0, 1};
  const std::vector<double> deadline_ms{10.0 / 3, 40.0 / 9, 40.0 / 9, 40.0 / 9, 40.0 / 9, 20.0 / 9, 8.0};
  for (std::size_t k = 0; k < 7; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(r.strands[k].priority, priority[k]);
    EXPECT_EQ(r.strands[k].core, core[k]);
    EXPECT_NEAR(static_cast<double>(r.strands[k].deadline.count()) / 1e6, deadline_ms[k], 1e-6);
  }
  EXPECT_EQ(r.strands[5].strand, 6);
  EXPECT_EQ(r.strands[5].segment, 3);
  EXPECT_EQ(r.strands[6].task, 1u);
  EXPECT_EQ(r.tasks[0].priorities, (std::vector<int>{2, 3, 1}));
  EXPECT_EQ(r.tasks[1].priorities, (std::vector<int>{4}));
  // Interference on s_2^1 at core 1 (the paper's core 2): only s_1^3 of segment 2 is there:
  // RBF* = e·m = 0.2 (segment 2 starts the window; segments 3 and 1 are not on that core)
  // + u·m·d = (0.2/10)·8 = 0.16, so 0.36 ms, exactly.
  EXPECT_EQ(r.strands[6].interference, 360us);
  // Σu = 1.8/10 + 0.762/8 = 0.275 ≤ 3/5, P ≤ D/5 for both: the augmentation bound holds.
  EXPECT_TRUE(r.bound.holds);
}

TEST(PartitionedDm, Figure2WorstFitPutsS21OnTheCoreOfLeastRbfStar) {
  // Worst-fit places s_2^1 (d = 8 ms, the last in deadline order) on the core with the
  // least RBF*. With task 1's strands where Fig. 2(c) has them (core 0: s_1^1, s_1^2,
  // s_1^5, s_1^6; core 1: s_1^3; core 2: s_1^4), by hand:
  //   core 0: task 1's segments are released at 0, 10/3 and 70/9 ms; from any of them
  //     the other two follow within 8 ms (from segment 1: 10/3, 70/9; from 2: 40/9,
  //     60/9; from 3: 20/9, 50/9), so the window sum is 0.6 + 2·0.2 + 0.4 = 1.4 ms, and
  //     the rate term (0.6 + 2·0.2 + 0.4)/10 · 8 = 1.12 ms: RBF* = 2.52 ms;
  //   cores 1 and 2: one strand of segment 2: 0.2 + 0.2/10 · 8 = 0.36 ms.
  // 0.36 < 2.52, and core 1 comes first of the two: the paper's core 2.
  auto r = analyse_partitioned_dm(figure2(), {Cores::of_count(3), Fit::worst_fit});
  ASSERT_EQ(r.strands.size(), 7u);
  std::vector<CoreInterference::TaskTiming> timing(2);
  for (std::size_t t = 0; t < 2; ++t) timing[t].period = t == 0 ? 10ms : 8ms;
  for (const auto& a : r.strands) {
    auto& tt = timing[a.task];
    if (tt.release.size() < static_cast<std::size_t>(a.segment)) {
      tt.release.push_back(a.release);
      tt.length.push_back(a.length);
    }
  }
  CoreInterference ci(3, timing);
  // Placed in deadline order as the analysis does: s_1^6 (20/9), s_1^1 (10/3), s_1^2..5.
  for (const std::size_t k : {5u, 0u, 1u, 2u, 3u, 4u}) {
    const auto& a = r.strands[k];
    ci.place(a.core, a.task, static_cast<std::size_t>(a.segment - 1), a.deadline);
  }
  EXPECT_EQ(ci.load(0, 1, 0, 8ms), 2520us);
  EXPECT_EQ(ci.load(1, 1, 0, 8ms), 360us);
  EXPECT_EQ(ci.load(2, 1, 0, 8ms), 360us);
  EXPECT_EQ(r.strands[6].core, 1);
  EXPECT_EQ(r.strands[6].interference, 360us);
}

TEST(PartitionedDm, GoldenFigure2FirstFitUsesOneCore) {
  // "if using first-fit, all strands in this example will be assigned to core 1".
  auto r = analyse_partitioned_dm(figure2(), {Cores::of_count(3), Fit::first_fit});
  EXPECT_TRUE(r.schedulable);
  for (const auto& s : r.strands) EXPECT_EQ(s.core, 0);
  // s_2^1 (d = 8) on core 0 meets all of task 1 (6 strands). Starting at segment 1 the
  // releases 0, 10/3 and 70/9 all lie within 8: 0.6 + 4·0.2 + 0.4 = 1.8; the rate term is
  // (0.06 + 4·0.02 + 0.04)·8 = 1.44; RBF* = 3.24 ms ≤ 8 − 0.762.
  EXPECT_EQ(r.strands[6].interference, 3240us);
  // The last strand of segment 2 on core 0 meets its three siblings: 3·0.2 = 0.6 ms
  // (strands of task 1's other segments do not interfere: disjoint windows).
  EXPECT_EQ(r.strands[4].interference, 600us);
}

TEST(PartitionedDm, OneCoreTooFewSaysWhichStrandAndByHowMuch) {
  // One core. a: <2, 2>, T = D = 10: C = 4, P = 2, threshold 2.5·4/(10 − 5) = 2, m = 2 is
  // not above it: all light, d = e·D/P = 10. b: <3, 2>: C = 6, P = 3, threshold
  // 15/2.5 = 6: light, d = 10. Equal deadlines: a first (priority 1). Both strands of a fit
  // (the second meets its sibling: 2 ≤ 10 − 2). A strand of b meets RBF*(a, 10) =
  // 2·2 (window) + (2·2/10)·10 (rate) = 8 ms: 10 − 8 = 2 < 3, short by 1 ms, on the only core.
  auto set = takt::model::parse_task_set(R"(tasks:
  - {name: a, period: 10ms, segments: [{length: 2ms, strands: 2}]}
  - {name: b, period: 10ms, segments: [{length: 3ms, strands: 2}]}
)",
                                         "p.yaml");
  auto r = analyse_partitioned_dm(set, {Cores::of_count(1), Fit::first_fit});
  EXPECT_FALSE(r.schedulable);
  EXPECT_EQ(r.tasks[0].priorities, std::vector<int>{1});
  EXPECT_EQ(r.tasks[1].priorities, std::vector<int>{2});
  EXPECT_EQ(r.strands[0].core, 0);
  EXPECT_EQ(r.strands[1].core, 0);
  EXPECT_EQ(r.strands[2].core, -1);
  EXPECT_EQ(r.strands[3].core, -1);
  ASSERT_EQ(r.findings.size(), 1u);
  const auto& f = r.findings[0];
  EXPECT_FALSE(f.passed);
  EXPECT_EQ(f.task, "b");
  EXPECT_EQ(f.test, "FBB-FFD load condition");
  EXPECT_NEAR(f.margin, -1e6, 1.0);  // the rate term may round up by 1 ns
  EXPECT_NE(f.detail.find("2 of 2 strands"), std::string::npos) << f.detail;
  EXPECT_NE(f.detail.find("short by 1ms"), std::string::npos) << f.detail;
}

TEST(PartitionedDm, WithoutSlackTheLoadConditionDecides) {
  // A lone sequential task C = P = 5 ms, D = T = 10 ms on 2 cores: D ≤ 2.5·P = 12.5 ms, so
  // rt-openmp's decomposition has no slack, and the task used to be rejected although it
  // plainly fits. takt gives it the window d = e·D/P = 10 ms; 10 − 0 ≥ 5: placed on core 0.
  auto set = takt::model::parse_task_set("tasks:\n  - {name: a, period: 10ms, segments: [{length: 5ms}]}\n",
                                         "p.yaml");
  auto r = analyse_partitioned_dm(set, {Cores::of_count(2), Fit::worst_fit});
  EXPECT_TRUE(r.schedulable);
  EXPECT_FALSE(r.tasks[0].decomposition.feasible);
  EXPECT_TRUE(r.tasks[0].decomposition.proportional);
  ASSERT_EQ(r.strands.size(), 1u);
  EXPECT_EQ(r.strands[0].deadline, 10ms);
  EXPECT_EQ(r.strands[0].core, 0);
  // A passed finding says what was done, with D − 2.5P = −2.5 ms behind it.
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].test, "decomposition");
  EXPECT_TRUE(r.findings[0].passed);
  EXPECT_NE(r.findings[0].detail.find("D = 10ms ≤ 2.5·P = 2.5·5ms"), std::string::npos)
      << r.findings[0].detail;
  EXPECT_NEAR(r.tasks[0].decomposition.total_slack_ns, -2.5e6, 1e-6);
  // P = 5 > D/5: the augmentation bound does not hold for such a task.
  EXPECT_FALSE(r.bound.holds);

  // Three strands of 5 ms with d = 10 ms: two fit on one core (the second meets its sibling,
  // 10 − 5 ≥ 5), the third does not (10 − 10 < 5, short by 5 ms); two cores take all three.
  auto three = takt::model::parse_task_set(
      "tasks:\n  - {name: b, period: 10ms, segments: [{length: 5ms, strands: 3}]}\n", "p.yaml");
  auto one_core = analyse_partitioned_dm(three, {Cores::of_count(1), Fit::first_fit});
  EXPECT_FALSE(one_core.schedulable);
  EXPECT_EQ(one_core.strands[1].core, 0);
  EXPECT_EQ(one_core.strands[2].core, -1);
  bool short_by = false;
  for (const auto& f : one_core.findings) {
    short_by = short_by || (!f.passed && f.detail.find("short by 5ms") != std::string::npos);
  }
  EXPECT_TRUE(short_by);
  auto two_cores = analyse_partitioned_dm(three, {Cores::of_count(2), Fit::first_fit});
  EXPECT_TRUE(two_cores.schedulable);
  EXPECT_EQ(two_cores.strands[2].core, 1);
}

TEST(PartitionedDm, AugmentationBoundIsNotApplicableWithConstrainedDeadlines) {
  // One core, T = 100 ms, D = 5 ms, six strands of 1 ms: Σu = 0.06 ≤ m/5 = 0.2 and
  // P = 1 ≤ D/5, so the bound "held" while the set is not schedulable: the strands all get
  // d = e·D/P = 5 ms (threshold 2.5·6/(5 − 2.5) = 6, m = 6 is not above it: light), and the
  // sixth meets its five siblings, 5 ms > d − e = 4 ms. The bound is proved for D = T only.
  auto set = takt::model::parse_task_set(
      "tasks: [{name: a, period: 100ms, deadline: 5ms, segments: [{length: 1ms, strands: 6}]}]\n", "p.yaml");
  auto r = analyse_partitioned_dm(set, {Cores::of_count(1), Fit::first_fit});
  EXPECT_FALSE(r.schedulable);
  EXPECT_FALSE(r.bound.holds);
  EXPECT_NE(r.bound.not_applicable.find("task 'a' has D < T"), std::string::npos) << r.bound.not_applicable;
  EXPECT_EQ(r.strands[4].core, 0);
  EXPECT_EQ(r.strands[5].core, -1);
}

TEST(PartitionedDm, AugmentationBoundUsesTheSegmentsNotAMeasuredWork) {
  // Segments <1 ms, 1> beside a measured work of 30 ms: partitioned-dm decomposes the
  // segments, so the bound counts their u = 1/10 ≤ 1/5 (and P = 1 ≤ 10/5): holds. Summing the
  // measured work gave Σu = 3 and "does not hold".
  auto set = takt::model::parse_task_set(
      "tasks: [{name: a, period: 10ms, segments: [{length: 1ms}], work: 30ms, span: 1ms}]\n", "p.yaml");
  auto r = analyse_partitioned_dm(set, {Cores::of_count(1), Fit::first_fit});
  EXPECT_TRUE(r.schedulable);
  EXPECT_NEAR(r.bound.total_utilization, 0.1, 1e-12);
  EXPECT_TRUE(r.bound.holds);
}

TEST(PartitionedDm, AugmentationBoundAtItsBoundaries) {
  // rt-openmp Theorem: Σu ≤ m/5 and P ≤ D/5 for every task (implicit deadlines). One core,
  // T = D = 10 ms, one strand of 2 ms: Σu = 0.2 = m/5 and P = 2 ms = D/5, both equal to
  // their limit: holds.
  auto at = takt::model::parse_task_set("tasks: [{name: t, period: 10ms, segments: [{length: 2ms}]}]\n", "p.yaml");
  auto r = analyse_partitioned_dm(at, {Cores::of_count(1), Fit::first_fit});
  EXPECT_DOUBLE_EQ(r.bound.utilization_bound, 0.2);
  EXPECT_DOUBLE_EQ(r.bound.total_utilization, 0.2);
  EXPECT_TRUE(r.bound.long_span_tasks.empty());
  EXPECT_TRUE(r.bound.holds);

  // One nanosecond more of span: P > D/5 (5·2,000,001 ns > 10 ms), so t is a long-span task.
  auto longer = takt::model::parse_task_set(
      "tasks: [{name: t, period: 10ms, segments: [{length: 2000001ns}]}]\n", "p.yaml");
  r = analyse_partitioned_dm(longer, {Cores::of_count(1), Fit::first_fit});
  EXPECT_EQ(r.bound.long_span_tasks, std::vector<std::string>{"t"});
  EXPECT_FALSE(r.bound.holds);

  // Σu one part in 10^9 above m/5 (a second task of 1 ns per second), every span short:
  // the utilization alone fails it, compared exactly.
  auto fuller = takt::model::parse_task_set(
      "tasks: [{name: t, period: 10ms, segments: [{length: 2ms}]},\n"
      "        {name: u, period: 1s, segments: [{length: 1ns}]}]\n",
      "p.yaml");
  r = analyse_partitioned_dm(fuller, {Cores::of_count(1), Fit::first_fit});
  EXPECT_TRUE(r.bound.long_span_tasks.empty());
  EXPECT_FALSE(r.bound.holds);

  // With m = 2 the limit is 0.4: the same two tasks hold.
  r = analyse_partitioned_dm(fuller, {Cores::of_count(2), Fit::first_fit});
  EXPECT_DOUBLE_EQ(r.bound.utilization_bound, 0.4);
  EXPECT_TRUE(r.bound.holds);
}

TEST(PartitionedDm, TasksNeedSegments) {
  auto dag = takt::model::parse_task_set(
      "tasks:\n  - name: g\n    period: 10ms\n    dag: [{name: a, length: 1ms}]\n", "p.yaml");
  try {
    (void)analyse_partitioned_dm(dag, {Cores::of_count(2), Fit::worst_fit});
    FAIL();
  } catch (const takt::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("p.yaml:2:5: task 'g' has no segments", 0), 0u) << e.what();
  }
  // Measured work equal to the span is a sequential task: one segment <C, 1>.
  auto seq =
      takt::model::parse_task_set("tasks:\n  - {name: s, period: 10ms, work: 1ms, span: 1ms}\n", "p.yaml");
  auto r = analyse_partitioned_dm(seq, {Cores::of_count(1), Fit::worst_fit});
  EXPECT_TRUE(r.schedulable);
  ASSERT_EQ(r.strands.size(), 1u);
  EXPECT_EQ(r.strands[0].deadline, 10ms);
}

TEST(PartitionedDm, StrandsOfASegmentArePlacedTogether) {
  // One segment <1 ms, 100000>, T = D = 100 s: C = 100 s, P = 1 ms; the segment is heavy
  // (100000 > 2.5·100/(100 − 0.0025) ≈ 2.5) and, alone, gets d = e·m·D/C = D = 100 s.
  auto set = takt::model::parse_task_set(
      "tasks: [{name: a, period: 100s, segments: [{length: 1ms, strands: 100000}]}]\n", "p.yaml");
  // First-fit: core 0 takes ⌊100 s / 1 ms⌋ = 100000 strands, all of them; the last meets
  // its 99999 siblings: 99.999 s, and 100 − 99.999 ≥ 0.001.
  auto ff = analyse_partitioned_dm(set, {Cores::of_count(4), Fit::first_fit});
  EXPECT_TRUE(ff.schedulable);
  ASSERT_EQ(ff.strands.size(), 100000u);
  EXPECT_EQ(ff.strands.back().core, 0);
  EXPECT_EQ(ff.strands.back().interference, 99999ms);
  // Worst-fit: the least loaded core, lowest first on ties: strands 1, 2, 3, 4 on cores
  // 0, 1, 2, 3, and so on; 25000 per core; strand 100000 on core 3 meets 24999 siblings.
  auto wf = analyse_partitioned_dm(set, {Cores::of_count(4), Fit::worst_fit});
  EXPECT_TRUE(wf.schedulable);
  std::vector<int> per_core(4, 0);
  for (std::size_t k = 0; k < wf.strands.size(); ++k) {
    ASSERT_EQ(wf.strands[k].core, static_cast<int>(k % 4)) << k;
    ++per_core[static_cast<std::size_t>(wf.strands[k].core)];
  }
  EXPECT_EQ(per_core, (std::vector<int>{25000, 25000, 25000, 25000}));
  EXPECT_EQ(wf.strands.back().interference, 24999ms);
}

TEST(PartitionedDm, MoreStrandsThanTheTableHoldsIsBadInput) {
  // 1000001 strands in all: one more than kMaxStrands. Each strand is a row of the strand
  // table; with the parser's limit of 10^8 strands per segment a five-line file took 23 GB.
  // The error names the strands value that passes the limit (line 3, column 63).
  ASSERT_EQ(takt::analysis::kMaxStrands, 1'000'000);
  auto set = takt::model::parse_task_set(
      "tasks:\n"
      "  - {name: a, period: 100s, segments: [{length: 1us, strands: 600000}]}\n"
      "  - {name: b, period: 100s, segments: [{length: 1us, strands: 400001}]}\n",
      "p.yaml");
  try {
    (void)analyse_partitioned_dm(set, {Cores::of_count(4), Fit::worst_fit});
    FAIL() << "accepted";
  } catch (const takt::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "p.yaml:3:63: task 'b': with the 400001 strands of its segment 1 the task "
                  "set has more than 1000000 strands",
                  0),
              0u)
        << e.what();
  }
  // Exactly the limit is analysed.
  auto limit = takt::model::parse_task_set(
      "tasks: [{name: a, period: 100s, segments: [{length: 1us, strands: 1000000}]}]\n", "p.yaml");
  EXPECT_EQ(analyse_partitioned_dm(limit, {Cores::of_count(4), Fit::first_fit}).strands.size(), 1'000'000u);
}

TEST(CoreInterference, WindowStartsAtEverySegment) {
  // Task 0: T = 10, segments released at 0, 2, 7 with lengths 1, 1, 3, one strand each on
  // core 0. For d = 4 the windows are: from 0 → {0, 2} = 2; from 2 → {2} (7 − 2 = 5 > 4) = 1;
  // from 7 → {7, 0 (+10 − 7 = 3)} = 3 + 1 = 4. Max = 4 ms. Rate term: (1 + 1 + 3)/10 · 4 =
  // 2 ms. Total 6 ms for a strand of task 1.
  CoreInterference ci(1, {{10ms, {0ms, 2ms, 7ms}, {1ms, 1ms, 3ms}}, {10ms, {0ms}, {1ms}}});
  for (std::size_t s = 0; s < 3; ++s) ci.place(0, 0, s, 0ns);
  EXPECT_EQ(ci.load(0, 1, 0, 4ms), 6ms);
  // d = 5: from 2 → {2, 7} = 4, from 7 → {7, 0} = 4 (releases 0 + 10 − 7 = 3, 2 + 10 − 7 = 5 ≤ 5
  // adds segment 2 too: 3 + 1 + 1 = 5). Max = 5; rate 2.5; total 7.5 ms.
  EXPECT_EQ(ci.load(0, 1, 0, 5ms), 7500us);
  // The task's own other segments do not count for its own strands; its own segment does.
  EXPECT_EQ(ci.load(0, 0, 1, 5ms), 1ms);
}

TEST(CoreInterference, AConstrainedDeadlineTaskWrapsAtItsPeriodNotItsDeadline) {
  // Task 0 has D = 10 ms < T = 14 ms. Its decomposed segments fill [0, D): released at
  // r = 0, 4, 8 ms (windows 4, 4, 2 ms) with strands of e = 3, 1, 2 ms, one strand each on
  // core 0. The next job is released at T = 14 ms, so the window (r_p + T − r_l) mod T
  // wraps at 14, and the 4 ms between D and T separate segment 2 from the next job's
  // segments. A strand of task 1 with d = 7 ms, windows from each first segment l:
  //   l = 0 (r = 0): offsets 0, 4, 8 → segments 0, 1 (8 > 7):       3 + 1 = 4 ms
  //   l = 1 (r = 4): offsets 0, 4, (0 + 14 − 4) = 10 → segments 1, 2: 1 + 2 = 3 ms
  //   l = 2 (r = 8): offsets 0, (0 + 14 − 8) = 6, (4 + 14 − 8) = 10 → segments 2, 0:
  //                                                                   2 + 3 = 5 ms
  //   max = 5 ms. Rate term: (3 + 1 + 2)/14 · 7 = 3 ms. RBF* = 8 ms.
  // Wrong readings give other values: wrapping at D (mod 10: from l = 2 the offsets are 0,
  // 2, 6, all three count, 6 ms) gives 6 + 3 = 9 ms, and 6 + 6/10 · 7 = 10.2 ms if D
  // replaces T in the rate term too; not wrapping at all (only p ≥ l) gives 4 + 3 = 7 ms.
  CoreInterference ci(1, {{14ms, {0ms, 4ms, 8ms}, {3ms, 1ms, 2ms}}, {20ms, {0ms}, {1ms}}});
  for (std::size_t s = 0; s < 3; ++s) ci.place(0, 0, s, 0ns);
  EXPECT_EQ(ci.load(0, 1, 0, 7ms), 8ms);
}

TEST(CoreInterference, PastThePeriodEachSegmentCountsOnceInTheWindowSum) {
  // Task 0: T = D = 10 ms, segments released at 0 and 6 ms; two strands of e = 2 ms of
  // segment 0 and one strand of e = 3 ms of segment 1 on core 0 (m = 2 and 1). The offsets
  // (r_p + T − r_l) mod T lie in [0, T), so for d ≥ T every segment is in the window once,
  // whatever l: the first sum is 2·2 + 3 = 7 ms, and the later jobs are the rate term's,
  // (2·2 + 3)/10 · d = 0.7·d.
  //   d = 10 ms = T: 7 + 0.7·10 = 14 ms.
  //   d = 23 ms:     7 + 0.7·23 = 7 + 16.1 = 23.1 ms.
  // Counting every release within d across jobs (from l = 0: 0, 6, 10, 16, 20) as well gives
  // 4 + 3 + 4 = 11 → 18 ms at d = 10 (the next job's segment 0 at exactly T), and
  // 4 + 3 + 4 + 3 + 4 = 18 → 34.1 ms at d = 23; a window over two periods (each segment at
  // most twice) gives 14 → 30.1 ms at d = 23; dropping the rate term once d ≥ T gives 7 ms.
  CoreInterference ci(1, {{10ms, {0ms, 6ms}, {2ms, 3ms}}, {30ms, {0ms}, {1ms}}});
  ci.place(0, 0, 0, 0ns, 2);
  ci.place(0, 0, 1, 0ns);
  EXPECT_EQ(ci.load(0, 1, 0, 10ms), 14ms);
  EXPECT_EQ(ci.load(0, 1, 0, 23ms), 23100us);
}

TEST(CoreInterference, ARateTermOfWholeNanosecondsIsExact) {
  // Task 0: T = 3 ms, one 1 ms strand on core 0. For a strand of task 1 with d = 3 ms:
  // window 1 ms + rate (1/3)·3 ms = 1 ms: exactly 2 ms. The fixed-point share ⌈2^40/3⌉ is
  // above 2^40/3, and the load came out 2 ms + 1 ns, which rejected a strand of 1 ms with
  // d = 3 ms on this core (3 ms − 2 ms − 1 ns < 1 ms) that fits exactly.
  CoreInterference ci(1, {{3ms, {0ms}, {1ms}}, {3ms, {0ms}, {1ms}}});
  ci.place(0, 0, 0, 3ms);
  EXPECT_EQ(ci.load(0, 1, 0, 3ms), 2ms);
  // Three strands of 1 ms with T = 7 ms and d = 7 ms: 3 + 3·(1/7)·7 = 6 ms.
  CoreInterference seven(1, {{7ms, {0ms}, {1ms}}, {7ms, {0ms}, {1ms}}});
  seven.place(0, 0, 0, 7ms, 3);
  EXPECT_EQ(seven.load(0, 1, 0, 7ms), 6ms);
}

TEST(CoreInterference, TasksOfOnePeriodAddTheirWorkInTheRateTermLessTheStrandsOwnTask) {
  // Tasks 0, 1, 2: T = 3 ms, one strand of 1 ms each on core 0; task 3: T = 6 ms, one
  // strand of 3 ms. For a strand of task 1 (its own segment) with d = 6 ms:
  //   windows (d ≥ T: each segment once): tasks 0, 2: 1 ms each, task 3: 3 ms = 5 ms;
  //   own segment: the 1 ms strand already there;
  //   rate term: (1 + 1)/3 · 6 + 3/6 · 6 = 4 + 3 = 7 ms, a whole number of ns, so the
  //   exact sum decides (the fixed-point one is 1 ns above), computed per period now.
  //   13 ms. Leaving task 1's own work in its period's sum gives 3/3 · 6 + 3 = 9 ms, above
  //   the fixed-point bound, which then decides: 13 ms + 1 ns.
  CoreInterference ci(1,
                      {{3ms, {0ms}, {1ms}}, {3ms, {0ms}, {1ms}}, {3ms, {0ms}, {1ms}}, {6ms, {0ms}, {3ms}}});
  for (std::size_t task = 0; task < 4; ++task) ci.place(0, task, 0, 0ns);
  EXPECT_EQ(ci.load(0, 1, 0, 6ms), 13ms);
  // A strand of a task with no strand on the core: all three of T = 3 ms count, 6 + 3 = 9
  // ms of rate term, windows 1 + 1 + 1 + 3 = 6 ms: 15 ms.
  CoreInterference other(1, {{3ms, {0ms}, {1ms}},
                             {3ms, {0ms}, {1ms}},
                             {3ms, {0ms}, {1ms}},
                             {6ms, {0ms}, {3ms}},
                             {6ms, {0ms}, {1ms}}});
  for (std::size_t task = 0; task < 4; ++task) other.place(0, task, 0, 0ns);
  EXPECT_EQ(other.load(0, 4, 0, 6ms), 15ms);
}

TEST(PartitionedDm, ASetThatFitsExactlyIsSchedulable) {
  // Two tasks of one 1 ms strand, T = D = 3 ms, one core: D > 2.5·P, so each strand gets
  // d = 3 ms; for b's strand RBF* = 1 ms (a's strand) + (1/3)·3 ms = 2 ms and
  // d − RBF* = 1 ms = e: it fits (U = 2/3). It was rejected "short by 1ns".
  const auto set = takt::model::parse_task_set(R"(
global: {cores: 1, policy: partitioned-dm}
tasks:
  - {name: a, period: 3ms, segments: [{length: 1ms}]}
  - {name: b, period: 3ms, segments: [{length: 1ms}]}
)");
  EXPECT_TRUE(analyse_partitioned_dm(set, {Cores::of_count(1), Fit::first_fit}).schedulable);
}

TEST(CoreInterference, WindowsOfLargeTasksDoNotWrap) {
  // Two tasks with two strands of 2^61 ns each (work 2^62 ns, the most a task may have) on
  // one core: their windows add up to 2^63 ns, one more than a 64-bit integer holds. The sum
  // wrapped to a negative load, which let any strand "fit". The load saturates instead.
  const std::chrono::nanoseconds half{std::int64_t{1} << 61};
  const std::chrono::nanoseconds period{std::int64_t{1} << 62};
  CoreInterference ci(1, {{period, {0ns}, {half}}, {period, {0ns}, {half}}, {period, {0ns}, {1ns}}});
  for (std::size_t task = 0; task < 2; ++task) {
    ci.place(0, task, 0, 0ns);
    ci.place(0, task, 0, 0ns);
  }
  const auto load = ci.load(0, 2, 0, period);
  EXPECT_EQ(load.count(), std::numeric_limits<std::int64_t>::max());
}

TEST(PartitionedDm, WorstFitTakesEmptyCoresInIndexOrderWhateverTheCoreCount) {
  // Worst-fit reads the loads of the cores that hold strands only; an empty core has load
  // 0, so the lowest-index empty core is the least loaded one. On 65,536 cores, three
  // one-strand tasks (T = D = 10 ms, e = 1 ms: d = 10 ms) take cores 0, 1, 2; a task of
  // two strands of 2 ms (T = D = 20 ms, d = 20 ms, placed last by deadline-monotonic
  // order) then cores 3 and 4, the lowest of the empty ones, not a loaded one nor core 3
  // twice (load 2 ms after its first strand, less than the loaded cores' RBF*(20 ms) =
  // 1 + 0.1·20 = 3 ms, but more than the next empty core's 0). On 3 cores it goes where
  // the least load is: 3 ms on every core, so core 0 (then 5 ms), then core 1.
  const std::string text =
      "tasks:\n"
      "  - {name: a, period: 10ms, segments: [{length: 1ms}]}\n"
      "  - {name: b, period: 10ms, segments: [{length: 1ms}]}\n"
      "  - {name: c, period: 10ms, segments: [{length: 1ms}]}\n"
      "  - {name: d, period: 20ms, segments: [{length: 2ms, strands: 2}]}\n";
  auto set = takt::model::parse_task_set(text, "p.yaml");
  auto wide = analyse_partitioned_dm(set, {Cores::of_count(65536), Fit::worst_fit});
  ASSERT_TRUE(wide.schedulable);
  std::vector<int> cores;
  for (const auto& s : wide.strands) cores.push_back(s.core);
  EXPECT_EQ(cores, (std::vector<int>{0, 1, 2, 3, 4}));
  auto narrow = analyse_partitioned_dm(set, {Cores::of_count(3), Fit::worst_fit});
  ASSERT_TRUE(narrow.schedulable);
  cores.clear();
  for (const auto& s : narrow.strands) cores.push_back(s.core);
  EXPECT_EQ(cores, (std::vector<int>{0, 1, 2, 0, 1}));
}

TEST(PartitionedDm, TheLoadConditionIsCheckedOnTheRoundedWindowsThatRun) {
  // docs/analysis.md: T = D = 23,999,999 ns, segments <5 ms, 1> and <3 ms, 3>, one core.
  // Both segments are light: d_j = e_j·D/P with P = 8 ms, exactly 14,999,999.375 and
  // 8,999,999.625 ns. The cumulative deadlines are rounded down: 14,999,999 and
  // 23,999,999, so the windows are 14,999,999 and 9,000,000 ns; in the second, three
  // strands of 3 ms fit exactly (9 ms of load on one core), so the set is admitted, as
  // takt run releases them. In the exact window the third would be 0.375 ns short.
  auto set = takt::model::parse_task_set(
      "global: {cores: 1, policy: partitioned-dm, fit: first-fit}\n"
      "tasks:\n"
      "  - {name: a, period: 23999999ns, segments: [{length: 5ms}, {length: 3ms, strands: 3}]}\n");
  auto r = analyse_partitioned_dm(set, {Cores::of_count(1), Fit::first_fit});
  ASSERT_EQ(r.strands.size(), 4u);
  EXPECT_EQ(r.strands[0].deadline, 14'999'999ns);
  EXPECT_EQ(r.strands[1].release, 14'999'999ns);
  EXPECT_EQ(r.strands[1].deadline, 9'000'000ns);
  EXPECT_TRUE(r.schedulable);
}
