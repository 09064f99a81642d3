// The machine's latency floor right after a run.
#include "platform/run_floor.hpp"

#include "os/power.hpp"
#include "os/realtime.hpp"
#include "platform/metrics_json.hpp"
#include "platform/stop_flag.hpp"

#include <fmt/core.h>

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

CyclictestResult report_floor_after_run(const RunFloorOptions& options) {
  CyclictestOptions c;
  c.duration = options.duration;
  c.cpus = options.cpus.empty() ? os::allowed_cpus() : options.cpus;
  std::optional<os::WakeupLatencyRequest> qos;
  if (os::privileges().fifo) qos.emplace();
  // A SIGINT or SIGTERM ends the measurement early: the samples so far are reported
  // (the line's note and the JSON's `stopped` say so) and written, and the command then ends by the signal
  // (cli::finish_command), as after a stopped run.
  StopOnSignal signals(kFloorStopNotice);
  c.stop_requested = [&signals] { return signals.requested(); };
  const CyclictestResult floor = run_cyclictest(c);
  signals.measured();
  qos.reset();
  const auto seconds = std::chrono::duration<double>(options.duration).count();
  fmt::print(options.out, "machine floor, measured after the run for {:g} s: {}\n", seconds,
             cyclictest_summary(floor));
  std::fflush(options.out);
  // Written again only to a plain file: a FIFO, a terminal, a pipe or the file that
  // standard output or error goes to got the document once already and would get a
  // second one after it.
  std::error_code ec;
  if (options.json && options.document != nullptr &&
      std::filesystem::is_regular_file(write_target(*options.json), ec) &&
      standard_stream_file(write_target(*options.json)) == nullptr) {
    (*options.document)["cyclictest"] = cyclictest_json(floor);
    write_json_file(*options.json, *options.document);
  }
  return floor;
}

}  // namespace takt::platform
