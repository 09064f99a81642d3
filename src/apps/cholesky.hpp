// Cholesky factorisation A = L·Lᵀ by recursive divide and conquer on blocks (Cilk's cholesky structure).
#pragma once

#include "apps/matrix.hpp"

#include <cstddef>

namespace takt::apps {

/// Base case of the recursions unless a program says otherwise (rtws §IV.A: 32 × 32).
inline constexpr std::size_t cholesky_default_base = 32;

/// Factors the symmetric positive definite n × n matrix `a` in place on the takt
/// runtime: its lower triangle becomes L with A = L·Lᵀ (the strict upper triangle is
/// left as it was). With A = [A11 ·; A21 A22] split at n/2:
///   L11 = chol(A11);  L21 = A21·L11⁻ᵀ;  A22 −= L21·L21ᵀ;  L22 = chol(A22),
/// where the triangular solve splits the rows of A21 (in parallel) or the columns of
/// L11 (in sequence), the symmetric update splits into its three independent blocks
/// (two of them in parallel with the third), and the matrix products split the larger
/// of the output's dimensions in parallel and the inner dimension in sequence. Every
/// recursion stops at blocks of at most `base` rows and columns, which run as serial
/// loops. Throws takt::Error when a pivot is not positive (A not positive definite).
void cholesky(MatrixView a, std::size_t n, std::size_t base = cholesky_default_base);

/// The textbook serial column-by-column Cholesky (the reference), in place.
void cholesky_serial(SquareMatrix& a);

/// max |(L·Lᵀ − A)(i, j)| / max |A| over the lower triangle, L being the lower triangle
/// of `factor`: about 1e-16 · n for a correct factorisation.
double cholesky_residual(const SquareMatrix& a, const SquareMatrix& factor);

}  // namespace takt::apps
