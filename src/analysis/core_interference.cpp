// The offset-aware request-bound function RBF* of FBB-FFD, kept per core as strands are placed.
#include "analysis/core_interference.hpp"

#include <algorithm>
#include <cassert>

namespace takt::analysis {

namespace {

/// ⌈d·fixed/2^64⌉ for d < 2^63 and fixed < 2^100, without a 256-bit product: with
/// fixed = hi·2^64 + lo it is d·hi + ⌈d·lo/2^64⌉ (d·lo < 2^127).
i128 scaled_ceil(std::int64_t d, i128 fixed) {
  static_assert(CoreInterference::kFixedPointBits == 64);
  const i128 hi = fixed >> 64;
  const i128 lo = fixed & ((i128{1} << 64) - 1);
  return static_cast<i128>(d) * hi + ceil_div(static_cast<i128>(d) * lo, i128{1} << 64);
}

/// Adds work·d/period to whole + remainders/period (its whole part and remainder);
/// false, adding nothing, where work·d does not fit in 128 bits.
bool add_rate_term(i128 work, std::int64_t period, std::int64_t d, i128& whole, RatioSum& remainders) {
  i128 product = 0;
  if (__builtin_mul_overflow(work, static_cast<i128>(d), &product)) return false;
  whole += product / period;
  remainders.add(static_cast<std::int64_t>(product % period), period);
  return true;
}

}  // namespace

CoreInterference::CoreInterference(int cores, std::vector<TaskTiming> tasks)
    : cores_(static_cast<std::size_t>(cores)), tasks_(std::move(tasks)) {}

void CoreInterference::recompute(Entry& entry, std::size_t task, std::int64_t d) const {
  const TaskTiming& timing = tasks_[task];
  const std::size_t k = entry.present.size();
  const std::int64_t period = timing.period.count();
  // Offsets and weights of the present segments, twice around the period.
  std::vector<std::int64_t> offset(2 * k);
  std::vector<i128> prefix(2 * k + 1, 0);
  for (std::size_t t = 0; t < 2 * k; ++t) {
    const auto& [segment, strands] = entry.present[t % k];
    offset[t] = timing.release[segment].count() + (t >= k ? period : 0);
    prefix[t + 1] = prefix[t] + static_cast<i128>(timing.length[segment].count()) * strands;
  }
  // For each first interfering segment l, the window is the segments released within
  // d of it, cyclically; `end` only moves forward as l does.
  i128 best = 0;
  std::int64_t until = std::numeric_limits<std::int64_t>::max();
  std::size_t end = 0;
  for (std::size_t l = 0; l < k; ++l) {
    end = std::max(end, l + 1);
    while (end < l + k && offset[end] - offset[l] <= d) ++end;
    best = std::max(best, prefix[end] - prefix[l]);
    if (end < l + k) until = std::min(until, offset[end] - offset[l]);
  }
  entry.window_max = best;
  entry.valid_until = until;
}

void CoreInterference::refresh(Core& core, std::int64_t d) {
  while (!core.expiry.empty() && std::get<0>(core.expiry.top()) <= d) {
    auto [until, task, version] = core.expiry.top();
    core.expiry.pop();
    Entry& entry = core.entries.at(task);
    if (entry.version != version) continue;  // superseded by a later placement
    core.window_sum -= entry.window_max;
    recompute(entry, task, d);
    core.window_sum += entry.window_max;
    if (entry.valid_until != std::numeric_limits<std::int64_t>::max()) {
      core.expiry.emplace(entry.valid_until, task, entry.version);
    }
  }
}

std::chrono::nanoseconds CoreInterference::load(int q, std::size_t task, std::size_t segment,
                                                std::chrono::nanoseconds deadline) {
  const std::int64_t d = deadline.count();
  assert(d >= last_d_ && "strands must be placed in non-decreasing deadline order");
  last_d_ = d;
  Core& core = cores_[static_cast<std::size_t>(q)];
  refresh(core, d);
  i128 windows = core.window_sum;
  i128 utilization = core.utilization_fixed;
  i128 rounded = core.strands;
  std::int64_t same_segment = 0;
  if (auto it = core.entries.find(task); it != core.entries.end()) {
    windows -= it->second.window_max;
    utilization -= it->second.utilization_fixed;
    rounded -= it->second.strands;
    for (const auto& [s, strands] : it->second.present) {
      if (s == segment) same_segment = strands;
    }
  }
  // The fixed-point sum is above the exact one by less than `rounded` units: if both
  // ends round up to the same nanosecond, that is the exact term.
  i128 rate_term = scaled_ceil(d, utilization);
  const i128 lower = scaled_ceil(d, std::max<i128>(0, utilization - rounded));
  if (lower != rate_term) rate_term = exact_rate_term(core, task, d, rate_term);
  const i128 total =
      windows + rate_term + static_cast<i128>(same_segment) * tasks_[task].length[segment].count();
  return std::chrono::nanoseconds{
      static_cast<std::int64_t>(std::min<i128>(total, std::numeric_limits<std::int64_t>::max()))};
}

i128 CoreInterference::exact_rate_term(const Core& core, std::size_t task, std::int64_t d, i128 bound) const {
  // Σ_j W_j·d/T_j summed by period: (Σ_{T_j = T} W_j)·d/T is the same rational, and a set
  // whose tasks share a few periods then costs a few terms instead of one per task on
  // the core (8,000 tasks of one period on 64 cores took 6.7 s, nearly all here).
  const auto own = core.entries.find(task);
  const std::int64_t own_period = tasks_[task].period.count();
  i128 whole = 0;
  RatioSum remainders;
  for (const auto& [period, work] : core.work_by_period) {
    const i128 w = work - (own != core.entries.end() && period == own_period ? own->second.work : 0);
    if (w == 0) continue;
    // A grouped product may overflow where each task's did not: then one term per task.
    if (!add_rate_term(w, period, d, whole, remainders)) return exact_rate_term_by_task(core, task, d, bound);
  }
  return rate_term_from(whole, remainders, bound);
}

i128 CoreInterference::exact_rate_term_by_task(const Core& core, std::size_t task, std::int64_t d,
                                               i128 bound) const {
  i128 whole = 0;
  RatioSum remainders;
  for (const auto& [j, entry] : core.entries) {
    if (j == task || entry.work == 0) continue;
    if (!add_rate_term(entry.work, tasks_[j].period.count(), d, whole, remainders)) return bound;
  }
  return rate_term_from(whole, remainders, bound);
}

i128 CoreInterference::rate_term_from(i128 whole, const RatioSum& remainders, i128 bound) {
  // The smallest whole c with Σ remainders ≤ c (at_most rounds towards "no": never below).
  i128 c = std::max<i128>(0, static_cast<i128>(remainders.value()) - 1);
  while (!remainders.at_most(c, 1)) ++c;
  return std::min(bound, whole + c);
}

void CoreInterference::place(int q, std::size_t task, std::size_t segment, std::chrono::nanoseconds deadline,
                             std::int64_t count) {
  const std::int64_t d = deadline.count();
  Core& core = cores_[static_cast<std::size_t>(q)];
  refresh(core, d);
  Entry& entry = core.entries[task];
  auto it =
      std::lower_bound(entry.present.begin(), entry.present.end(), std::make_pair(segment, std::int64_t{0}));
  if (it != entry.present.end() && it->first == segment) {
    it->second += count;
  } else {
    entry.present.insert(it, {segment, count});
  }
  const TaskTiming& timing = tasks_[task];
  const i128 share =
      ceil_div(static_cast<i128>(timing.length[segment].count()) << kFixedPointBits, timing.period.count());
  entry.utilization_fixed += share * count;
  core.utilization_fixed += share * count;
  entry.work += static_cast<i128>(timing.length[segment].count()) * count;
  core.work_by_period[timing.period.count()] += static_cast<i128>(timing.length[segment].count()) * count;
  entry.strands += count;
  core.strands += count;
  core.window_sum -= entry.window_max;
  recompute(entry, task, d);
  core.window_sum += entry.window_max;
  ++entry.version;
  if (entry.valid_until != std::numeric_limits<std::int64_t>::max()) {
    core.expiry.emplace(entry.valid_until, task, entry.version);
  }
}

}  // namespace takt::analysis
