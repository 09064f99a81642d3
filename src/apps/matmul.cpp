// Row-wise matrix multiplication on the takt runtime.
#include "apps/matmul.hpp"

#include "takt/runtime.hpp"

namespace takt::apps {

// noipa keeps callers from making their own copies (no inlining, no specialised clones,
// with link-time optimization too); aligned(64) starts it on a cache line, so where its
// loops sit in the lines does not depend on what the linker put before it.
[[gnu::noipa, gnu::aligned(64)]] void matmul_row(const double* a, const double* b, double* c, std::size_t n,
                                                 std::size_t i) {
  double* ci = c + i * n;
  for (std::size_t j = 0; j < n; ++j) ci[j] = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const double aik = a[i * n + k];
    const double* bk = b + k * n;
    for (std::size_t j = 0; j < n; ++j) ci[j] += aik * bk[j];
  }
}

void matmul(const double* a, const double* b, double* c, std::size_t n) {
  parallel_for(std::size_t{0}, n, std::size_t{1}, [=](std::size_t i) { matmul_row(a, b, c, n, i); });
}

void matmul_serial(const double* a, const double* b, double* c, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) matmul_row(a, b, c, n, i);
}

}  // namespace takt::apps
