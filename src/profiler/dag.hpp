// The fork-join DAG of one job rebuilt from its strand events: span, burdened span, work, counts.
#pragma once

#include "profiler/burden.hpp"
#include "takt/runtime/extension.hpp"

#include <chrono>
#include <cstdint>
#include <span>

namespace takt::profiler {

/// What the strand events of one job say about its DAG. A strand runs from a
/// task_begin, resume or joined event to the next spawn, sync or task_end event of the
/// same task; its length is the difference of the two timestamps. Edges: strand → next
/// strand of the same task (a continuation edge after a spawn), strand → first strand of
/// the task it spawned (spawn edge), last strand of a child → the strand that starts
/// after the sync of the scope it was spawned in (return edge).
struct DagMeasure {
  std::chrono::nanoseconds span{0};  ///< L: longest path, strand lengths only
  std::chrono::nanoseconds burdened_span{
      0};  ///< L̂: longest path with burdens on continuation and return edges
  std::chrono::nanoseconds strand_work{0};     ///< Σ strand lengths: the work as the recorded run saw it
  std::chrono::nanoseconds longest_strand{0};  ///< the longest single strand
  std::uint64_t strands = 0;
  std::uint64_t spawns = 0;
  std::uint64_t syncs = 0;  ///< syncs of the computation (also one whose scope recorded no child)
};

/// Rebuilds the DAG of one root computation from its events, as recorded by an
/// EventLog on any number of workers (events of several workers in any order), and
/// measures it. Throws takt::Error when the events are not one complete computation
/// (missing or duplicate strand boundaries, a spawn whose child never started, ...).
DagMeasure measure_dag(std::span<const ext::StrandEvent> events, const Burden& burden);

}  // namespace takt::profiler
