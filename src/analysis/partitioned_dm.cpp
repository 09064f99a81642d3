// RT-OpenMP's partitioned deadline-monotonic scheduling: decomposition, priorities, FBB-FFD placement.
#include "analysis/partitioned_dm.hpp"

#include "analysis/core_interference.hpp"
#include "analysis/exact.hpp"
#include "model/duration.hpp"
#include "takt/error.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <queue>

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
  if (m < 1) throw Error("partitioned-dm needs at least one core");

  // 1. Decompose.
  std::vector<model::Task> tasks;  // with the segments analysed
  std::vector<CoreInterference::TaskTiming> timing;
  RatioSum utilization;
  std::int64_t strand_rows = 0;
  for (const model::Task& original : set.tasks) {
    model::Task t = original;
    t.segments = segments_of(set, original);
    // One strand-table row per strand: refuse a set that would need too many.
    for (std::size_t j = 0; j < t.segments.size(); ++j) {
      strand_rows += t.segments[j].strands;
      if (strand_rows <= kMaxStrands) continue;
      const model::SourceMark at =
          j < original.marks.strands.size() ? original.marks.strands[j] : t.segments[j].mark;
      throw Error(
          at.where(set.source) + ": task '" + t.name + "': with the " +
          std::to_string(t.segments[j].strands) + " strands of its segment " + std::to_string(j + 1) +
          " the task set has more than " + std::to_string(kMaxStrands) +
          " strands, the most partitioned-dm places (it lists every strand with its core); use fewer, "
          "longer strands, or a policy that does not split tasks into strands (federated, gedf-paws)");
    }
    // The bound is about the segments decomposed, not a measured work beside them.
    utilization.add(model::segments_work(t.segments).count(), t.period.count());
    TaskDecomposition td{
        t.name, decompose(t), {}, model::segments_work(t.segments), model::segments_span(t.segments)};
    if (!td.decomposition.feasible) {
      // No slack for rt-openmp's decomposition (D ≤ 2.5·P): windows d = e·D/P, and
      // the placement decides (see decompose_proportionally).
      td.decomposition = decompose_proportionally(t);
      const nanoseconds P = model::segments_span(t.segments);
      result.findings.push_back(
          {t.name, "decomposition", true, 0, "",
           "D = " + model::format_duration(t.deadline) + " ≤ 2.5·P = 2.5·" + model::format_duration(P) +
               ": no slack for rt-openmp's decomposition (§IV.A needs D > 2.5·P); takt gives every segment "
               "the window d = e·D/P and lets the load condition decide (the augmentation bound does not "
               "cover this task)"});
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

  // 4. FBB-FFD placement, highest priority first, a segment at a time. While the
  // strands of one segment are placed, nothing on core q changes for them but their
  // own number there: a strand meets base[q] + c_q·e, base[q] being the load of the
  // other tasks (and none of its siblings) and c_q its siblings already on q. So the
  // loads are computed once per core and segment, first-fit fills cores in order,
  // and worst-fit takes the least loaded core (lowest index on ties) from a heap:
  // strand by strand the same choices as querying every core for every strand.
  CoreInterference interference(m, std::move(timing));
  bool all_placed = true;
  std::vector<i128> base(static_cast<std::size_t>(m));
  std::vector<std::int64_t> count(static_cast<std::size_t>(m));
  // Cores that hold a strand. The others have no load: worst-fit computes the loads of
  // these only and takes empty cores in index order, the same choices as with every
  // core's load (an empty core's is 0, the least, so the lowest-index empty one beats
  // every later one), without reading all m cores per segment.
  std::vector<char> occupied(static_cast<std::size_t>(m));
  std::vector<int> occupied_cores;
  std::vector<int> touched;  // cores given strands of the current segment
  for (const SegmentRef& ref : order) {
    const model::Segment& segment = tasks[ref.task].segments[ref.segment];
    const i128 e = segment.length.count();
    const i128 d = ref.deadline.count();
    const std::size_t first = first_row[ref.task][ref.segment];
    const int k = segment.strands;
    auto base_of = [&](int q) {
      base[static_cast<std::size_t>(q)] = interference.load(q, ref.task, ref.segment, ref.deadline).count();
    };
    auto load_on = [&](int q) {
      return base[static_cast<std::size_t>(q)] + count[static_cast<std::size_t>(q)] * e;
    };
    int placed = 0;
    auto assign = [&](int q) {
      StrandAssignment& row = result.strands[first + static_cast<std::size_t>(placed)];
      row.core = q;
      row.core_id = options.cores.id(q);
      row.interference = nanoseconds{static_cast<std::int64_t>(load_on(q))};
      if (count[static_cast<std::size_t>(q)]++ == 0) touched.push_back(q);
      ++placed;
    };
    if (options.fit == model::Fit::first_fit) {
      // Core q takes strands while base + c·e + e ≤ d: ⌊(d − base)/e⌋ of them. It reads
      // the loads of the cores it reaches only.
      for (int q = 0; q < m && placed < k; ++q) {
        base_of(q);
        const i128 room = d - base[static_cast<std::size_t>(q)];
        if (room < e) continue;
        const i128 fit = std::min<i128>(room / e, k - placed);
        for (i128 c = 0; c < fit; ++c) assign(q);
      }
    } else {
      for (int q : occupied_cores) base_of(q);
      int next_empty = 0;  // the lowest-index core without strands, m if none
      auto advance_empty = [&] {
        while (next_empty < m && occupied[static_cast<std::size_t>(next_empty)]) ++next_empty;
      };
      advance_empty();
      using Item = std::pair<i128, int>;  // (load, core): the smallest load, then the lowest core
      std::priority_queue<Item, std::vector<Item>, std::greater<>> least;
      for (int q : occupied_cores) least.emplace(load_on(q), q);
      if (next_empty < m) least.emplace(0, next_empty);
      while (placed < k && !least.empty() && d - least.top().first >= e) {
        const int q = least.top().second;
        least.pop();
        assign(q);
        least.emplace(load_on(q), q);
        if (q == next_empty) {
          // An empty core took a strand; the next empty one becomes a candidate.
          base[static_cast<std::size_t>(q)] = 0;
          ++next_empty;
          advance_empty();
          if (next_empty < m) least.emplace(0, next_empty);
        }
      }
    }
    for (int q : touched) {
      interference.place(q, ref.task, ref.segment, ref.deadline, count[static_cast<std::size_t>(q)]);
      if (!occupied[static_cast<std::size_t>(q)]) {
        occupied[static_cast<std::size_t>(q)] = 1;
        occupied_cores.push_back(q);
      }
    }
    if (placed < k) {
      // The rest fits nowhere: report the first of them on the least loaded core.
      all_placed = false;
      int worst_core = 0;
      for (int q = 1; q < m; ++q) {
        if (load_on(q) < load_on(worst_core)) worst_core = q;
      }
      // (A load saturated at INT64_MAX can make the shortfall larger than 64 bits hold.)
      const nanoseconds shortfall{static_cast<std::int64_t>(
          std::min<i128>(e - (d - load_on(worst_core)), std::numeric_limits<std::int64_t>::max()))};
      const int worst_strand = result.strands[first + static_cast<std::size_t>(placed)].strand;
      const std::string& name = tasks[ref.task].name;
      result.findings.push_back(
          {name, "FBB-FFD load condition", false, -static_cast<double>(shortfall.count()), "ns",
           "segment " + std::to_string(ref.segment + 1) + ": " + std::to_string(k - placed) + " of " +
               std::to_string(k) + " strands (e = " + display_duration(segment.length) +
               ", d = " + display_duration(ref.deadline) + ") fit on no core; e.g. strand " +
               std::to_string(worst_strand) + ": on the least loaded core " +
               std::to_string(options.cores.id(worst_core)) +
               " d − ΣRBF* = " + display_duration(segment.length - shortfall) + " < e (short by " +
               display_duration(shortfall) + ")"});
    }
    for (int q : touched) count[static_cast<std::size_t>(q)] = 0;
    touched.clear();
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
