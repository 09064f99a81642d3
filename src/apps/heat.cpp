// Heat diffusion (Jacobi sweeps) on the takt runtime and as a serial reference.
#include "apps/heat.hpp"

#include "takt/error.hpp"
#include "takt/runtime/scope.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>

namespace takt::apps {

double HeatProblem::dx() const { return std::numbers::pi / static_cast<double>(rows - 1); }
double HeatProblem::dy() const { return std::numbers::pi / static_cast<double>(columns - 1); }
double HeatProblem::dt() const { return 0.4 / (1.0 / (dx() * dx()) + 1.0 / (dy() * dy())); }

double HeatProblem::exact(std::size_t i, std::size_t j, std::size_t step) const {
  // sin x · sin y is an eigenvector of the discrete 5-point Laplacian with eigenvalue
  // −(4 sin²(dx/2)/dx² + 4 sin²(dy/2)/dy²), so each explicit step multiplies it by
  // g = 1 − dt·(that sum): the scheme's exact solution is g^step · sin x_i · sin y_j.
  // (It differs from the PDE's e^(−2t) by the discretisation error only.)
  const double hx = dx(), hy = dy();
  const double sx = std::sin(hx / 2), sy = std::sin(hy / 2);
  const double g = 1.0 - dt() * (4 * sx * sx / (hx * hx) + 4 * sy * sy / (hy * hy));
  return std::pow(g, static_cast<double>(step)) * std::sin(static_cast<double>(i) * hx) *
         std::sin(static_cast<double>(j) * hy);
}

void validate(const HeatProblem& p) {
  if (p.rows < 3 || p.columns < 3) {
    throw Error("heat: the grid must be at least 3 x 3 points (got " + std::to_string(p.rows) + " x " +
                std::to_string(p.columns) + ")");
  }
  if (p.leaf_rows < 1) throw Error("heat: the leaf size must be at least 1 row");
}

HeatGrids::HeatGrids(const HeatProblem& problem)
    : a(problem.rows * problem.columns),
      b(problem.rows * problem.columns),
      sin_x(problem.rows),
      sin_y(problem.columns) {
  // The boundary is exactly zero (sin π is not).
  for (std::size_t i = 1; i + 1 < problem.rows; ++i)
    sin_x[i] = std::sin(static_cast<double>(i) * problem.dx());
  for (std::size_t j = 1; j + 1 < problem.columns; ++j)
    sin_y[j] = std::sin(static_cast<double>(j) * problem.dy());
}

namespace {

/// What one leaf needs: the grid shape and the stencil's coefficients.
struct Sweep {
  std::size_t rows, columns;
  double cx, cy;  // dt/dx², dt/dy²
  const double* sin_x;
  const double* sin_y;
};

Sweep sweep_of(const HeatProblem& p, const HeatGrids& grids) {
  const double dt = p.dt();
  return {p.rows,
          p.columns,
          dt / (p.dx() * p.dx()),
          dt / (p.dy() * p.dy()),
          grids.sin_x.data(),
          grids.sin_y.data()};
}

/// Initial condition sin x_i · sin y_j for rows [lo, hi) (zero on the boundary).
void init_rows(const Sweep& s, double* u, std::size_t lo, std::size_t hi) {
  for (std::size_t i = lo; i < hi; ++i) {
    double* row = u + i * s.columns;
    const double sx = s.sin_x[i];
    for (std::size_t j = 0; j < s.columns; ++j) row[j] = sx * s.sin_y[j];
  }
}

/// One Jacobi step for rows [lo, hi): out = in + dt·Δin inside, 0 on the boundary.
void sweep_rows(const Sweep& s, const double* in, double* out, std::size_t lo, std::size_t hi) {
  const std::size_t n = s.columns;
  for (std::size_t i = lo; i < hi; ++i) {
    double* o = out + i * n;
    if (i == 0 || i == s.rows - 1) {
      std::fill(o, o + n, 0.0);
      continue;
    }
    const double* up = in + (i - 1) * n;
    const double* c = in + i * n;
    const double* down = in + (i + 1) * n;
    o[0] = 0.0;
    for (std::size_t j = 1; j + 1 < n; ++j) {
      o[j] = c[j] + s.cx * (up[j] - 2.0 * c[j] + down[j]) + s.cy * (c[j - 1] - 2.0 * c[j] + c[j + 1]);
    }
    o[n - 1] = 0.0;
  }
}

/// The divide and conquer of Cilk's heat: split the row range in halves, spawn the
/// first, run the second, sync; a range of at most `leaf` rows is done serially.
template <class Leaf>
void split_rows(std::size_t lo, std::size_t hi, std::size_t leaf, const Leaf& body) {
  if (hi - lo <= leaf) {
    body(lo, hi);
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  Scope scope;
  scope.spawn([=, &body] { split_rows(lo, mid, leaf, body); });
  split_rows(mid, hi, leaf, body);
  scope.sync();
}

}  // namespace

const double* heat(const HeatProblem& problem, HeatGrids& grids) {
  validate(problem);
  const Sweep s = sweep_of(problem, grids);
  double* in = grids.a.data();
  double* out = grids.b.data();
  split_rows(0, s.rows, problem.leaf_rows, [&](std::size_t lo, std::size_t hi) { init_rows(s, in, lo, hi); });
  for (std::size_t step = 0; step < problem.steps; ++step) {
    split_rows(0, s.rows, problem.leaf_rows,
               [&](std::size_t lo, std::size_t hi) { sweep_rows(s, in, out, lo, hi); });
    std::swap(in, out);
  }
  return in;
}

const double* heat_serial(const HeatProblem& problem, HeatGrids& grids) {
  validate(problem);
  const Sweep s = sweep_of(problem, grids);
  double* in = grids.a.data();
  double* out = grids.b.data();
  init_rows(s, in, 0, s.rows);
  for (std::size_t step = 0; step < problem.steps; ++step) {
    sweep_rows(s, in, out, 0, s.rows);
    std::swap(in, out);
  }
  return in;
}

double heat_max_error(const HeatProblem& problem, const double* u) {
  double worst = 0.0;
  for (std::size_t i = 0; i < problem.rows; ++i) {
    for (std::size_t j = 0; j < problem.columns; ++j) {
      worst = std::max(worst, std::fabs(u[i * problem.columns + j] - problem.exact(i, j, problem.steps)));
    }
  }
  return worst;
}

}  // namespace takt::apps
