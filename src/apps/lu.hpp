// LU decomposition A = L·U without pivoting by recursive divide and conquer (Cilk's lu structure, base case
// 32).
#pragma once

#include "apps/matrix.hpp"

#include <cstddef>

namespace takt::apps {

/// Base case of the recursions (rtws §IV.A and issue 5: 32 × 32).
inline constexpr std::size_t lu_default_base = 32;

/// Factors the n × n matrix `a` in place on the takt runtime, without pivoting: the
/// strict lower triangle becomes L (unit diagonal, not stored) and the upper triangle U,
/// with A = L·U. With A = [A11 A12; A21 A22] split at n/2:
///   (L11, U11) = lu(A11);  in parallel U12 = L11⁻¹·A12 and L21 = A21·U11⁻¹;
///   A22 −= L21·U12;  (L22, U22) = lu(A22),
/// where the triangular solves split the independent side in parallel and the
/// triangular side in sequence, and the matrix product splits the output's larger
/// dimension in parallel and the inner dimension in sequence; blocks of at most `base`
/// rows and columns run as serial loops. Needs a matrix whose leading minors are
/// non-singular (e.g. diagonally dominant); throws takt::Error on a zero pivot.
void lu(MatrixView a, std::size_t n, std::size_t base = lu_default_base);

/// The textbook serial right-looking LU without pivoting (the reference), in place.
void lu_serial(SquareMatrix& a);

/// max |(L·U − A)(i, j)| / max |A|, L and U read from `factor`.
double lu_residual(const SquareMatrix& a, const SquareMatrix& factor);

}  // namespace takt::apps
