// takt bench sched: the scheduling framework's costs (per pipeline stage, against the number of PEs).
#include "bench/sched/sched_bench.hpp"
#include "cli/command.hpp"
#include "os/diagnostics.hpp"
#include "platform/metrics_json.hpp"
#include "platform/stop_flag.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <array>
#include <csignal>
#include <memory>
#include <string>

namespace takt::cli {
namespace {

void print_per_stage(const nlohmann::json& ps);
void print_scaling(const nlohmann::json& sc);
void print_baselines(const nlohmann::json& b);

void print_table(const nlohmann::json& r) {
  fmt::print("takt bench sched: one thread, nanoseconds per task, median of {} repeats{}\n",
             r["repeats"].get<int>(),
             r.contains("stopped_by") ? "; stopped by " + r["stopped_by"].get<std::string>() + ": partial"
                                      : std::string());
  fmt::print(
      "(timings from a shared machine: repeat the run and compare; see docs/scheduling-framework.md)\n\n");

  if (r.contains("per_stage")) print_per_stage(r["per_stage"]);
  if (r.contains("scaling")) print_scaling(r["scaling"]);
  if (r.contains("baselines")) print_baselines(r["baselines"]);
}

void print_per_stage(const nlohmann::json& ps) {
  fmt::print("Cost per pipeline stage: chains of head-queue stages, {} tasks in flight, 1 PE{}\n",
             ps["tasks_in_flight"].get<int>(),
             ps.contains("complete") ? " (stopped: not every depth measured)" : "");
  fmt::print("  {:>6} {:>10} {:>12}\n", "stages", "admit", "schedule");
  for (std::size_t i = 0; i < ps["depths"].size(); ++i) {
    fmt::print("  {:>6} {:>10.1f} {:>12.1f}\n", ps["depths"][i].get<double>(),
               ps["admit_ns"][i].get<double>(), ps["schedule_ns"][i].get<double>());
  }
  if (ps["per_stage_ns"].is_null()) {
    fmt::print("  per stage: - (a slope needs two depths); target <= {} ns, CoBaS ~{} ns\n\n",
               ps["target_per_stage_ns"].get<int>(), ps["cobas_per_stage_ns"].get<int>());
    return;
  }
  fmt::print("  per stage: {:.1f} ns (admit {:.1f}, schedule {:.1f}); target <= {} ns, CoBaS ~{} ns\n\n",
             ps["per_stage_ns"].get<double>(), ps["per_stage_admit_ns"].get<double>(),
             ps["per_stage_schedule_ns"].get<double>(), ps["target_per_stage_ns"].get<int>(),
             ps["cobas_per_stage_ns"].get<int>());
}

void print_scaling(const nlohmann::json& sc) {
  fmt::print(
      "Admit and schedule per task against the number of PEs ({} tasks in flight per PE;\n"
      "gedf-paws-64: 64 jobs in the global queue whatever the PEs)\n",
      sc["tasks_in_flight_per_pe"].get<int>());
  std::string header = fmt::format("  {:<16} {:<9}", "topology", "PEs:");
  for (const auto& n : sc["pes"]) header += fmt::format(" {:>7}", n.get<int>());
  fmt::print("{} {:>8}\n", header, "growth");
  bool cut = false;  // a topology a stop left without its last PE counts
  for (const auto& [name, t] : sc["topologies"].items()) {
    bool first = true;
    const bool complete = !t.contains("complete");
    cut = cut || !complete;
    for (const std::string what : {"admit", "schedule", "idle_schedule"}) {
      if (t[what + "_ns"].is_null()) continue;                   // not measured (--skip-idle)
      const nlohmann::json& growth = t[what + "_growth_ratio"];  // null: fewer than two PE counts
      std::string line =
          fmt::format("  {:<16} {:<9}", first ? name : "", what == "idle_schedule" ? "idle" : what);
      first = false;
      for (const auto& v : t[what + "_ns"]) line += fmt::format(" {:>7.1f}", v.get<double>());
      for (std::size_t i = t[what + "_ns"].size(); i < sc["pes"].size(); ++i) {
        line += fmt::format(" {:>7}", "-");
      }
      if (complete && growth.is_number()) {
        fmt::print("{} {:>7.2f}x\n", line, growth.get<double>());
      } else {
        fmt::print("{} {:>8}\n", line, "-");
      }
    }
  }
  if (cut) fmt::print("  -: not measured (stopped)\n");
  if (sc.contains("not_measured") && !sc["not_measured"].empty()) {
    fmt::print("  not measured (stopped before them): {}\n",
               fmt::join(sc["not_measured"].get<std::vector<std::string>>(), ", "));
  }
  fmt::print(
      "  growth: last PE count over first; target <= {:.0f}x from 2 to 256 PEs (CoBaS's admission grew\n"
      "  linearly to ~{} us at 254 PEs); idle: schedule() when no task is queued anywhere\n\n",
      sc["target_growth_ratio"].get<double>(), sc["cobas_admit_us_at_254_pes"].get<int>());
}

void print_baselines(const nlohmann::json& b) {
  fmt::print("Baselines, one push + one pop per task, same run\n");
  fmt::print("  oneTBB concurrent_priority_queue:          {:>7.1f} ns\n",
             b["tbb_concurrent_priority_queue_push_pop_ns"].get<double>());
  fmt::print("  OpenMP lock + std::priority_queue:         {:>7.1f} ns\n",
             b["openmp_locked_priority_queue_push_pop_ns"].get<double>());
  if (!b.contains("framework_admit_schedule_ns")) return;
  fmt::print("  framework admit + schedule ({}): {:>7.1f} ns = {:.1f}x oneTBB, {:.1f}x OpenMP\n",
             b["framework_topology"].get<std::string>(), b["framework_admit_schedule_ns"].get<double>(),
             b["ratio_to_tbb"].get<double>(), b["ratio_to_openmp"].get<double>());
}

/// SIGINT/SIGTERM ends the run before the next measurement (the one in flight
/// is finished); what was measured is printed and written. A third signal still ends
/// takt at once.
constexpr std::string_view kStopNotice =
    "\ntakt bench sched: stopping after the measurement in flight; a third Ctrl-C ends takt at once, "
    "without results\n";

Action configure(CLI::App& app) {
  auto json_path = std::make_shared<std::string>();
  auto options = std::make_shared<bench::SchedBenchOptions>();
  app.add_option("--json", *json_path, "Also write the results as JSON to FILE")
      ->type_name("FILE")
      ->check(output_file());
  app.add_option("--repeats", options->repeats, "Repeat every measurement N times and report the median")
      ->type_name("N")
      ->default_val(7)
      ->check(whole_in_range(1, 1000));
  app.add_flag("--quick", options->quick, "Fewer operations per measurement (a smoke run)");
  CLI::Option* pes = app.add_option("--pes", options->pes, "Scaling part: only these PE counts (e.g. 2,256)")
                         ->delimiter(',')
                         ->check(whole_in_range(1, 4096));
  CLI::Option* topology =
      app.add_option(
             "--topology", options->topologies,
             "Scaling part: only these topologies (per-pe-balanced, gedf-paws, gedf-paws-64, partitioned-dm, "
             "federated)")
          ->delimiter(',')
          ->check(one_of("topology",
                         {"per-pe-balanced", "gedf-paws", "gedf-paws-64", "partitioned-dm", "federated"}));
  CLI::Option* depths =
      app.add_option("--depths", options->depths, "Per-stage part: only these chain depths (e.g. 1,8)")
          ->delimiter(',')
          ->check(whole_in_range(1, 9));
  auto skip = std::make_shared<std::array<bool, 4>>();
  app.add_flag("--skip-per-stage", (*skip)[0], "Do not run the per-stage part");
  app.add_flag("--skip-scaling", (*skip)[1], "Do not run the scaling part");
  CLI::Option* skip_idle =
      app.add_flag("--skip-idle", (*skip)[2], "Scaling part: do not time idle schedule() calls");
  app.add_flag("--skip-baselines", (*skip)[3], "Do not run the oneTBB / OpenMP baselines");
  return [json_path, options, skip, pes, topology, depths, skip_idle] {
    each_once(options->pes, "--pes", "PE count");
    each_once(options->topologies, "--topology", "topology");
    each_once(options->depths, "--depths", "depth");
    // A run that measures nothing, or an option of a part that is skipped (it was ignored
    // until 2026-11-29), is refused: as takt generate refuses another method's options.
    if ((*skip)[0] && (*skip)[1] && (*skip)[3]) {
      throw OptionError(
          "--skip-per-stage, --skip-scaling and --skip-baselines leave nothing to measure; leave out one of "
          "them");
    }
    if ((*skip)[1]) {
      for (const CLI::Option* o : {pes, topology, skip_idle}) {
        if (o->count() > 0) {
          throw OptionError(
              fmt::format("{} applies to the scaling part, which --skip-scaling leaves out; give one "
                          "of the two",
                          o->get_name()));
        }
      }
    }
    if ((*skip)[0] && depths->count() > 0) {
      throw OptionError(
          "--depths applies to the per-stage part, which --skip-per-stage leaves out; give one of the two");
    }
    options->per_stage = !(*skip)[0];
    options->scaling = !(*skip)[1];
    options->idle = !(*skip)[2];
    options->baselines = !(*skip)[3];
    options->progress = [](const std::string& line) { os::to_stderr("  {}\n", line); };
    // Write the output first: a wrong path should not cost a whole run. (A stream or FIFO
    // gets the last document only.)
    if (platform::takes_checkpoints(*json_path)) {
      platform::write_json_file(*json_path, platform::benchmark_started("sched"));
      options->checkpoint = [json_path](const nlohmann::json& partial) {
        nlohmann::json doc = partial;
        doc["complete"] = false;
        platform::write_json_file(*json_path, doc);
      };
    }
    platform::StopOnSignal signals(kStopNotice);
    options->stop_requested = [&signals] { return signals.requested(); };
    nlohmann::json result = bench::run_sched_bench(*options);
    signals.measured();
    const bool stopped = result.value("stopped", false);
    result.erase("stopped");
    if (stopped) result["stopped_by"] = signals.signal_name();
    result["complete"] = !stopped;
    print_table(result);
    if (!json_path->empty()) {
      platform::write_json_file(*json_path, result);
      fmt::print("wrote {}{}\n", *json_path, stopped ? " (partial: complete is false)" : "");
    }
    if (stopped) {
      os::to_stderr("takt bench sched: stopped by {}; the measurements made are printed{}\n",
                    signals.signal_name(), json_path->empty() ? "" : " and written to " + *json_path);
    } else {
      signals.say_if_it_came_too_late("bench sched", "measurement", "the results are complete");
    }
    // A stopped run ends by the signal after this (cli::finish_command).
    return exit_ok;
  };
}

[[maybe_unused]] const bool registered = register_command(
    {{"bench", "sched"},
     "Cost of the scheduling framework: per pipeline stage, and admit / schedule against 2..256 PEs, "
     "with oneTBB and OpenMP queues as baselines",
     configure});

}  // namespace
}  // namespace takt::cli
