// Recursive LU without pivoting on the takt runtime, and the serial reference.
#include "apps/lu.hpp"

#include "takt/error.hpp"
#include "takt/runtime/scope.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace takt::apps {
namespace {

[[noreturn]] void zero_pivot(std::size_t k) {
  throw Error("lu: pivot " + std::to_string(k) +
              " is zero; LU without pivoting needs non-singular leading minors (e.g. a diagonally "
              "dominant matrix)");
}

// ---- leaves ------------------------------------------------------------------------------

void lu_leaf(MatrixView a, std::size_t n, std::size_t offset) {
  for (std::size_t k = 0; k < n; ++k) {
    const double pivot = a(k, k);
    if (pivot == 0.0) zero_pivot(offset + k);
    for (std::size_t i = k + 1; i < n; ++i) {
      const double lik = a(i, k) / pivot;
      a(i, k) = lik;
      double* ai = &a(i, 0);
      const double* ak = &a(k, 0);
      for (std::size_t j = k + 1; j < n; ++j) ai[j] -= lik * ak[j];
    }
  }
}

/// c (m × n) −= a (m × k) · b (k × n), i-q-j order (the inner loop is contiguous).
void gemm_nn_leaf(MatrixView c, MatrixView a, MatrixView b, std::size_t m, std::size_t n, std::size_t k) {
  for (std::size_t i = 0; i < m; ++i) {
    double* ci = &c(i, 0);
    for (std::size_t q = 0; q < k; ++q) {
      const double aiq = a(i, q);
      const double* bq = &b(q, 0);
      for (std::size_t j = 0; j < n; ++j) ci[j] -= aiq * bq[j];
    }
  }
}

/// b (k × m) ← l⁻¹·b, l (k × k) unit lower triangular.
void trsm_lower_leaf(MatrixView l, MatrixView b, std::size_t k, std::size_t m) {
  for (std::size_t i = 1; i < k; ++i) {
    double* bi = &b(i, 0);
    for (std::size_t q = 0; q < i; ++q) {
      const double liq = l(i, q);
      const double* bq = &b(q, 0);
      for (std::size_t j = 0; j < m; ++j) bi[j] -= liq * bq[j];
    }
  }
}

/// b (m × k) ← b·u⁻¹, u (k × k) upper triangular.
void trsm_upper_leaf(MatrixView u, MatrixView b, std::size_t m, std::size_t k) {
  for (std::size_t r = 0; r < m; ++r) {
    double* br = &b(r, 0);
    for (std::size_t j = 0; j < k; ++j) {
      const double x = br[j] / u(j, j);  // u(j, j) ≠ 0: lu_leaf checked every pivot
      br[j] = x;
      const double* uj = &u(j, 0);
      for (std::size_t q = j + 1; q < k; ++q) br[q] -= x * uj[q];
    }
  }
}

// ---- recursions ------------------------------------------------------------------------

void gemm_nn(MatrixView c, MatrixView a, MatrixView b, std::size_t m, std::size_t n, std::size_t k,
             std::size_t base) {
  if (m <= base && n <= base && k <= base) {
    gemm_nn_leaf(c, a, b, m, n, k);
    return;
  }
  if (m >= n && m >= k) {
    const std::size_t h = m / 2;
    Scope scope;
    scope.spawn([=] { gemm_nn(c, a, b, h, n, k, base); });
    gemm_nn(c.at(h, 0), a.at(h, 0), b, m - h, n, k, base);
    scope.sync();
  } else if (n >= k) {
    const std::size_t h = n / 2;
    Scope scope;
    scope.spawn([=] { gemm_nn(c, a, b, m, h, k, base); });
    gemm_nn(c.at(0, h), a, b.at(0, h), m, n - h, k, base);
    scope.sync();
  } else {
    const std::size_t h = k / 2;
    gemm_nn(c, a, b, m, n, h, base);
    gemm_nn(c, a.at(0, h), b.at(h, 0), m, n, k - h, base);
  }
}

/// b (k × m) ← l⁻¹·b: columns of b in parallel; rows (with l) in sequence:
/// B1 ← L11⁻¹·B1, B2 −= L21·B1, B2 ← L22⁻¹·B2.
void trsm_lower(MatrixView l, MatrixView b, std::size_t k, std::size_t m, std::size_t base) {
  if (k <= base && m <= base) {
    trsm_lower_leaf(l, b, k, m);
    return;
  }
  if (m > base && m >= k) {
    const std::size_t h = m / 2;
    Scope scope;
    scope.spawn([=] { trsm_lower(l, b, k, h, base); });
    trsm_lower(l, b.at(0, h), k, m - h, base);
    scope.sync();
  } else {
    const std::size_t h = k / 2;
    trsm_lower(l, b, h, m, base);
    gemm_nn(b.at(h, 0), l.at(h, 0), b, k - h, m, h, base);
    trsm_lower(l.at(h, h), b.at(h, 0), k - h, m, base);
  }
}

/// b (m × k) ← b·u⁻¹: rows of b in parallel; columns (with u) in sequence:
/// B1 ← B1·U11⁻¹, B2 −= B1·U12, B2 ← B2·U22⁻¹.
void trsm_upper(MatrixView u, MatrixView b, std::size_t m, std::size_t k, std::size_t base) {
  if (m <= base && k <= base) {
    trsm_upper_leaf(u, b, m, k);
    return;
  }
  if (m > base && m >= k) {
    const std::size_t h = m / 2;
    Scope scope;
    scope.spawn([=] { trsm_upper(u, b, h, k, base); });
    trsm_upper(u, b.at(h, 0), m - h, k, base);
    scope.sync();
  } else {
    const std::size_t h = k / 2;
    trsm_upper(u, b, m, h, base);
    gemm_nn(b.at(0, h), b, u.at(0, h), m, k - h, h, base);
    trsm_upper(u.at(h, h), b.at(0, h), m, k - h, base);
  }
}

void lu_rec(MatrixView a, std::size_t n, std::size_t base, std::size_t offset) {
  if (n <= base) {
    lu_leaf(a, n, offset);
    return;
  }
  const std::size_t h = n / 2;
  lu_rec(a, h, base, offset);
  {
    Scope scope;
    scope.spawn([=] { trsm_lower(a, a.at(0, h), h, n - h, base); });  // U12 = L11⁻¹·A12
    trsm_upper(a, a.at(h, 0), n - h, h, base);                        // L21 = A21·U11⁻¹
    scope.sync();
  }
  gemm_nn(a.at(h, h), a.at(h, 0), a.at(0, h), n - h, n - h, h, base);  // A22 −= L21·U12
  lu_rec(a.at(h, h), n - h, base, offset + h);
}

}  // namespace

void lu(MatrixView a, std::size_t n, std::size_t base) {
  if (base < 1) throw Error("lu: the base case must be at least 1");
  if (n == 0) return;
  lu_rec(a, n, base, 0);
}

void lu_serial(SquareMatrix& a) {
  const std::size_t n = a.n;
  for (std::size_t k = 0; k < n; ++k) {
    if (a(k, k) == 0.0) zero_pivot(k);
    for (std::size_t i = k + 1; i < n; ++i) {
      a(i, k) /= a(k, k);
      for (std::size_t j = k + 1; j < n; ++j) a(i, j) -= a(i, k) * a(k, j);
    }
  }
}

double lu_residual(const SquareMatrix& a, const SquareMatrix& factor) {
  const std::size_t n = a.n;
  double worst = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      // (L·U)(i, j) = Σ_{k ≤ min(i, j)} L(i, k)·U(k, j), L(i, i) = 1.
      const std::size_t last = std::min(i, j);
      double s = 0.0;
      for (std::size_t k = 0; k <= last; ++k) s += (k == i ? 1.0 : factor(i, k)) * factor(k, j);
      worst = std::max(worst, std::fabs(s - a(i, j)));
    }
  }
  const double scale = max_norm(a);
  return scale > 0 ? worst / scale : worst;
}

}  // namespace takt::apps
