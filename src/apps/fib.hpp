// fib(n) by nested fork-join with no cutoff: pure spawn overhead (the classic Cilk test).
#pragma once

#include <cstdint>

namespace takt::apps {

/// fib(n) spawning fib(n-1) and calling fib(n-2), with no serial cutoff: about fib(n+1)
/// spawns. Run inside a pool (outside one it runs serially).
std::uint64_t fib(std::uint64_t n);

/// Plain recursive fib, the serial baseline: two calls per node (fib(n+1) − 1 pairs of
/// them), kept by the compiler as written, so that it differs from the runtimes' fib
/// only in spawning.
std::uint64_t fib_serial(std::uint64_t n);

/// Number of spawns fib(n) performs: one per call with n >= 2, i.e. fib(n+1) - 1.
std::uint64_t fib_spawns(std::uint64_t n);

}  // namespace takt::apps
