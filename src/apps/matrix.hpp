// Dense row-major matrices for the Cholesky and LU kernels: storage, views, test inputs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace takt::apps {

/// A view of a row-major block inside a larger matrix: element (i, j) is p[i·ld + j].
struct MatrixView {
  double* p = nullptr;
  std::size_t ld = 0;

  [[nodiscard]] double& operator()(std::size_t i, std::size_t j) const { return p[i * ld + j]; }
  /// The block whose top-left element is (i, j).
  [[nodiscard]] MatrixView at(std::size_t i, std::size_t j) const { return {p + i * ld + j, ld}; }
};

/// An n × n row-major matrix that owns its storage.
struct SquareMatrix {
  std::size_t n = 0;
  std::vector<double> values;

  SquareMatrix() = default;
  explicit SquareMatrix(std::size_t size) : n(size), values(size * size) {}
  [[nodiscard]] MatrixView view() { return {values.data(), n}; }
  [[nodiscard]] double operator()(std::size_t i, std::size_t j) const { return values[i * n + j]; }
  double& operator()(std::size_t i, std::size_t j) { return values[i * n + j]; }
};

/// A symmetric positive definite n × n matrix: off-diagonal entries pseudo-random in
/// [−1, 1] (symmetric), diagonal n + 1, so it is strictly diagonally dominant with a
/// positive diagonal, hence positive definite. Reproducible from `seed`.
SquareMatrix random_spd_matrix(std::size_t n, std::uint64_t seed);

/// An n × n matrix with entries pseudo-random in [−1, 1] and n added to the diagonal:
/// strictly diagonally dominant, so LU without pivoting exists and is stable.
SquareMatrix random_dominant_matrix(std::size_t n, std::uint64_t seed);

/// Largest |entry| of a matrix (its max norm).
double max_norm(const SquareMatrix& a);

}  // namespace takt::apps
