// Measured work and span of programs (the input of the rtws task-set generator).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace takt::model {

/// One program run with given arguments and its measured work C and span L
/// (and burdened span L̂), e.g. as `takt profile` measures them (rtws §VII.A used
/// Cilkprof).
struct ProgramProfile {
  std::string name;     ///< a label, e.g. "cholesky-3000"
  std::string program;  ///< what a task runs
  std::vector<std::string> args;
  std::chrono::nanoseconds work{0};
  std::chrono::nanoseconds span{0};
  std::optional<std::chrono::nanoseconds> burdened_span;
};

/// Reads a profile file:
///   programs:
///     - {name: cholesky-3000, program: cholesky, args: [3000], work: 32.31s, span: 1.23s,
///        burdened_span: 1.28s}
/// Strict like the task-set parser (unknown keys, units, span ≤ work, burdened
/// span ≥ span, unique names); errors carry "source:line:column".
std::vector<ProgramProfile> parse_program_profiles(std::string_view text, const std::string& source);
std::vector<ProgramProfile> parse_program_profiles_file(const std::string& path);

/// Renders profiles in that format (with optional "# " header lines).
std::string write_program_profiles(const std::vector<ProgramProfile>& profiles,
                                   const std::string& header = {});

}  // namespace takt::model
