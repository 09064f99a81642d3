// fib(n) once on a one-worker pool, optionally with the profiler's span observer installed (for
// observer_cost.sh).
#include "apps/fib.hpp"
#include "profiler/span_observer.hpp"
#include "takt/runtime.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 16;
  const bool observe = argc > 2 && std::strcmp(argv[2], "observe") == 0;
  takt::PoolConfig config;
  config.workers = 1;
  config.idle_spin = std::chrono::nanoseconds(0);  // no idle spinning to count
  config.memory.depth = 64;
  takt::Pool pool(config);
  takt::profiler::SpanObserver observer({64, 1024}, {});
  if (observe) pool.extension().set_observer(&observer);
  const std::uint64_t r = pool.run([n] { return takt::apps::fib(n); });
  if (observe) pool.extension().set_observer(nullptr);
  if (r != takt::apps::fib_serial(n)) return 1;
  if (observe) std::printf("span %lld ns\n", static_cast<long long>(observer.result().span.count()));
  return 0;
}
