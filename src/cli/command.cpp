// The subcommand registry of the takt program: each cmd_*.cpp registers itself.
#include "cli/command.hpp"

#include "model/duration.hpp"
#include "model/task_set.hpp"
#include "model/yaml_reader.hpp"
#include "os/cpu.hpp"
#include "os/diagnostics.hpp"
#include "platform/metrics_json.hpp"
#include "platform/signal_stop.hpp"

#include "takt/error.hpp"
#include "takt/version.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <new>

namespace takt::cli {
namespace {

struct Registry {
  std::vector<Command> commands;
  std::map<std::vector<std::string>, std::string> groups;
};

Registry& registry() {
  static Registry r;
  return r;
}

// The names of the validators that mark file options for check_files().
constexpr std::string_view kOutputFile = "takt:output-file";
constexpr std::string_view kInputFile = "takt:input-file:";  // then what the file is

/// Whether paths `a` and `b` name the same regular file (a link, a hard link or another
/// spelling of it), or the same path where no file exists yet (a link to it included:
/// platform::write_target()). A device or a FIFO (/dev/null) is written in place and may
/// take several outputs.
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status sa = fs::status(a, ec);
  const fs::file_status sb = fs::status(b, ec);
  if (fs::exists(sa) != fs::exists(sb)) return false;
  if (fs::exists(sa)) {
    if (!fs::is_regular_file(sa) || !fs::is_regular_file(sb)) return false;
    const bool same = fs::equivalent(a, b, ec);
    return same && !ec;
  }
  fs::path ta, tb;
  try {
    ta = platform::write_target(a);
    tb = platform::write_target(b);
  } catch (const Error&) {
    return false;  // a loop of links: output_file() has said so
  }
  const fs::path ca = fs::weakly_canonical(fs::absolute(ta), ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(fs::absolute(tb), ec);
  return !ec && ca == cb;
}

/// "a pipe" or "a socket" where `path` is this process's standard input and that is a
/// pipe, a FIFO or a socket (`--json /dev/stdin` under `cmd | takt ...`): what takt wrote
/// there would go into its own input, where nothing reads it (and a full pipe would block
/// the write); "" otherwise.
std::string_view standard_input_pipe(const std::string& path) {
  struct stat in {};
  struct stat file {};
  if (::fstat(STDIN_FILENO, &in) != 0 || !(S_ISFIFO(in.st_mode) || S_ISSOCK(in.st_mode))) return "";
  if (::stat(path.c_str(), &file) != 0 || file.st_dev != in.st_dev || file.st_ino != in.st_ino) return "";
  return S_ISSOCK(in.st_mode) ? "a socket" : "a pipe";
}

/// Whether `path` is a named FIFO (mkfifo), not a pipe reached through /dev/fd (a shell's
/// <(...)) or /proc: opening it for reading waits until a program opens it for writing.
bool is_named_fifo(const std::string& path) {
  struct stat file {};
  struct statfs fs_info {};
  return ::stat(path.c_str(), &file) == 0 && S_ISFIFO(file.st_mode) &&
         ::statfs(path.c_str(), &fs_info) == 0 && fs_info.f_type != PIPEFS_MAGIC;
}

/// Refuses file options of one command that name the same file: an output that is an
/// input would destroy the input, and the second of two outputs would replace the first.
/// Returns the message, or "" when every file is named once.
std::string check_files(CLI::App& command) {
  namespace fs = std::filesystem;
  struct File {
    std::string option;
    std::string path;
    std::string input;  // what the file is, for an input
  };
  std::vector<File> outputs, inputs;
  for (CLI::Option* option : command.get_options()) {
    if (option->count() == 0) continue;
    for (int i = 0;; ++i) {
      const CLI::Validator* validator = nullptr;
      try {
        validator = option->get_validator(i);
      } catch (const CLI::OptionNotFound&) {
        break;
      }
      const std::string& name = validator->get_name();
      for (const std::string& value : option->results()) {
        if (name == kOutputFile) outputs.push_back({option->get_name(), value, {}});
        // An input that is not there cannot be destroyed: the command says it is missing.
        std::error_code ec;
        if (name.rfind(kInputFile, 0) == 0 && fs::exists(fs::status(value, ec))) {
          inputs.push_back({option->get_name(), value, name.substr(kInputFile.size())});
        }
      }
    }
  }
  for (const File& out : outputs) {
    for (const File& in : inputs) {
      if (same_file(out.path, in.path)) {
        return fmt::format(
            "{}: '{}' is {} this command reads{}; writing it would destroy it: give {} "
            "another file",
            out.option, out.path, in.input, in.path == out.path ? std::string() : " ('" + in.path + "')",
            out.option);
      }
    }
  }
  for (const File& out : outputs) {
    if (const std::string_view kind = standard_input_pipe(out.path); !kind.empty()) {
      return fmt::format(
          "{}: '{}' is this command's standard input, {}: what takt wrote there would go back into its "
          "own input, where nothing reads it; give {} a file",
          out.option, out.path, kind, out.option);
    }
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (same_file(outputs[i].path, outputs[j].path)) {
        return fmt::format(
            "{} '{}' and {} '{}' name the same file, so one would replace the other: give "
            "each its own file",
            outputs[i].option, outputs[i].path, outputs[j].option, outputs[j].path);
      }
    }
  }
  // A named FIFO with no writer yet would hold the command in open() with nothing said.
  for (const File& in : inputs) {
    if (is_named_fifo(in.path)) {
      os::to_stderr(
          "takt: {} '{}' is a FIFO: reading it waits until a program opens it for writing "
          "(Ctrl-C stops)\n",
          in.input, in.path);
    }
  }
  return {};
}

}  // namespace

bool register_command(Command command) {
  registry().commands.push_back(std::move(command));
  return true;
}

bool register_group(std::vector<std::string> path, std::string description) {
  registry().groups[std::move(path)] = std::move(description);
  return true;
}

model::Decimal delta_option(const std::string& text) {
  model::Decimal delta;
  try {
    delta = model::Decimal::parse(text);
  } catch (const Error& e) {  // its reason: no number, too many decimals, too large
    throw OptionError(fmt::format("--delta: expects a decimal number of at least 1: {}", e.what()));
  }
  if (std::string problem = model::delta_problem(delta); !problem.empty()) {
    throw OptionError("--delta " + problem);
  }
  return delta;
}

model::Policy policy_option(const std::string& text) {
  if (auto policy = model::parse_policy(text)) return *policy;
  throw OptionError("unknown policy '" + text + "'; use one of " + model::policy_names());
}

model::Fit fit_option(const std::string& text) {
  if (auto fit = model::parse_fit(text)) return *fit;
  throw OptionError("unknown --fit '" + text + "'; use first-fit or worst-fit");
}

void check_policy_options(model::Policy policy, bool delta_given, bool fit_given) {
  const bool federated = policy == model::Policy::federated || policy == model::Policy::federated_greedy;
  if (delta_given && !federated) {
    throw OptionError(
        fmt::format("--delta is δ of the federated core grant (rtws eq. 3), which the {} policy does "
                    "not use; leave --delta out, or give --policy federated or federated-greedy",
                    model::to_string(policy)));
  }
  if (fit_given && policy == model::Policy::gedf_paws) {
    throw OptionError(
        "--fit chooses how tasks are packed onto cores (federated's shared cores, partitioned-dm's strands), "
        "which the gedf-paws policy does not do; leave --fit out, or give another --policy");
  }
}

std::string unused_file_options_note(const model::TaskSet& set, model::Policy policy) {
  std::string note;
  const bool federated = policy == model::Policy::federated || policy == model::Policy::federated_greedy;
  if (set.global.delta && !federated) {
    note += fmt::format(
        "note: the task set's delta ({}, {}) is not used: it is δ of the federated core grant, "
        "and the policy is {}\n",
        set.global.delta->to_string(), set.global.marks.delta.where(set.source), model::to_string(policy));
  }
  if (set.global.marks.fit.known() && policy == model::Policy::gedf_paws) {
    note += fmt::format("note: the task set's fit ({}) is not used: gedf-paws packs no tasks onto cores\n",
                        set.global.marks.fit.where(set.source));
  }
  return note;
}

AnalysisChoice analysis_choice(const model::TaskSet& set, const std::string& policy, const std::string& fit,
                               const std::string& delta, int cores) {
  AnalysisChoice c;
  if (!policy.empty()) c.options.policy = policy_option(policy);
  if (!fit.empty()) c.options.fit = fit_option(fit);
  if (!delta.empty()) c.options.delta = delta_option(delta);
  const model::Policy runs = c.options.policy.value_or(set.global.policy);
  check_policy_options(runs, !delta.empty(), !fit.empty());
  c.note = unused_file_options_note(set, runs);
  if (cores > 0) {
    c.options.cores = cores;
  } else if (!set.global.cores) {
    c.options.cores = static_cast<int>(os::allowed_cpus().size());
    c.cores_assumed = true;
  }
  return c;
}

namespace {
/// "010", "-010": CLI11 converts whole numbers with strtoll(text, 0), which reads a
/// leading 0 as octal (010 is 8), while the checks read them in base 10.
bool has_leading_zero(std::string_view text) {
  if (!text.empty() && text[0] == '-') text.remove_prefix(1);
  return text.size() > 1 && text[0] == '0';
}
std::string leading_zero_message(std::string_view text) {
  return fmt::format("'{}' has a leading 0, which would read as an octal number; write it without", text);
}
}  // namespace

CLI::Validator whole_in_range(long long minimum, long long maximum) {
  return CLI::Validator(
      [minimum, maximum](std::string& text) -> std::string {
        long long value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (ec != std::errc() || ptr != end || value < minimum || value > maximum) {
          return fmt::format("expects a whole number from {} to {}, not '{}'", minimum, maximum, text);
        }
        if (has_leading_zero(text)) return leading_zero_message(text);
        return {};
      },
      fmt::format("INT in [{}, {}]", minimum, maximum));
}

CLI::Validator number_in_range(double minimum, double maximum) {
  return CLI::Validator(
      [minimum, maximum](std::string& text) -> std::string {
        double value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        // NaN fails both comparisons; infinities and overflows are out of range.
        if (ec != std::errc() || ptr != end || !(value >= minimum && value <= maximum)) {
          return fmt::format("expects a number from {:g} to {:g}, not '{}'", minimum, maximum, text);
        }
        return {};
      },
      fmt::format("NUMBER in [{:g}, {:g}]", minimum, maximum));
}

CLI::Validator one_of(std::string kind, std::vector<std::string> names) {
  const std::string listed = fmt::format("{}", fmt::join(names, ", "));
  return CLI::Validator(
      [kind, names, listed](std::string& text) -> std::string {
        if (std::find(names.begin(), names.end(), text) != names.end()) return {};
        return fmt::format("unknown {} '{}'; choose from {}", kind, text, listed);
      },
      "{" + listed + "}");
}

CLI::Validator whole_at_least(long long minimum, unsigned long long maximum) {
  return CLI::Validator(
      [minimum, maximum](std::string& text) -> std::string {
        const char* end = text.data() + text.size();
        const std::string expected =
            fmt::format("expects a whole number of at least {}, not '{}'", minimum, text);
        std::from_chars_result parsed{};
        bool below = false;
        bool above = false;
        if (text.empty() || text[0] != '-') {  // up to the whole unsigned 64-bit range (seeds)
          unsigned long long value = 0;
          parsed = std::from_chars(text.data(), end, value);
          below = minimum > 0 && value < static_cast<unsigned long long>(minimum);
          above = value > maximum;
        } else {
          long long value = 0;
          parsed = std::from_chars(text.data(), end, value);
          below = value < minimum;
          // Below the smallest long long: below any minimum, not "too large".
          if (parsed.ec == std::errc::result_out_of_range) return expected;
        }
        const std::string too_large = maximum == ULLONG_MAX
                                          ? fmt::format("'{}' is too large", text)
                                          : fmt::format("'{}' is too large: at most {}", text, maximum);
        if (parsed.ec == std::errc::result_out_of_range) return too_large;
        if (parsed.ec != std::errc() || parsed.ptr != end || below) return expected;
        if (above) return too_large;
        if (has_leading_zero(text)) return leading_zero_message(text);
        return {};
      },
      fmt::format("INT>={}", minimum));
}

namespace {
/// A duration option's validator: the text must parse (the parser's message says what is
/// wrong), and `refuse(value, text)` says why a value is refused ("" to accept).
template <class Refuse>
CLI::Validator duration_validator(Refuse refuse, std::string description) {
  return CLI::Validator(
      [refuse](std::string& text) -> std::string {
        try {
          return refuse(model::parse_duration(text), text);
        } catch (const Error& e) {
          return e.what();
        }
      },
      std::move(description));
}
}  // namespace

CLI::Validator duration_at_least(std::chrono::nanoseconds minimum, std::string meaning) {
  const std::string shown = model::format_duration(minimum);
  return duration_validator(
      [minimum, shown, meaning](std::chrono::nanoseconds value, const std::string& text) {
        return value < minimum ? fmt::format("must be at least {} ({}), not '{}'", shown, meaning, text)
                               : std::string();
      },
      "DURATION>=" + shown);
}

CLI::Validator duration_option(bool positive) {
  return duration_validator(
      [positive](std::chrono::nanoseconds value, const std::string& text) {
        return positive && value <= std::chrono::nanoseconds::zero()
                   ? fmt::format("must be positive, not '{}'", text)
                   : std::string();
      },
      positive ? "DURATION>0" : "DURATION");
}

CLI::Validator output_file() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        if (path.empty()) return {};
        try {
          platform::check_writable(path);
        } catch (const Error& e) {
          return e.what();
        }
        return {};
      },
      "", std::string(kOutputFile));
}

CLI::Validator input_file(const std::string& what) {
  return CLI::Validator([](std::string&) { return std::string(); }, "", std::string(kInputFile) + what);
}

namespace {
/// Whether the command that runs can write its output to a file instead (-o FILE): set
/// by run_main() once it knows the command.
bool command_has_output_option = false;
/// A standard descriptor takt was started without (takt ... 2>&-) gets /dev/null, opened
/// for reading only, in its place: otherwise the first file takt opens would become
/// descriptor 1 or 2 and take its table or its messages (a JSON file holding a
/// warning). A write to it still fails with EBADF, as on the closed descriptor: a closed
/// stdout is reported when something was written to it (check_standard_output), and
/// messages to a closed stderr are lost (os::to_stderr).
void hold_standard_descriptors() noexcept {
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    os::note_started_without(fd);
    const int null = ::open("/dev/null", O_RDONLY);  // the lowest free descriptor: fd
    if (null >= 0 && null != fd) {
      (void)::dup2(null, fd);
      (void)::close(null);
    }
  }
}

using Apps = std::map<std::vector<std::string>, CLI::App*>;

std::string command_path(const std::vector<std::string>& words) {
  return words.empty() ? std::string("takt") : fmt::format("takt {}", fmt::join(words, " "));
}

/// The subcommand of `at` named `word`, or nullptr.
CLI::App* subcommand_named(CLI::App* at, std::string_view word) {
  for (CLI::App* sub : at->get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == word) return sub;
  }
  return nullptr;
}

/// "takt demo runtime" for the app at that path in `apps`.
std::string path_of(const Apps& apps, const CLI::App* app) {
  for (const auto& [words, sub] : apps) {
    if (sub == app) return command_path(words);
  }
  return command_path({});
}

/// The deepest command the command line reached (takt itself when none).
std::pair<std::vector<std::string>, CLI::App*> deepest_parsed(const Apps& apps) {
  std::pair<std::vector<std::string>, CLI::App*> deepest{{}, apps.at({})};
  for (const auto& [words, sub] : apps) {
    if (words.size() > deepest.first.size() && sub->parsed()) deepest = {words, sub};
  }
  return deepest;
}

/// A word of the command line that CLI11 did not expect (the first of them), said in
/// takt's words: an option of another command names that command, a misspelt option
/// the nearest one of the command.
std::string explain_unexpected(const std::vector<std::string>& words, int argc, char** argv,
                               const Apps& apps) {
  const auto [here_words, here] = deepest_parsed(apps);
  const std::string here_path = command_path(here_words);
  // Words after "--" are arguments, whatever they look like.
  int separator = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      separator = i;
      break;
    }
  }
  auto after_separator = [&](const std::string& word) {
    for (int i = separator + 1; i < argc; ++i) {
      if (word == argv[i]) return true;
    }
    return false;
  };
  auto is_number = [](const std::string& word) {
    double value = 0;
    const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    return ec == std::errc() && ptr == word.data() + word.size();
  };
  for (const std::string& word : words) {
    if (word.size() < 2 || word[0] != '-' || is_number(word)) continue;  // -5 is an argument
    if (after_separator(word)) {
      return fmt::format("`{}` takes no argument '{}' there (the words after -- are arguments, not options)",
                         here_path, word);
    }
    const std::string name = word.substr(0, word.find('='));
    // Whose option it is: the command line's own commands first, then every other that
    // has it (`takt demo --jobs` named only `takt profile`, though `takt run` has it too).
    std::vector<std::string> owner;
    std::vector<std::string> owners;  // command paths, as printed
    bool found = false;
    for (const auto& [path, sub] : apps) {
      if (sub->get_option_no_throw(name) == nullptr) continue;
      if (!found || (sub->parsed() && !apps.at(owner)->parsed())) owner = path;
      found = true;
      owners.push_back(command_path(path));
    }
    if (found && owner == here_words && !here_words.empty()) {
      // The command's own option, rejected: it came before the command's name.
      return fmt::format("{} is an option of `{}`; write it after '{}'", name, here_path, here_words.back());
    }
    if (found) {
      // The owner first, then the others in the registry's order; three named at most.
      const std::string first = command_path(owner);
      std::erase(owners, first);
      owners.insert(owners.begin(), first);
      const std::size_t shown = std::min<std::size_t>(owners.size(), 3);
      std::string who = "`" + owners[0] + "`";
      for (std::size_t i = 1; i < shown; ++i) {
        who += (i + 1 == shown && owners.size() == shown ? " and `" : ", `") + owners[i] + "`";
      }
      if (owners.size() > shown) who += fmt::format(" and {} more", owners.size() - shown);
      return fmt::format("`{}` has no option {} ({} {})", here_path, name, who,
                         owners.size() == 1 ? "has" : "have");
    }
    std::string hint;
    std::size_t best = 3;
    for (const CLI::Option* option : here->get_options()) {
      for (const std::string& other : option->get_lnames()) {
        const std::size_t d = model::edit_distance(name, "--" + other);
        if (d < best) {
          best = d;
          hint = fmt::format("; did you mean --{}?", other);
        }
      }
    }
    return fmt::format("`{}` has no option {}{}", here_path, name, hint);
  }
  return fmt::format("`{}` takes no argument '{}' there", here_path, words.front());
}

/// CLI11's message for a command-line mistake, in the words of takt's own messages where
/// CLI11's are terse or wrong ("At Most 1 required but received 2", "The following
/// arguments were not expected: x --polcy", "Could not convert: --force = maybe").
std::string explain_parse_error(const CLI::ParseError& e, int argc, char** argv, const Apps& apps) {
  const std::string what = e.what();
  auto option_named = [&apps](const std::string& name) -> const CLI::Option* {
    for (const auto& [path, sub] : apps) {
      if (const CLI::Option* o = sub->get_option_no_throw(name)) return o;
    }
    return nullptr;
  };
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // The words CLI11 kept, in the order of the command line (its message lists them last
    // first, and a word with a space in it cannot be told from two there).
    std::vector<std::string> words = apps.at({})->remaining(true);
    auto position = [argc, argv](const std::string& word) {
      int i = 1;
      while (i < argc && word != argv[i]) ++i;
      return i;
    };
    std::stable_sort(words.begin(), words.end(),
                     [&](const std::string& a, const std::string& b) { return position(a) < position(b); });
    if (!words.empty()) {
      if (words.front().empty() && words.size() == 1) {
        return fmt::format("`{}` takes no argument '' (an empty word) there",
                           command_path(deepest_parsed(apps).first));
      }
      return explain_unexpected(words, argc, argv, apps);
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    const std::size_t at_most = what.find(": At Most 1 required but received ");
    if (at_most != std::string::npos) {
      return fmt::format(
          "{} was given {} times; give it once", what.substr(0, at_most),
          what.substr(at_most + std::string_view(": At Most 1 required but received ").size()));
    }
    const std::size_t required = what.find(": 1 required ");
    if (required != std::string::npos && what.ends_with(" missing")) {
      return fmt::format("{} needs a value; give one after it", what.substr(0, required));
    }
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr && what.starts_with("Could not convert: ")) {
    const std::string rest = what.substr(std::string_view("Could not convert: ").size());
    const std::size_t equals = rest.find(" = ");
    if (equals != std::string::npos) {
      const std::string name = rest.substr(0, equals), value = rest.substr(equals + 3);
      const CLI::Option* option = option_named(name);
      if (option != nullptr && option->get_expected_min() == 0) {
        return fmt::format("{} is a flag: write it alone (or {}=true, {}=false), not '{}'", name, name, name,
                           value);
      }
      return fmt::format("{}: cannot read '{}' as its value", name, value);
    }
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && what == "A subcommand is required" &&
      argc > 1 && argv[1][0] == '-') {
    const std::string_view word = argv[1];
    return fmt::format("takt has no option {}; a command comes first (takt COMMAND [OPTIONS])",
                       word.substr(0, word.find('=')));
  }
  return what;
}
}  // namespace

int check_standard_output(int code) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int error = errno;
    // A closed standard output (takt ... >&-) is no matter of space.
    os::to_stderr("takt: error: writing to standard output failed ({}); {}{}\n", std::strerror(error),
                  error == EBADF ? "it is closed: leave it open or redirect it to a file"
                                 : "redirect it to a file or folder with space",
                  command_has_output_option ? ", or give -o FILE" : "");
    // The verdict's 2 (not schedulable) says that the report was delivered; where it
    // was lost, the failure is what the exit code says, whatever the report's size
    // (until 2026-11-29 a short report or --json kept 2, a long one gave 1).
    code = code == exit_ok || code == exit_unschedulable ? exit_bad_input : code;
  }
  std::fflush(stderr);
  return code;
}

int run_main(int argc, char** argv) {
  // A file larger than the limit on file sizes (ulimit -f) would end takt by SIGXFSZ
  // with nothing said and FILE.partial left behind; ignored, the write fails with EFBIG
  // and takt reports it, writing its other outputs.
  std::signal(SIGXFSZ, SIG_IGN);
  hold_standard_descriptors();
  CLI::App app{"takt: a real-time platform for parallel tasks on Linux.\n"
               "Analyse a task set, grant it cores, release its jobs on time and run each\n"
               "job's fork-join parallelism by work stealing.",
               "takt"};
  app.set_version_flag("--version", std::string("takt ") + takt::version);
  app.require_subcommand(1);
  app.fallthrough(false);

  auto& reg = registry();
  std::sort(reg.commands.begin(), reg.commands.end(),
            [](const Command& a, const Command& b) { return a.path < b.path; });

  std::map<std::vector<std::string>, CLI::App*> apps;
  apps[{}] = &app;
  // Creates (or finds) the subcommand at `path`, creating groups on the way.
  std::function<CLI::App*(const std::vector<std::string>&)> node =
      [&](const std::vector<std::string>& path) -> CLI::App* {
    if (auto it = apps.find(path); it != apps.end()) return it->second;
    std::vector<std::string> parent_path(path.begin(), path.end() - 1);
    CLI::App* parent = node(parent_path);
    std::string description;
    if (auto g = reg.groups.find(path); g != reg.groups.end()) description = g->second;
    CLI::App* sub = parent->add_subcommand(path.back(), description);
    apps[path] = sub;
    return sub;
  };

  for (const auto& [path, description] : reg.groups) node(path);

  std::vector<std::pair<CLI::App*, Action>> actions;
  for (const auto& cmd : reg.commands) {
    CLI::App* sub = node(cmd.path);
    sub->description(cmd.description);
    actions.emplace_back(sub, cmd.configure(*sub));
  }
  // A group without its own action needs one of its subcommands.
  for (auto& [path, sub] : apps) {
    if (path.empty()) continue;
    bool has_action = std::any_of(actions.begin(), actions.end(),
                                  [sub = sub](const auto& a) { return a.first == sub; });
    if (!has_action) sub->require_subcommand(1);
  }

  // A word where a command is expected that names none: CLI11 would only say that a
  // subcommand is required. Name the word and the commands there are.
  {
    auto has_action = [&](CLI::App* a) {
      return std::any_of(actions.begin(), actions.end(), [a](const auto& x) { return x.first == a; });
    };
    auto names = [](CLI::App* a) {
      std::vector<std::string> out;
      for (CLI::App* sub : a->get_subcommands([](CLI::App*) { return true; })) out.push_back(sub->get_name());
      return fmt::format("{}", fmt::join(out, ", "));
    };
    CLI::App* at = &app;
    std::string path = "takt";
    bool all_words = true;
    for (int i = 1; i < argc && all_words; ++i) {
      const std::string word = argv[i];
      if (word.empty() || word[0] == '-') {
        all_words = false;  // an option: CLI11 checks those
        break;
      }
      CLI::App* sub = subcommand_named(at, word);
      if (sub == nullptr) {
        // An argument of `path`, unless `path` takes none and has commands (takt demo
        // runtim: the word can only be a mistyped command).
        const bool positionals = !at->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty();
        const bool commands = !at->get_subcommands([](CLI::App*) { return true; }).empty();
        if (has_action(at) && (positionals || !commands)) break;
        os::to_stderr("takt: error: '{}' is not a command of {}; the commands are: {} (see {} --help)\n",
                      word, path, names(at), path);
        return exit_bad_input;
      }
      at = sub;
      path += " " + word;
    }
    if (all_words && !has_action(at)) {
      os::to_stderr("takt: error: {} needs a command: {} (see {} --help)\n", path, names(at), path);
      return exit_bad_input;
    }
  }

  // A mistake on the command line: the message, and the --help of the deepest command
  // the words reached.
  auto command_line_error = [&apps](const std::string& message) {
    auto [words, deepest] = deepest_parsed(apps);
    // A message about an option ("--duration: ...") of a command above the deepest
    // (takt demo --duration abc runtime): that command's help describes it.
    if (message.starts_with("-")) {
      const std::string name = message.substr(0, message.find_first_of(": ="));
      if (deepest->get_option_no_throw(name) == nullptr) {
        for (const auto& [above, sub] : apps) {
          if (sub->parsed() && above.size() < words.size() && sub->get_option_no_throw(name) != nullptr) {
            words = above;
          }
        }
      }
    }
    const std::string path = command_path(words);
    os::to_stderr("takt: error: {}\nRun '{} --help' for the options and what they take.\n", message, path);
    return exit_bad_input;
  };
  // Two ways in which CLI11 takes the next word as an option's value: `--name=` with
  // nothing after the '=' (`--json= --no-cyclictest` wrote the JSON to a file named
  // '--no-cyclictest' and ran cyclictest), and an option followed by another option of
  // the same command (`-o --json` wrote YAML to a file named '--json'). The words are
  // walked as CLI11 reads them: each option belongs to the command named last before it.
  std::string value_missing;
  {
    CLI::App* current = &app;
    std::vector<std::string> words;
    auto option_of_current = [&current](std::string_view word) -> const CLI::Option* {
      if (word.size() < 2 || word[0] != '-' || word == "--") return nullptr;
      return current->get_option_no_throw(std::string(word.substr(0, word.find('='))));
    };
    for (int i = 1; i < argc && value_missing.empty(); ++i) {
      const std::string_view word = argv[i];
      if (word == "--") break;  // what follows is not options
      if (word.empty() || word[0] != '-') {
        if (CLI::App* sub = subcommand_named(current, word)) {
          current = sub;
          words.emplace_back(word);
        }
        continue;
      }
      const CLI::Option* option = option_of_current(word);
      if (option == nullptr || option->get_expected_max() == 0) continue;  // not this command's, or a flag
      const std::string name(word.substr(0, word.find('=')));
      if (word.find('=') != std::string_view::npos) {
        if (word.size() == name.size() + 1) {
          value_missing =
              fmt::format("{} was given an empty value ('{}='); give it one or leave it out", name, name);
        }
      } else if (i + 1 < argc && option_of_current(argv[i + 1]) != nullptr) {
        value_missing = fmt::format(
            "{} needs a value, but '{}' follows it, an option of `{}`; give the value "
            "right after {}",
            name, argv[i + 1], command_path(words), name);
      }
    }
  }
  // CLI11 prints the version as soon as it reads --version, whatever follows it (takt
  // --version run x.yaml ran nothing and said nothing of the rest).
  if (argc > 2 && std::string_view(argv[1]) == "--version") {
    return command_line_error(
        fmt::format("--version takes nothing after it, not '{}'; write `takt --version` "
                    "alone, or leave --version out to run a command",
                    argv[2]));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end here too: CLI11 prints them (a failed write is an error).
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
      return check_standard_output(app.exit(e));  // no file option takes them
    if (!value_missing.empty()) return command_line_error(value_missing);  // the cause of what CLI11 found
    return command_line_error(explain_parse_error(e, argc, argv, apps));
  }
  if (!value_missing.empty()) return command_line_error(value_missing);
  for (const auto& [path, sub] : apps) {
    if (!path.empty() && !sub->parsed()) continue;
    // An option given an empty value (--policy "") would read as if it were absent.
    for (const CLI::Option* option : sub->get_options()) {
      if (option->count() == 0 || option->get_type_size() == 0) continue;
      for (const std::string& value : option->results()) {
        if (value.empty()) {
          return command_line_error(
              fmt::format("{} was given an empty value; give it one or leave it out", option->get_name()));
        }
      }
    }
    if (std::string clash = check_files(*sub); !clash.empty()) return command_line_error(clash);
  }
  // Options of a command that has its own action, given before one of its subcommands
  // (takt demo --json FILE runtime): only the subcommand runs, so they would be ignored.
  if (auto run =
          std::find_if(actions.rbegin(), actions.rend(), [](const auto& a) { return a.first->parsed(); });
      run != actions.rend()) {
    const CLI::App* runs = run->first;
    for (const auto& [owner, action] : actions) {
      if (owner == runs || !owner->parsed()) continue;
      for (const CLI::Option* option : owner->get_options()) {
        if (option->count() == 0 || option == owner->get_help_ptr()) continue;
        const std::string name = option->get_name();
        const std::string owner_path = path_of(apps, owner), runs_path = path_of(apps, runs);
        return command_line_error(
            runs->get_option_no_throw(name) != nullptr
                ? fmt::format("{} before '{}' is an option of `{}`, which does not run; write it after '{}'",
                              name, runs->get_name(), owner_path, runs->get_name())
                : fmt::format("{} is an option of `{}`, which does not run; `{}` has no such option", name,
                              owner_path, runs_path));
      }
    }
  }

  int code = exit_bad_input;
  try {
    // Run the deepest parsed subcommand that has an action.
    auto it = std::find_if(actions.rbegin(), actions.rend(), [](const auto& a) { return a.first->parsed(); });
    if (it != actions.rend()) {
      command_has_output_option = it->first->get_option_no_throw("--output") != nullptr;
      code = it->second();
    } else {
      os::to_stderr("takt: error: no subcommand given; see takt --help\n");
    }
  } catch (const OptionError& e) {
    code = command_line_error(e.what());
  } catch (const takt::Error& e) {
    os::to_stderr("takt: error: {}\n", e.what());
    code = exit_bad_input;
  } catch (const std::bad_alloc&) {
    os::to_stderr(
        "takt: error: out of memory (an allocation failed); give smaller sizes or fewer tasks, jobs or "
        "repetitions, or raise the limit on memory (ulimit -v)\n");
    code = exit_bad_input;
  } catch (const std::exception& e) {
    if (std::ferror(stdout)) {
      // fmt::print(stdout) throws once stdio's buffer cannot be written (a closed or
      // full standard output, more than a buffer's worth printed): what failed is the
      // output, which check_standard_output (in finish_command) reports with what to change.
      code = exit_bad_input;
    } else {
      os::to_stderr("takt: internal error: {}\n", e.what());
      code = 3;
    }
  }
  return finish_command(code);
}

int finish_command(int code) {
  code = check_standard_output(code);
  if (const int sig = platform::first_handled_signal(); sig != 0) platform::end_by_signal(sig);
  return code;
}

}  // namespace takt::cli
