// takt bench latency: RT-OpenMP's Table II micro-benchmarks (scheduling and barrier latency) against
// cyclictest.
#include "bench/latency/latency_bench.hpp"
#include "cli/command.hpp"
#include "os/diagnostics.hpp"
#include "platform/metrics_json.hpp"
#include "platform/stop_flag.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <string>

namespace takt::cli {
namespace {

struct Options {
  std::string json;
  double seconds = 3.0;
  int period_us = 1000;
  bool no_fifo = false;
  bool no_other = false;
  bool no_cyclictest = false;
  bool no_pm_qos = false;
};

/// SIGINT/SIGTERM ends the run before the next measurement (the one in flight is
/// finished; a cyclictest run gets SIGINT and ends with the samples so far); what was
/// measured is printed and written. A third signal still ends takt at once.
constexpr std::string_view kStopNotice =
    "\ntakt bench latency: stopping after the measurement in flight (cyclictest: at once); a third Ctrl-C "
    "ends takt at once, without results\n";

[[maybe_unused]] const bool registered = register_command({
    {"bench", "latency"},
    "Scheduling latency (release -> first instruction, a high-priority job preempting a low-priority one) "
    "and "
    "futex-barrier latency (last thread in -> last thread out), RT-OpenMP Table II, with cyclictest as the "
    "floor, "
    "under SCHED_FIFO and SCHED_OTHER",
    [](CLI::App& app) -> Action {
      auto o = std::make_shared<Options>();
      app.add_option("--json", o->json, "Write the results as JSON to FILE")
          ->type_name("FILE")
          ->check(output_file());
      app.add_option("--seconds", o->seconds, "Seconds per measurement (default 3)")
          ->check(number_in_range(0.1, 3600.0));
      app.add_option("--period-us", o->period_us,
                     "Release period and cyclictest interval in microseconds (default 1000)")
          ->check(whole_in_range(100, 1000000));
      app.add_flag("--no-fifo", o->no_fifo, "Skip the SCHED_FIFO condition");
      app.add_flag("--no-other", o->no_other, "Skip the SCHED_OTHER condition");
      app.add_flag("--no-cyclictest", o->no_cyclictest, "Do not run cyclictest");
      app.add_flag(
          "--no-pm-qos", o->no_pm_qos,
          "Do not hold the CPU wake-up latency at 0 us (/dev/cpu_dma_latency) during the measurements");
      return [o] {
        bench::LatencyBenchOptions options;
        options.seconds = std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(o->seconds * 1e9)));
        options.period = std::chrono::microseconds(o->period_us);
        options.fifo = !o->no_fifo;
        options.other = !o->no_other;
        options.cyclictest = !o->no_cyclictest;
        options.pm_qos = !o->no_pm_qos;
        if (!options.fifo && !options.other) {
          throw OptionError("--no-fifo and --no-other leave nothing to measure; give at most one");
        }
        options.progress = [](const std::string& line) { os::to_stderr("takt: {}\n", line); };
        bench::LatencyCheckpoint checkpoint;
        if (platform::takes_checkpoints(o->json)) {
          // Write the output first: a wrong path should not cost a whole run; then after
          // every measurement ("complete": false), so a run cut short keeps what it measured.
          // (A stream or FIFO gets the last document only.)
          platform::write_json_file(o->json, platform::benchmark_started("latency"));
          checkpoint = [path = o->json](const bench::LatencyReport& partial) {
            platform::write_json_file(path, bench::to_json(partial));
          };
        }
        platform::StopOnSignal signals(kStopNotice);
        options.stop_requested = [&signals] { return signals.requested(); };
        bench::LatencyReport report = bench::run_latency_bench(options, checkpoint);
        signals.measured();
        if (report.stopped) report.stopped_by = signals.signal_name();
        fmt::print("{}", bench::format_table(report));
        if (!o->json.empty()) {
          platform::write_json_file(o->json, bench::to_json(report));
          fmt::print("results written to {}{}\n", o->json,
                     report.stopped ? " (partial: complete is false)" : "");
        }
        if (report.stopped) {
          std::string cut;  // a cyclictest run ended early
          for (const auto& c : report.conditions) {
            if (c.cyclictest.stopped) cut += fmt::format("; {}'s {} ended early", c.name, c.cyclictest.tool);
          }
          os::to_stderr("takt bench latency: stopped by {}; the measurements made are printed{}{}\n",
                        report.stopped_by, o->json.empty() ? "" : " and written to " + o->json, cut);
        } else {
          signals.say_if_it_came_too_late("bench latency", "measurement", "the results are complete");
        }
        bool measured = false;
        std::string unmeasured;  // the first row that could not be measured, and why
        for (const auto& c : report.conditions) {
          measured = measured || c.ran;
          for (const auto& x : c.results) {
            if (unmeasured.empty() && !x.error.empty()) {
              unmeasured = fmt::format("{}: {} {}, {} threads, not measured: {}", c.name, x.benchmark,
                                       x.variant, x.threads, x.error);
            }
          }
        }
        // A stopped run ends by the signal after this (cli::finish_command).
        if (!measured && !report.stopped) {
          throw Error(
              "no condition could run (see above): without the SCHED_FIFO privilege, leave out --no-other");
        }
        if (!unmeasured.empty() && !report.stopped) {
          throw Error(fmt::format("{}; the other measurements are printed{}", unmeasured,
                                  o->json.empty() ? "" : " and written to " + o->json));
        }
        return exit_ok;
      };
    },
});

}  // namespace
}  // namespace takt::cli
