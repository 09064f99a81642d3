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

// Two real calls per node, as every runtime's fib makes one spawn and one call: left to
// itself GCC inlines the recursion into itself a few levels deep and turns a call into
// a loop, which ran fib(30) in about a third of the time (1.3 vs 4.4 ms here), and the
// difference counted as spawn overhead of every runtime (ns per spawn). The empty asm
// statements keep each result a value of its own call.
__attribute__((noinline)) std::uint64_t fib_serial(std::uint64_t n) {
  if (n < 2) return n;
  std::uint64_t a = fib_serial(n - 1);
  asm volatile("" : "+r"(a));
  std::uint64_t b = fib_serial(n - 2);
  asm volatile("" : "+r"(b));
  return a + b;
}

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
