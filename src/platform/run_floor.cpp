// The machine's latency floor right after a run.
#include "platform/run_floor.hpp"

#include "os/power.hpp"
#include "os/realtime.hpp"
#include "platform/metrics_json.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <system_error>

namespace takt::platform {

bool floor_after_run_wanted(const RunResult& result) {
  return !result.metrics.run.stopped && result.signal_after_run == 0 && !result.jobs_left_running &&
         result.output_errors.empty();
}

CyclictestResult report_floor_after_run(const RunFloorOptions& options) {
  CyclictestOptions c;
  c.duration = options.duration;
  c.cpus = options.cpus.empty() ? os::allowed_cpus() : options.cpus;
  std::optional<os::WakeupLatencyRequest> qos;
  if (os::privileges().fifo) qos.emplace();
  const CyclictestResult floor = run_cyclictest(c);
  qos.reset();
  const auto seconds = std::chrono::duration<double>(options.duration).count();
  fmt::print(options.out, "machine floor, measured after the run for {:g} s: {}\n", seconds,
             cyclictest_summary(floor));
  std::fflush(options.out);
  std::error_code ec;
  if (options.json && std::filesystem::is_regular_file(*options.json, ec)) {
    nlohmann::json j;
    {
      std::ifstream in(*options.json);
      j = nlohmann::json::parse(in, nullptr, false);
    }
    if (j.is_object()) {
      j["cyclictest"] = cyclictest_json(floor);
      write_text_file(*options.json, j.dump(2) + '\n');
    }
  }
  return floor;
}

}  // namespace takt::platform
