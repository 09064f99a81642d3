// RT-OpenMP's decomposition of a synchronous task into strands with release offsets and deadlines.
#include "analysis/decomposition.hpp"

#include "analysis/exact.hpp"

#include <cassert>

namespace takt::analysis {
namespace {

// The windows d_j = numerator[j] / denominator: cumulative sums rounded down to whole
// nanoseconds, releases at the previous window's end.
void fill_windows(Decomposition& out, const model::Task& task, const std::vector<i128>& numerator,
                  i128 denominator, const std::vector<bool>& heavy) {
  const auto& segments = task.segments;
  i128 cumulative = 0;
  i128 previous_end = 0;
  for (std::size_t j = 0; j < segments.size(); ++j) {
    cumulative += numerator[j];
    const i128 end = floor_div(cumulative, denominator);
    SegmentWindow w;
    w.heavy = heavy[j];
    w.release = std::chrono::nanoseconds{static_cast<std::int64_t>(previous_end)};
    w.deadline = std::chrono::nanoseconds{static_cast<std::int64_t>(end - previous_end)};
    // l = d/(2.5e) − 1 on the exact d.
    w.slack = static_cast<double>(numerator[j]) / static_cast<double>(denominator) /
                  (2.5 * static_cast<double>(segments[j].length.count())) -
              1.0;
    out.segments.push_back(w);
    previous_end = end;
  }
  assert(previous_end == wide(task.deadline));
}

}  // namespace

Decomposition decompose(const model::Task& task) {
  assert(!task.segments.empty());
  Decomposition out;
  const auto& segments = task.segments;
  const i128 C = wide(model::segments_work(segments));
  const i128 P = wide(model::segments_span(segments));
  const i128 D = wide(task.deadline);
  // 2.5 = 5/2: the slack D − 2.5P is (2D − 5P)/2.
  const i128 twice_slack = 2 * D - 5 * P;
  out.total_slack_ns = static_cast<double>(twice_slack) / 2.0;
  if (twice_slack <= 0) {
    out.heavy_threshold = 0;
    return out;
  }
  out.feasible = true;
  out.heavy_threshold = static_cast<double>(5 * C) / static_cast<double>(twice_slack);
  // Heavy: m > 2.5C/(D − 2.5P)  ⇔  m·(2D − 5P) > 5C.
  std::vector<bool> heavy(segments.size());
  i128 light_work = 0, light_span = 0;  // C^h, P^h of the paper (the light segments' part)
  for (std::size_t j = 0; j < segments.size(); ++j) {
    heavy[j] = static_cast<i128>(segments[j].strands) * twice_slack > 5 * C;
    out.any_heavy = out.any_heavy || heavy[j];
    if (!heavy[j]) {
      light_work += wide(segments[j].work());
      light_span += wide(segments[j].length);
    }
  }
  // Each window d_j as numerator over a common denominator.
  std::vector<i128> numerator(segments.size());
  i128 denominator;
  if (out.any_heavy) {
    // Heavy: d = 2.5e(1 + l) = e·m·(D − 2.5P^h)/(C − C^h) = e·m·(2D − 5P^h) / (2(C − C^h)).
    // Light: d = 2.5e = 5e(C − C^h) / (2(C − C^h)).
    denominator = 2 * (C - light_work);
    for (std::size_t j = 0; j < segments.size(); ++j) {
      const i128 e = wide(segments[j].length);
      numerator[j] = heavy[j] ? e * segments[j].strands * (2 * D - 5 * light_span) : 5 * e * (C - light_work);
    }
  } else {
    // All light: d = e·D/P.
    denominator = P;
    for (std::size_t j = 0; j < segments.size(); ++j) numerator[j] = wide(segments[j].length) * D;
  }
  fill_windows(out, task, numerator, denominator, heavy);
  return out;
}

Decomposition decompose_proportionally(const model::Task& task) {
  assert(!task.segments.empty());
  Decomposition out;
  const auto& segments = task.segments;
  const i128 P = wide(model::segments_span(segments));
  const i128 D = wide(task.deadline);
  out.total_slack_ns = static_cast<double>(2 * D - 5 * P) / 2.0;
  out.proportional = true;
  // d = e·D/P, as in the all-light case.
  std::vector<i128> numerator(segments.size());
  for (std::size_t j = 0; j < segments.size(); ++j) numerator[j] = wide(segments[j].length) * D;
  fill_windows(out, task, numerator, P, std::vector<bool>(segments.size(), false));
  return out;
}

}  // namespace takt::analysis
