// `takt bench cpus`: the busy loop's speed per CPU, alone and with every CPU busy.
#include "bench/cpus/cpu_speed.hpp"
#include "cli/command.hpp"
#include "os/diagnostics.hpp"
#include "platform/metrics_json.hpp"
#include "platform/stop_flag.hpp"

#include <fmt/core.h>

#include <csignal>
#include <memory>
#include <string>

namespace takt::cli {
namespace {

struct CpusArgs {
  bench::CpuSpeedOptions options;
  std::string json;
};

/// SIGINT/SIGTERM while measuring: the measurement in flight is cut short and left out,
/// nothing more is measured, and what was measured is printed and written, marked
/// partial; cli::finish_command then ends takt by the signal.
int run_cpus(const CpusArgs& a) {
  platform::StopOnSignal stop(
      "\ntakt bench cpus: stopping; the measurement in flight is left out, the CPUs measured are written; a "
      "third Ctrl-C ends takt at once, without results\n");
  bench::CpuSpeedOptions options = a.options;
  options.stop_requested = [&stop] { return stop.requested(); };
  bench::CpuSpeedReport r = bench::measure_cpu_speed(options);
  stop.measured();  // a signal now is only counted (a third still ends takt)
  const std::string signal = stop.signal_name();
  if (!r.complete) r.stopped_by = signal;
  fmt::print("{}", bench::format_cpu_speed(r));
  if (!a.json.empty()) {
    platform::write_json_file(a.json, bench::to_json(r));
    fmt::print("results written to {}{}\n", a.json, r.complete ? "" : " (partial)");
  }
  if (!r.complete) {
    os::to_stderr(
        "takt bench cpus: stopped by {}: {} of {} CPU(s) measured alone, none with every CPU busy\n", signal,
        bench::cpus_measured_alone(r), r.cpus.size());
  } else {
    stop.say_if_it_came_too_late("bench cpus", "measurement", "every CPU was measured");
  }
  return 0;
}

[[maybe_unused]] const bool registered = register_command({
    {"bench", "cpus"},
    "How fast each CPU runs the busy loop of the segments and synthetic programs, alone and with every CPU "
    "busy, against the calibration those programs assume: whether synthetic nodes run as long as declared "
    "here (segments strands last their declared length anywhere: from 50 us CPU time, shorter ones by the "
    "monotonic clock where a read of it is cheap)",
    [](CLI::App& app) -> Action {
      auto a = std::make_shared<CpusArgs>();
      app.add_option("--seconds", a->options.seconds,
                     "Seconds per CPU alone, and once more for all CPUs together (default 0.5)")
          ->check(number_in_range(0.01, 60.0));
      app.add_option("--json", a->json, "Write the results as JSON to FILE")
          ->type_name("FILE")
          ->check(output_file());
      return [a] { return run_cpus(*a); };
    },
});

}  // namespace
}  // namespace takt::cli
