// Global EDF tests for gedf-paws: the GFB utilization test (paws §2) and Li et al.'s capacity bound.
#include "analysis/global_edf.hpp"

#include "analysis/exact.hpp"
#include "model/duration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

namespace takt::analysis {
namespace {

std::string fixed(double value, int decimals = 3) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

// x ≤ y/b with b = (3+√5)/2, x, y ≥ 0  ⇔  x(3+√5) ≤ 2y  ⇔  √5·x ≤ 2y − 3x
//   ⇔  2y − 3x ≥ 0 and 5x² ≤ (2y − 3x)². nullopt when the squares overflow.
std::optional<bool> within_capacity_bound(i128 x, i128 y) {
  i128 twice_y, triple_x, rhs, x2, five_x2, rhs2;
  if (__builtin_mul_overflow(y, 2, &twice_y) || __builtin_mul_overflow(x, 3, &triple_x) ||
      __builtin_sub_overflow(twice_y, triple_x, &rhs)) {
    return std::nullopt;
  }
  if (rhs < 0) return false;
  if (__builtin_mul_overflow(x, x, &x2) || __builtin_mul_overflow(x2, 5, &five_x2) ||
      __builtin_mul_overflow(rhs, rhs, &rhs2)) {
    return std::nullopt;
  }
  return five_x2 <= rhs2;
}

}  // namespace

GlobalEdfResult analyse_global_edf(const model::TaskSet& set, const model::Cores& cores) {
  GlobalEdfResult r;
  const int m = cores.count;
  r.cores = m;
  for (int k = 0; k < m; ++k) r.core_ids.push_back(cores.id(k));

  if (set.tasks.empty()) {
    r.schedulable = r.gfb_holds = r.capacity_holds = r.capacity_utilization_holds = true;
    r.gfb_bound = m;
    r.capacity_bound = m / kGlobalEdfCapacityBound;
    return r;
  }
  RatioSum total;           // Σ C/D
  std::size_t densest = 0;  // argmax C/D
  for (std::size_t i = 0; i < set.tasks.size(); ++i) {
    const model::Task& t = set.tasks[i];
    total.add(t.work().count(), t.deadline.count());
    const model::Task& best = set.tasks[densest];
    if (wide(t.work()) * wide(best.deadline) > wide(best.work()) * wide(t.deadline)) densest = i;
    // Spans and deadlines below 2^62 ns: the squares fit in 128 bits.
    GlobalEdfTask g{t.name, t.utilization(), t.density(),
                    within_capacity_bound(wide(t.span()), wide(t.deadline)).value_or(false)};
    r.tasks.push_back(g);
  }
  const model::Task& top = set.tasks[densest];
  r.total_density = static_cast<double>(total.value());
  r.max_density = top.density();
  r.densities = std::any_of(set.tasks.begin(), set.tasks.end(),
                            [](const model::Task& t) { return t.deadline < t.period; });
  const std::string sum_name = r.densities ? "Σ C/D" : "U";
  const std::string max_name = r.densities ? "max C/D" : "u_max";

  // GFB: U ≤ m − (m−1)·u_max and u_max ≤ 1, with u_max = C*/D*:
  //   U ≤ (m·D* − (m−1)·C*) / D*.
  const bool max_ok = top.work() <= top.deadline;
  const i128 bound_num =
      static_cast<i128>(m) * wide(top.deadline) - static_cast<i128>(m - 1) * wide(top.work());
  r.gfb_bound = static_cast<double>(m) - static_cast<double>(m - 1) * r.max_density;
  r.gfb_holds = max_ok && total.at_most(bound_num, wide(top.deadline));
  if (!max_ok) {
    r.findings.push_back({top.name, "GFB: u_max ≤ 1", false, 1.0 - r.max_density, "",
                          "density C/D = " + fixed(r.max_density) +
                              " > 1: the GFB test (paws §2) holds only for tasks that fit on one core"});
  } else {
    r.findings.push_back({"", "GFB: U ≤ m − (m−1)·u_max", r.gfb_holds, r.gfb_bound - r.total_density, "",
                          sum_name + " = " + fixed(r.total_density) + (r.gfb_holds ? " ≤ " : " > ") +
                              "m − (m−1)·" + max_name + " = " + std::to_string(m) + " − " +
                              std::to_string(m - 1) + "·" + fixed(r.max_density) + " = " +
                              fixed(r.gfb_bound) + " (" + max_name + " from '" + top.name + "')"});
  }

  // Capacity augmentation (information only): Σu ≤ m/b and every L ≤ D/b.
  r.capacity_bound = m / kGlobalEdfCapacityBound;
  // p/q ≤ m/b  ⇔  p ≤ (m·q)/b; when the fraction is too large, the sum's upper bound
  // times b_up ≥ (3+√5)/2 (the double above the nearest double), rounded up: a sum
  // within rounding of the bound is rejected, never admitted.
  std::optional<bool> exact_ok;
  i128 mq;
  if (total.exact() && !__builtin_mul_overflow(static_cast<i128>(m), total.denominator(), &mq)) {
    exact_ok = within_capacity_bound(total.numerator(), mq);
  }
  constexpr long double kInf = std::numeric_limits<long double>::infinity();
  const long double b_up = std::nextafter(kGlobalEdfCapacityBound, std::numeric_limits<double>::infinity());
  const bool utilization_ok = exact_ok ? *exact_ok : std::nextafter(total.upper_bound() * b_up, kInf) <= m;
  bool spans_ok = true;
  for (std::size_t i = 0; i < r.tasks.size(); ++i) spans_ok = spans_ok && r.tasks[i].span_ok;
  r.capacity_utilization_holds = utilization_ok;
  r.capacity_holds = utilization_ok && spans_ok;
  // Admission is the GFB test alone. Li et al.'s bound is proved for a greedy, fully
  // preemptive global EDF; takt's gedf-paws preempts only at spawn and sync points (a
  // sequential job never) and may refuse a yield (docs/policies.md), so the bound is
  // reported beside the verdict, not used for it. (GFB assumes preemptive global EDF
  // too: see docs/analysis.md.)
  r.schedulable = r.gfb_holds;
  return r;
}

}  // namespace takt::analysis
