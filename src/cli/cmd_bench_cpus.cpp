// `takt bench cpus`: the busy loop's speed per CPU, alone and with every CPU busy.
#include "bench/cpus/cpu_speed.hpp"
#include "cli/command.hpp"
#include "platform/metrics_json.hpp"

#include <fmt/core.h>

#include <memory>
#include <string>

namespace takt::cli {
namespace {

struct CpusArgs {
  bench::CpuSpeedOptions options;
  std::string json;
};

[[maybe_unused]] const bool registered = register_command({
    {"bench", "cpus"},
    "How fast each CPU runs the busy loop of the segments and synthetic programs, alone and with every CPU "
    "busy, against the calibration those programs assume: whether synthetic nodes run as long as declared "
    "here (segments strands of 50 us or more use their declared CPU time anywhere)",
    [](CLI::App& app) -> Action {
      auto a = std::make_shared<CpusArgs>();
      app.add_option("--seconds", a->options.seconds,
                     "Seconds per CPU alone, and once more for all CPUs together (default 0.5)")
          ->check(CLI::Range(0.01, 60.0));
      app.add_option("--json", a->json, "Write the results as JSON to FILE")
          ->type_name("FILE")
          ->check(output_file());
      return [a] {
        const bench::CpuSpeedReport r = bench::measure_cpu_speed(a->options);
        fmt::print("{}", bench::format_cpu_speed(r));
        if (!a->json.empty()) {
          platform::write_json_file(a->json, bench::to_json(r));
          fmt::print("results written to {}\n", a->json);
        }
        return 0;
      };
    },
});

}  // namespace
}  // namespace takt::cli
