// `takt demo`: a built-in task set sized to this machine, run for about 10 s under federated; `takt demo runtime`: fib and UTS on a pool.
#include "analysis/analyse.hpp"
#include "apps/fib.hpp"
#include "apps/segments.hpp"
#include "apps/uts.hpp"
#include "cli/command.hpp"
#include "model/duration.hpp"
#include "model/task_set_parser.hpp"
#include "os/cpu.hpp"
#include "os/diagnostics.hpp"
#include "os/realtime.hpp"
#include "platform/metrics_json.hpp"
#include "platform/metrics_table.hpp"
#include "platform/run.hpp"
#include "platform/run_floor.hpp"
#include "platform/stop_flag.hpp"
#include "policies/policy_registry.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace takt::cli {
namespace {

struct DemoOptions {
  std::uint64_t fib_n = 30;
  std::string json;
};

void print_statistics(const Pool& pool) {
  fmt::print("  {:>6} {:>10} {:>8} {:>13} {:>7} {:>6} {:>6} {:>8}\n", "worker", "spawns", "steals", "failed steals",
             "sleeps", "parks", "depth", "idle ms");
  for (std::size_t i = 0; i < pool.workers(); ++i) {
    WorkerStatistics s = pool.statistics(i);
    fmt::print("  {:>6} {:>10} {:>8} {:>13} {:>7} {:>6} {:>6} {:>8.2f}\n", i, s.spawns, s.steals, s.failed_steals,
               s.sleeps, s.parks, s.max_depth, static_cast<double>(s.idle_ns) / 1e6);
  }
}

int run_demo(const DemoOptions& options) {
  using Clock = std::chrono::steady_clock;
  const os::CpuSet cpus = os::allowed_cpus();
  // SIGINT/SIGTERM: the step in flight ends (a measurement run or a computation cannot
  // be cut short), the rest is not run, and what ran is printed and written; then takt
  // ends by the signal. From the first line on (the sizing runs take seconds at large n).
  platform::StopOnSignal stop(
      "\ntakt demo runtime: stopping after the computation in flight; a third Ctrl-C ends takt at once\n");
  nlohmann::json out = platform::provenance();
  fmt::print("takt demo: a work-stealing pool with static memory on CPUs {}\n\n", cpus.to_string());
  std::fflush(stdout);  // what is printed stays printed if a signal ends takt below

  auto stopped = [&](std::string_view not_run) {
    stop.measured();
    out["stopped_by"] = stop.signal_name();
    fmt::print("\nstopped by {}: {} not run\n", stop.signal_name(), not_run);
    if (!options.json.empty()) platform::write_json_file(options.json, out);
    return exit_ok;
  };

  // Size the pool the P³LS³ way: one serial measurement run of each computation.
  Measurement fib_need = measure([n = options.fib_n] { return apps::fib(n); });
  out["measurement"] = {{"fib_depth", fib_need.depth}, {"fib_peak_stack_bytes", fib_need.peak_stack_bytes}};
  if (stop.requested()) return stopped("UTS's measurement run, fib and UTS");
  Measurement uts_need = measure([] { return apps::uts(apps::uts_p3ls3); });
  out["measurement"]["uts_depth"] = uts_need.depth;
  out["measurement"]["uts_peak_stack_bytes"] = uts_need.peak_stack_bytes;
  PoolConfig config;
  config.cpus = cpus;
  config.memory.depth = std::max(fib_need.depth, uts_need.depth);
  config.memory.stack_size = std::max(fib_need.recommended().stack_size, uts_need.recommended().stack_size);
  config.name = "demo";
  fmt::print("measurement run: fib({}) needs depth {}, UTS needs depth {}; peak stack {} bytes\n", options.fib_n,
             fib_need.depth, uts_need.depth, std::max(fib_need.peak_stack_bytes, uts_need.peak_stack_bytes));
  std::fflush(stdout);
  if (stop.requested()) return stopped("fib and UTS");
  Pool pool(config);
  MemoryFootprint m = pool.memory();
  fmt::print("static memory: P = {} workers x R_S = {} blocks of {} bytes = {:.1f} MiB bound ({:.1f} MiB allocated)\n\n",
             m.workers, m.depth, m.block_bytes, m.bound_bytes / 1048576.0, m.total_bytes / 1048576.0);
  std::fflush(stdout);

  pool.reset_statistics();  // idle time counts from here, not from the pool's start
  auto t0 = Clock::now();
  std::uint64_t fib = pool.run([n = options.fib_n] { return apps::fib(n); });
  auto t1 = Clock::now();
  double fib_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  fmt::print("fib({}) = {} in {:.2f} ms ({} spawns)\n", options.fib_n, fib, fib_ms, apps::fib_spawns(options.fib_n));
  print_statistics(pool);
  std::fflush(stdout);
  out["fib"] = {{"n", options.fib_n}, {"value", fib}, {"ms", fib_ms}};
  if (stop.requested()) return stopped("UTS");

  pool.reset_statistics();
  t0 = Clock::now();
  apps::UtsResult uts = pool.run([] { return apps::uts(apps::uts_p3ls3); });
  t1 = Clock::now();
  double uts_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  fmt::print("\nUTS (P3LS3 tree): {} nodes, {} leaves, depth {} in {:.2f} ms\n", uts.nodes, uts.leaves, uts.max_depth,
             uts_ms);
  print_statistics(pool);
  out["uts"] = {{"nodes", uts.nodes}, {"leaves", uts.leaves}, {"depth", uts.max_depth}, {"ms", uts_ms}};
  stop.measured();
  if (!options.json.empty()) {
    platform::write_json_file(options.json, out);
  }
  return exit_ok;
}

[[maybe_unused]] const bool registered_runtime = register_command({
    {"demo", "runtime"},
    "Run fib and unbalanced tree search on a takt pool and print per-worker statistics",
    [](CLI::App& app) -> Action {
      auto options = std::make_shared<DemoOptions>();
      app.add_option("--fib", options->fib_n, "n of fib(n) (default 30)")->check(whole_in_range(1, 40));
      app.add_option("--json", options->json, "Write the results as JSON to this file")->check(output_file());
      return [options] { return run_demo(*options); };
    },
});

// ---- takt demo: the platform's main job on a built-in task set ---------------------------

struct PlatformDemoOptions {
  std::string duration = "10s";
  std::string json;
  std::string trace;
  bool print_set = false;
  bool no_cyclictest = false;
};

/// The demo's task set for m cores, as a task-set file. A parallel task `render` needs
/// n cores under federated scheduling: all of them on one or two cores, m − 1 from
/// three cores on, where the last core is shared by two sequential tasks. Its middle
/// segment has 3 + 8(n − 1) strands of 2 ms, so C = 2 + 2(3 + 8(n − 1)) ms, L = 4 ms,
/// D = 20 ms and ⌈(C − L)/(D − L)⌉ = ⌈(4 + 16(n − 1))/16⌉ = n.
std::string demo_task_set(int m, std::string_view duration) {
  std::string text = fmt::format(
      "# takt demo: a task set sized to this machine's {} core(s), run under federated scheduling.\n"
      "global:\n  cores: {}\n  policy: federated\n  duration: {}\n  overrun: skip\n\ntasks:\n",
      m, m, duration);
  if (m >= 2) {
    const int n = m >= 3 ? m - 1 : m;
    text += fmt::format(
        "  - name: render          # parallel: {} dedicated core(s), work stealing\n"
        "    period: 20ms\n    program: segments\n    segments:\n"
        "      - {{length: 1ms}}\n      - {{length: 2ms, strands: {}}}\n      - {{length: 1ms}}\n",
        n, 3 + 8 * (n - 1));
  }
  if (m != 2) {
    text +=
        "  - name: control         # sequential, on the shared core\n"
        "    period: 5ms\n    deadline: 4ms\n    program: segments\n    segments: [{length: 500us}]\n"
        "  - name: logger          # sequential, on the shared core\n"
        "    period: 50ms\n    program: segments\n    segments: [{length: 5ms}]\n";
  }
  return text;
}

int run_platform_demo(const PlatformDemoOptions& options) {
  apps::register_segments_program();
  const int m = static_cast<int>(os::allowed_cpus().size());
  const std::chrono::nanoseconds duration = model::parse_duration(options.duration);  // duration_option(true)
  const std::string text = demo_task_set(m, model::format_duration(duration));
  if (options.print_set) {
    fmt::print("{}", text);
    return exit_ok;
  }
  model::TaskSet set = model::parse_task_set(text, "<takt demo>");
  analysis::AnalysisResult verdict = analysis::analyse(set);
  if (!verdict.schedulable) {
    throw Error("the demo's task set is not schedulable on this machine's cores; this is a bug in takt demo");
  }
  fmt::print("takt demo: {} task(s) on {} core(s) under federated scheduling for {} (see `takt demo --print-set`)\n",
             set.tasks.size(), m, options.duration);
  for (std::size_t i = 0; i < set.tasks.size(); ++i) {
    const auto& g = verdict.federated()->grants[i];
    fmt::print("  {:<8} period {:>5}, work {:>6}, span {:>5}: {}\n", set.tasks[i].name,
               model::format_duration(set.tasks[i].period), model::format_duration(set.tasks[i].work()),
               model::format_duration(set.tasks[i].span()),
               g.high ? fmt::format("{} dedicated core(s)", g.cores) : std::string("sequential on a shared core"));
  }
  const os::Privileges& privileges = os::privileges();
  fmt::print("real-time privileges: {}\n\n", privileges.summary());
  std::fflush(stdout);

  platform::RunOptions run;
  if (!options.json.empty()) run.json = options.json;
  if (!options.trace.empty()) run.trace = options.trace;
  run.table = nullptr;  // printed below: the demo's set is no file to give `takt profile --update`
  std::unique_ptr<platform::Policy> policy = policies::make_policy(verdict.policy);
  platform::RunResult result = platform::run_task_set(set, verdict, *policy, run);
  fmt::print("{}",
             platform::format_table(result.metrics,
                                    "write the demo's set to a file with `takt demo --print-set > FILE`, "
                                    "then `takt profile --update FILE` and `takt run FILE`"));
  std::fflush(stdout);
  if (!result.output_errors.empty()) {
    os::to_stderr("takt: error: {}\n", result.output_errors);
    return exit_bad_input;
  }
  if (!options.no_cyclictest && platform::floor_after_run_wanted(result)) {
    platform::report_floor_after_run(result, run.json);
  }
  // What the run had (its mlockall can be refused where the mappings the probe saw were
  // under RLIMIT_MEMLOCK and the run's threads took them over it), not what the probe saw.
  fmt::print("\nreal-time privileges were: {}{}\n", result.privileges,
             result.fifo ? "" : " (the run used SCHED_OTHER: see the note above)");
  return exit_ok;
}

[[maybe_unused]] const bool registered_platform = register_command({
    {"demo"},
    "Run a built-in task set sized to this machine's cores for about 10 s under federated scheduling "
    "and print the results (`takt demo runtime`: the fork-join runtime alone)",
    [](CLI::App& app) -> Action {
      auto options = std::make_shared<PlatformDemoOptions>();
      CLI::Option* duration = app.add_option("--duration", options->duration, "How long to run (default 10s)")
                                  ->check(duration_option(true));
      CLI::Option* json =
          app.add_option("--json", options->json, "Write the metrics as JSON to this file")->check(output_file());
      CLI::Option* trace =
          app.add_option("--trace", options->trace, "Write a Chrome trace-event timeline (ui.perfetto.dev)")
              ->check(output_file());
      CLI::Option* no_cyclictest =
          app.add_flag("--no-cyclictest", options->no_cyclictest,
                       "Do not measure the machine's latency floor (cyclictest, 2 s) after the run");
      // It runs nothing: the options of a run would be ignored.
      app.add_flag("--print-set", options->print_set, "Print the demo's task set and exit (runs nothing)")
          ->excludes(duration)
          ->excludes(json)
          ->excludes(trace)
          ->excludes(no_cyclictest);
      return [options] { return run_platform_demo(*options); };
    },
});

}  // namespace
}  // namespace takt::cli
