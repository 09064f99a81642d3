// takt bench policies: the four policies on the same task sets at 30/50/70 % utilization, with cyclictest.
#include "bench/policies/policies_bench.hpp"
#include "cli/command.hpp"
#include "model/duration.hpp"
#include "os/diagnostics.hpp"
#include "platform/metrics_json.hpp"
#include "platform/signal_stop.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>

#include <memory>
#include <string>

namespace takt::cli {
namespace {

struct Options {
  std::string json;
  std::string markdown;
  int cores = 2;
  std::vector<int> utilizations{30, 50, 70};
  std::vector<std::string> workloads{"rt-openmp", "fine"};
  int sets = 3;
  std::uint64_t min_jobs = 1000;
  double cyclictest_seconds = 10.0;
  bool no_cyclictest = false;
};

[[maybe_unused]] const bool registered = register_command({
    {"bench", "policies"},
    "The policy experiment: the same task sets under federated, federated-greedy, partitioned-dm and "
    "gedf-paws at several utilizations (1,000 jobs per cell unless a run reaches 30 s), miss ratio and mean "
    "relative "
    "response time per policy, with cyclictest run in the same invocation",
    [](CLI::App& app) -> Action {
      auto o = std::make_shared<Options>();
      app.add_option("--json", o->json, "Write the results as JSON to FILE (also after each cell)")
          ->type_name("FILE")
          ->check(output_file());
      app.add_option("--markdown", o->markdown, "Write the tables as Markdown to FILE")
          ->type_name("FILE")
          ->check(output_file());
      app.add_option("--cores", o->cores, "Cores m (default 2)")->check(whole_in_range(1, 65536));
      app.add_option("--utilization", o->utilizations, "Utilizations in percent of m (default 30,50,70)")
          ->delimiter(',')
          ->check(whole_in_range(1, 100));
      app.add_option("--workload", o->workloads, "rt-openmp and/or fine (default both)")
          ->delimiter(',')
          ->check(one_of("workload", {"rt-openmp", "fine"}));
      app.add_option("--sets", o->sets, "rt-openmp task sets per utilization, seeds 1..N (default 3)")
          ->check(whole_in_range(1, 100));
      app.add_option("--min-jobs", o->min_jobs,
                     "Jobs per (workload, utilization, policy) at least (default 1000); each run stops after "
                     "30 s, and a cell "
                     "left with fewer jobs is flagged")
          ->check(whole_at_least_for(1, o->min_jobs));
      app.add_option("--cyclictest-seconds", o->cyclictest_seconds, "How long cyclictest runs (default 10)")
          ->check(number_in_range(1.0, 3600.0));
      app.add_flag("--no-cyclictest", o->no_cyclictest, "Do not run cyclictest");
      return [o] {
        bench::PoliciesBenchOptions options;
        options.cores = o->cores;
        each_once(o->utilizations, "--utilization", "utilization");
        each_once(o->workloads, "--workload", "workload");
        options.utilizations = o->utilizations;
        options.workloads = o->workloads;
        options.sets = o->sets;
        options.min_jobs = o->min_jobs;
        options.cyclictest = std::chrono::nanoseconds(static_cast<std::int64_t>(o->cyclictest_seconds * 1e9));
        options.run_cyclictest = !o->no_cyclictest;
        options.progress = [](const std::string& line) { os::to_stderr("takt: {}\n", line); };
        if (std::string problem = bench::policies_bench_machine_problem(options); !problem.empty()) {
          throw OptionError(problem);
        }
        if (platform::takes_checkpoints(o->json)) {
          // Write the output first: a wrong path should not cost the cyclictest run and a cell.
          // (A stream or FIFO gets the last document only.)
          platform::write_json_file(o->json, platform::benchmark_started("policies"));
          options.checkpoint = [o](const bench::PoliciesReport& partial) {
            platform::write_json_file(o->json, bench::to_json(partial));
          };
        }
        // SIGINT/SIGTERM from here until the files are written: the experiment stops
        // (cyclictest with its samples so far, a run as `takt run` does, or before the
        // next set) and what it measured is printed and written; then takt ends by the
        // signal (finish_command). A third signal ends takt at once.
        platform::SignalStop signals;
        options.signals = &signals;
        bench::PoliciesReport report = bench::run_policies_bench(options);
        const std::string tables = bench::format_markdown(report);
        fmt::print("{}", tables);
        if (!o->json.empty()) {
          platform::write_json_file(o->json, bench::to_json(report));
          fmt::print("results written to {}\n", o->json);
        }
        if (!o->markdown.empty()) {
          platform::write_text_file(o->markdown, tables);
        }
        if (!report.stopped.empty() && platform::first_handled_signal() != 0) {
          // Asked for: not an error; takt ends by the signal (finish_command).
          os::to_stderr("takt bench policies: {}; the tables and files hold the sets run\n", report.stopped);
        } else if (!report.stopped.empty()) {
          os::to_stderr("takt: error: {}\n", report.stopped);
          return exit_bad_input;
        }
        return exit_ok;
      };
    },
});

}  // namespace
}  // namespace takt::cli
