// A periodic parallel real-time task: timing, program, and structure or measured work/span.
#pragma once

#include "model/dag.hpp"
#include "model/segment.hpp"
#include "model/source_mark.hpp"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace takt::model {

/// The name of the built-in program that runs a task's `segments:` (busy-wait strands
/// of the given lengths, the RT-OpenMP workload); generated and converted sets use it.
inline constexpr std::string_view kSegmentsProgram = "segments";

/// How a task's work and span are known.
enum class Structure {
  segments,  ///< a synchronous (fork-join) task: a sequence of segments ⟨e, m⟩
  dag,       ///< a DAG of nodes
  measured,  ///< only measured work / span (e.g. by `takt profile`)
};

/// Where each timing value of a task was written, for messages and for in-place
/// updates of measured values (see measurement_update.hpp).
struct TaskMarks {
  SourceMark task;  ///< the task's mapping (its '{' in flow style)
  /// Values.
  SourceMark name, period, deadline, offset, work, span, burdened_span, structure;
  /// Keys, by key name ("period" → where the word period was written).
  std::map<std::string, SourceMark, std::less<>> keys;
  /// Where `key` was written, else the task's mapping (for messages about that key).
  [[nodiscard]] SourceMark key_or_task(std::string_view key) const {
    const auto it = keys.find(key);
    return it != keys.end() ? it->second : task;
  }
  /// Per segment: where its `strands` value was written (the segment itself when
  /// the key is left out).
  std::vector<SourceMark> strands;
};

/// A periodic (or sporadic) parallel task τ_i (rtws §II, rt-openmp §II). Jobs are
/// released at offset + k·period and must finish within `deadline` (D ≤ T).
struct Task {
  std::string name;
  std::chrono::nanoseconds period{0};    ///< T_i
  std::chrono::nanoseconds deadline{0};  ///< D_i, relative, ≤ T_i
  std::chrono::nanoseconds offset{0};    ///< release offset of the first job
  std::optional<int> priority;           ///< user-given priority, 1 is highest (platform use)

  std::string program;            ///< built-in program name or path to a shared object
  std::vector<std::string> args;  ///< the program's arguments

  std::vector<Segment> segments;  ///< synchronous structure (empty when none)
  std::optional<Dag> dag;         ///< DAG structure

  std::optional<std::chrono::nanoseconds> measured_work;  ///< C measured (`work:`)
  std::optional<std::chrono::nanoseconds> measured_span;  ///< L measured (`span:`)
  std::optional<std::chrono::nanoseconds> burdened_span;  ///< L̂ measured (`burdened_span:`)

  TaskMarks marks;

  /// Which description work and span come from: measured values win over a
  /// structure (they include what the structure leaves out).
  [[nodiscard]] Structure structure() const;
  /// C_i: measured work if given, else derived from the segments or the DAG.
  [[nodiscard]] std::chrono::nanoseconds work() const;
  /// L_i (P_i in rt-openmp): measured span if given, else derived.
  [[nodiscard]] std::chrono::nanoseconds span() const;
  /// L̂_i when measured, else L_i.
  [[nodiscard]] std::chrono::nanoseconds burdened_span_or_span() const {
    return burdened_span ? *burdened_span : span();
  }
  /// u_i = C_i / T_i.
  [[nodiscard]] double utilization() const;
  /// C_i / D_i (equal to u_i for implicit deadlines).
  [[nodiscard]] double density() const;
};

}  // namespace takt::model
