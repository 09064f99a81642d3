// `takt bench layout`: what the order of a chain's blocks in memory costs once resource
// trading has exchanged blocks between two workers' chains (docs/runtime.md, "Block
// layout"). fib on two workers, each pool built with its chains in a given state: the
// blocks in position order (takt's layout before 2026-11-28) or in takt's shuffled
// order, each with no block, one, or six consecutive ones exchanged between the two
// chains.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace takt::bench {

struct BlockLayoutOptions {
  unsigned fib_n = 30;
  int runs = 30;  ///< timed runs per configuration, in three rounds of fresh pools
  /// Asked between runs (may be empty): true ends the measurement; the report keeps the
  /// configurations measured in full.
  std::function<bool()> stop_requested;
};

struct BlockLayoutRow {
  std::string layout;              ///< "position order" or "shuffled"
  std::vector<int> exchanged;      ///< depths (1 = the root's) whose blocks the two chains exchanged
  std::vector<double> samples_ms;  ///< every timed run
  double median_ms = 0;
  double p95_ms = 0;
  double ratio_to_unexchanged = 0;  ///< median over the same layout's median with nothing exchanged
};

struct BlockLayoutReport {
  nlohmann::json provenance;
  unsigned fib_n = 0;
  std::size_t depth = 0;  ///< D that takt::measure gave for fib(fib_n)
  std::vector<int> cpus;  ///< the two CPUs the workers ran on
  int runs = 0;
  std::vector<BlockLayoutRow> rows;
  bool complete = true;
  std::string stopped_by;
};

/// Measures; throws takt::Error when fewer than two CPUs may be used.
BlockLayoutReport measure_block_layout(const BlockLayoutOptions& options);
std::string format_block_layout(const BlockLayoutReport& report);
nlohmann::json to_json(const BlockLayoutReport& report);

}  // namespace takt::bench
