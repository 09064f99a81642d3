#include <takt/runtime.hpp>

#include <cstdint>
#include <cstdio>

std::uint64_t fib(std::uint64_t n) {
  if (n < 2) return n;
  std::uint64_t a, b;
  takt::Scope scope;                       // a spawn/sync region of this strand
  scope.spawn([&] { a = fib(n - 1); });    // may run in parallel with what follows
  b = fib(n - 2);
  scope.sync();                            // waits for the children; rethrows their exception
  return a + b;
}

int main() {
  takt::PoolConfig config;                 // cpus empty: one worker per CPU this process may use
  config.memory = takt::measure([] { return fib(30); }).recommended();  // see "Sizing"
  takt::Pool pool(config);
  std::uint64_t r = pool.run([] { return fib(30); });   // blocks this thread until done
  std::printf("fib(30) = %llu\n", static_cast<unsigned long long>(r));
  const takt::WorkerStatistics total = pool.total_statistics();  // also per worker: statistics()
  std::printf("%zu workers: %llu spawns, %llu steals\n", pool.statistics().size(),
              static_cast<unsigned long long>(total.spawns), static_cast<unsigned long long>(total.steals));
}
