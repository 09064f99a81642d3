// Heat diffusion by Jacobi iterations on a 2-D grid, divide and conquer over the rows (Cilk's heat).
#pragma once

#include <cstddef>
#include <vector>

namespace takt::apps {

/// The problem: u_t = u_xx + u_yy on [0, π] × [0, π] with u = 0 on the boundary and
/// u(x, y, 0) = sin x · sin y, whose solution is sin x · sin y · e^(−2t). The grid has
/// `rows` × `columns` points (x_i = i·π/(rows−1), y_j = j·π/(columns−1)); each time step
/// is one explicit (forward Euler, 5-point stencil) Jacobi sweep from one grid into the
/// other, with dt = 0.4 / (1/dx² + 1/dy²) (stable: the bound is 0.5).
struct HeatProblem {
  std::size_t rows = 0;
  std::size_t columns = 0;
  std::size_t steps = 0;
  /// Divide and conquer stops at this many rows: one leaf sweeps up to `leaf_rows`
  /// whole rows serially (Cilk's heat splits the same way, with 10).
  std::size_t leaf_rows = 10;

  [[nodiscard]] double dx() const;
  [[nodiscard]] double dy() const;
  [[nodiscard]] double dt() const;
  /// The exact solution at grid point (i, j) after `step` time steps.
  [[nodiscard]] double exact(std::size_t i, std::size_t j, std::size_t step) const;
};

/// Throws takt::Error unless rows, columns ≥ 3 and leaf_rows ≥ 1.
void validate(const HeatProblem& problem);

/// Two grids of rows × columns doubles, allocated once (a task's init) and reused by
/// every job, and the initial condition's factors sin x_i and sin y_j (so that a job
/// sets the initial grid with one multiplication per point).
struct HeatGrids {
  std::vector<double> a;
  std::vector<double> b;
  std::vector<double> sin_x;
  std::vector<double> sin_y;
  explicit HeatGrids(const HeatProblem& problem);
};

/// Sets the initial condition and runs `steps` Jacobi steps on the takt runtime: each step
/// is a recursive split of the row range (spawn the upper half, run the lower half, sync)
/// down to `leaf_rows` rows; the steps follow each other. Returns the grid holding the
/// result (one of grids.a, grids.b). `grids` must be made for `problem`. Outside a pool it
/// runs serially (the serial elision).
const double* heat(const HeatProblem& problem, HeatGrids& grids);

/// The same computation as straightforward serial loops (the reference).
const double* heat_serial(const HeatProblem& problem, HeatGrids& grids);

/// Largest |u − exact| over the grid after problem.steps steps.
double heat_max_error(const HeatProblem& problem, const double* u);

}  // namespace takt::apps
