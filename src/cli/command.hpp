// The subcommand registry of the takt program: each cmd_*.cpp registers itself.
#pragma once

#include "analysis/analyse.hpp"
#include "model/decimal.hpp"
#include "model/policy.hpp"
#include "model/task_set.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <climits>
#include <concepts>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace takt::cli {

/// Exit codes shared by every subcommand.
inline constexpr int exit_ok = 0;
inline constexpr int exit_bad_input = 1;      ///< bad input, missing file, unknown program ...
inline constexpr int exit_unschedulable = 2;  ///< the task set fails the analysis

/// What runs after the command line was parsed; returns the exit code.
using Action = std::function<int()>;

/// A subcommand: its path from the top ({"analyze"}, {"bench", "runtime"}), a one-line
/// description, and a function that declares its options on the given CLI11 app and
/// returns the action to run.
struct Command {
  std::vector<std::string> path;
  std::string description;
  std::function<Action(CLI::App&)> configure;
};

/// A CLI11 check for a whole-number option of at least `minimum` whose message says so
/// ("--cores: expects a whole number of at least 1, not '0'"), instead of CLI11's
/// PositiveNumber range of doubles; a number above `maximum` is "too large" (at most
/// `maximum`).
CLI::Validator whole_at_least(long long minimum, unsigned long long maximum);
/// The same for an option stored in `target`: at most the largest value of its type
/// (an int option given 99999999999 got CLI11's "Could not convert").
template <std::integral T>
CLI::Validator whole_at_least_for(long long minimum, const T& /*target*/) {
  return whole_at_least(minimum, static_cast<unsigned long long>(std::numeric_limits<T>::max()));
}
/// The same, also at most `maximum` ("--cores: expects a whole number from 1 to 65536, not
/// '3000000000'", where CLI11's conversion said "Could not convert").
CLI::Validator whole_in_range(long long minimum, long long maximum);
/// A CLI11 check for a decimal option from `minimum` to `maximum` ("--percentile: expects
/// a number from 0.001 to 100, not 'abc'"), where CLI11's Range called a word that is no
/// number "not in range" and printed its bounds with six decimals.
CLI::Validator number_in_range(double minimum, double maximum);

/// A CLI11 check for an option that names a file to write (--json, --trace, -o): refuses,
/// while the command line is parsed and so before anything runs, a path that
/// platform::check_writable() refuses ("--json: cannot write '/tmp': it is a folder; ...").
/// An empty value passes (run_main() reports it).
CLI::Validator output_file();

/// Marks an option (or positional argument) that names a file the command reads, e.g.
/// input_file("the task-set file"). It checks nothing itself; run_main() refuses, before
/// the command runs, an output_file() option that names the same file as such an option
/// (writing it would destroy the input), and two output_file() options that name the
/// same file (the second would overwrite the first). `what` says what the file is.
CLI::Validator input_file(const std::string& what);

/// A CLI11 check for an option that takes a duration (model::parse_duration: "10s",
/// "1.5ms"), whose message names the option ("--duration: '1' has no unit; add one of
/// ..."), as every command-line mistake does. With `positive`, zero is refused too.
CLI::Validator duration_option(bool positive);
/// As duration_option(), for an option of at least `minimum`; `meaning` says why, and
/// the message names the option, the minimum and the reason ("--timescale: must be at
/// least 2.048us (...), not '0s'"). The --help line shows DURATION>=minimum.
CLI::Validator duration_at_least(std::chrono::nanoseconds minimum, std::string meaning);

/// A CLI11 check for an option whose values are names from `names` (each value of a
/// list): "unknown KIND 'x'; choose from a, b, c".
CLI::Validator one_of(std::string kind, std::vector<std::string> names);

/// A command-line value that a command refuses once it runs (an unknown --policy, a
/// --delta below 1, an option of another --method): reported as CLI11's own errors are,
/// with the line that names the command's --help.
class OptionError : public Error {
 public:
  using Error::Error;
};

/// Throws OptionError where a list option names one value twice: "--pes names 2 twice;
/// give each PE count once" (`what`: "PE count"). Every list option of every command
/// refuses a repeat (until 2026-11-29 some ran it twice, some dropped it, some refused).
template <class T>
void each_once(const std::vector<T>& values, std::string_view option, std::string_view what) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    for (std::size_t j = i + 1; j < values.size(); ++j) {
      if (values[i] == values[j]) {
        throw OptionError(fmt::format("{} names {} twice; give each {} once", option, values[i], what));
      }
    }
  }
}

/// The value of a --delta option (δ of rtws eq. 3: a decimal of at least 1); throws
/// OptionError naming --delta when `text` is no such number.
model::Decimal delta_option(const std::string& text);
/// The value of a --policy option; throws OptionError naming the policies for an unknown one.
model::Policy policy_option(const std::string& text);
/// The value of a --fit option; throws OptionError naming the two for an unknown one.
model::Fit fit_option(const std::string& text);
/// Refuses --delta and --fit where the policy that runs (`policy`) does not use them,
/// instead of ignoring them (OptionError): --delta only for the federated policies, --fit
/// not for gedf-paws.
void check_policy_options(model::Policy policy, bool delta_given, bool fit_given);
/// A note (lines ending in '\n', or "") naming the task set's own `delta` and `fit`
/// that `policy` does not use. Not an error, unlike the flags: one file may be run
/// under several policies with --policy.
std::string unused_file_options_note(const model::TaskSet& set, model::Policy policy);
/// The analysis options of takt analyze and takt run: --policy, --fit, --delta and
/// --cores (0: not given) over the task set's own `global`, each flag checked
/// (check_policy_options). Where neither --cores nor the file name the cores, the CPUs
/// this process may use, and `cores_assumed` is set for the command to say so. `note` is
/// unused_file_options_note() for the policy that runs.
struct AnalysisChoice {
  analysis::AnalysisOptions options;
  std::string note;
  bool cores_assumed = false;
};
AnalysisChoice analysis_choice(const model::TaskSet& set, const std::string& policy, const std::string& fit,
                               const std::string& delta, int cores);
/// The --help text of a --delta option (analyze and run).
inline constexpr const char* kDeltaHelp =
    "δ of rtws eq. 3, at least 1: federated and federated-greedy with work-stealing overhead (rtws: 3.65, "
    "1.7, 1.5); refused with the other policies";

/// Registers a subcommand. Call from a namespace-scope initialiser:
///   [[maybe_unused]] const bool registered = register_command({...});
bool register_command(Command command);

/// Registers a group of subcommands (e.g. {"bench"}) with its description.
bool register_group(std::vector<std::string> path, std::string description);

/// Flushes stdout and stderr. Output lost on the way out (a full disk, a closed file) is
/// an error, not success: when writing stdout failed, says so on stderr and returns
/// exit_bad_input for an `code` of exit_ok (`code` otherwise). The message suggests -o
/// FILE for a command that has it (generate, convert). run_main() applies it after every
/// command; a command that ends the process itself calls it first.
int check_standard_output(int code);

/// How every command ends (run_main() calls it; a command that ends the process itself
/// calls it first): check_standard_output(code), then, if a SIGINT or SIGTERM stopped
/// the command (platform::first_handled_signal; its results are written by now), the
/// process ends by that signal (platform::end_by_signal). Else returns the code.
int finish_command(int code);

/// Builds the whole command tree on `app`, parses argv, runs the chosen action and
/// returns the process's exit code. Errors the user can fix (takt::Error) print
/// "takt: error: ..." and give exit code 1.
int run_main(int argc, char** argv);

}  // namespace takt::cli
