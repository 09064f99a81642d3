// takt's fork-join runtime: pools with static memory, spawn/sync, parallel loops.
//
//   takt::Pool pool({.cpus = takt::CpuSet{0, 1}});
//   std::uint64_t r = pool.run([] { return fib(30); });
//
//   std::uint64_t fib(std::uint64_t n) {
//     if (n < 2) return n;
//     std::uint64_t a, b;
//     takt::Scope scope;
//     scope.spawn([&] { a = fib(n - 1); });
//     b = fib(n - 2);
//     scope.sync();
//     return a + b;
//   }
//
// See docs/runtime.md for the model, the static-memory bounds and the extension interface.
#pragma once

#include "takt/runtime/algorithms.hpp"
#include "takt/runtime/config.hpp"
#include "takt/runtime/extension.hpp"
#include "takt/runtime/measure.hpp"
#include "takt/runtime/pool.hpp"
#include "takt/runtime/scope.hpp"
#include "takt/runtime/statistics.hpp"
