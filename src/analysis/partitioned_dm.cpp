// RT-OpenMP's partitioned deadline-monotonic scheduling: decomposition, priorities, FBB-FFD placement.
#include "analysis/partitioned_dm.hpp"

#include "analysis/core_interference.hpp"
#include "analysis/exact.hpp"
#include "model/duration.hpp"
#include "takt/error.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>

namespace takt::analysis {
namespace {

using model::display_duration;
using std::chrono::nanoseconds;

// The segments analysed for a task: its structure, or ⟨C, 1⟩ for a sequential
// task given by measured work = span.
std::vector<model::Segment> segments_of(const model::TaskSet& set, const model::Task& t) {
  if (!t.segments.empty()) return t.segments;
  if (t.structure() == model::Structure::measured && t.work() == t.span()) {
    return {model::Segment{t.work(), 1, t.marks.work}};
  }
  throw Error(
      t.marks.task.where(set.source) + ": task '" + t.name +
      "' has no segments; partitioned-dm decomposes synchronous tasks (rt-openmp §II): describe it with "
      "'segments:' or choose another policy (federated, gedf-paws)");
}

}  // namespace

PartitionedDmResult analyse_partitioned_dm(const model::TaskSet& set, const PartitionedDmOptions& options) {
  PartitionedDmResult result;
  result.fit = options.fit;
  result.cores = options.cores.count;
  const int m = options.cores.count;

  // 1. Decompose.
  std::vector<model::Task> tasks;  // with the segments analysed
  std::vector<CoreInterference::TaskTiming> timing;
  RatioSum utilization;
  for (const model::Task& original : set.tasks) {
    model::Task t = original;
    t.segments = segments_of(set, original);
    // The bound is about the segments decomposed, not a measured work beside them.
    utilization.add(model::segments_work(t.segments).count(), t.period.count());
    TaskDecomposition td{t.name, decompose(t), {}};
    if (!td.decomposition.feasible) {
      // No slack for rt-openmp's decomposition (D ≤ 2.5·P): windows d = e·D/P, and
      // the placement decides (see decompose_proportionally).
      td.decomposition = decompose_proportionally(t);
      const nanoseconds P = model::segments_span(t.segments);
      result.findings.push_back({t.name, "decomposition", true, 0, "",
                                 "D = " + display_duration(t.deadline) + " ≤ 2.5·P = 2.5·" +
                                     display_duration(P) +
                                     ": no slack for rt-openmp's decomposition (§IV.A needs D > 2.5·P); takt "
                                     "gives every segment the "
                                     "window d = e·D/P and lets the load condition decide (the augmentation "
                                     "bound does not cover this "
                                     "task)"});
    }
    CoreInterference::TaskTiming tt{t.period, {}, {}};
    for (std::size_t j = 0; j < td.decomposition.segments.size(); ++j) {
      tt.release.push_back(td.decomposition.segments[j].release);
      tt.length.push_back(t.segments[j].length);
    }
    timing.push_back(std::move(tt));
    result.tasks.push_back(std::move(td));
    tasks.push_back(std::move(t));
  }

  // 2. Deadline-monotonic priorities, one per segment.
  struct SegmentRef {
    std::size_t task;
    std::size_t segment;
    nanoseconds deadline;
  };
  std::vector<SegmentRef> order;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Decomposition& d = result.tasks[i].decomposition;
    result.tasks[i].priorities.assign(d.segments.size(), 0);
    for (std::size_t j = 0; j < d.segments.size(); ++j) order.push_back({i, j, d.segments[j].deadline});
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const SegmentRef& a, const SegmentRef& b) { return a.deadline < b.deadline; });
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    result.tasks[order[rank].task].priorities[order[rank].segment] = static_cast<int>(rank + 1);
  }

  // 3. Strand table rows, by task then strand.
  std::vector<std::vector<std::size_t>> first_row(tasks.size());  // row of strand 1 of each segment
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Decomposition& d = result.tasks[i].decomposition;
    int strand = 0;
    for (std::size_t j = 0; j < d.segments.size(); ++j) {
      first_row[i].push_back(result.strands.size());
      for (int s = 0; s < tasks[i].segments[j].strands; ++s) {
        StrandAssignment a;
        a.task = i;
        a.segment = static_cast<int>(j + 1);
        a.strand = ++strand;
        a.strand_in_segment = s + 1;
        a.length = tasks[i].segments[j].length;
        a.release = d.segments[j].release;
        a.deadline = d.segments[j].deadline;
        a.priority = result.tasks[i].priorities[j];
        result.strands.push_back(a);
      }
    }
  }

  // 4. FBB-FFD placement, highest priority first.
  CoreInterference interference(m, std::move(timing));
  bool all_placed = true;
  for (const SegmentRef& ref : order) {
    const model::Segment& segment = tasks[ref.task].segments[ref.segment];
    const nanoseconds e = segment.length;
    const nanoseconds d = ref.deadline;
    int unplaced = 0;
    nanoseconds worst_shortfall{0};
    int worst_core = -1;
    int worst_strand = 0;
    for (int s = 0; s < segment.strands; ++s) {
      StrandAssignment& row = result.strands[first_row[ref.task][ref.segment] + static_cast<std::size_t>(s)];
      int chosen = -1;
      int least = -1;
      nanoseconds least_load{0};
      for (int q = 0; q < m; ++q) {
        const nanoseconds load = interference.load(q, ref.task, ref.segment, d);
        if (least < 0 || load < least_load) {
          least = q;
          least_load = load;
        }
        if (options.fit == model::Fit::first_fit && d - load >= e) {
          chosen = q;
          row.interference = load;
          break;
        }
      }
      if (options.fit == model::Fit::worst_fit && least >= 0 && d - least_load >= e) {
        chosen = least;
        row.interference = least_load;
      }
      if (chosen < 0) {
        ++unplaced;
        nanoseconds shortfall = e - (d - least_load);
        if (shortfall > worst_shortfall || worst_core < 0) {
          worst_shortfall = shortfall;
          worst_core = least;
          worst_strand = row.strand;
        }
        continue;
      }
      row.core = chosen;
      row.core_id = options.cores.id(chosen);
      interference.place(chosen, ref.task, ref.segment, d);
    }
    if (unplaced > 0) {
      all_placed = false;
      const std::string& name = tasks[ref.task].name;
      result.findings.push_back(
          {name, "FBB-FFD load condition", false, -static_cast<double>(worst_shortfall.count()), "ns",
           "segment " + std::to_string(ref.segment + 1) + ": " + std::to_string(unplaced) + " of " +
               std::to_string(segment.strands) + " strands (e = " + display_duration(e) + ", d = " +
               display_duration(d) + ") fit on no core; e.g. strand " + std::to_string(worst_strand) +
               ": on the least loaded core " + std::to_string(options.cores.id(worst_core)) +
               " d − ΣRBF* = " + display_duration(e - worst_shortfall) + " < e (short by " +
               display_duration(worst_shortfall) + ")"});
    }
  }
  if (all_placed) {
    result.findings.push_back({"", "FBB-FFD load condition", true, 0, "",
                               "all " + std::to_string(result.strands.size()) + " strands placed (" +
                                   std::string(model::to_string(options.fit)) + ")"});
  }
  result.schedulable = all_placed;

  // 5. Augmentation bound 5 (informational).
  AugmentationBound& b = result.bound;
  b.total_utilization = static_cast<double>(utilization.value());
  b.utilization_bound = m / b.factor;
  for (const model::Task& t : tasks) {
    if (5 * wide(model::segments_span(t.segments)) > wide(t.deadline)) b.long_span_tasks.push_back(t.name);
  }
  auto constrained =
      std::find_if(tasks.begin(), tasks.end(), [](const model::Task& t) { return t.deadline < t.period; });
  if (constrained != tasks.end()) {
    b.not_applicable =
        "task '" + constrained->name + "' has D < T; the bound is proved for implicit deadlines (D = T)";
  } else {
    b.holds = utilization.at_most(m, 5) && b.long_span_tasks.empty();
  }
  return result;
}

}  // namespace takt::analysis
