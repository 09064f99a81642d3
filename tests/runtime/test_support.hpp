// Helpers shared by the runtime tests: pool configurations and a random fork-join tree.
#pragma once

#include "takt/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace takt::testing {

/// A sleeping worker's safety-net timeouts double from 1 ms while it finds nothing to do
/// (sleep() and caller_sleep() in src/runtime/scheduler.cpp): 1, 2, 4, ... 512 ms, then
/// 1024 ms from its 11th sleep on.
constexpr auto kLongestTimeout = std::chrono::milliseconds(1024);
constexpr std::uint64_t kSleepsToTheLongest = 11;

/// Waits until workers 0 .. base.size() - 1 of `pool` sleep with the longest timeout (the
/// sleep count of worker w is base[w] + 11 or more, base[w] its count when its timeout
/// was last reset to 1 ms, or later: when it last went idle after running something), and
/// have for 100 ms (a worker counts a sleep just before it waits on the futex: one that
/// has not got there yet returns at once on any wake-up of the pool's sleepers, the one
/// meant for another worker included). Returns a time before which no timeout can end
/// those sleeps, at least `ahead` from now: a worker's latest sleep began after the last
/// poll that saw its count lower, so its timeout ends it 1024 ms after that at the
/// earliest. Gives up after 10 s, returning now + `ahead` (a correct pool still passes
/// then; a missing wake-up might be hidden by a timeout).
inline std::chrono::steady_clock::time_point no_timeout_before(const Pool& pool,
                                                               const std::vector<std::uint64_t>& base,
                                                               std::chrono::steady_clock::duration ahead) {
  using Clock = std::chrono::steady_clock;
  using namespace std::chrono_literals;
  const std::size_t n = base.size();
  std::vector<std::uint64_t> seen(n);
  std::vector<Clock::time_point> began_after(n, Clock::time_point::min()), seen_at(n);
  Clock::time_point previous = Clock::now();
  for (std::size_t w = 0; w < n; ++w) seen[w] = pool.statistics(w).sleeps;  // read after `previous`
  const auto stop_looking = previous + 10s;
  while (true) {
    std::this_thread::sleep_for(1ms);
    const Clock::time_point now = Clock::now();
    for (std::size_t w = 0; w < n; ++w) {
      const std::uint64_t sleeps = pool.statistics(w).sleeps;
      if (sleeps != seen[w]) {
        seen[w] = sleeps;
        began_after[w] = previous;
        seen_at[w] = Clock::now();
      }
    }
    const Clock::time_point after = Clock::now();
    bool ready = true;
    Clock::time_point earliest = Clock::time_point::max();
    for (std::size_t w = 0; w < n; ++w) {
      ready = ready && seen[w] >= base[w] + kSleepsToTheLongest &&
              began_after[w] != Clock::time_point::min() && after - seen_at[w] >= 100ms;
      earliest = std::min(earliest, began_after[w] + kLongestTimeout);
    }
    if (ready && earliest - after >= ahead) return earliest;
    if (now > stop_looking) return Clock::now() + ahead;
    previous = now;
  }
}

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
