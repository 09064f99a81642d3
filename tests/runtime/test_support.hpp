// Helpers shared by the runtime tests: pool configurations and a random fork-join tree.
#pragma once

#include "takt/runtime.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace takt::testing {

inline PoolConfig config(std::size_t workers, QueueStrategy strategy = QueueStrategy::work_stealing) {
  PoolConfig c;
  c.workers = workers;
  c.strategy = strategy;
  c.memory.depth = 64;
  c.memory.stack_size = 64 * 1024;
  c.memory.large_stack_size = 256 * 1024;
  c.name = "test";
  return c;
}

inline const char* name(QueueStrategy s) {
  switch (s) {
    case QueueStrategy::work_stealing: return "work_stealing";
    case QueueStrategy::priority_aware: return "priority_aware";
    case QueueStrategy::centralized_greedy: return "centralized_greedy";
  }
  return "?";
}

/// A strategy, and whether the calling thread joins as worker 0 (PoolConfig::caller_joins).
struct Variant {
  QueueStrategy strategy = QueueStrategy::work_stealing;
  bool caller_joins = false;
};

/// Every strategy, each with a blocking and with a joining caller.
inline std::vector<Variant> variants() {
  std::vector<Variant> all;
  for (QueueStrategy s : {QueueStrategy::work_stealing, QueueStrategy::priority_aware, QueueStrategy::centralized_greedy}) {
    all.push_back({s, false});
    all.push_back({s, true});
  }
  return all;
}

inline std::string name(Variant v) { return std::string(name(v.strategy)) + (v.caller_joins ? "_caller_joins" : ""); }

/// A pool of `workers` for `v` (a pool of one worker cannot let the caller join).
inline PoolConfig config(std::size_t workers, Variant v) {
  PoolConfig c = config(workers, v.strategy);
  c.caller_joins = v.caller_joins && workers >= 2;
  return c;
}

inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/// A random fork-join computation determined by `seed`: a node has 0–5 children; some
/// are spawned, some called directly, some scopes sync midway and spawn again. Returns
/// a hash-sum over all nodes, which must equal the serial elision's.
inline std::uint64_t random_tree(std::uint64_t seed, int depth) {
  std::uint64_t h = mix(seed);
  std::uint64_t sum = h % 1000;
  if (depth <= 0) return sum;
  int children = static_cast<int>(h % 6);
  std::uint64_t results[5] = {};
  Scope scope;
  for (int i = 0; i < children; ++i) {
    std::uint64_t child_seed = mix(seed ^ (i + 1));
    switch ((h >> (8 + 2 * i)) % 4) {
      case 0:  // called directly
        results[i] = random_tree(child_seed, depth - 1);
        break;
      case 1:  // spawned, then a sync in the middle of the loop
        scope.spawn([&results, i, child_seed, depth] { results[i] = random_tree(child_seed, depth - 1); });
        scope.sync();
        break;
      default:  // spawned
        scope.spawn([&results, i, child_seed, depth] { results[i] = random_tree(child_seed, depth - 1); });
        break;
    }
  }
  scope.sync();
  for (int i = 0; i < children; ++i) sum += results[i];
  return sum;
}

}  // namespace takt::testing
