// Recursive Cholesky on the takt runtime, and the serial reference.
#include "apps/cholesky.hpp"

#include "takt/error.hpp"
#include "takt/runtime/scope.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace takt::apps {
namespace {

// ---- leaves: serial loops on blocks of at most base × base ------------------------------

/// a (n × n): lower triangle ← its Cholesky factor.
void chol_leaf(MatrixView a, std::size_t n, std::size_t offset) {
  for (std::size_t j = 0; j < n; ++j) {
    double d = a(j, j);
    for (std::size_t k = 0; k < j; ++k) d -= a(j, k) * a(j, k);
    if (!(d > 0.0)) {
      throw Error("cholesky: the matrix is not positive definite (pivot " + std::to_string(offset + j) +
                  " is " + std::to_string(d) + ")");
    }
    const double ljj = std::sqrt(d);
    a(j, j) = ljj;
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a(i, j);
      for (std::size_t k = 0; k < j; ++k) s -= a(i, k) * a(j, k);
      a(i, j) = s / ljj;
    }
  }
}

/// x (m × k) ← x·l⁻ᵀ, l (k × k) lower triangular.
void trsm_leaf(MatrixView x, MatrixView l, std::size_t m, std::size_t k) {
  for (std::size_t r = 0; r < m; ++r) {
    for (std::size_t j = 0; j < k; ++j) {
      double s = x(r, j);
      for (std::size_t q = 0; q < j; ++q) s -= x(r, q) * l(j, q);
      x(r, j) = s / l(j, j);
    }
  }
}

/// c (m × n) −= a (m × k) · bᵀ (b is n × k); with `lower`, only c(i, j) with j ≤ i.
void gemm_nt_leaf(MatrixView c, MatrixView a, MatrixView b, std::size_t m, std::size_t n, std::size_t k,
                  bool lower) {
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t last = lower ? std::min(n, i + 1) : n;
    const double* ai = &a(i, 0);
    for (std::size_t j = 0; j < last; ++j) {
      const double* bj = &b(j, 0);
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      std::size_t q = 0;
      for (; q + 4 <= k; q += 4) {
        s0 += ai[q] * bj[q];
        s1 += ai[q + 1] * bj[q + 1];
        s2 += ai[q + 2] * bj[q + 2];
        s3 += ai[q + 3] * bj[q + 3];
      }
      for (; q < k; ++q) s0 += ai[q] * bj[q];
      c(i, j) -= (s0 + s1) + (s2 + s3);
    }
  }
}

// ---- recursions ------------------------------------------------------------------------

/// c (m × n) −= a (m × k) · bᵀ: split the largest dimension above `base`; m and n split
/// into independent halves (spawned), k into two updates in sequence.
void gemm_nt(MatrixView c, MatrixView a, MatrixView b, std::size_t m, std::size_t n, std::size_t k,
             std::size_t base) {
  if (m <= base && n <= base && k <= base) {
    gemm_nt_leaf(c, a, b, m, n, k, false);
    return;
  }
  if (m >= n && m >= k) {
    const std::size_t h = m / 2;
    Scope scope;
    scope.spawn([=] { gemm_nt(c, a, b, h, n, k, base); });
    gemm_nt(c.at(h, 0), a.at(h, 0), b, m - h, n, k, base);
    scope.sync();
  } else if (n >= k) {
    const std::size_t h = n / 2;
    Scope scope;
    scope.spawn([=] { gemm_nt(c, a, b, m, h, k, base); });
    gemm_nt(c.at(0, h), a, b.at(h, 0), m, n - h, k, base);
    scope.sync();
  } else {
    const std::size_t h = k / 2;
    gemm_nt(c, a, b, m, n, h, base);
    gemm_nt(c, a.at(0, h), b.at(0, h), m, n, k - h, base);
  }
}

/// c (n × n, lower triangle) −= a·aᵀ, a being n × k.
void syrk(MatrixView c, MatrixView a, std::size_t n, std::size_t k, std::size_t base) {
  if (n <= base && k <= base) {
    gemm_nt_leaf(c, a, a, n, n, k, true);
    return;
  }
  if (n > base) {
    // [C11 ·; C21 C22] −= [A1; A2]·[A1; A2]ᵀ: three independent blocks.
    const std::size_t h = n / 2;
    Scope scope;
    scope.spawn([=] { syrk(c, a, h, k, base); });
    scope.spawn([=] { gemm_nt(c.at(h, 0), a.at(h, 0), a, n - h, h, k, base); });
    syrk(c.at(h, h), a.at(h, 0), n - h, k, base);
    scope.sync();
  } else {
    const std::size_t h = k / 2;
    syrk(c, a, n, h, base);
    syrk(c, a.at(0, h), n, k - h, base);
  }
}

/// x (m × k) ← x·l⁻ᵀ: rows of x split in parallel; columns (with l) in sequence:
/// [X1 X2]·[L11 0; L21 L22]⁻ᵀ gives X1 ← X1·L11⁻ᵀ, X2 −= X1·L21ᵀ, X2 ← X2·L22⁻ᵀ.
void trsm(MatrixView x, MatrixView l, std::size_t m, std::size_t k, std::size_t base) {
  if (m <= base && k <= base) {
    trsm_leaf(x, l, m, k);
    return;
  }
  if (m > base && m >= k) {
    const std::size_t h = m / 2;
    Scope scope;
    scope.spawn([=] { trsm(x, l, h, k, base); });
    trsm(x.at(h, 0), l, m - h, k, base);
    scope.sync();
  } else {
    const std::size_t h = k / 2;
    trsm(x, l, m, h, base);
    gemm_nt(x.at(0, h), x, l.at(h, 0), m, k - h, h, base);
    trsm(x.at(0, h), l.at(h, h), m, k - h, base);
  }
}

void chol(MatrixView a, std::size_t n, std::size_t base, std::size_t offset) {
  if (n <= base) {
    chol_leaf(a, n, offset);
    return;
  }
  const std::size_t h = n / 2;
  chol(a, h, base, offset);
  trsm(a.at(h, 0), a, n - h, h, base);
  syrk(a.at(h, h), a.at(h, 0), n - h, h, base);
  chol(a.at(h, h), n - h, base, offset + h);
}

}  // namespace

void cholesky(MatrixView a, std::size_t n, std::size_t base) {
  if (base < 1) throw Error("cholesky: the base case must be at least 1");
  if (n == 0) return;
  chol(a, n, base, 0);
}

void cholesky_serial(SquareMatrix& a) {
  const std::size_t n = a.n;
  for (std::size_t j = 0; j < n; ++j) {
    double d = a(j, j);
    for (std::size_t k = 0; k < j; ++k) d -= a(j, k) * a(j, k);
    if (!(d > 0.0))
      throw Error("cholesky: the matrix is not positive definite (pivot " + std::to_string(j) + ")");
    a(j, j) = std::sqrt(d);
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a(i, j);
      for (std::size_t k = 0; k < j; ++k) s -= a(i, k) * a(j, k);
      a(i, j) = s / a(j, j);
    }
  }
}

double cholesky_residual(const SquareMatrix& a, const SquareMatrix& factor) {
  const std::size_t n = a.n;
  double worst = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j <= i; ++j) {
      double s = 0.0;
      for (std::size_t k = 0; k <= j; ++k) s += factor(i, k) * factor(j, k);
      worst = std::max(worst, std::fabs(s - a(i, j)));
    }
  }
  const double scale = max_norm(a);
  return scale > 0 ? worst / scale : worst;
}

}  // namespace takt::apps
