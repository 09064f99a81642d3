// The machine's latency floor right after a run.
#include "platform/run_floor.hpp"

#include "os/power.hpp"
#include "os/realtime.hpp"
#include "platform/metrics_json.hpp"
#include "platform/stop_flag.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <string_view>
#include <system_error>

namespace takt::platform {
namespace {

constexpr std::string_view kFloorStopNotice =
    "\ntakt: stopping the latency floor's measurement; the samples so far are reported\n";

}  // namespace

bool floor_after_run_wanted(const RunResult& result) {
  return !result.metrics.run.stopped && result.signal_after_run == 0 && !result.jobs_left_running &&
         result.output_errors.empty() && std::ferror(stdout) == 0;
}

CyclictestResult report_floor_after_run(RunResult& result, const std::optional<std::filesystem::path>& json) {
  std::fflush(stdout);  // the run's table first, not after the measurement
  CyclictestOptions c;
  c.duration = kRunFloorDuration;
  c.cpus = result.cpus;
  std::optional<os::WakeupLatencyRequest> qos;
  if (os::privileges().fifo) qos.emplace();
  // A SIGINT or SIGTERM ends the measurement early: the samples so far are reported
  // (the line's note and the JSON's `stopped` say so) and written, and the command then
  // ends by the signal (cli::finish_command), as after a stopped run.
  StopOnSignal signals(kFloorStopNotice);
  c.stop_requested = [&signals] { return signals.requested(); };
  const CyclictestResult floor = run_cyclictest(c);
  signals.measured();
  qos.reset();
  fmt::print("machine floor, measured after the run for {} s: {}\n", kRunFloorDuration.count(),
             cyclictest_summary(floor));
  std::fflush(stdout);
  if (json && result.json_document) {
    std::error_code ec;
    const std::filesystem::path target = write_target(*json);
    if (std::filesystem::is_regular_file(target, ec) && standard_stream_file(target) == nullptr) {
      (*result.json_document)["cyclictest"] = cyclictest_json(floor);
      write_json_file(*json, *result.json_document);
    }
  }
  return floor;
}

}  // namespace takt::platform
