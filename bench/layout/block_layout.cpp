// `takt bench layout` (see block_layout.hpp).
#include "bench/layout/block_layout.hpp"

#include "apps/fib.hpp"
#include "os/cpu.hpp"
#include "platform/metrics_json.hpp"
#include "platform/percentile.hpp"
#include "runtime/pool_state.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <span>

namespace takt::bench {
namespace {

/// The chain state a pool is built with (read by the layout function, which cannot
/// capture: set before each pool is built, on this thread only).
struct LayoutState {
  std::vector<std::size_t> order;  ///< position -> block within the chain's own group
  std::vector<bool> exchanged;     ///< by position (0-based)
};
LayoutState g_layout;

/// Chain c at position d: its own block (position order, or takt's shuffled order), or,
/// at an exchanged position, the other worker's block of that position (chains 0 and 1
/// are the two workers' only chains).
std::size_t layout_of(std::size_t chain, std::size_t position, std::size_t depth) {
  const std::size_t owner = g_layout.exchanged[position] ? chain ^ 1 : chain;
  return owner * depth + g_layout.order[position];
}

}  // namespace

BlockLayoutReport measure_block_layout(const BlockLayoutOptions& options) {
  BlockLayoutReport r;
  r.provenance = platform::provenance();
  r.fib_n = options.fib_n;
  r.runs = options.runs;
  const os::CpuSet allowed = os::allowed_cpus();
  if (allowed.size() < 2) {
    throw Error(
        fmt::format("takt bench layout runs two workers on two CPUs; this process may use {} ({}); "
                    "run it where two CPUs are allowed (taskset -c 0,1 ...)",
                    allowed.size(), allowed.to_string()));
  }
  const os::CpuSet cpus{allowed[0], allowed[1]};
  r.cpus = {allowed[0], allowed[1]};
  const unsigned n = options.fib_n;
  const Measurement m = measure([n] { return apps::fib(n); });
  const StaticMemory memory = m.recommended();
  r.depth = memory.depth;
  const std::uint64_t expected = apps::fib_serial(n);

  // Exchanged depths: one block at 40 % of the chain (depth 12 of 30 for fib(30), where
  // fib spends most of its spawns), and six around it.
  const int middle = std::max(1, static_cast<int>(0.4 * static_cast<double>(r.depth) + 0.5));
  std::vector<std::vector<int>> exchanges{{}, {middle}, {}};
  for (int d = std::max(1, middle - 3); d <= std::min(static_cast<int>(r.depth), middle + 2); ++d) {
    exchanges[2].push_back(d);
  }
  for (const bool position_order : {true, false}) {
    for (const std::vector<int>& exchanged : exchanges) {
      BlockLayoutRow row;
      row.layout = position_order ? "position order" : "shuffled";
      row.exchanged = exchanged;
      r.rows.push_back(row);
    }
  }

  // The calling thread runs as worker 0 on the pool's first CPU; it gets its CPUs back
  // however the measurement ends.
  struct Unpin {
    os::CpuSet cpus;
    ~Unpin() { (void)os::pin_current_thread(cpus); }
  } unpin{allowed};
  const int rounds = std::min(3, options.runs);
  bool stopped = false;
  for (int round = 0; round < rounds && !stopped; ++round) {
    const int runs = options.runs / rounds + (round < options.runs % rounds ? 1 : 0);
    for (BlockLayoutRow& row : r.rows) {
      g_layout.order = detail::chain_order_for_testing(r.depth);
      if (row.layout == "position order") {
        for (std::size_t d = 0; d < r.depth; ++d) g_layout.order[d] = d;
      }
      g_layout.exchanged.assign(r.depth, false);
      for (const int d : row.exchanged) g_layout.exchanged[static_cast<std::size_t>(d - 1)] = true;
      PoolConfig config;
      config.workers = 2;
      config.cpus = cpus;
      config.memory = memory;
      config.caller_joins = true;
      config.name = "layout";
      detail::chain_layout_for_testing.store(&layout_of, std::memory_order_release);
      std::optional<Pool> pool;
      try {
        pool.emplace(config);
      } catch (...) {
        detail::chain_layout_for_testing.store(nullptr, std::memory_order_release);
        throw;
      }
      detail::chain_layout_for_testing.store(nullptr, std::memory_order_release);
      (void)os::pin_current_thread(os::CpuSet{pool->cpus()[0]});  // the caller is worker 0
      for (int warm = 0; warm < 2; ++warm) (void)pool->run([n] { return apps::fib(n); });
      for (int i = 0; i < runs; ++i) {
        if (options.stop_requested && options.stop_requested()) {
          stopped = true;
          break;
        }
        const auto start = std::chrono::steady_clock::now();
        const std::uint64_t result = pool->run([n] { return apps::fib(n); });
        const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
        if (result != expected) {
          throw Error(fmt::format("takt bench layout: fib({}) gave {}, not {}", n, result, expected));
        }
        row.samples_ms.push_back(took.count());
      }
      if (stopped) break;
    }
  }
  // A stop leaves the rows of the round in flight uneven: every row keeps as many runs as
  // the row with the fewest.
  if (stopped) {
    r.complete = false;
    std::size_t least = r.rows.front().samples_ms.size();
    for (const BlockLayoutRow& row : r.rows) least = std::min(least, row.samples_ms.size());
    for (BlockLayoutRow& row : r.rows) row.samples_ms.resize(least);
  }
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    BlockLayoutRow& row = r.rows[i];
    if (row.samples_ms.empty()) continue;
    std::vector<double> sorted = row.samples_ms;
    std::sort(sorted.begin(), sorted.end());
    row.median_ms = platform::nearest_rank(std::span<const double>(sorted), 50.0);
    row.p95_ms = platform::nearest_rank(std::span<const double>(sorted), 95.0);
  }
  for (BlockLayoutRow& row : r.rows) {
    const auto base = std::find_if(r.rows.begin(), r.rows.end(), [&row](const BlockLayoutRow& other) {
      return other.layout == row.layout && other.exchanged.empty();
    });
    if (!row.samples_ms.empty() && base->median_ms > 0)
      row.ratio_to_unexchanged = row.median_ms / base->median_ms;
  }
  return r;
}

std::string format_block_layout(const BlockLayoutReport& r) {
  std::string out = fmt::format(
      "takt bench layout: fib({}) on 2 workers (CPUs {} and {}, the caller as worker 0), chains of D = {} "
      "blocks; "
      "{} runs per row in {} rounds of fresh pools\n\n",
      r.fib_n, r.cpus[0], r.cpus[1], r.depth, r.runs, std::min(3, r.runs));
  out += fmt::format("{:<16} {:<22} {:>10} {:>10} {:>16}\n", "blocks", "exchanged depths", "median_ms",
                     "p95_ms", "/not exchanged");
  for (const BlockLayoutRow& row : r.rows) {
    std::string depths = row.exchanged.empty() ? "none" : std::to_string(row.exchanged.front());
    if (row.exchanged.size() > 1) depths += "-" + std::to_string(row.exchanged.back());
    if (row.samples_ms.empty()) {
      out += fmt::format("{:<16} {:<22} {:>10}\n", row.layout, depths, "-");
      continue;
    }
    out += fmt::format("{:<16} {:<22} {:>10.3f} {:>10.3f} {:>16.2f}\n", row.layout, depths, row.median_ms,
                       row.p95_ms, row.ratio_to_unexchanged);
  }
  out +=
      "\nexchanged: the two workers' chains hold each other's blocks at these depths, as resource trading "
      "leaves them after steals there; position order is takt's layout before 2026-11-28, shuffled its "
      "layout since (docs/runtime.md, \"Block layout\")\n";
  return out;
}

nlohmann::json to_json(const BlockLayoutReport& r) {
  nlohmann::json j = platform::benchmark_header("layout", r.provenance, r.complete, r.stopped_by);
  j["fib_n"] = r.fib_n;
  j["depth"] = r.depth;
  j["cpus"] = r.cpus;
  j["runs"] = r.runs;
  j["rows"] = nlohmann::json::array();
  for (const BlockLayoutRow& row : r.rows) {
    nlohmann::json x{
        {"layout", row.layout}, {"exchanged_depths", row.exchanged}, {"samples", row.samples_ms.size()}};
    if (row.samples_ms.empty()) {
      x["median_ms"] = nullptr;
      x["p95_ms"] = nullptr;
      x["ratio_to_unexchanged"] = nullptr;
    } else {
      x["median_ms"] = row.median_ms;
      x["p95_ms"] = row.p95_ms;
      x["ratio_to_unexchanged"] = row.ratio_to_unexchanged;
      x["samples_ms"] = row.samples_ms;
    }
    j["rows"].push_back(x);
  }
  return j;
}

}  // namespace takt::bench
