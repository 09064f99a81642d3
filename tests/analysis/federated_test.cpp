// Tests of federated scheduling: the core-count formulas of rtws §V and the assignment of cores.
#include "analysis/federated.hpp"
#include "analysis/exact.hpp"
#include "model/task_set_parser.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace std::chrono_literals;
using takt::analysis::analyse_federated;
using takt::analysis::expected_response_bound;
using takt::analysis::federated_cores;
using takt::analysis::federated_cores_with_overhead;
using takt::model::Cores;
using takt::model::Decimal;

TEST(FederatedCores, ClassicFormula) {
  // n = ⌈(C − L)/(D − L)⌉: C = 20, L = 2, D = 10 → ⌈18/8⌉ = ⌈2.25⌉ = 3.
  EXPECT_EQ(federated_cores(20ms, 2ms, 10ms), 3);
  // An exact quotient stays: C = 18, L = 2, D = 10 → 16/8 = 2.
  EXPECT_EQ(federated_cores(18ms, 2ms, 10ms), 2);
  // One nanosecond more work needs one more core: (16 ms + 1 ns)/8 ms → 3.
  EXPECT_EQ(federated_cores(18000001ns, 2ms, 10ms), 3);
  // D = L: no number of cores.
  EXPECT_FALSE(federated_cores(20ms, 10ms, 10ms).has_value());
}

TEST(FederatedCores, WorkStealingOverheadEquation3) {
  // n = ⌈(C + D − δL̂)/(D − δL̂)⌉.
  // δ = 1.5, C = 20, L̂ = 2, D = 10: (30 − 3)/(10 − 3) = 27/7 = 3.857 → 4.
  EXPECT_EQ(federated_cores_with_overhead(20ms, 2ms, 10ms, Decimal::parse("1.5")), 4);
  // δ = 3.65 (the theoretical value): (30 − 7.3)/(10 − 7.3) = 22.7/2.7 = 8.407 → 9.
  EXPECT_EQ(federated_cores_with_overhead(20ms, 2ms, 10ms, Decimal::parse("3.65")), 9);
  // δ = 1.7, L̂ = 3 ms: δL̂ = 5.1 ms; C = 9.8 ms, D = 10 ms: (9.8 + 10 − 5.1)/(10 − 5.1) =
  // 14.7/4.9 = 3 exactly. In binary floating point 1.7·3e6 is not 5.1e6, and the ceiling
  // of the rounded quotient can come out as 4: the integer computation must give 3.
  EXPECT_EQ(federated_cores_with_overhead(9800us, 3ms, 10ms, Decimal::parse("1.7")), 3);
  // D ≤ δL̂: unschedulable. δ = 1.7, L̂ = 6 ms: 10.2 ms ≥ 10 ms.
  EXPECT_FALSE(federated_cores_with_overhead(20ms, 6ms, 10ms, Decimal::parse("1.7")).has_value());
  // D = δL̂ exactly (1.5 · 4 ms = 6 ms = D) is also deemed unschedulable.
  EXPECT_FALSE(federated_cores_with_overhead(20ms, 4ms, 6ms, Decimal::parse("1.5")).has_value());
}

TEST(FederatedCores, DeltaBelowOneIsRejected) {
  // C = 20 ms, L = D = 10 ms cannot finish by D on any number of cores. With δ = 0.5, eq. 3
  // would grant ⌈(20 + 10 − 5)/(10 − 5)⌉ = 5 cores and promise E[R] ≤ 20/5 + 5 = 9 ms < L.
  const Decimal half = Decimal::parse("0.5");
  EXPECT_THROW((void)federated_cores_with_overhead(20ms, 10ms, 10ms, half), takt::Error);
  EXPECT_THROW((void)expected_response_bound(20ms, 10ms, 10ms, half, 5), takt::Error);
  auto set =
      takt::model::parse_task_set("tasks: [{name: a, period: 10ms, work: 20ms, span: 10ms}]\n", "f.yaml");
  try {
    (void)analyse_federated(set, {Cores::of_count(8), half, takt::model::Fit::worst_fit});
    ADD_FAILURE() << "δ = 0.5 was accepted";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("δ = 0.5 is below 1: δ must be at least 1"), std::string::npos)
        << e.what();
  }
  // δ = 1 is the smallest δ accepted: D = δ·L is unschedulable, as without δ.
  auto one = analyse_federated(set, {Cores::of_count(8), Decimal::parse("1"), takt::model::Fit::worst_fit});
  EXPECT_FALSE(one.schedulable);
  EXPECT_FALSE(federated_cores_with_overhead(20ms, 10ms, 10ms, Decimal::parse("1")).has_value());
}

TEST(FederatedCores, ExpectedResponseTimeBound) {
  // E[R] ≤ C/n + δL̂ + (δ/ln 2)²/(2(D − C/n − δL̂)).
  // C = 20 ms, n = 4, δ = 1.5, L̂ = 2 ms, D = 10 ms: C/n = 5 ms, δL̂ = 3 ms, so the mean
  // is 8 ms; the variance term is (1.5/0.69314718)² = 2.16404256² = 4.68308021 ns² over
  // 2·2 ms = 4e6 ns, i.e. 1.17077005e-6 ns.
  auto bound = expected_response_bound(20ms, 2ms, 10ms, Decimal::parse("1.5"), 4);
  ASSERT_TRUE(bound.has_value());
  EXPECT_NEAR(*bound, 8e6, 1e-3);
  EXPECT_NEAR(*bound - 8e6, 1.17077005e-6, 1e-9);
  // Two cores: C/n = 10 ms = D: no bound.
  EXPECT_FALSE(expected_response_bound(20ms, 2ms, 10ms, Decimal::parse("1.5"), 2).has_value());

  // Where the variance term counts: C = 4 ns, n = 4, δ = 1, L̂ = 1 ns, D = 3 ns. Mean
  // C/n + δL̂ = 1 + 1 = 2 ns; D minus it = 1 ns; (1/ln 2)² = 1.4426950409² = 2.0813689810,
  // over 2·1: 1.0406844905. E[R] ≤ 3.0406844905 ns.
  auto small = expected_response_bound(4ns, 1ns, 3ns, Decimal::parse("1"), 4);
  ASSERT_TRUE(small.has_value());
  EXPECT_NEAR(*small, 3.0406844905, 1e-9);
}

TEST(FederatedAssignment, DedicatedThenSharedCores) {
  auto set = takt::model::parse_task_set(R"(global: {cores: "2-9"}
tasks:
  - {name: big, period: 10ms, work: 20ms, span: 2ms}      # n = 3
  - {name: light1, period: 10ms, work: 6ms, span: 1ms}    # density 0.6
  - {name: huge, period: 20ms, work: 50ms, span: 5ms}     # n = ⌈45/15⌉ = 3
  - {name: light2, period: 10ms, work: 5ms, span: 5ms}    # density 0.5
  - {name: light3, period: 20ms, work: 6ms, span: 1ms}    # density 0.3
)",
                                         "f.yaml");
  auto r = analyse_federated(set, {*set.global.cores, std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_TRUE(r.schedulable);
  EXPECT_EQ(r.dedicated_cores, 6);
  EXPECT_EQ(r.shared_cores, 2);
  ASSERT_EQ(r.grants.size(), 5u);
  // High tasks in file order from the first CPU of the list.
  EXPECT_TRUE(r.grants[0].high);
  EXPECT_EQ(r.grants[0].cores, 3);
  EXPECT_EQ(r.grants[0].core_ids, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(r.grants[2].core_ids, (std::vector<int>{5, 6, 7}));
  // Worst-fit decreasing density on CPUs 8 and 9: light1 (0.6) → 8, light2 (0.5) → 9,
  // light3 (0.3) → 9 (0.5 < 0.6).
  EXPECT_EQ(r.grants[1].core_ids, (std::vector<int>{8}));
  EXPECT_EQ(r.grants[3].core_ids, (std::vector<int>{9}));
  EXPECT_EQ(r.grants[4].core_ids, (std::vector<int>{9}));
  EXPECT_NEAR(r.shared[1].density, 0.8, 1e-12);
  // Σu = 2 + 0.6 + 2.5 + 0.5 + 0.3 = 5.9 > 8/2 = 4: the capacity-augmentation bound does not hold.
  EXPECT_FALSE(r.capacity.holds);
  EXPECT_NEAR(r.capacity.total_utilization, 5.9, 1e-12);

  // First-fit: light1 → 8, light2 → 9 (0.6 + 0.5 > 1), light3 → 8 (0.9 ≤ 1).
  auto ff = analyse_federated(set, {*set.global.cores, std::nullopt, takt::model::Fit::first_fit});
  EXPECT_TRUE(ff.schedulable);
  EXPECT_EQ(ff.grants[4].core_ids, (std::vector<int>{8}));
}

TEST(FederatedAssignment, SaysWhichTaskFailsAndByHowMuch) {
  auto set = takt::model::parse_task_set(R"(tasks:
  - {name: heavy, period: 20ms, work: 50ms, span: 5ms}
  - {name: wide, period: 10ms, work: 30ms, span: 2ms}
  - {name: seq, period: 10ms, work: 7ms, span: 7ms}
)",
                                         "f.yaml");
  auto r = analyse_federated(set, {Cores::of_count(4), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_FALSE(r.schedulable);
  // heavy: ⌈45/15⌉ = 3 cores (0-2); wide: ⌈28/8⌉ = 4 > the 1 left, short by 3.
  EXPECT_TRUE(r.grants[0].granted);
  EXPECT_FALSE(r.grants[1].granted);
  EXPECT_EQ(r.grants[1].cores, 4);
  bool found = false;
  for (const auto& f : r.findings) {
    if (f.task == "wide" && !f.passed) {
      found = true;
      EXPECT_EQ(f.margin, -3);
      EXPECT_NE(f.detail.find("short by 3"), std::string::npos) << f.detail;
    }
  }
  EXPECT_TRUE(found);
  // 7 dedicated cores are wanted, but only heavy's 3 are granted: seq (density 0.7) runs on
  // the one core no task was granted, core 3, and is not among the reasons.
  EXPECT_EQ(r.dedicated_cores, 7);
  EXPECT_EQ(r.granted_cores, 3);
  EXPECT_EQ(r.shared_cores, 1);
  EXPECT_TRUE(r.grants[2].granted);
  EXPECT_EQ(r.grants[2].core_ids, std::vector<int>{3});
  for (const auto& f : r.findings) {
    EXPECT_FALSE(f.task == "seq" && !f.passed) << f.detail;
  }
}

TEST(FederatedAssignment, CoreCountsBeyond64BitsAreShortfallsNotCrashes) {
  // rtws §V.A with D = 1 s, L = 1 s − 1 ns, C = 4·10^9 s: n = ⌈(4·10^18 − 999999999)/1⌉ =
  // 3999999999000000001 per task. Three of them need 3 × that = 11999999997000000003 > 2^63:
  // the 64-bit sum wrapped and the shared-core list was built from it ("cannot create
  // std::vector larger than max_size()").
  auto set = takt::model::parse_task_set(R"(tasks:
  - {name: a, period: 1s, work: 4000000000s, span: 0.999999999s}
  - {name: b, period: 1s, work: 4000000000s, span: 0.999999999s}
  - {name: c, period: 1s, work: 4000000000s, span: 0.999999999s}
)",
                                         "f.yaml");
  auto r = analyse_federated(set, {Cores::of_count(4), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_FALSE(r.schedulable);
  EXPECT_EQ(r.grants[0].cores, 3999999999000000001);
  EXPECT_FALSE(r.grants[0].granted);
  EXPECT_EQ(r.granted_cores, 0);
  EXPECT_EQ(r.shared_cores, 4);
  EXPECT_EQ(r.dedicated_cores, std::numeric_limits<std::int64_t>::max());  // saturated
  bool set_level = false;
  for (const auto& f : r.findings) {
    if (f.task == "a") {
      EXPECT_NE(f.detail.find("short by 3999999998999999997"), std::string::npos) << f.detail;
    }
    if (f.test == "dedicated cores") {
      set_level = true;
      EXPECT_NE(
          f.detail.find("need 11999999997000000003 dedicated cores of 4 (short by 11999999996999999999)"),
          std::string::npos)
          << f.detail;
    }
  }
  EXPECT_TRUE(set_level);

  // Eq. 3 with δ = 1.000000000001 = p/q (p = 10^12 + 1, q = 10^12), L̂ = 10^12 − 1 ns, D = 10^12
  // ns, C = 2·10^12 ns: q·D − p·L̂ = 10^24 − (10^24 − 1) = 1 and q(C + D) − p·L̂ = 2·10^24 + 1,
  // so n = 2000000000000000000000001, far above 2^63: reported as INT64_MAX cores, exactly
  // in the formula, and not granted.
  auto fine = takt::model::parse_task_set(
      "tasks: [{name: x, period: 1000s, work: 2000s, span: 999.999999999s}]\n", "f.yaml");
  auto e = analyse_federated(
      fine, {Cores::of_count(4), takt::model::Decimal::parse("1.000000000001"), takt::model::Fit::worst_fit});
  EXPECT_FALSE(e.schedulable);
  EXPECT_EQ(e.grants[0].cores, std::numeric_limits<std::int64_t>::max());
  EXPECT_FALSE(e.grants[0].granted);
  EXPECT_TRUE(e.grants[0].core_ids.empty());
  EXPECT_NE(e.grants[0].formula.find("⌉ = 2000000000000000000000001"), std::string::npos)
      << e.grants[0].formula;
  EXPECT_EQ(federated_cores_with_overhead(2000s, 999999999999ns, 1000s, Decimal::parse("1.000000000001")),
            std::numeric_limits<std::int64_t>::max());
}

TEST(FederatedAssignment, FormulasShowDurationsExactly) {
  // C = 30 ms, L = 9.999999 ms, D = 10 ms: n = ⌈(30 − 9.999999)/0.000001⌉ = 20000001. Rounded
  // to three decimals the formula read ⌈(30ms − 10ms)/(10ms − 10ms)⌉ = 20000001.
  auto set = takt::model::parse_task_set("tasks: [{name: a, period: 10ms, work: 30ms, span: 9.999999ms}]\n",
                                         "f.yaml");
  auto r = analyse_federated(set, {Cores::of_count(4), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_EQ(r.grants[0].formula,
            "n = ⌈(C − L)/(D − L)⌉ = ⌈(30ms − 9.999999ms)/(10ms − 9.999999ms)⌉ = 20000001");
  // Eq. 3, D ≤ δ·L̂: δ = 1.7, L̂ = 6.000001 ms: δ·L̂ = 10.2000017 ms exactly, short by 0.2000017 ms.
  auto short_set = takt::model::parse_task_set(
      "tasks: [{name: b, period: 10ms, work: 30ms, span: 6.000001ms}]\n", "f.yaml");
  auto e =
      analyse_federated(short_set, {Cores::of_count(4), Decimal::parse("1.7"), takt::model::Fit::worst_fit});
  ASSERT_FALSE(e.findings.empty());
  EXPECT_NE(e.findings[0].detail.find("δ·L = 1.7·6.000001ms = 10200001.7ns"), std::string::npos)
      << e.findings[0].detail;
  EXPECT_NE(e.findings[0].detail.find("(short by 200001.7ns) (L: no burdened_span given)"), std::string::npos)
      << e.findings[0].detail;
  EXPECT_EQ(e.grants[0].formula, "none: D ≤ δ·L (L: no burdened_span given)");
  // Where eq. 3 gives a count, the note follows the formula once (it was repeated inside
  // it, after each δ·L): C = 12 ms, L = 4 ms, D = 10 ms, δ = 1.25:
  // n = ⌈(12 + 10 − 5)/(10 − 5)⌉ = ⌈17/5⌉ = 4.
  auto counted =
      takt::model::parse_task_set("tasks: [{name: s, period: 10ms, work: 12ms, span: 4ms}]\n", "f.yaml");
  auto n =
      analyse_federated(counted, {Cores::of_count(4), Decimal::parse("1.25"), takt::model::Fit::worst_fit});
  EXPECT_EQ(n.grants[0].formula,
            "n = ⌈(C + D − δ·L)/(D − δ·L)⌉ = ⌈(12ms + 10ms − 1.25·4ms)/(10ms − 1.25·4ms)⌉ = 4 (L: no "
            "burdened_span given)");
}

TEST(FederatedAssignment, ConstrainedDeadlineHighTaskWithUtilizationBelowOne) {
  // T = 20 ms, D = 5 ms, C = 8 ms, L = 2 ms: u = 0.4 ≤ 1 but C > D, so the task cannot run
  // sequentially: n = ⌈(8 − 2)/(5 − 2)⌉ = 2 dedicated cores.
  auto set = takt::model::parse_task_set(
      "tasks: [{name: a, period: 20ms, deadline: 5ms, work: 8ms, span: 2ms}]\n", "f.yaml");
  auto r = analyse_federated(set, {Cores::of_count(2), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_TRUE(r.schedulable);
  EXPECT_TRUE(r.grants[0].high);
  EXPECT_NEAR(r.grants[0].utilization, 0.4, 1e-12);
  EXPECT_EQ(r.grants[0].cores, 2);
  EXPECT_EQ(r.grants[0].core_ids, (std::vector<int>{0, 1}));
  // On one core it does not fit: short by 1.
  auto one = analyse_federated(set, {Cores::of_count(1), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_FALSE(one.schedulable);
}

TEST(FederatedAssignment, WorkEqualToTheDeadlineIsALightTaskOfDensityOne) {
  // rtws §V.A: a high-utilization task (utilization > 1, C > T with D = T) gets dedicated
  // cores; takt reads it as C > D (federated.hpp). C = D still meets its deadline alone on
  // a core: a light task of density C/D = 1, one shared core full.
  // a is sequential (C = L = D), b parallel (C = D = 10 ms, L = 2 ms): neither is high,
  // each takes a shared core of its own (1 + 1 > 1 on one core: short by 1).
  auto set = takt::model::parse_task_set(R"(tasks:
  - {name: a, period: 10ms, work: 10ms, span: 10ms}
  - {name: b, period: 10ms, work: 10ms, span: 2ms}
)",
                                         "f.yaml");
  auto two = analyse_federated(set, {Cores::of_count(2), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_TRUE(two.schedulable);
  ASSERT_EQ(two.grants.size(), 2u);
  EXPECT_FALSE(two.grants[0].high);
  EXPECT_FALSE(two.grants[1].high);
  EXPECT_EQ(two.grants[0].cores, 1);  // a low task's one (shared) core
  EXPECT_EQ(two.grants[1].cores, 1);
  EXPECT_NE(two.grants[0].core_ids, two.grants[1].core_ids);
  ASSERT_EQ(two.shared.size(), 2u);
  EXPECT_NEAR(two.shared[0].density, 1.0, 1e-12);
  EXPECT_NEAR(two.shared[1].density, 1.0, 1e-12);
  auto one = analyse_federated(set, {Cores::of_count(1), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_FALSE(one.schedulable);
  ASSERT_GE(one.findings.size(), 2u);
  EXPECT_FALSE(one.findings[1].passed);
  EXPECT_NEAR(one.findings[1].margin, -1.0, 1e-12);

  // One nanosecond more work makes b high: n = ⌈(10 ms + 1 ns − 2 ms)/(10 ms − 2 ms)⌉ =
  // ⌈8000001/8000000⌉ = 2 dedicated cores; a, still sequential with C = D, has none to
  // share on 2 cores and needs a third.
  auto more = takt::model::parse_task_set(R"(tasks:
  - {name: a, period: 10ms, work: 10ms, span: 10ms}
  - {name: b, period: 10ms, work: 10000001ns, span: 2ms}
)",
                                          "f.yaml");
  auto three = analyse_federated(more, {Cores::of_count(3), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_TRUE(three.schedulable);
  ASSERT_EQ(three.grants.size(), 2u);
  EXPECT_FALSE(three.grants[0].high);
  EXPECT_TRUE(three.grants[1].high);
  EXPECT_EQ(three.grants[1].cores, 2);
  auto too_few = analyse_federated(more, {Cores::of_count(2), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_FALSE(too_few.schedulable);
}

TEST(FederatedAssignment, LightTaskThatFitsNowhere) {
  // Two light tasks of density 0.6 on one shared core: the second is short by 0.2.
  auto set = takt::model::parse_task_set(R"(tasks:
  - {name: a, period: 10ms, work: 6ms, span: 6ms}
  - {name: b, period: 10ms, work: 6ms, span: 6ms}
)",
                                         "f.yaml");
  auto r = analyse_federated(set, {Cores::of_count(1), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_FALSE(r.schedulable);
  ASSERT_FALSE(r.findings.empty());
  const auto& f = r.findings[1];  // after the set-level "dedicated cores"
  EXPECT_EQ(f.task, "b");
  EXPECT_FALSE(f.passed);
  EXPECT_NEAR(f.margin, -0.2, 1e-12);
}

TEST(FederatedAssignment, LightTasksWithDeadlinesBelowTheirPeriodsArePackedByDensity) {
  // C = 3 ms, D = 5 ms, T = 10 ms: utilization 0.3, density C/D = 0.6. On one core the
  // two need 0.6 + 0.6 = 1.2 > 1 (short by 0.2): EDF can miss (both released at 0, the
  // second finishes at 6 ms > 5 ms). By utilization (0.6) they would be admitted.
  auto set = takt::model::parse_task_set(R"(tasks:
  - {name: a, period: 10ms, deadline: 5ms, work: 3ms, span: 3ms}
  - {name: b, period: 10ms, deadline: 5ms, work: 3ms, span: 3ms}
)",
                                         "f.yaml");
  auto one = analyse_federated(set, {Cores::of_count(1), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_FALSE(one.schedulable);
  ASSERT_GE(one.findings.size(), 2u);
  const auto& f = one.findings[1];  // after the set-level "dedicated cores"
  EXPECT_EQ(f.task, "b");
  EXPECT_FALSE(f.passed);
  EXPECT_NEAR(f.margin, -0.2, 1e-12);
  // On two cores each gets its own: density 0.6 each.
  auto two = analyse_federated(set, {Cores::of_count(2), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_TRUE(two.schedulable);
  ASSERT_EQ(two.shared.size(), 2u);
  EXPECT_NEAR(two.shared[0].density, 0.6, 1e-12);
  EXPECT_NEAR(two.shared[1].density, 0.6, 1e-12);
}

TEST(FederatedAssignment, ExactDensityOneFits) {
  // Densities 0.326, 0.28, 0.277, 0.117 fill one core exactly: Σ = 1 ≤ 1. Added in that
  // order (decreasing density, as they are packed) in double the sum is
  // 1.0000000000000002, and in long double 1 + 1.08e-19: both above 1.
  auto set = takt::model::parse_task_set(R"(tasks:
  - {name: a, period: 1s, work: 117ms, span: 1ms}
  - {name: b, period: 1s, work: 326ms, span: 1ms}
  - {name: c, period: 2s, work: 560ms, span: 1ms}
  - {name: d, period: 1s, work: 277ms, span: 1ms}
)",
                                         "f.yaml");
  auto r = analyse_federated(set, {Cores::of_count(1), std::nullopt, takt::model::Fit::first_fit});
  EXPECT_TRUE(r.schedulable);
  ASSERT_EQ(r.shared.size(), 1u);
  EXPECT_EQ(r.shared[0].tasks, (std::vector<std::string>{"b", "c", "d", "a"}));
}

TEST(FederatedAssignment, EquationThreeWithBurdenedSpan) {
  auto set = takt::model::parse_task_set(R"(global: {cores: 8, delta: 1.5}
tasks:
  - {name: chol, period: 40ms, work: 60ms, span: 5ms, burdened_span: 5.2ms}
  - {name: heat, period: 50ms, work: 90ms, span: 7ms}
)",
                                         "f.yaml");
  auto r = analyse_federated(set, {*set.global.cores, set.global.delta, takt::model::Fit::worst_fit});
  EXPECT_TRUE(r.with_overhead);
  // chol: ⌈(60 + 40 − 7.8)/(40 − 7.8)⌉ = ⌈92.2/32.2⌉ = ⌈2.863⌉ = 3, with L̂ = 5.2 ms.
  EXPECT_EQ(r.grants[0].cores, 3);
  EXPECT_EQ(r.grants[0].span_used, 5200us);
  // heat has no burdened span: L = 7 ms is used: ⌈(140 − 10.5)/(50 − 10.5)⌉ = ⌈3.278⌉ = 4.
  EXPECT_EQ(r.grants[1].cores, 4);
  EXPECT_EQ(r.grants[1].span_used, 7ms);
  // E[R] of chol ≈ 60/3 + 1.5·5.2 = 27.8 ms.
  ASSERT_TRUE(r.grants[0].expected_response_ns.has_value());
  EXPECT_NEAR(*r.grants[0].expected_response_ns, 27.8e6, 1.0);
}

TEST(FederatedAssignment, ExpectedResponseUsesTheDeadlineWhereItIsBelowThePeriod) {
  // rtws Lemma 2's inter-arrival time is Y = D for implicit deadlines; takt keeps D for
  // D < T (federated.hpp). At nanosecond scale the variance term shows which one is used:
  // C = 4 ns, L̂ = 1 ns, D = 3 ns, T = 10 ns, δ = 1: n = ⌈(4 + 3 − 1)/(3 − 1)⌉ = 3;
  // C/n + δL̂ = 4/3 + 1 = 2.3333333333 ns; (1/ln 2)² = 2.0813689810 over
  // 2·(3 − 2.3333333333) = 1.3333333333 is 1.5610267358: E[R] ≤ 3.8943600691 ns (with
  // Y = T it would be 2.3333333333 + 2.0813689810/(2·7.6666666667) = 2.4690747886).
  auto set = takt::model::parse_task_set(R"(global: {cores: 8, delta: 1}
tasks:
  - {name: tiny, period: 10ns, deadline: 3ns, work: 4ns, span: 1ns}
)",
                                         "f.yaml");
  auto r = analyse_federated(set, {*set.global.cores, set.global.delta, takt::model::Fit::worst_fit});
  ASSERT_EQ(r.grants.size(), 1u);
  EXPECT_EQ(r.grants[0].cores, 3);
  ASSERT_TRUE(r.grants[0].expected_response_ns.has_value());
  EXPECT_NEAR(*r.grants[0].expected_response_ns, 3.8943600691, 1e-9);
}

TEST(FederatedAssignment, NoExpectedResponseForATaskNotGrantedItsCores) {
  // δ = 1.5 on 4 cores: a needs ⌈(20 + 10 − 3)/(10 − 3)⌉ = ⌈27/7⌉ = 4 and gets cores 0-3;
  // b needs 4 too and gets none. E[R] holds on n cores of the task's own: b has no bound
  // (the text said so; analyze --json gave it one).
  auto set = takt::model::parse_task_set(R"(global: {cores: 4, delta: 1.5}
tasks:
  - {name: a, period: 10ms, work: 20ms, span: 2ms}
  - {name: b, period: 10ms, work: 20ms, span: 2ms}
)",
                                         "f.yaml");
  auto r = analyse_federated(set, {*set.global.cores, set.global.delta, takt::model::Fit::worst_fit});
  ASSERT_EQ(r.grants.size(), 2u);
  EXPECT_EQ(r.grants[0].cores, 4);
  EXPECT_TRUE(r.grants[0].granted);
  EXPECT_TRUE(r.grants[0].expected_response_ns.has_value());
  EXPECT_EQ(r.grants[1].cores, 4);
  EXPECT_FALSE(r.grants[1].granted);
  EXPECT_FALSE(r.grants[1].expected_response_ns.has_value());
  EXPECT_FALSE(r.schedulable);
}

TEST(FederatedAssignment, CapacityAugmentationBoundBesideTheVerdict) {
  // m = 4: Σu = 1.5 + 0.5 = 2 ≤ 4/2 and L ≤ D/2 for both (4 ≤ 5, 5 ≤ 5): holds.
  auto ok = takt::model::parse_task_set(R"(tasks:
  - {name: a, period: 10ms, work: 15ms, span: 4ms}
  - {name: b, period: 10ms, work: 5ms, span: 5ms}
)",
                                        "f.yaml");
  auto r = analyse_federated(ok, {Cores::of_count(4), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_TRUE(r.capacity.holds);
  EXPECT_DOUBLE_EQ(r.capacity.utilization_bound, 2.0);
  // b's span 5.000001 ms > D/2: the bound no longer holds, but the set is still admitted
  // (a: ⌈11/6⌉ = 2 cores, b on a shared core).
  auto long_span = takt::model::parse_task_set(R"(tasks:
  - {name: a, period: 10ms, work: 15ms, span: 4ms}
  - {name: b, period: 10ms, work: 5000001ns, span: 5000001ns}
)",
                                               "f.yaml");
  auto r2 = analyse_federated(long_span, {Cores::of_count(4), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_FALSE(r2.capacity.holds);
  EXPECT_EQ(r2.capacity.long_span_tasks, std::vector<std::string>{"b"});
  EXPECT_TRUE(r2.schedulable);
  EXPECT_EQ(r2.grants[0].cores, 2);
}

TEST(FederatedAssignment, CapacityAugmentationWithConstrainedDeadlinesUsesDensities) {
  // Two tasks T = 20 ms, D = 5 ms, C = 8 ms, L = 2 ms on m = 2: Σ C/T = 0.8 ≤ m/2 = 1 and
  // L ≤ D/2, so a test on utilizations said "holds" next to the verdict "not schedulable"
  // (each task needs ⌈(8 − 2)/(5 − 2)⌉ = 2 cores, 4 in all). The bound is proved for implicit
  // deadlines; the same set with T = D has Σ C/D = 3.2 > 1: it does not hold.
  auto set = takt::model::parse_task_set(R"(tasks:
  - {name: a, period: 20ms, deadline: 5ms, work: 8ms, span: 2ms}
  - {name: b, period: 20ms, deadline: 5ms, work: 8ms, span: 2ms}
)",
                                         "f.yaml");
  auto r = analyse_federated(set, {Cores::of_count(2), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_FALSE(r.schedulable);
  EXPECT_TRUE(r.capacity.densities);
  EXPECT_TRUE(r.capacity.not_applicable.empty());
  EXPECT_NEAR(r.capacity.total_utilization, 3.2, 1e-12);
  EXPECT_FALSE(r.capacity.holds);
  // On 8 cores Σ C/D = 3.2 ≤ 4 and L ≤ D/2: holds, and the set is admitted (2 + 2 cores).
  auto wide = analyse_federated(set, {Cores::of_count(8), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_TRUE(wide.capacity.holds);
  EXPECT_TRUE(wide.schedulable);
}

TEST(FederatedAssignment, CapacityAugmentationDoesNotApplyUnderEquationThree) {
  // m = 4, C = 20 ms, T = D = 10 ms, L = 5 ms: Σu = 2 ≤ m/2 and L ≤ D/2 — the classic count
  // ⌈15/5⌉ = 3 fits. With δ = 1.5, eq. 3 asks ⌈(20 + 10 − 7.5)/(10 − 7.5)⌉ = ⌈9⌉ = 9 > 4
  // cores: the bound (proved for the classic count) must not be reported as holding.
  auto set =
      takt::model::parse_task_set("tasks: [{name: a, period: 10ms, work: 20ms, span: 5ms}]\n", "f.yaml");
  auto classic = analyse_federated(set, {Cores::of_count(4), std::nullopt, takt::model::Fit::worst_fit});
  EXPECT_TRUE(classic.capacity.holds);
  EXPECT_TRUE(classic.schedulable);
  auto eq3 = analyse_federated(set, {Cores::of_count(4), Decimal::parse("1.5"), takt::model::Fit::worst_fit});
  EXPECT_EQ(eq3.grants[0].cores, 9);
  EXPECT_FALSE(eq3.schedulable);
  EXPECT_FALSE(eq3.capacity.holds);
  EXPECT_NE(eq3.capacity.not_applicable.find("eq. 3"), std::string::npos) << eq3.capacity.not_applicable;
}

TEST(FederatedAnalysis, ASpanEqualToTheDeadlineSaysWorkExceedsTheDeadlineNotUtilization) {
  // T = 20 ms, D = 5 ms, C = 8 ms, L = 5 ms: u = 0.4, yet the task is high (C > D) and
  // D = L leaves no core count. The finding said "a task with utilization > 1".
  auto set = takt::model::parse_task_set(
      "tasks: [{name: a, period: 20ms, deadline: 5ms, work: 8ms, span: 5ms}]\n", "f.yaml");
  auto r = analyse_federated(set, {Cores::of_count(4), std::nullopt, takt::model::Fit::worst_fit});
  bool found = false;
  for (const auto& f : r.findings) {
    if (f.test != "federated core count") continue;
    found = true;
    EXPECT_FALSE(f.passed);
    EXPECT_NE(f.detail.find("D = L = 5ms: a task with more work than its deadline (C = 8ms > D)"), std::string::npos)
        << f.detail;
    EXPECT_EQ(f.detail.find("utilization"), std::string::npos) << f.detail;
  }
  EXPECT_TRUE(found);
}

// A task-set line of a sequential task t<i>: period `period_ms`, work and span `work`.
std::string sequential_task(int i, long long period_ms, const std::string& work) {
  return "  - {name: t" + std::to_string(i) + ", period: " + std::to_string(period_ms) + "ms, work: " + work +
         ", span: " + work + "}\n";
}

TEST(FederatedAssignment, LightTasksArePackedAsAScanOfEveryCoreWouldPackThem) {
  // The packing finds its core through a tree of the cores' densities instead of trying
  // every core. Against a plain scan here: densities j/64 (D = 64, 128 or 256 ms, C a
  // multiple of D/64), exact in binary, so the scan can keep the loads as whole 64ths.
  // Decreasing density, ties in file order; first-fit: the first core where the load
  // stays ≤ 64/64; worst-fit: the least loaded such core, the lowest index on ties.
  std::mt19937 random(7);
  for (int round = 0; round < 40; ++round) {
    const int m = std::array{1, 3, 17, 64}[static_cast<std::size_t>(round % 4)];
    const int count = std::uniform_int_distribution<int>(1, 8 * m)(random);
    std::string yaml = "tasks:\n";
    struct Light {
      int index, j;
      long long deadline_ms;
    };
    std::vector<Light> tasks;
    for (int i = 0; i < count; ++i) {
      const long long d = 64LL << std::uniform_int_distribution<int>(0, 2)(random);
      const int j = std::uniform_int_distribution<int>(1, 40)(random);
      const long long c_us = j * d * 1000 / 64;
      yaml += sequential_task(i, d, std::to_string(c_us) + "us");
      tasks.push_back({i, j, d});
    }
    const auto set = takt::model::parse_task_set(yaml, "f.yaml");
    std::vector<Light> order = tasks;
    std::stable_sort(order.begin(), order.end(), [](const Light& a, const Light& b) { return a.j > b.j; });
    for (const auto fit : {takt::model::Fit::first_fit, takt::model::Fit::worst_fit}) {
      std::vector<int> load(static_cast<std::size_t>(m), 0);
      std::vector<int> expected(tasks.size(), -1);
      for (const Light& t : order) {
        int chosen = -1;
        for (int k = 0; k < m; ++k) {
          if (load[static_cast<std::size_t>(k)] + t.j > 64) continue;
          if (chosen < 0 || (fit == takt::model::Fit::worst_fit &&
                             load[static_cast<std::size_t>(k)] < load[static_cast<std::size_t>(chosen)]))
            chosen = k;
          if (fit == takt::model::Fit::first_fit) break;
        }
        if (chosen >= 0) load[static_cast<std::size_t>(chosen)] += t.j;
        expected[static_cast<std::size_t>(t.index)] = chosen;
      }
      const auto r = analyse_federated(set, {Cores::of_count(m), std::nullopt, fit});
      ASSERT_EQ(r.grants.size(), tasks.size());
      for (std::size_t i = 0; i < tasks.size(); ++i) {
        const int got = r.grants[i].granted ? r.grants[i].core_ids.at(0) : -1;
        ASSERT_EQ(got, expected[i]) << "round " << round << ", m = " << m << ", task t" << i << ", "
                                    << (fit == takt::model::Fit::first_fit ? "first-fit" : "worst-fit");
      }
      EXPECT_EQ(r.schedulable, std::count(expected.begin(), expected.end(), -1) == 0);
    }
  }
}

TEST(FederatedAssignment, LightTasksThatFillACoreExactlyAllFitWhateverTheRounding) {
  // The tree prunes cores by their long double densities, 1e-9 above 1 − C/D; a core whose
  // exact sum reaches exactly 1 must still be tried. Densities 1/3, 1/7, 1/11 and 1/13 do
  // not round exactly, and n tasks of 1/n fill one core: every one fits, under both fits.
  for (int n : {3, 7, 11, 13}) {
    std::string yaml = "tasks:\n";
    for (int i = 0; i < n; ++i) {
      yaml += sequential_task(i, n, "1ms");
    }
    const auto set = takt::model::parse_task_set(yaml, "f.yaml");
    for (const auto fit : {takt::model::Fit::first_fit, takt::model::Fit::worst_fit}) {
      const auto r = analyse_federated(set, {Cores::of_count(1), std::nullopt, fit});
      EXPECT_TRUE(r.schedulable) << n << " tasks of 1/" << n;
    }
  }
}

TEST(FederatedAssignment, LightTasksOfRoundedDensitiesArePackedAsTheScanOfEveryCorePackedThem) {
  // Against the scan the tree replaced (every core, RatioSum's exact test, the values
  // compared for worst-fit and the least loaded core), on densities that do not round
  // exactly: periods of 3, 7, 9, 11 and 30 ms, work a whole number of ms below them.
  std::mt19937 random(11);
  for (int round = 0; round < 60; ++round) {
    const int m = std::array{1, 2, 5, 33}[static_cast<std::size_t>(round % 4)];
    const int count = std::uniform_int_distribution<int>(1, 6 * m)(random);
    std::string yaml = "tasks:\n";
    std::vector<std::pair<long long, long long>> cd;  // C and D in ms, file order
    for (int i = 0; i < count; ++i) {
      const long long d =
          std::array{3LL, 7LL, 9LL, 11LL, 30LL}[std::uniform_int_distribution<std::size_t>(0, 4)(random)];
      const long long c = std::uniform_int_distribution<long long>(1, d)(random);
      yaml += sequential_task(i, d, std::to_string(c) + "ms");
      cd.emplace_back(c, d);
    }
    const auto set = takt::model::parse_task_set(yaml, "f.yaml");
    std::vector<std::size_t> order(cd.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return cd[a].first * cd[b].second > cd[b].first * cd[a].second;
    });
    for (const auto fit : {takt::model::Fit::first_fit, takt::model::Fit::worst_fit}) {
      std::vector<takt::analysis::RatioSum> load(static_cast<std::size_t>(m));
      std::vector<int> expected(cd.size(), -1);
      for (std::size_t i : order) {
        const std::int64_t c = cd[i].first * 1'000'000, d = cd[i].second * 1'000'000;
        int chosen = -1;
        for (int k = 0; k < m; ++k) {
          takt::analysis::RatioSum with = load[static_cast<std::size_t>(k)];
          with.add(c, d);
          if (!with.at_most(1, 1)) continue;
          if (fit == takt::model::Fit::first_fit) {
            chosen = k;
            break;
          }
          if (chosen < 0 ||
              load[static_cast<std::size_t>(k)].value() < load[static_cast<std::size_t>(chosen)].value())
            chosen = k;
        }
        if (chosen >= 0) load[static_cast<std::size_t>(chosen)].add(c, d);
        expected[i] = chosen;
      }
      const auto r = analyse_federated(set, {Cores::of_count(m), std::nullopt, fit});
      ASSERT_EQ(r.grants.size(), cd.size());
      for (std::size_t i = 0; i < cd.size(); ++i) {
        if (r.grants[i].high) continue;  // C > D cannot be drawn; C = D is light (density 1)
        const int got = r.grants[i].granted ? r.grants[i].core_ids.at(0) : -1;
        ASSERT_EQ(got, expected[i]) << "round " << round << ", m = " << m << ", task t" << i << ", "
                                    << (fit == takt::model::Fit::first_fit ? "first-fit" : "worst-fit");
      }
    }
  }
}
