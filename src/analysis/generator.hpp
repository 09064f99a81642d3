// Task-set generators of the source papers (`takt generate`): paws, rt-openmp, rtws, synthetic.
#pragma once

#include "model/decimal.hpp"
#include "model/program_profile.hpp"
#include "model/task_set.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace takt::analysis {

enum class GeneratorMethod { paws, rt_openmp, rtws, synthetic };

std::string_view to_string(GeneratorMethod method);
std::optional<GeneratorMethod> parse_generator_method(std::string_view text);

/// rtws: which programs may take a drawn utilization u (task period C/u).
enum class SpanLimit {
  /// L < D (C/L > u), or δ·L̂ < D when δ is set: what a finite federated core count needs
  /// (the paper has no filter)
  deadline,
  half_deadline,  ///< L̂ ≤ D/2, i.e. C/L̂ ≥ 2u: the capacity-augmentation condition
};

/// "deadline", "half-deadline".
std::string_view to_string(SpanLimit limit);
std::optional<SpanLimit> parse_span_limit(std::string_view text);

/// The smallest rt-openmp --timescale: the minimum period is 2^11 = 2048 time units,
/// and a unit is at least 1 ns.
inline constexpr std::chrono::nanoseconds kMinTimescale{2048};

struct GeneratorOptions {
  GeneratorMethod method = GeneratorMethod::rt_openmp;
  int cores = 2;             ///< m
  double utilization = 1.0;  ///< target Σ u_i, in cores (not a fraction of m)
  std::uint64_t seed = 1;
  /// rt-openmp: the minimum task period of Table I (2^11 time units); all periods
  /// and lengths scale with it. The paper's timescales: 2048ms, 32ms, 16ms, 8ms,
  /// 4ms, 2ms. At least kMinTimescale, at most model::kMaxDuration / 32 (the longest
  /// period, 2^16 units, must fit).
  std::chrono::nanoseconds timescale = std::chrono::milliseconds(16);
  /// rtws: the measured programs to draw tasks from.
  std::vector<model::ProgramProfile> programs;
  /// rtws: only profiles whose `program` is this (e.g. "cholesky" for the paper's
  /// Cholesky task sets); empty: all (the paper's Mixed task sets).
  std::string program;
  /// synthetic: task type 1, 2 or 3 of rtws §IV.A; 0 draws the type per task.
  int synthetic_type = 0;
  /// rtws: the programs a drawn utilization may go to (see generate()).
  SpanLimit span_limit = SpanLimit::deadline;
};

/// The generated set and a few lines saying what was generated (for the file header).
struct GeneratedSet {
  model::TaskSet set;
  std::string summary;
};

/// Generates a task set, reproducibly: the same options give the same set on every
/// platform (see Random). Throws takt::Error for options the method cannot meet
/// (e.g. a utilization window no task combination hits). Each method follows its
/// paper; docs/analysis.md lists the readings taken where a paper leaves a choice:
///  - paws (paws §5): u_i uniform in [0.1, 0.4], T_i = 100ms + x·50ms, tasks added
///    until Σu lies in the window [U − 0.02m, U]; one parallel region of
///    n_i = ⌈x·3m⌉ threads between two sequential parts; policy gedf-paws.
///  - rt-openmp (rt-openmp §VI.A): T_i = 2^k units, k ∈ {11..16}; span 8/10/14/20 %
///    of T_i with probability .4/.3/.2/.1; segment lengths 100 + log-normal (mean
///    400 units in all); strands 1 + log-normal (mean 4); Σu within 2 % of m below
///    U; policy partitioned-dm, worst-fit.
///  - rtws (rtws §VII.A): programs with measured work and span; mean utilization the
///    largest of {1, 3, 6, 12, 15} that keeps Σu ≤ U, u_i uniform in
///    [mean/2, 3·mean/2]; T_i = D_i = C_i / u_i; the program drawn uniformly among
///    those that can take u_i under `span_limit` (by default L < D, or δ·L̂ < D when
///    the profiles carry burdened spans; when none can, the most parallel one with
///    u_i lowered to the largest value at which it alone needs at most m cores);
///    policy federated (δ = 1.5 when the profiles carry burdened spans).
///  - synthetic (rtws §IV.A): synchronous tasks of type 1, 2 or 3 (10–20 segments;
///    type 1: 100,000–200,000 strands of 5–10 ns; type 2: 10,000–20,000 of
///    2,000–4,500 ns; type 3: 1,000–2,000 of 20,000–50,000 ns); utilizations as
///    for rtws; policy federated.
GeneratedSet generate(const GeneratorOptions& options);

/// The profiles shipped as the rtws default (examples/profiles/rtws-table2.yaml):
/// values from rtws Table II, labelled there.
std::vector<model::ProgramProfile> default_rtws_profiles();
/// The header comment of that file.
std::string default_rtws_profiles_header();

}  // namespace takt::analysis
