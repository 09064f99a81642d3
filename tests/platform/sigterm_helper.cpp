// Test helper: a complete platform run (inline lanes, recorder, signals) that writes its JSON when stopped.
//
// Usage: takt_platform_sigterm_helper METRICS.json [TRACE.json]
// Runs two periodic tasks for up to 60 s, one release lane per task, prints "ready"
// on stdout once releasing has begun, and on SIGINT/SIGTERM stops releasing, lets the
// running jobs finish, and writes the metrics (and the trace) before exiting 0.
#include "os/clock.hpp"
#include "os/realtime.hpp"
#include "platform/job_runner.hpp"
#include "platform/recorder.hpp"
#include "platform/release_engine.hpp"
#include "platform/run_report.hpp"
#include "platform/signal_stop.hpp"
#include "takt/program.hpp"

#include <cstdio>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using namespace takt::platform;

namespace {
struct Spin : takt::Task {
  void init(const takt::TaskArgs& args) override {
    micros = args.args.empty() ? 500 : std::stoi(args.args[0]);
  }
  void run(const takt::Job&) override { takt::os::spin_for(std::chrono::microseconds(micros)); }
  int micros = 500;
};
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s METRICS.json [TRACE.json]\n", argv[0]);
    return 1;
  }
  takt::programs().add<Spin>("spin", "busy-waits for the given microseconds");
  std::vector<PeriodicTask> specs{PeriodicTask{"fast", 5ms, 5ms, 0ms, 1},
                                  PeriodicTask{"slow", 20ms, 15ms, 1ms, 1}};
  std::vector<std::unique_ptr<takt::Task>> owned;
  std::vector<takt::Task*> tasks;
  for (const auto& spec : specs) {
    owned.push_back(takt::resolve_program("spin").create());
    owned.back()->init({spec.name, {spec.name == "fast" ? "300" : "2000"}, 1});
    tasks.push_back(owned.back().get());
  }

  ReleaseConfig config;
  config.duration = 60s;
  ReleaseEngine engine(specs, config);
  Recorder recorder(
      {specs.size() + 1, Recorder::events_per_thread_for(*engine.planned_releases(), 3, specs.size())});
  SignalStop signals(engine);
  const SystemSample before = sample_system();
  engine.start(takt::os::monotonic_now() + 5ms);
  std::vector<std::thread> lanes;
  for (std::uint32_t i = 0; i < specs.size(); ++i) {
    lanes.emplace_back([&, i] {
      ThreadRecorder* rec = recorder.attach(specs[i].name);
      InlineSink sink(engine, tasks, rec);
      const std::uint32_t mine[] = {i};
      engine.run_lane(mine, sink, rec);
      rec->close();
    });
  }
  std::printf("ready\n");
  std::fflush(stdout);
  for (auto& l : lanes) l.join();
  const SystemSample after = sample_system();
  for (auto& t : owned) t->finalize();

  RunInfo info;
  info.origin = engine.origin();
  info.end = after.time;
  info.overrun = config.overrun;
  info.policy = "inline lanes";
  info.privileges = takt::os::privileges().summary();
  info.stopped = engine.stop_requested();
  info.abandoned = engine.abandoned();
  info.signal = signals.last_signal();
  ReportOutputs outputs;
  outputs.json = argv[1];
  if (argc > 2) outputs.trace = argv[2];
  outputs.table = stdout;
  report_run(specs, recorder, info, before, after, outputs);
  return 0;
}
