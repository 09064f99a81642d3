// Federated scheduling (Li et al., rtws §V): dedicated cores for high-utilization tasks.
#include "analysis/federated.hpp"

#include "analysis/exact.hpp"
#include "model/duration.hpp"
#include "takt/error.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

namespace takt::analysis {
namespace {

using model::format_duration;
using std::chrono::nanoseconds;

std::string fixed(double value, int decimals = 3) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string decimal(i128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string digits;
  for (; v != 0; v /= 10)
    digits.insert(digits.begin(), static_cast<char>('0' + (negative ? -(v % 10) : v % 10)));
  return negative ? "-" + digits : digits;
}

std::int64_t saturated(i128 v) {
  return v > std::numeric_limits<std::int64_t>::max() ? std::numeric_limits<std::int64_t>::max()
                                                      : static_cast<std::int64_t>(v);
}

// num/den nanoseconds (num ≥ 0, den a power of ten), exactly: "10.2ms", or in
// nanoseconds with decimals when it is not a whole nanosecond ("7.65ns").
std::string exact_duration(i128 num, i128 den) {
  if (num % den == 0 && num / den <= std::numeric_limits<std::int64_t>::max()) {
    return format_duration(nanoseconds{static_cast<std::int64_t>(num / den)});
  }
  std::string fraction = decimal(num % den + den).substr(1);  // leading digits of the remainder
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  return decimal(num / den) + (fraction.empty() ? "" : "." + fraction) + "ns";
}

/// The shared cores' densities (their RatioSums' long double values) in a min segment
/// tree, so that packing a light task finds its candidate core in O(log m) instead of
/// trying every core (72,000 light tasks on 30,000 shared cores took minutes). The
/// exact test stays RatioSum::at_most; the tree only orders and prunes by the values.
class SharedLoads {
 public:
  explicit SharedLoads(std::size_t cores) : leaves_(std::bit_ceil(std::max<std::size_t>(cores, 1))) {
    tree_.assign(2 * leaves_, std::numeric_limits<long double>::infinity());
    for (std::size_t k = 0; k < cores; ++k) tree_[leaves_ + k] = 0;
    for (std::size_t i = leaves_ - 1; i >= 1; --i) tree_[i] = std::min(tree_[2 * i], tree_[2 * i + 1]);
  }
  void set(std::size_t k, long double value) {
    std::size_t i = leaves_ + k;
    tree_[i] = value;
    for (i /= 2; i >= 1; i /= 2) tree_[i] = std::min(tree_[2 * i], tree_[2 * i + 1]);
  }
  /// The first core at index ≥ from whose value is ≤ limit, or -1.
  [[nodiscard]] long first_at_most(long double limit, std::size_t from) const {
    return from >= leaves_ ? -1 : first(1, 0, leaves_, limit, from);
  }
  /// The least loaded core, the lowest index among equal values (-1 when there is none).
  [[nodiscard]] long least() const {
    return tree_[1] == std::numeric_limits<long double>::infinity() ? -1 : first_at_most(tree_[1], 0);
  }

 private:
  long first(std::size_t node, std::size_t lo, std::size_t hi, long double limit, std::size_t from) const {
    if (hi <= from || tree_[node] > limit) return -1;
    if (hi - lo == 1) return static_cast<long>(lo);
    const std::size_t mid = (lo + hi) / 2;
    if (long left = first(2 * node, lo, mid, limit, from); left >= 0) return left;
    return first(2 * node + 1, mid, hi, limit, from);
  }
  std::size_t leaves_;
  std::vector<long double> tree_;
};

// Throws takt::Error unless δ ≥ 1 (model::delta_problem says why).
void check_delta(const model::Decimal& delta) {
  if (std::string problem = model::delta_problem(delta); !problem.empty()) throw Error("δ = " + problem);
}

// The core counts in 128 bits (the public functions saturate them to 64).
std::optional<i128> classic_cores(nanoseconds work, nanoseconds span, nanoseconds deadline) {
  if (deadline <= span) return std::nullopt;
  // (C − L)/(D − L) with D > L: a plain integer ceiling.
  return ceil_div(wide(work) - wide(span), wide(deadline) - wide(span));
}

std::optional<i128> overhead_cores(nanoseconds work, nanoseconds burdened_span, nanoseconds deadline,
                                   model::Decimal delta) {
  // δ = p/q: (C + D − (p/q)·L̂) / (D − (p/q)·L̂) = (q(C + D) − p·L̂) / (q·D − p·L̂).
  const i128 p = delta.numerator, q = delta.denominator;
  const i128 slack = q * wide(deadline) - p * wide(burdened_span);
  if (slack <= 0) return std::nullopt;
  const i128 top = q * (wide(work) + wide(deadline)) - p * wide(burdened_span);
  return ceil_div(top, slack);
}

}  // namespace

std::optional<std::int64_t> federated_cores(nanoseconds work, nanoseconds span, nanoseconds deadline) {
  auto n = classic_cores(work, span, deadline);
  if (!n) return std::nullopt;
  return saturated(*n);
}

std::optional<std::int64_t> federated_cores_with_overhead(nanoseconds work, nanoseconds burdened_span,
                                                          nanoseconds deadline, model::Decimal delta) {
  check_delta(delta);
  auto n = overhead_cores(work, burdened_span, deadline, delta);
  if (!n) return std::nullopt;
  return saturated(*n);
}

std::optional<double> expected_response_bound(nanoseconds work, nanoseconds burdened_span,
                                              nanoseconds deadline, model::Decimal delta,
                                              std::int64_t cores) {
  check_delta(delta);
  // Lemma 2 of rtws §V.B with the inter-arrival time Y = D_i ("implicit deadline is the
  // inter-arrival time Y = D_i"). For D_i < T_i takt keeps Y = D_i rather than T_i: jobs
  // arrive at least T_i ≥ D_i apart, so a minimum inter-arrival time of D_i is also true,
  // the lemma applies with it, and its bound (decreasing in Y) is the larger, safe one;
  // E[X] < D_i is needed for the deadline anyway.
  const double d = delta.value();
  const double mean = static_cast<double>(work.count()) / static_cast<double>(cores) +
                      d * static_cast<double>(burdened_span.count());
  const double room = static_cast<double>(deadline.count()) - mean;
  if (room <= 0) return std::nullopt;
  const double variance = std::pow(d / std::log(2.0), 2);
  return mean + variance / (2 * room);
}

FederatedResult analyse_federated(const model::TaskSet& set, const FederatedOptions& options) {
  if (options.delta) check_delta(*options.delta);
  FederatedResult result;
  result.cores = options.cores.count;
  result.with_overhead = options.delta.has_value();
  result.delta = options.delta;
  const int m = options.cores.count;

  // 1. Core counts of the high tasks, in file order. Counts, their sum and the cores
  // handed out are kept in 128 bits: with a fine δ or a span just below the deadline
  // one count alone can pass 2^63.
  i128 next_core = 0;  // cores granted so far (the first ones)
  i128 demand = 0;     // Σ n_i
  bool all_high_fit = true;
  std::vector<std::size_t> low;
  for (std::size_t i = 0; i < set.tasks.size(); ++i) {
    const model::Task& t = set.tasks[i];
    FederatedGrant g;
    g.name = t.name;
    g.work = t.work();
    g.span = t.span();
    g.deadline = t.deadline;
    g.period = t.period;
    g.utilization = t.utilization();
    g.density = t.density();
    g.high = g.work > g.deadline;
    if (!g.high) {
      low.push_back(i);
      result.grants.push_back(std::move(g));
      continue;
    }
    std::optional<i128> n;
    if (options.delta) {
      g.span_used = t.burdened_span_or_span();
      // Without a burdened span, eq. 3 takes the span: said once, after the formula.
      const std::string lhat = t.burdened_span ? "L̂" : "L";
      const std::string lhat_note = t.burdened_span ? "" : " (L: no burdened_span given)";
      n = overhead_cores(g.work, g.span_used, g.deadline, *options.delta);
      const std::string delta_text = options.delta->to_string();
      const i128 p = options.delta->numerator, q = options.delta->denominator;
      const std::string delta_lhat =
          delta_text + "·" + format_duration(g.span_used) + " = " + exact_duration(p * wide(g.span_used), q);
      if (!n) {
        g.formula = "none: D ≤ δ·" + lhat + lhat_note;
        const double need = options.delta->value() * static_cast<double>(g.span_used.count());
        result.findings.push_back(
            {t.name, "rtws eq. 3", false, static_cast<double>(g.deadline.count()) - need, "ns",
             "D = " + format_duration(g.deadline) + " ≤ δ·" + lhat + " = " + delta_lhat +
                 ": no number of cores meets the deadline under work stealing (short by " +
                 exact_duration(p * wide(g.span_used) - q * wide(g.deadline), q) + ")" + lhat_note});
      } else {
        g.formula = "n = ⌈(C + D − δ·" + lhat + ")/(D − δ·" + lhat + ")⌉ = ⌈(" + format_duration(g.work) +
                    " + " + format_duration(g.deadline) + " − " + delta_text + "·" +
                    format_duration(g.span_used) + ")/(" + format_duration(g.deadline) + " − " + delta_text +
                    "·" + format_duration(g.span_used) + ")⌉ = " + decimal(*n) + lhat_note;
        g.expected_response_ns =
            expected_response_bound(g.work, g.span_used, g.deadline, *options.delta, saturated(*n));
      }
    } else {
      g.span_used = g.span;
      n = classic_cores(g.work, g.span, g.deadline);
      if (!n) {
        g.formula = "none: D = L";
        result.findings.push_back({t.name, "federated core count", false, 0, "ns",
                                   "D = L = " + format_duration(g.deadline) +
                                       ": a task with more work than its deadline (C = " +
                                       format_duration(g.work) +
                                       " > D) and a span equal to its deadline cannot finish on any number "
                                       "of cores"});
      } else {
        g.formula = "n = ⌈(C − L)/(D − L)⌉ = ⌈(" + format_duration(g.work) + " − " + format_duration(g.span) +
                    ")/(" + format_duration(g.deadline) + " − " + format_duration(g.span) +
                    ")⌉ = " + decimal(*n);
      }
    }
    if (!n) {
      all_high_fit = false;
      result.grants.push_back(std::move(g));
      continue;
    }
    g.cores = saturated(*n);
    demand += *n;
    if (*n <= m - next_core) {
      g.granted = true;
      for (i128 k = 0; k < *n; ++k) g.core_ids.push_back(options.cores.id(static_cast<int>(next_core + k)));
      next_core += *n;
      result.findings.push_back({t.name, "federated core count", true, 0, "cores", g.formula});
    } else {
      all_high_fit = false;
      // Its E[R] holds on n_i cores of its own, which it did not get (analyze --json gave
      // it; the text said "no bound").
      g.expected_response_ns.reset();
      result.findings.push_back(
          {t.name, "federated core count", false, static_cast<double>(m - next_core - *n), "cores",
           g.formula + " dedicated cores, but only " + decimal(m - next_core) + " of " + std::to_string(m) +
               " remain (short by " + decimal(next_core + *n - m) + ")"});
    }
    result.grants.push_back(std::move(g));
  }
  result.dedicated_cores = saturated(demand);
  result.granted_cores = static_cast<int>(next_core);
  result.findings.push_back({"", "dedicated cores", demand <= m, static_cast<double>(m - demand), "cores",
                             "the high-utilization tasks need " + decimal(demand) + " dedicated cores of " +
                                 std::to_string(m) +
                                 (demand <= m ? " (" + decimal(m - demand) + " left)"
                                              : " (short by " + decimal(demand - m) + ")")});

  // 2. Low tasks: sequential, packed onto the cores no high task was granted, EDF
  // density ≤ 1 per core.
  const int first_shared = result.granted_cores;
  result.shared_cores = m - first_shared;
  std::vector<RatioSum> load(static_cast<std::size_t>(result.shared_cores));
  for (int k = 0; k < result.shared_cores; ++k)
    result.shared.push_back({options.cores.id(first_shared + k), 0, {}});
  std::stable_sort(low.begin(), low.end(), [&](std::size_t a, std::size_t b) {
    // Decreasing density C/D, compared exactly: C_a·D_b > C_b·D_a.
    return wide(result.grants[a].work) * wide(result.grants[b].deadline) >
           wide(result.grants[b].work) * wide(result.grants[a].deadline);
  });
  bool all_low_fit = true;
  SharedLoads values(load.size());
  // A core whose value is above 1 − C/D by more than the values' rounding cannot pass the
  // exact test and is not tried: a value is a long double sum of densities that stays
  // ≤ 1, off by less than 2^-63 per term (x86-64's 80-bit long double), below 10^-9 for
  // any number of tasks a file holds.
  constexpr long double kMargin = 1e-9L;
  const auto fits = [&](int k, const FederatedGrant& g) {
    RatioSum with = load[static_cast<std::size_t>(k)];
    with.add(g.work.count(), g.deadline.count());
    return with.at_most(1, 1);
  };
  for (std::size_t i : low) {
    FederatedGrant& g = result.grants[i];
    const long double limit =
        1.0L - static_cast<long double>(g.work.count()) / static_cast<long double>(g.deadline.count()) +
        kMargin;
    int chosen = -1;
    const int least = static_cast<int>(values.least());
    if (options.fit == model::Fit::worst_fit && least >= 0 && fits(least, g)) {
      // Worst-fit: the least loaded core passes unless the task fits nowhere or within
      // rounding of the bound; only then are the others tried.
      chosen = least;
    } else {
      // The candidates in index order: first-fit takes the first that passes the exact
      // test, worst-fit the least loaded that does (the lowest index among equal values).
      for (long k = values.first_at_most(limit, 0); k >= 0; k = values.first_at_most(limit, k + 1)) {
        if (!fits(static_cast<int>(k), g)) continue;
        if (options.fit == model::Fit::first_fit) {
          chosen = static_cast<int>(k);
          break;
        }
        if (chosen < 0 ||
            load[static_cast<std::size_t>(k)].value() < load[static_cast<std::size_t>(chosen)].value())
          chosen = static_cast<int>(k);
      }
    }
    if (chosen < 0) {
      all_low_fit = false;
      if (least < 0) {
        result.findings.push_back({g.name, "EDF density on a shared core", false, -g.density, "",
                                   "no core is left for the low-utilization tasks (all " + std::to_string(m) +
                                       " are granted to high-utilization tasks); this task needs density " +
                                       fixed(g.density)});
      } else {
        double free = 1.0 - static_cast<double>(load[static_cast<std::size_t>(least)].value());
        result.findings.push_back(
            {g.name, "EDF density on a shared core", false, free - g.density, "",
             "density C/D = " + fixed(g.density) + " fits on no shared core: the least loaded (core " +
                 std::to_string(result.shared[static_cast<std::size_t>(least)].core_id) + ") has " +
                 fixed(free) + " free (short by " + fixed(g.density - free) + ")"});
      }
      continue;
    }
    auto& core = load[static_cast<std::size_t>(chosen)];
    core.add(g.work.count(), g.deadline.count());
    values.set(static_cast<std::size_t>(chosen), core.value());
    SharedCore& shared = result.shared[static_cast<std::size_t>(chosen)];
    shared.density = static_cast<double>(core.value());
    shared.tasks.push_back(g.name);
    g.granted = true;
    g.cores = 1;
    g.core_ids = {shared.core_id};
    g.formula = "sequential on shared core " + std::to_string(shared.core_id);
  }
  for (std::size_t k = 0; k < result.shared.size(); ++k) {
    if (result.shared[k].tasks.empty()) continue;
    double free = 1.0 - result.shared[k].density;
    std::string names;
    for (const std::string& n : result.shared[k].tasks) names += (names.empty() ? "" : ", ") + n;
    result.findings.push_back({"", "EDF density on shared core " + std::to_string(result.shared[k].core_id),
                               true, free, "",
                               "Σ C/D = " + fixed(result.shared[k].density) + " ≤ 1 (" + names + ")"});
  }
  result.schedulable = all_high_fit && all_low_fit;

  // 3. Capacity augmentation (informational). Proved for implicit deadlines and the
  // classic core count. With D < T a task is analysed here exactly as one with T = D
  // (only C, L and D enter the core count and the EDF density test), and any job
  // sequence of (C, D, T) is one of (C, D, D): the bound for that implicit-deadline
  // set, whose utilizations are the densities C/D, carries over.
  CapacityAugmentation& cap = result.capacity;
  cap.utilization_bound = m / cap.factor;
  cap.densities = std::any_of(set.tasks.begin(), set.tasks.end(),
                              [](const model::Task& t) { return t.deadline < t.period; });
  RatioSum total;
  for (const model::Task& t : set.tasks) {
    total.add(t.work().count(), (cap.densities ? t.deadline : t.period).count());
    // L ≤ D/2, not rtws's strict L < D/2: see CapacityAugmentation.
    if (2 * wide(t.span()) > wide(t.deadline)) cap.long_span_tasks.push_back(t.name);
  }
  cap.total_utilization = static_cast<double>(total.value());
  if (options.delta) {
    cap.not_applicable =
        "δ is set: rtws eq. 3 grants more cores than the classic count the bound is proved for";
  } else {
    cap.holds = total.at_most(m, 2) && cap.long_span_tasks.empty();
  }
  return result;
}

}  // namespace takt::analysis
