// `takt run FILE`: analyse a task set, run it under its policy, print the table (and write JSON, trace).
#include "analysis/analyse.hpp"
#include "apps/segments.hpp"
#include "cli/command.hpp"
#include "model/duration.hpp"
#include "model/task_set_parser.hpp"
#include "os/diagnostics.hpp"
#include "platform/run.hpp"
#include "platform/run_floor.hpp"
#include "policies/policy_registry.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace takt::cli {
namespace {

struct RunArgs {
  std::string file;
  std::string policy;
  int cores = 0;
  std::string delta;
  std::string fit;
  std::string duration;
  std::int64_t jobs = 0;
  std::string json;
  std::string trace;
  bool force = false;
  bool no_progress = false;
  bool no_cyclictest = false;
};

int run_run(const RunArgs& a) {
  apps::register_segments_program();
  model::TaskSet set = model::parse_task_set_file(a.file);

  const AnalysisChoice choice = analysis_choice(set, a.policy, a.fit, a.delta, a.cores);
  const analysis::AnalysisOptions& options = choice.options;
  os::to_stderr("{}", choice.note);
  if (choice.cores_assumed) {
    os::to_stderr("takt run: the task set names no cores; using the {} CPU(s) this process may use\n",
                  *options.cores);
  }

  platform::RunOptions run;
  if (!a.duration.empty()) {
    run.duration = model::parse_duration(a.duration);  // positive: checked by duration_option()
  }
  if (a.jobs > 0) run.jobs = static_cast<std::uint64_t>(a.jobs);
  if (!a.json.empty()) run.json = a.json;
  if (!a.trace.empty()) run.trace = a.trace;
  if (a.no_progress) run.progress = false;

  // Bad input before the analysis, as takt analyze reports it (an unschedulable set
  // would otherwise hide it behind exit code 2).
  for (const model::Task& t : set.tasks) (void)platform::program_arguments(t, set.source);
  analysis::AnalysisResult verdict = analysis::analyse(set, options);
  if (!verdict.schedulable) {
    os::to_stderr("takt run: the task set is NOT SCHEDULABLE under {}:\n", model::to_string(verdict.policy));
    for (const analysis::Finding& f : verdict.reasons()) {
      os::to_stderr("  - {}: {}: {}\n", f.task.empty() ? std::string("task set") : "task '" + f.task + "'",
                    f.test, f.detail);
    }
    if (!a.force) {
      // --force runs the set anyway, but only tasks that name a program can run at all.
      std::string without_program;
      for (const model::Task& t : set.tasks) {
        if (t.program.empty()) without_program += (without_program.empty() ? "'" : ", '") + t.name + "'";
      }
      if (without_program.empty()) {
        os::to_stderr("takt run: not running it (pass --force to run it anyway and measure the misses)\n");
      } else {
        os::to_stderr(
            "takt run: not running it (--force runs it anyway, but only when every task names a "
            "program, and these name none: {}; give each a `program:`, e.g. `program: segments` with "
            "`segments:`, docs/writing-tasks.md)\n",
            without_program);
      }
      return exit_unschedulable;
    }
    os::to_stderr("takt run: running it anyway (--force)\n");
  }

  std::unique_ptr<platform::Policy> policy = policies::make_policy(verdict.policy);
  platform::RunResult result = platform::run_task_set(set, verdict, *policy, run);
  int code = exit_ok;
  if (!result.output_errors.empty()) {
    os::to_stderr("takt: error: {}\n", result.output_errors);
    code = exit_bad_input;
  }
  if (result.jobs_left_running) {
    // A job that never finished still runs on one of the policy's threads; the results
    // are written, so end here instead of waiting for it.
    os::to_stderr(
        "takt run: a job released before the end had not finished (abandoned: it may still be running, or "
        "waiting to run); "
        "exiting without waiting for it\n");
    std::_Exit(finish_command(code));
  }
  if (!a.no_cyclictest && platform::floor_after_run_wanted(result)) {
    platform::report_floor_after_run(result, run.json);
  }
  return code;
}

[[maybe_unused]] const bool registered = register_command({
    {"run"},
    "Run a task set: analyse it (exit 2 if not schedulable, unless --force), release its jobs on time "
    "under its policy, and print the results (and write JSON and a Perfetto trace)",
    [](CLI::App& app) -> Action {
      auto args = std::make_shared<RunArgs>();
      app.add_option("file", args->file, "Task-set file (YAML or JSON; see docs/task-set-format.md)")
          ->required()
          ->check(input_file("the task-set file"));
      app.add_option("--policy", args->policy,
                     "federated, federated-greedy, partitioned-dm or gedf-paws (default: global.policy)");
      app.add_option(
             "--cores", args->cores,
             "Number of cores m, 1 to 65536 (default: global.cores, else every CPU this process may use)")
          ->check(whole_in_range(1, 65536));
      app.add_option("--delta", args->delta, kDeltaHelp);
      app.add_option("--fit", args->fit, "first-fit or worst-fit (partitioned-dm strands, federated light tasks; refused with gedf-paws)");
      auto* duration =
          app.add_option("--duration", args->duration,
                         "Run length, e.g. 10s (default: global.duration or global.jobs, else 10s)")
              ->check(duration_option(true));
      auto* jobs = app.add_option("--jobs", args->jobs, "Jobs per task instead of a duration")
                       ->check(whole_at_least_for(1, args->jobs));
      duration->excludes(jobs);
      app.add_option("--json", args->json, "Write the metrics as JSON to this file (docs/measurements.md)")
          ->check(output_file());
      app.add_option("--trace", args->trace, "Write a Chrome trace-event timeline (opens in ui.perfetto.dev)")
          ->check(output_file());
      app.add_flag("--force", args->force, "Run even when the analysis rejects the set");
      app.add_flag("--no-progress", args->no_progress, "No progress line on stderr");
      app.add_flag("--no-cyclictest", args->no_cyclictest,
                   "Do not measure the machine's latency floor (cyclictest, 2 s, on the run's CPUs) after the run");
      return [args] { return run_run(*args); };
    },
});

}  // namespace
}  // namespace takt::cli
