// fib(n) on the takt runtime.
#include "apps/fib.hpp"

#include "takt/runtime.hpp"

namespace takt::apps {

std::uint64_t fib(std::uint64_t n) {
  if (n < 2) return n;
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  Scope scope;
  scope.spawn([&] { a = fib(n - 1); });
  b = fib(n - 2);
  scope.sync();
  return a + b;
}

std::uint64_t fib_serial(std::uint64_t n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

std::uint64_t fib_spawns(std::uint64_t n) {
  std::uint64_t a = 0, b = 1;  // fib(0), fib(1)
  for (std::uint64_t i = 0; i < n + 1; ++i) {
    std::uint64_t c = a + b;
    a = b;
    b = c;
  }
  return a - 1;  // a = fib(n + 1)
}

}  // namespace takt::apps
