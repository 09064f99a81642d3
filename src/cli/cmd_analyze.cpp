// `takt analyze FILE`: is the task set schedulable under a policy, and what does each task get.
#include "analysis/analyse.hpp"
#include "cli/analyze_report.hpp"
#include "cli/command.hpp"
#include "model/task_set_parser.hpp"
#include "os/diagnostics.hpp"
#include "platform/run.hpp"
#include "policies/builtin_topologies.hpp"
#include "sched/topology_spec.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>

#include <memory>
#include <optional>

namespace takt::cli {
namespace {

struct AnalyzeArgs {
  std::string file;
  std::string policy;
  int cores = 0;
  std::string delta;
  std::string fit;
  bool json = false;
};

int run_analyze(const AnalyzeArgs& a) {
  model::TaskSet set = model::parse_task_set_file(a.file);
  // The analysis does not use a custom topology, but `takt run` does: a topology that
  // cannot be read is bad input here as well. (Whether it fits the machine's processing
  // elements is checked when `takt run` builds it.)
  std::optional<sched::TopologySpec> topology;
  if (set.topology) topology = sched::parse_topology(*set.topology, set.source);
  // Nor may a segments task's args describe other segments than the ones analysed.
  for (const model::Task& t : set.tasks) (void)platform::program_arguments(t, set.source);
  AnalysisChoice choice = analysis_choice(set, a.policy, a.fit, a.delta, a.cores);
  std::string note = choice.note;
  if (choice.cores_assumed) {
    note += fmt::format(
        "note: the task set names no cores; analysing for the {} CPU(s) this process may use "
        "(set global.cores or pass --cores)\n",
        *choice.options.cores);
  }
  analysis::AnalysisResult result = analysis::analyse(set, choice.options);
  // An entry the policy's jobs cannot take: `takt run` refuses it as it prepares.
  if (topology) policies::check_entry_for_policy(*topology, model::to_string(result.policy));
  if (!note.empty()) os::to_stderr("{}", note);  // stderr: the JSON on stdout stays one document
  if (a.json) {
    write_analysis_json(stdout, set, result);
  } else {
    fmt::print("{}", analysis_text(set, result));
  }
  return result.schedulable ? exit_ok : exit_unschedulable;
}

[[maybe_unused]] const bool registered = register_command({
    {"analyze"},
    "Decide whether a task set is schedulable under a policy and what each task is granted "
    "(exit 0: schedulable, 2: not, 1: bad input)",
    [](CLI::App& app) -> Action {
      auto args = std::make_shared<AnalyzeArgs>();
      app.add_option("file", args->file, "Task-set file (YAML or JSON; see docs/task-set-format.md)")
          ->required()
          ->check(input_file("the task-set file"));
      app.add_option("--policy", args->policy,
                     "federated, federated-greedy, partitioned-dm or gedf-paws (default: global.policy)");
      app.add_option(
             "--cores", args->cores,
             "Number of cores m, 1 to 65536 (default: global.cores, else the CPUs this process may use)")
          ->check(whole_in_range(1, 65536));
      app.add_option("--delta", args->delta, kDeltaHelp);
      app.add_option("--fit", args->fit,
                     "first-fit or worst-fit (partitioned-dm strands, federated light tasks; refused with gedf-paws)");
      app.add_flag("--json", args->json, "Print the result as JSON");
      return [args] { return run_analyze(*args); };
    },
});

}  // namespace
}  // namespace takt::cli
