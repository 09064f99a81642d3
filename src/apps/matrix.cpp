// Test inputs for the dense kernels: reproducible SPD and diagonally dominant matrices.
#include "apps/matrix.hpp"

#include "apps/splitmix.hpp"

#include <algorithm>
#include <cmath>

namespace takt::apps {
namespace {

/// A value in [−1, 1] determined by (seed, i, j).
double entry(std::uint64_t seed, std::size_t i, std::size_t j) {
  std::uint64_t h = splitmix64(seed ^ splitmix64((static_cast<std::uint64_t>(i) << 32) ^ j));
  return static_cast<double>(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;  // 53 random bits
}

}  // namespace

SquareMatrix random_spd_matrix(std::size_t n, std::uint64_t seed) {
  SquareMatrix a(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < i; ++j) a(i, j) = a(j, i) = entry(seed, i, j);
    a(i, i) = static_cast<double>(n) + 1.0;
  }
  return a;
}

SquareMatrix random_dominant_matrix(std::size_t n, std::uint64_t seed) {
  SquareMatrix a(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) a(i, j) = entry(seed, i, j);
    a(i, i) += static_cast<double>(n);
  }
  return a;
}

double max_norm(const SquareMatrix& a) {
  double m = 0.0;
  for (double v : a.values) m = std::max(m, std::fabs(v));
  return m;
}

}  // namespace takt::apps
