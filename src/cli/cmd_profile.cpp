// `takt profile PROGRAM [ARGS...]`: measures a task's work, span and burdened span (issue 6).
#include "apps/programs.hpp"
#include "apps/segments.hpp"
#include "cli/command.hpp"
#include "model/duration.hpp"
#include "model/measurement_update.hpp"
#include "model/program_profile.hpp"
#include "model/task_set_parser.hpp"
#include "model/text.hpp"
#include "model/yaml_reader.hpp"
#include "os/clock.hpp"
#include "os/cpu.hpp"
#include "os/diagnostics.hpp"
#include "platform/metrics_json.hpp"
#include "platform/run.hpp"
#include "platform/stop_flag.hpp"
#include "profiler/profile.hpp"
#include "profiler/profile_output.hpp"
#include "takt/error.hpp"
#include "takt/program.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <deque>
#include <memory>
#include <new>
#include <optional>
#include <sstream>

namespace takt::cli {
namespace {

struct ProfileArgs {
  std::string program;
  std::vector<std::string> args;
  std::size_t jobs = 10;
  double percentile = 100;
  bool json = false;
  std::string update;
  std::string task;
  std::string profiles;
  std::string name;
  std::string burden_spawn;
  std::string burden_sync;
  std::string cpus;
  std::vector<std::size_t> parallel;
  int priority = 10;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read '" + path + "'; check the path");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// "AMD EPYC, 2 CPUs" from /proc/cpuinfo and the affinity mask.
std::string machine_description(const os::CpuSet& cpus) {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  }
  return fmt::format("{}, {} CPU(s)", model, cpus.size());
}

/// The signals' handlers and where they lead, from just before the first measurement
/// until the results are written.
/// SIGINT/SIGTERM while measuring: profiling ends before the next job (a job that has
/// begun is finished, the task's code is not interrupted), and what was measured is
/// printed and written.
constexpr std::string_view kStopNotice =
    "\ntakt profile: stopping after the job in flight; a third Ctrl-C ends takt at once, without results\n";

profiler::ProfileOptions options_of(const ProfileArgs& a) {
  profiler::ProfileOptions o;
  o.jobs = a.jobs;
  o.percentile = a.percentile;
  o.parallel_workers = a.parallel;
  o.fifo_priority = a.priority;
  if (!a.cpus.empty()) {
    try {
      o.cpus = os::CpuSet::parse(a.cpus);
    } catch (const Error& e) {
      throw OptionError(fmt::format("--cpus: {}", e.what()));
    }
    const os::CpuSet allowed = os::allowed_cpus();
    if (o.cpus.intersect(allowed) != o.cpus) {
      throw OptionError(fmt::format("--cpus {}: this process may use CPUs {} only; give CPUs among them",
                                    a.cpus, allowed.to_string()));
    }
  }
  // T_P pins its P workers to the first P CPUs: more workers than CPUs would share them.
  const os::CpuSet cpus = profiler::profiled_cpus(o);
  for (std::size_t p : a.parallel) {
    if (p > cpus.size()) {
      throw OptionError(fmt::format(
          "--parallel {}: T_P runs on P workers pinned to the first P of the {} CPU(s) {} ({}); more workers "
          "than CPUs would share them, which T_P does not measure; give at most {}",
          p, cpus.size(), a.cpus.empty() ? "this process may use" : "of --cpus", cpus.to_string(),
          cpus.size()));
    }
  }
  each_once(a.parallel, "--parallel", "worker count");
  if (a.burden_spawn.empty() != a.burden_sync.empty()) {
    throw OptionError(
        "give both --burden-spawn and --burden-sync, or neither (then they are calibrated here)");
  }
  if (!a.burden_spawn.empty()) {
    o.burden = profiler::Burden{model::parse_duration(a.burden_spawn), model::parse_duration(a.burden_sync)};
    // A burden is the cost of one steal or join (microseconds): a path of many edges
    // sums them in 64 bits, which durations near the format's limit of 2^62 ns overflow.
    constexpr std::chrono::nanoseconds kMaxBurden = std::chrono::seconds(1);
    for (const auto& [option, value] :
         {std::pair{"--burden-spawn", o.burden->spawn}, std::pair{"--burden-sync", o.burden->sync}}) {
      if (value > kMaxBurden) {
        throw OptionError(
            fmt::format("{} {}: a burden is the cost of one spawn or sync edge, at most 1s; give a "
                        "smaller one (this machine's are about a microsecond: leave both out to "
                        "calibrate them)",
                        option, model::format_duration(value)));
      }
    }
  }
  if (isatty(STDERR_FILENO) != 0) {
    o.progress = [](std::string_view line) { os::to_stderr("  ... {}\n", line); };
  }
  return o;
}

profiler::ProfileResult profile_program(const Program& resolved, const std::string& program,
                                        const std::vector<std::string>& args,
                                        const profiler::ProfileOptions& o) {
  std::unique_ptr<Task> task = resolved.create();
  const os::CpuSet cpus = profiler::profiled_cpus(o);
  // The built-in programs compute their reference result here, serially (an hour for
  // matmul 16384): say so before the wait.
  if (o.progress) o.progress(fmt::format("init of {}", program));
  task->init({program, args, static_cast<unsigned>(cpus.size())});
  profiler::ProfileResult result = profiler::profile(*task, program, args, o);
  task->finalize();
  return result;
}

/// The task set to update, read before anything is measured. The file must already be
/// a valid task set: update_measurements replaces values where they stand. It is read
/// and written back, so it must be a regular file: a FIFO or a device would wait for
/// input or hold no task set.
model::TaskSet task_set_to_update(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status) &&
      !std::filesystem::is_directory(status)) {
    throw Error(fmt::format("--update: '{}' is no regular file (a FIFO or a device); --update reads the task "
                            "set from the file and writes it back: give the task-set file",
                            path));
  }
  try {
    return model::parse_task_set_file(path);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) +
                " (--update writes into a valid task-set file: give a new task placeholder values, e.g. "
                "`work: 1ms` and `span: 1ms`, which the measurements then replace)");
  }
}

/// The task of `set` named by --task.
const model::Task& named_task(const model::TaskSet& set, const ProfileArgs& a) {
  std::string known;
  for (const auto& t : set.tasks) {
    if (t.name == a.task) return t;
    known += (known.empty() ? "" : ", ") + t.name;
  }
  throw OptionError(fmt::format("--task '{}' is not a task of {} (its tasks: {}); give one of them", a.task,
                                a.update, known));
}

/// The tasks of `set` that run `program` with `args`, or the one named `--task`.
std::vector<std::string> tasks_to_update(const model::TaskSet& set, const ProfileArgs& a) {
  std::vector<std::string> names;
  if (!a.task.empty()) return {named_task(set, a).name};
  for (const auto& t : set.tasks) {
    if (t.program == a.program && t.args == a.args) names.push_back(t.name);
  }
  if (names.empty()) {
    throw Error(
        fmt::format("no task of {} runs '{}' with these arguments; name the task to update with --task NAME, "
                    "or run `takt profile --update {}` without a program to profile every task of the file",
                    a.update, a.program, a.update));
  }
  return names;
}

/// The task whose period and relative deadline the profiled jobs carry, among the tasks
/// `names` of `set` that `takt profile PROGRAM --update` writes into (as under `--update
/// FILE` without a program: a job may read them). Tasks that differ in them are profiled
/// apart there; here that is an error asking for one to be named.
const model::Task* task_whose_times_jobs_carry(const model::TaskSet& set, const std::vector<std::string>& names,
                                               const ProfileArgs& a) {
  const model::Task* first = nullptr;
  for (const model::Task& t : set.tasks) {
    if (std::find(names.begin(), names.end(), t.name) == names.end()) continue;
    if (first == nullptr) {
      first = &t;
    } else if (t.period != first->period || t.deadline != first->deadline) {
      throw Error(fmt::format(
          "tasks '{}' (period {}, deadline {}) and '{}' (period {}, deadline {}) of {} run '{}' with these "
          "arguments, but a job sees its task's period and deadline: name one with --task NAME, or run `takt "
          "profile --update {}` without a program to profile each task",
          first->name, model::format_duration(first->period), model::format_duration(first->deadline), t.name,
          model::format_duration(t.period), model::format_duration(t.deadline), a.update, a.program, a.update));
    }
  }
  return first;
}

/// The updates whose values the file cannot take (a measured span longer than the task's
/// deadline, a value behind an alias), each checked alone: removed from `updates` and
/// returned as (task, message), so that one task's values do not keep the others' out.
std::vector<std::pair<std::string, std::string>> take_out_invalid(
    const std::string& path, std::vector<model::MeasurementUpdate>& updates) {
  const std::string text = read_file(path);
  std::vector<std::pair<std::string, std::string>> invalid;
  std::vector<model::MeasurementUpdate> valid;
  for (model::MeasurementUpdate& u : updates) {
    try {
      (void)model::update_measurements(text, path, {u});
      valid.push_back(std::move(u));
    } catch (const Error& e) {
      invalid.emplace_back(u.task, e.what());
    }
  }
  updates = std::move(valid);
  return invalid;
}

void write_measurements(const std::string& path, const std::vector<model::MeasurementUpdate>& updates) {
  const std::string text = read_file(path);
  const std::string updated = model::update_measurements(text, path, updates);
  platform::write_text_file(path, updated);
  for (const auto& u : updates) {
    os::to_stderr("wrote work {}, span {}, burdened_span {} for task '{}' into {}\n",
                  model::format_duration(*u.work), model::format_duration(*u.span),
                  model::format_duration(*u.burdened_span), u.task, path);
  }
}

std::string profiles_header() {
  return "Program profiles for `takt generate --method rtws --programs FILE`, measured by\n"
         "`takt profile PROGRAM ARGS... --profiles FILE` (examples/profiles/measure.sh runs all of\n"
         "them): work = the value of each entry's `measured:` percentile (100: the maximum) over its\n"
         "jobs' T1 on one worker; span and burdened span from the strand events of one-worker runs;\n"
         "`measured:` also gives the machine and the date (docs/profiling.md).";
}

/// Profiles every distinct program and arguments of the task-set file (or the task
/// named by --task) and updates it. Every program is resolved before anything is measured.
int profile_file(const ProfileArgs& a, const profiler::ProfileOptions& o) {
  const model::TaskSet set = task_set_to_update(a.update);
  const std::filesystem::path base = std::filesystem::path(a.update).parent_path();
  std::vector<const model::Task*> chosen;
  if (!a.task.empty()) {
    const model::Task& t = named_task(set, a);
    if (t.program.empty()) {
      throw Error(fmt::format("{}: task '{}' names no program, so there is nothing to profile; give it a "
                              "`program:` (docs/task-set-format.md) or name another task with --task",
                              t.marks.task.where(a.update), t.name));
    }
    chosen.push_back(&t);
  } else {
    for (const auto& t : set.tasks) chosen.push_back(&t);
  }
  std::vector<std::optional<Program>> programs;  // resolved before anything is measured
  std::vector<std::vector<std::string>> arguments;  // likewise
  for (const model::Task* t : chosen) {
    programs.push_back(t->program.empty()
                           ? std::nullopt
                           : std::optional<Program>(platform::resolve_task_program(*t, a.update, base)));
    // A `segments` task's strands come from its `segments:` list, as `takt run` runs them.
    arguments.push_back(t->program.empty() ? std::vector<std::string>{}
                                           : platform::program_arguments(*t, a.update));
  }
  std::vector<model::MeasurementUpdate> updates;
  nlohmann::json tasks = nlohmann::json::array();
  // Each program + arguments + period + deadline profiled once: its result, or the error
  // that ended its profiling (kept in place: results are referred to below).
  struct Profiled {
    std::string key;
    std::optional<profiler::ProfileResult> result;
    std::string error;
  };
  std::deque<Profiled> done;
  platform::StopOnSignal signals(kStopNotice);
  profiler::ProfileOptions options = o;
  options.stop_requested = [&signals] { return signals.requested(); };
  std::vector<std::string> not_measured;  // tasks a signal left unprofiled
  std::string partial;  // the tasks a signal left with fewer jobs: "'a' (3 of 10 jobs)"
  // Tasks whose profiling failed (a job threw, init failed): the error, where the task
  // is written; the other tasks are still measured and written.
  std::vector<std::pair<std::string, std::string>> failed;  // task, message
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const model::Task& t = *chosen[i];
    if (t.program.empty()) {
      os::to_stderr("task '{}' names no program: not profiled\n", t.name);
      continue;
    }
    const std::vector<std::string>& args = arguments[i];
    // Jobs carry the task's period and deadline (takt::Job), so those are part of the key.
    std::string key = t.program + '\x1f' + std::to_string(t.period.count()) + '\x1f' +
                      std::to_string(t.deadline.count());
    for (const auto& arg : args) key += '\x1f' + arg;
    const Profiled* earlier = nullptr;
    for (const Profiled& p : done) {
      if (p.key == key) earlier = &p;
    }
    if (earlier != nullptr && !earlier->result) {
      failed.emplace_back(t.name, fmt::format("{}: task '{}': same program, arguments, period and deadline as a task above: {}",
                                              t.marks.task.where(a.update), t.name, earlier->error));
      continue;
    }
    const profiler::ProfileResult* result = earlier != nullptr ? &*earlier->result : nullptr;
    if (result == nullptr) {
      if (signals.requested()) {
        not_measured.push_back(t.name);
        continue;
      }
      std::optional<profiler::ProfileResult> measured;
      options.period = t.period;
      options.relative_deadline = t.deadline;
      std::string error;
      try {
        measured.emplace(profile_program(*programs[i], t.program, args, options));
      } catch (const Error& e) {
        error = e.what();
      } catch (const std::bad_alloc&) {  // an init that allocates more than there is
        error = "out of memory (an allocation failed): give it smaller arguments or raise the limit on memory "
                "(ulimit -v)";
      } catch (const std::exception& e) {  // init throws what the task's code throws
        error = e.what();
      }
      done.push_back({key, std::move(measured), error});
      if (!error.empty()) {
        failed.emplace_back(t.name, fmt::format("{}: task '{}': {}", t.marks.task.where(a.update), t.name, error));
        os::to_stderr("task '{}': not profiled: {}\n", t.name, error);
        continue;
      }
      result = &*done.back().result;
      if (result->jobs == 0) {
        not_measured.push_back(t.name);
        continue;
      }
      if (!a.json) fmt::print("task '{}': {}", t.name, profiler::profile_text(*result));
    } else if (result->jobs == 0) {
      not_measured.push_back(t.name);
      continue;
    } else if (!a.json) {
      fmt::print("task '{}': same program, arguments, period and deadline as a task above\n", t.name);
    }
    updates.push_back(profiler::measurement_update(*result, t.name));
    if (result->stopped) {
      partial += fmt::format("{}'{}' ({} of {} jobs)", partial.empty() ? "" : ", ", t.name, result->jobs,
                             result->jobs_requested);
    }
    nlohmann::json entry = profiler::profile_json(*result);
    entry["task"] = t.name;
    tasks.push_back(entry);
  }
  signals.measured();
  for (auto& [task, message] : take_out_invalid(a.update, updates)) {
    os::to_stderr("task '{}': measured, but not written: {}\n", task, message);
    failed.emplace_back(task, message);
  }
  auto failure_summary = [&failed] {
    std::string text;
    for (const auto& [task, message] : failed) text += "\n  " + message;
    return text;
  };
  if (!failed.empty() && updates.empty()) {
    throw Error(fmt::format("no task of {} could be profiled, nothing is written into it:{}", a.update,
                            failure_summary()));
  }
  if (signals.requested() && updates.empty()) {
    throw Error(fmt::format("stopped by {} before the first job was measured; nothing is written into {}",
                            signals.signal_name(), a.update));
  }
  nlohmann::json report{{"file", a.update}, {"tasks", tasks}};
  if (signals.requested()) report["not_profiled"] = not_measured;
  if (!failed.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [task, message] : failed) list.push_back({{"task", task}, {"error", message}});
    report["failed"] = list;
  }
  if (a.json) fmt::print("{}\n", report.dump(2));
  if (signals.requested()) {
    std::string left;
    for (const std::string& name : not_measured) left += (left.empty() ? "'" : ", '") + name + "'";
    if (partial.empty() && left.empty()) {
      signals.say_if_it_came_too_late("profile", "job", "every task was measured");
    } else {
      os::to_stderr("takt profile: stopped by {}; writing the tasks measured{}{}\n", signals.signal_name(),
                    partial.empty() ? std::string() : ", some on fewer jobs: " + partial,
                    left.empty() ? std::string() : "; not profiled, left as they are: " + left);
    }
  }
  if (updates.empty()) throw Error("no task of " + a.update + " names a program to profile");
  write_measurements(a.update, updates);
  if (!failed.empty()) {
    os::to_stderr(
        "takt: error: {} task(s) of {} could not be profiled or written and keep their values (the "
        "others are written above); fix them and run `takt profile --update {}` again:{}\n",
        failed.size(), a.update, a.update, failure_summary());
    return exit_bad_input;
  }
  return exit_ok;
}

int run_profile(const ProfileArgs& a) {
  apps::register_builtin_programs();
  apps::register_segments_program();
  profiler::ProfileOptions o = options_of(a);
  if (a.program.empty()) {
    if (a.update.empty()) {
      throw OptionError(
          "name a program to profile (e.g. `takt profile heat 512 512 50`), or a task-set file with "
          "--update FILE to profile each of its tasks");
    }
    if (!a.profiles.empty()) throw OptionError("--profiles needs a program to profile");
    return profile_file(a, o);
  }
  // Everything that can fail before measuring fails first: the program, the task set
  // and the tasks to write into, the profiles file.
  const Program program = [&] {
    try {
      return resolve_program(a.program);
    } catch (const Error&) {
      // A task-set file where the program goes (takt profile set.yaml): say how to
      // measure the programs of one.
      const std::filesystem::path given(a.program);
      const std::string ext = given.extension().string();
      std::error_code ec;
      if ((ext == ".yaml" || ext == ".yml" || ext == ".json") &&
          std::filesystem::is_regular_file(given, ec)) {
        throw OptionError(
            fmt::format("'{}' names no program but a file; to measure the programs of a task-set "
                        "file and write their times into it, give the file to --update: takt "
                        "profile --update {}",
                        a.program, a.program));
      }
      throw;
    }
  }();
  std::vector<std::string> names;
  if (!a.update.empty()) {
    const model::TaskSet set = task_set_to_update(a.update);
    names = tasks_to_update(set, a);
    if (const model::Task* t = task_whose_times_jobs_carry(set, names, a)) {
      o.period = t->period;
      o.relative_deadline = t->deadline;
    }
  }
  if (!a.profiles.empty()) {
    // The entry's name goes into the profiles file, whose reader refuses what
    // name_problem does: such a name written there would make the whole file unreadable.
    const std::string name = a.name.empty() ? profiler::default_profile_name(a.program, a.args) : a.name;
    for (std::size_t i = 0; i < a.args.size(); ++i) {
      if (model::first_bad_utf8(a.args[i]) != std::string::npos) {
        throw OptionError(
            fmt::format("--profiles: the program's argument {} ({}) is not UTF-8 text, which a "
                        "profiles file cannot hold",
                        i + 1, model::shown(a.args[i])));
      }
    }
    if (const std::string problem = model::name_problem(name); !problem.empty()) {
      throw OptionError(a.name.empty() ? "the profile's default name (program-arg1-arg2...) " + problem +
                                             "; give the entry a name with --name"
                                       : "--name " + problem);
    }
    try {
      (void)profiler::existing_profiles(a.profiles);  // the entries the new one is added to
    } catch (const Error& e) {
      throw Error(
          std::string(e.what()) +
          " (--profiles adds an entry to a valid program-profiles file, or creates a new one: fix the "
          "file or give another path)");
    }
  }
  platform::StopOnSignal signals(kStopNotice);
  o.stop_requested = [&signals] { return signals.requested(); };
  profiler::ProfileResult result = profile_program(program, a.program, a.args, o);
  signals.measured();
  if (result.stopped) {
    if (result.jobs == 0) {
      throw Error(fmt::format("stopped by {} before the first job was measured; nothing is {}",
                              signals.signal_name(),
                              a.update.empty() && a.profiles.empty() ? "reported" : "written"));
    }
    os::to_stderr("takt profile: stopped by {} after {} of {} jobs; the results are of those jobs\n",
                  signals.signal_name(), result.jobs, result.jobs_requested);
  }
  // The results are printed before anything is written: a failing update keeps them.
  if (a.json) {
    fmt::print("{}\n", profiler::profile_json(result).dump(2));
  } else {
    fmt::print("{}", profiler::profile_text(result));
  }
  if (!a.update.empty()) {
    std::vector<model::MeasurementUpdate> updates;
    for (const std::string& name : names) {
      updates.push_back(profiler::measurement_update(result, name));
    }
    write_measurements(a.update, updates);
  }
  if (!a.profiles.empty()) {
    // Each entry says what it was measured on (`measured:`), a stopped one too; a stopped
    // one does not replace an entry the file has (of all its jobs, maybe): its values are
    // printed above.
    const std::string name = a.name.empty() ? profiler::default_profile_name(result) : a.name;
    model::ProgramProfile entry = profiler::program_profile(result, name);
    entry.measured->machine = machine_description(profiler::profiled_cpus(o));
    entry.measured->date = os::utc_now("%Y-%m-%d");
    if (profiler::update_profiles_file(a.profiles, entry, profiles_header(), !result.stopped)) {
      os::to_stderr("wrote program profile '{}' into {}{}\n", name, a.profiles,
                    result.stopped
                        ? fmt::format(" (measured on {} of {} jobs, as its `measured: jobs:` says)",
                                      result.jobs, result.jobs_requested)
                        : std::string());
    } else {
      os::to_stderr(
          "takt profile: not written into {}: it has an entry '{}' already, which a measurement "
          "stopped after {} of {} jobs does not replace; run it again to replace it\n",
          a.profiles, name, result.jobs, result.jobs_requested);
    }
  }
  return exit_ok;
}

[[maybe_unused]] const bool registered = register_command({
    {"profile"},
    "Measure a task's work, span and burdened span over N jobs (and write them into a task set or a "
    "profiles file)",
    [](CLI::App& app) -> Action {
      auto args = std::make_shared<ProfileArgs>();
      app.add_option("program", args->program,
                     "A built-in program (docs/programs.md) or a task's shared object (./libtask.so)");
      app.add_option("args", args->args,
                     "The program's arguments; put arguments that start with '-' after \"--\" "
                     "(takt profile ./libpi.so --jobs 5 -- --intervals 100000)");
      app.add_option("--jobs", args->jobs, "Jobs measured (default 10)")
          ->check(whole_at_least_for(1, args->jobs));
      app.add_option(
             "--percentile", args->percentile,
             "Which job's value the task set gets: the nearest-rank percentile over the jobs, 100 = max "
             "(default 100)")
          ->check(number_in_range(0.001, 100.0));
      app.add_flag("--json", args->json, "Print the result as JSON");
      auto* update = app.add_option(
          "--update", args->update,
          "Write work, span and burdened_span into this task-set file (with a program: into the "
          "tasks that run it with these arguments, or --task; without: profile every task of the file, or "
          "the one named by --task). The jobs carry the task's period and deadline: with a program, tasks "
          "that differ in them are refused unless --task names one");
      update->check(output_file());
      app.add_option("--task", args->task,
                     "With --update and a program: the task to write the measurements to; with --update "
                     "alone: the one task of the file to profile")
          ->needs(update);
      auto* profiles = app.add_option(
          "--profiles", args->profiles,
          "Add the result to this program-profiles file (for takt generate --method rtws --programs); "
          "created if missing or empty; a FIFO or a device is not read, only written");
      profiles->check(output_file());
      app.add_option("--name", args->name,
                     "With --profiles: the entry's name (default: program-arg1-arg2...)")
          ->needs(profiles);
      app.add_option("--burden-spawn", args->burden_spawn,
                     "Burden per continuation edge, e.g. 1.5us (default: calibrated on this machine)")
          ->check(duration_option(false));
      app.add_option("--burden-sync", args->burden_sync,
                     "Burden per return edge, e.g. 1us (with --burden-spawn)")
          ->check(duration_option(false));
      app.add_option("--cpus", args->cpus, "CPUs to profile on, a cpulist like 0-1 (default: all allowed)");
      app.add_option(
             "--priority", args->priority,
             "SCHED_FIFO priority of the measured workers, 0 for SCHED_OTHER (default 10; without the "
             "privilege or with TAKT_NO_RT=1 they stay in SCHED_OTHER)")
          ->check(whole_in_range(0, 98));
      app.add_option("--parallel", args->parallel,
                     "Also measure T_P on P pinned workers for each P given, e.g. --parallel 1,2")
          ->delimiter(',')
          ->check(whole_in_range(1, 65536))
          ->allow_extra_args(false);
      return [args] { return run_profile(*args); };
    },
});

}  // namespace
}  // namespace takt::cli
