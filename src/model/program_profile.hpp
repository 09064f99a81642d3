// Measured work and span of programs (the input of the rtws task-set generator).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace takt::model {

/// One program run with given arguments and its measured work C and span L
/// (and burdened span L̂), e.g. as `takt profile` measures them (rtws §VII.A used
/// Cilkprof).
/// How `takt profile` took a profile's values: over how many jobs, which of their
/// values (the nearest-rank percentile; 100 = the maximum), on what machine, and when.
struct ProfileMeasurement {
  std::int64_t jobs = 0;
  double percentile = 100;
  std::string machine;  ///< e.g. "AMD EPYC, 2 CPU(s)"; may be empty
  std::string date;     ///< e.g. "2026-11-29"; may be empty
};

struct ProgramProfile {
  std::string name;     ///< a label, e.g. "cholesky-3000"
  std::string program;  ///< what a task runs
  std::vector<std::string> args;
  std::chrono::nanoseconds work{0};
  std::chrono::nanoseconds span{0};
  std::optional<std::chrono::nanoseconds> burdened_span;
  /// Written by `takt profile --profiles` for each entry (the file's header cannot say
  /// it once: entries may be measured with different --jobs and --percentile).
  std::optional<ProfileMeasurement> measured;
};

/// Reads a profile file:
///   programs:
///     - {name: cholesky-3000, program: cholesky, args: [3000], work: 32.31s, span: 1.23s,
///        burdened_span: 1.28s,
///        measured: {jobs: 10, percentile: 100, machine: "...", date: 2026-11-29}}
/// (`measured` optional, with `jobs` and `percentile` required in it).
/// Strict like the task-set parser (unknown keys, units, span ≤ work, burdened
/// span ≥ span, unique names); errors carry "source:line:column".
std::vector<ProgramProfile> parse_program_profiles(std::string_view text, const std::string& source);
std::vector<ProgramProfile> parse_program_profiles_file(const std::string& path);

/// Renders profiles in that format (with optional "# " header lines).
std::string write_program_profiles(const std::vector<ProgramProfile>& profiles,
                                   const std::string& header = {});

}  // namespace takt::model
