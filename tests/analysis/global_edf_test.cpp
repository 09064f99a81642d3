// Tests of the gedf-paws tests: GFB (paws §2, the admission test) and the 2.618 capacity bound of
// global EDF (reported beside the verdict).
#include "analysis/global_edf.hpp"
#include "model/task_set_parser.hpp"

#include <gtest/gtest.h>

using takt::analysis::analyse_global_edf;
using takt::model::Cores;

namespace {

takt::analysis::GlobalEdfResult run(const std::string& tasks, int m) {
  return analyse_global_edf(takt::model::parse_task_set("tasks:\n" + tasks, "g.yaml"), Cores::of_count(m));
}

}  // namespace

TEST(GlobalEdf, GfbHoldsWithMarginFromThePaperFormula) {
  // m = 2, u = 0.5, 0.5, 0.4: U = 1.4, u_max = 0.5, m − (m − 1)u_max = 1.5 ≥ 1.4: holds,
  // margin 0.1.
  auto r =
      run("  - {name: a, period: 10ms, work: 5ms, span: 1ms}\n"
          "  - {name: b, period: 20ms, work: 10ms, span: 1ms}\n"
          "  - {name: c, period: 10ms, work: 4ms, span: 1ms}\n",
          2);
  EXPECT_TRUE(r.gfb_holds);
  EXPECT_TRUE(r.schedulable);
  EXPECT_NEAR(r.total_density, 1.4, 1e-12);
  EXPECT_NEAR(r.gfb_bound, 1.5, 1e-12);
  EXPECT_EQ(r.core_ids, (std::vector<int>{0, 1}));
  bool found = false;
  for (const auto& f : r.findings) {
    if (f.test.rfind("GFB", 0) == 0) {
      found = true;
      EXPECT_NEAR(f.margin, 0.1, 1e-12);
    }
  }
  EXPECT_TRUE(found);
}

TEST(GlobalEdf, GfbAtItsBoundaries) {
  // m = 2, three tasks of u = 0.5: U = 1.5 = m − (m − 1)·u_max = 2 − 0.5: equal, holds
  // with margin 0.
  auto r =
      run("  - {name: a, period: 10ms, work: 5ms, span: 1ms}\n"
          "  - {name: b, period: 10ms, work: 5ms, span: 1ms}\n"
          "  - {name: c, period: 10ms, work: 5ms, span: 1ms}\n",
          2);
  EXPECT_TRUE(r.gfb_holds);
  EXPECT_NEAR(r.gfb_bound, 1.5, 1e-12);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].test, "GFB: U ≤ m − (m−1)·u_max");
  EXPECT_TRUE(r.findings[0].passed);
  EXPECT_NEAR(r.findings[0].margin, 0.0, 1e-12);
  // One nanosecond more on a: u_max = 0.5000001, U = 1.5000001 > 2 − 0.5000001: fails
  // (compared exactly, the margin −2e-7).
  r = run("  - {name: a, period: 10ms, work: 5000001ns, span: 1ms}\n"
          "  - {name: b, period: 10ms, work: 5ms, span: 1ms}\n"
          "  - {name: c, period: 10ms, work: 5ms, span: 1ms}\n",
          2);
  EXPECT_FALSE(r.gfb_holds);
  EXPECT_NEAR(r.findings[0].margin, -2e-7, 1e-12);

  // m = 1, C = D: u_max = 1 ≤ 1 and U = 1 ≤ 1 − 0: holds.
  r = run("  - {name: a, period: 10ms, work: 10ms, span: 10ms}\n", 1);
  EXPECT_TRUE(r.gfb_holds);
  // C = D + 1 ns (a parallel task, span 1 ms): u_max > 1, the finding names that condition.
  r = run("  - {name: a, period: 10ms, work: 10000001ns, span: 1ms}\n", 1);
  EXPECT_FALSE(r.gfb_holds);
  EXPECT_FALSE(r.schedulable);
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].test, "GFB: u_max ≤ 1");
  EXPECT_EQ(r.findings[0].task, "a");
  EXPECT_FALSE(r.findings[0].passed);
}

TEST(GlobalEdf, GfbFailsAndSoDoesTheCapacityBound) {
  // m = 2, u = 0.9, 0.9: U = 1.8 > 2 − 0.9 = 1.1: GFB fails by 0.7. Capacity: 1.8 > 2/2.618 =
  // 0.764: fails too.
  auto r =
      run("  - {name: a, period: 10ms, work: 9ms, span: 1ms}\n"
          "  - {name: b, period: 10ms, work: 9ms, span: 1ms}\n",
          2);
  EXPECT_FALSE(r.gfb_holds);
  EXPECT_FALSE(r.capacity_holds);
  EXPECT_FALSE(r.schedulable);
  EXPECT_NEAR(r.gfb_bound - r.total_density, -0.7, 1e-12);
}

TEST(GlobalEdf, TheCapacityBoundIsReportedButDoesNotAdmit) {
  // Li et al.'s bound 2.618 is proved for a greedy, fully preemptive global EDF; gedf-paws
  // preempts only at spawn and sync points, so admission is by GFB (paws §2) alone.
  // m = 8, one task T = D = 10 ms, C = 30 ms, L = 1 ms: u = 3 > 1, so GFB fails; the
  // capacity bound holds (Σu = 3 ≤ 8/2.618 = 3.056, L = 1 ms ≤ D/2.618 = 3.82 ms), which
  // used to admit the set.
  auto r = run("  - {name: p, period: 10ms, work: 30ms, span: 1ms}\n", 8);
  EXPECT_FALSE(r.gfb_holds);
  EXPECT_TRUE(r.capacity_holds);
  EXPECT_TRUE(r.tasks[0].span_ok);
  EXPECT_NEAR(r.capacity_bound, 8 / 2.6180339887498948482, 1e-12);
  EXPECT_FALSE(r.schedulable);
  // The findings are GFB's only: the failed u_max ≤ 1 is the reason.
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].test, "GFB: u_max ≤ 1");
  EXPECT_FALSE(r.findings[0].passed);
  // m = 4, u = 1.5, L = 3.8 ms ≤ D/2.618 = 3.82 ms: the bound holds, GFB does not.
  auto r2 = run("  - {name: p, period: 10ms, work: 15ms, span: 3.8ms}\n", 4);
  EXPECT_TRUE(r2.capacity_holds);
  EXPECT_FALSE(r2.schedulable);
  // L = 3.9 ms > 3.82 ms: the span condition fails.
  auto r3 = run("  - {name: p, period: 10ms, work: 15ms, span: 3.9ms}\n", 4);
  EXPECT_FALSE(r3.capacity_holds);
  EXPECT_FALSE(r3.tasks[0].span_ok);
  // Where GFB holds the set is admitted whatever the bound says: m = 2, u = 0.5, 0.5, 0.4
  // (GfbHoldsWithMarginFromThePaperFormula), Σu = 1.4 > 2/2.618 = 0.764.
  auto r4 =
      run("  - {name: a, period: 10ms, work: 5ms, span: 1ms}\n"
          "  - {name: b, period: 20ms, work: 10ms, span: 1ms}\n"
          "  - {name: c, period: 10ms, work: 4ms, span: 1ms}\n",
          2);
  EXPECT_FALSE(r4.capacity_holds);
  EXPECT_TRUE(r4.schedulable);
}

TEST(GlobalEdf, CapacityBoundIsExactAtTheBoundary) {
  // b = (3 + √5)/2 = 2.6180339887498948482...; D = 4·10^18 ns:
  //   D/b = 1527864045000420607.18 ns,
  // so L = 1527864045000420607 ns is within the bound and one nanosecond more is not.
  // Plain double arithmetic cannot tell them apart: doubles near 1.5·10^18 are 256 apart,
  // both spans convert to 1527864045000420608, and L ≤ D/b (D/b = 1527864045000420608 in
  // double) as well as L·b ≤ D hold for both.
  const std::string d = "period: 4000000000s";
  auto in = run("  - {name: p, " + d + ", work: 1527864045000420607ns, span: 1527864045000420607ns}\n", 4);
  EXPECT_TRUE(in.tasks[0].span_ok);
  auto out = run("  - {name: p, " + d + ", work: 1527864045000420608ns, span: 1527864045000420608ns}\n", 4);
  EXPECT_FALSE(out.tasks[0].span_ok);
  // Σu on m = 1 with the same numbers: u = C/T ≤ 1/b holds for C = 1527864045000420607 ns
  // and fails for one nanosecond more; in double C/T ≤ 1/b, C/T·b ≤ 1 and C·b ≤ T hold for
  // both (the two quotients differ by 2.5·10^-19, far below the 5.6·10^-17 between doubles
  // near 0.38).
  EXPECT_TRUE(run("  - {name: p, " + d + ", work: 1527864045000420607ns, span: 1ns}\n", 1).capacity_holds);
  EXPECT_FALSE(run("  - {name: p, " + d + ", work: 1527864045000420608ns, span: 1ns}\n", 1).capacity_holds);
}

TEST(GlobalEdf, ConstrainedDeadlinesUseDensity) {
  // C = 4, D = 5, T = 10: density 0.8 (not u = 0.4). m = 1: GFB is U ≤ 1, 0.8 + 0.3 > 1.
  auto r =
      run("  - {name: a, period: 10ms, deadline: 5ms, work: 4ms, span: 4ms}\n"
          "  - {name: b, period: 10ms, work: 3ms, span: 3ms}\n",
          1);
  EXPECT_NEAR(r.total_density, 1.1, 1e-12);
  EXPECT_FALSE(r.gfb_holds);
  EXPECT_TRUE(r.densities);
  bool gfb = false;
  for (const auto& f : r.findings) {
    if (f.test.rfind("GFB", 0) != 0) continue;
    gfb = true;
    EXPECT_EQ(f.detail, "Σ C/D = 1.100 > m − (m−1)·max C/D = 1 − 0·0.800 = 1.000 (max C/D from 'a')");
  }
  EXPECT_TRUE(gfb);
  EXPECT_FALSE(run("  - {name: a, period: 10ms, work: 4ms, span: 4ms}\n", 1).densities);
}
