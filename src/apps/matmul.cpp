// Row-wise matrix multiplication on the takt runtime.
#include "apps/matmul.hpp"

#include "takt/runtime.hpp"

namespace takt::apps {

void matmul(const double* a, const double* b, double* c, std::size_t n) {
  parallel_for(std::size_t{0}, n, std::size_t{1}, [=](std::size_t i) { matmul_row(a, b, c, n, i); });
}

void matmul_serial(const double* a, const double* b, double* c, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) matmul_row(a, b, c, n, i);
}

}  // namespace takt::apps
