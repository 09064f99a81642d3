// RTWS synthetic synchronous tasks on the takt runtime.
#include "apps/synthetic.hpp"

#include "apps/segments.hpp"
#include "apps/splitmix.hpp"

#include "takt/error.hpp"
#include "takt/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <string>

namespace takt::apps {
namespace {

struct TypeParameters {
  std::uint32_t min_nodes, max_nodes, min_ns, max_ns;
};

TypeParameters parameters(int type) {
  switch (type) {
    case 1: return {100'000, 200'000, 5, 10};
    case 2: return {10'000, 20'000, 2'000, 4'500};
    case 3: return {1'000, 2'000, 20'000, 50'000};
    default: throw takt::Error("synthetic task type " + std::to_string(type) + " does not exist; use 1, 2 or 3");
  }
}

}  // namespace

void busy_units(std::uint64_t units) {
  for (std::uint64_t i = 0; i < units; ++i) asm volatile("" : "+r"(i));
}

std::uint32_t SyntheticTask::node_ns(std::size_t segment, std::uint32_t node) const {
  std::uint64_t h = splitmix64(seed ^ (static_cast<std::uint64_t>(segment) << 40) ^ node);
  return min_node_ns + static_cast<std::uint32_t>(h % (max_node_ns - min_node_ns + 1));
}

void SyntheticTask::run_node(std::size_t segment, std::uint32_t node) const {
  busy_units(static_cast<std::uint64_t>(node_ns(segment, node) * units_per_ns));
  if (tally != nullptr) {
    tally->count.fetch_add(1, std::memory_order_relaxed);
    tally->key_sum.fetch_add(node_key(segment, node), std::memory_order_relaxed);
  }
}

std::uint64_t SyntheticTask::node_key(std::size_t segment, std::uint32_t node) {
  // splitmix64 is a bijection of 64 bits, and (segment, node) → segment·2^32 + node is one
  // for the task's sizes: distinct nodes have distinct keys.
  return splitmix64((static_cast<std::uint64_t>(segment) << 32) | node);
}

std::uint64_t SyntheticTask::expected_key_sum() const {
  std::uint64_t sum = 0;
  for (std::size_t s = 0; s < segment_nodes.size(); ++s) {
    for (std::uint32_t j = 0; j < segment_nodes[s]; ++j) sum += node_key(s, j);
  }
  return sum;
}

bool SyntheticTask::ran_every_node_once(const NodeTally& t) const {
  return t.count.load() == nodes() && t.key_sum.load() == expected_key_sum();
}

std::uint64_t SyntheticTask::work_ns() const {
  std::uint64_t total = 0;
  for (std::size_t s = 0; s < segment_nodes.size(); ++s) {
    for (std::uint32_t j = 0; j < segment_nodes[s]; ++j) total += node_ns(s, j);
  }
  return total;
}

std::uint64_t SyntheticTask::span_ns() const {
  std::uint64_t total = 0;
  for (std::size_t s = 0; s < segment_nodes.size(); ++s) {
    std::uint32_t longest = 0;
    for (std::uint32_t j = 0; j < segment_nodes[s]; ++j) longest = std::max(longest, node_ns(s, j));
    total += longest;
  }
  return total;
}

std::uint64_t SyntheticTask::nodes() const {
  std::uint64_t total = 0;
  for (std::uint32_t n : segment_nodes) total += n;
  return total;
}

SyntheticTask make_synthetic_task(int type, std::uint64_t seed, double node_scale) {
  TypeParameters p = parameters(type);
  if (!(node_scale > 0.0)) throw takt::Error("synthetic task: node_scale must be positive");
  SyntheticTask task;
  task.type = type;
  task.seed = seed;
  task.min_node_ns = p.min_ns;
  task.max_node_ns = p.max_ns;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> segments(10, 20);
  std::uniform_int_distribution<std::uint32_t> nodes(p.min_nodes, p.max_nodes);
  int count = segments(rng);
  for (int s = 0; s < count; ++s) {
    auto n = static_cast<std::uint32_t>(std::max(1.0, nodes(rng) * node_scale));
    task.segment_nodes.push_back(n);
  }
  task.units_per_ns = busy_units_per_ns();  // the segments program's calibration, one per process
  return task;
}

void run_synthetic(const SyntheticTask& task) {
  for (std::size_t s = 0; s < task.segment_nodes.size(); ++s) {
    parallel_for(std::uint32_t{0}, task.segment_nodes[s], std::uint32_t{1},
                 [&task, s](std::uint32_t node) { task.run_node(s, node); });
  }
}

void run_synthetic_serial(const SyntheticTask& task) {
  for (std::size_t s = 0; s < task.segment_nodes.size(); ++s) {
    for (std::uint32_t node = 0; node < task.segment_nodes[s]; ++node) task.run_node(s, node);
  }
}

}  // namespace takt::apps
