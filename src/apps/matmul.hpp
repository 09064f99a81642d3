// Row-wise dense matrix multiplication (P³LS³ §5.2): C = A·B, rows in parallel.
#pragma once

#include <cstddef>

namespace takt::apps {

/// Row i of C = A·B for n×n row-major matrices (i-k-j order). Every runtime's version
/// calls this one out-of-line copy, so the rows run the same machine code at the same
/// address under takt, oneTBB, OpenMP and serially. An inline copy per translation unit
/// lands at a different code alignment in each build: on a 16-vCPU machine oneTBB's
/// copy took 20 % less time in one build than in the build before, with no change
/// to its source (docs/benchmarks-runtime.md, "One copy of the matmul row").
void matmul_row(const double* a, const double* b, double* c, std::size_t n, std::size_t i);

/// C = A·B with takt::parallel_for over the rows (grain 1 row).
void matmul(const double* a, const double* b, double* c, std::size_t n);
/// C = A·B serially.
void matmul_serial(const double* a, const double* b, double* c, std::size_t n);

}  // namespace takt::apps
