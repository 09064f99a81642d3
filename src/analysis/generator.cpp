// Task-set generators of the source papers (`takt generate`): common parts and dispatch.
#include "analysis/generator.hpp"

#include "analysis/generator_methods.hpp"
#include "takt/error.hpp"

#include <array>
#include <cstdio>
#include <utility>

namespace takt::analysis {
namespace {

constexpr std::array<std::pair<GeneratorMethod, std::string_view>, 4> kMethods{{
    {GeneratorMethod::paws, "paws"},
    {GeneratorMethod::rt_openmp, "rt-openmp"},
    {GeneratorMethod::rtws, "rtws"},
    {GeneratorMethod::synthetic, "synthetic"},
}};

}  // namespace

std::string_view to_string(GeneratorMethod method) {
  for (const auto& [m, name] : kMethods) {
    if (m == method) return name;
  }
  return "?";
}

std::optional<GeneratorMethod> parse_generator_method(std::string_view text) {
  for (const auto& [m, name] : kMethods) {
    if (name == text) return m;
  }
  return std::nullopt;
}

std::string_view to_string(SpanLimit limit) {
  return limit == SpanLimit::deadline ? "deadline" : "half-deadline";
}

std::optional<SpanLimit> parse_span_limit(std::string_view text) {
  if (text == "deadline") return SpanLimit::deadline;
  if (text == "half-deadline") return SpanLimit::half_deadline;
  return std::nullopt;
}

std::string format_number(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

GeneratedSet generate(const GeneratorOptions& options) {
  if (options.cores < 1) throw Error("--cores must be at least 1");
  if (options.cores > model::kMaxCores) {
    throw Error("--cores " + std::to_string(options.cores) + " is more cores than takt supports (at most " +
                std::to_string(model::kMaxCores) + ")");
  }
  if (!(options.utilization > 0)) throw Error("--utilization must be positive");
  if (options.utilization > options.cores) {
    throw Error("--utilization " + format_number(options.utilization, 3) + " exceeds the " +
                std::to_string(options.cores) + " cores; no policy can schedule more than m");
  }
  Random random(options.seed);
  GeneratedSet out;
  switch (options.method) {
    case GeneratorMethod::paws:
      out = generate_paws(options, random);
      break;
    case GeneratorMethod::rt_openmp:
      out = generate_rt_openmp(options, random);
      break;
    case GeneratorMethod::rtws:
      out = generate_rtws(options, random);
      break;
    case GeneratorMethod::synthetic:
      out = generate_synthetic(options, random);
      break;
  }
  out.set.source = "<generated>";
  out.set.global.cores = model::Cores::of_count(options.cores);
  out.set.global.policy_given = true;
  out.summary += "tasks: " + std::to_string(out.set.tasks.size()) +
                 ", total utilization: " + format_number(out.set.total_utilization(), 4);
  return out;
}

}  // namespace takt::analysis
