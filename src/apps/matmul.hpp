// Row-wise dense matrix multiplication (P³LS³ §5.2): C = A·B, rows in parallel.
#pragma once

#include <cstddef>

namespace takt::apps {

/// Row i of C = A·B for n×n row-major matrices (i-k-j order, vectorizable). Shared by
/// every runtime's version so that only the scheduling differs.
inline void matmul_row(const double* a, const double* b, double* c, std::size_t n, std::size_t i) {
  double* ci = c + i * n;
  for (std::size_t j = 0; j < n; ++j) ci[j] = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const double aik = a[i * n + k];
    const double* bk = b + k * n;
    for (std::size_t j = 0; j < n; ++j) ci[j] += aik * bk[j];
  }
}

/// C = A·B with takt::parallel_for over the rows (grain 1 row).
void matmul(const double* a, const double* b, double* c, std::size_t n);
/// C = A·B serially.
void matmul_serial(const double* a, const double* b, double* c, std::size_t n);

}  // namespace takt::apps
