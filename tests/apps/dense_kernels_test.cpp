// Heat, Cholesky and LU on the runtime agree with serial references and with exact solutions, at several
// sizes.
#include "apps/cholesky.hpp"
#include "apps/heat.hpp"
#include "apps/lu.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

namespace {

takt::PoolConfig two_workers() {
  takt::PoolConfig c;
  c.workers = 2;
  c.memory.depth = 96;
  c.memory.stack_size = 64 * 1024;
  c.name = "dense";
  return c;
}

// ---- heat ------------------------------------------------------------------------------

struct HeatSize {
  std::size_t rows, columns, steps, leaf;
};

class HeatBySize : public ::testing::TestWithParam<HeatSize> {};

TEST_P(HeatBySize, ParallelEqualsSerialAndTheSchemesExactSolution) {
  const HeatSize s = GetParam();
  takt::apps::HeatProblem p{s.rows, s.columns, s.steps, s.leaf};
  takt::apps::HeatGrids serial_grids(p), parallel_grids(p);
  const double* serial = takt::apps::heat_serial(p, serial_grids);
  takt::Pool pool(two_workers());
  const double* parallel = pool.run([&] { return takt::apps::heat(p, parallel_grids); });
  // Every cell is computed by the same arithmetic whoever runs it: bit for bit equal.
  for (std::size_t i = 0; i < s.rows * s.columns; ++i) ASSERT_EQ(parallel[i], serial[i]) << "cell " << i;
  // sin x · sin y is an eigenvector of the scheme: after k steps it is g^k · sin x · sin y
  // up to rounding (HeatProblem::exact); the values are at most 1.
  EXPECT_LT(takt::apps::heat_max_error(p, parallel), 1e-12);
  // And the scheme approximates the PDE: at t = k·dt the solution is e^(−2t)·sin x·sin y
  // (on grids fine enough for the O(dx² + dt) discretisation error to be small).
  if (s.rows < 9 || s.columns < 9) return;
  const double t = static_cast<double>(s.steps) * p.dt();
  const std::size_t i = s.rows / 2, j = s.columns / 2;
  const double pde = std::exp(-2 * t) * std::sin(static_cast<double>(i) * p.dx()) *
                     std::sin(static_cast<double>(j) * p.dy());
  EXPECT_NEAR(parallel[i * s.columns + j], pde, 2e-3);
}

INSTANTIATE_TEST_SUITE_P(Sizes, HeatBySize,
                         ::testing::Values(HeatSize{3, 3, 1, 10}, HeatSize{17, 9, 5, 1},
                                           HeatSize{64, 64, 20, 10}, HeatSize{130, 70, 30, 7},
                                           HeatSize{256, 128, 10, 10}));

TEST(Heat, StepDecaysTheModeByTheHandComputedFactor) {
  // 5 × 5 grid: dx = dy = π/4, dt = 0.4 / (2 / dx²) = 0.2·dx². With s = sin(π/8),
  // g = 1 − dt·2·(4 s²/dx²) = 1 − 1.6 s² = 1 − 1.6 · 0.1464466 = 0.7656854.
  takt::apps::HeatProblem p{5, 5, 1, 10};
  EXPECT_NEAR(p.exact(2, 2, 1), 0.7656854, 1e-7);  // sin(π/2)² = 1 at the centre
  takt::apps::HeatGrids grids(p);
  const double* u = takt::apps::heat_serial(p, grids);
  EXPECT_NEAR(u[2 * 5 + 2], 0.7656854, 1e-7);
}

TEST(Heat, RejectsDegenerateGrids) {
  takt::apps::HeatProblem p{2, 10, 1, 10};
  EXPECT_THROW(takt::apps::validate(p), takt::Error);
  p = {10, 10, 1, 0};
  EXPECT_THROW(takt::apps::validate(p), takt::Error);
}

// ---- Cholesky and LU ---------------------------------------------------------------------

/// (n, base)
using FactorSize = std::tuple<std::size_t, std::size_t>;

class CholeskyBySize : public ::testing::TestWithParam<FactorSize> {};

TEST_P(CholeskyBySize, FactorReproducesTheMatrixAndMatchesTheSerialOne) {
  const auto [n, base] = GetParam();
  const takt::apps::SquareMatrix a = takt::apps::random_spd_matrix(n, 7);
  takt::apps::SquareMatrix reference = a;
  takt::apps::cholesky_serial(reference);
  takt::apps::SquareMatrix factor = a;
  takt::Pool pool(two_workers());
  pool.run([&] { takt::apps::cholesky(factor.view(), n, base); });
  // Backward error of a Cholesky factorisation: O(n · ε) relative to |A|.
  EXPECT_LT(takt::apps::cholesky_residual(a, factor), 1e-13 * static_cast<double>(n + 1));
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j <= i; ++j) worst = std::max(worst, std::fabs(factor(i, j) - reference(i, j)));
  }
  EXPECT_LT(worst, 1e-10) << "the recursive and the textbook factor differ by rounding only";
  // The strict upper triangle is left as it was.
  if (n > 1) {
    EXPECT_EQ(factor(0, n - 1), a(0, n - 1));
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CholeskyBySize,
                         ::testing::Values(FactorSize{1, 32}, FactorSize{31, 32}, FactorSize{32, 32},
                                           FactorSize{33, 32}, FactorSize{100, 8}, FactorSize{129, 32},
                                           FactorSize{256, 32}, FactorSize{200, 4}));

TEST(Cholesky, TwoByTwoByHand) {
  // [4 2; 2 5] = L·Lᵀ with L = [2 0; 1 2].
  takt::apps::SquareMatrix a(2);
  a(0, 0) = 4;
  a(0, 1) = a(1, 0) = 2;
  a(1, 1) = 5;
  takt::apps::cholesky(a.view(), 2, 1);
  EXPECT_DOUBLE_EQ(a(0, 0), 2.0);
  EXPECT_DOUBLE_EQ(a(1, 0), 1.0);
  EXPECT_DOUBLE_EQ(a(1, 1), 2.0);
}

TEST(Cholesky, NotPositiveDefiniteIsAnErrorFromTheParallelRun) {
  takt::apps::SquareMatrix a = takt::apps::random_spd_matrix(100, 3);
  a(70, 70) = -1.0;
  takt::Pool pool(two_workers());
  try {
    pool.run([&] { takt::apps::cholesky(a.view(), 100, 16); });
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
  }
}

class LuBySize : public ::testing::TestWithParam<FactorSize> {};

TEST_P(LuBySize, FactorReproducesTheMatrixAndMatchesTheSerialOne) {
  const auto [n, base] = GetParam();
  const takt::apps::SquareMatrix a = takt::apps::random_dominant_matrix(n, 11);
  takt::apps::SquareMatrix reference = a;
  takt::apps::lu_serial(reference);
  takt::apps::SquareMatrix factor = a;
  takt::Pool pool(two_workers());
  pool.run([&] { takt::apps::lu(factor.view(), n, base); });
  EXPECT_LT(takt::apps::lu_residual(a, factor), 1e-13 * static_cast<double>(n + 1));
  double worst = 0;
  for (std::size_t i = 0; i < n * n; ++i)
    worst = std::max(worst, std::fabs(factor.values[i] - reference.values[i]));
  EXPECT_LT(worst, 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Sizes, LuBySize,
                         ::testing::Values(FactorSize{1, 32}, FactorSize{31, 32}, FactorSize{32, 32},
                                           FactorSize{33, 32}, FactorSize{100, 8}, FactorSize{129, 32},
                                           FactorSize{256, 32}, FactorSize{200, 4}));

TEST(Lu, TwoByTwoByHand) {
  // [4 3; 6 3] = [1 0; 1.5 1]·[4 3; 0 −1.5].
  takt::apps::SquareMatrix a(2);
  a(0, 0) = 4;
  a(0, 1) = 3;
  a(1, 0) = 6;
  a(1, 1) = 3;
  takt::apps::lu(a.view(), 2, 1);
  EXPECT_DOUBLE_EQ(a(0, 0), 4.0);
  EXPECT_DOUBLE_EQ(a(0, 1), 3.0);
  EXPECT_DOUBLE_EQ(a(1, 0), 1.5);
  EXPECT_DOUBLE_EQ(a(1, 1), -1.5);
}

TEST(Lu, ZeroPivotIsAnError) {
  takt::apps::SquareMatrix a(2);  // [0 1; 1 0]
  a(0, 1) = a(1, 0) = 1;
  EXPECT_THROW(takt::apps::lu(a.view(), 2, 32), takt::Error);
}

TEST(DenseKernels, SpawnOnThePool) {
  // The divide and conquer really spawns, as derived by hand for LU of 256, base 32
  // (m/n splits of products and independent sides of solves spawn, k splits do not):
  //   gemm 64³: 3 spawns (m, then n in each half); lu(64): 1 (the two solves);
  //   lu(128): 1 + solves 1 + 1 + gemm 3 + 2·lu(64) = 8;
  //   solve 128 × 128: 1 + 2·(1 + 3 + 1) = 11; gemm 128³: 1 + 2·(1 + 2·3) = 27;
  //   lu(256): 1 + 11 + 11 + 27 + 2·lu(128) = 66.
  takt::apps::SquareMatrix a = takt::apps::random_dominant_matrix(256, 2);
  takt::Pool pool(two_workers());
  pool.run([&] { takt::apps::lu(a.view(), 256, 32); });
  EXPECT_EQ(pool.total_statistics().spawns, 66u);
}

}  // namespace
