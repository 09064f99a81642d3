// `takt bench runtime`: the runtime benchmark against oneTBB and OpenMP.
#include "bench/runtime/runtime_bench.hpp"
#include "cli/command.hpp"
#include "model/duration.hpp"
#include "platform/stop_flag.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>

#include <chrono>
#include <memory>
#include <string>

namespace takt::cli {
namespace {

[[maybe_unused]] const bool registered = register_command({
    {"bench", "runtime"},
    "fib, UTS, matmul and the RTWS synthetic tasks on takt, oneTBB, OpenMP and serially, isolated and "
    "multiprogrammed, the runtimes taking turns in rounds; prints median/p95/max, ratios and the speed "
    "targets, each tail target with a bootstrap interval",
    [](CLI::App& app) -> Action {
      auto options = std::make_shared<bench::RuntimeBenchOptions>();
      auto load_period = std::make_shared<std::string>("1ms");
      auto openmp_schedule = std::make_shared<std::string>("dynamic,1");
      app.add_option("--json", options->json_path, "Write the results as JSON to this file")
          ->check(output_file());
      app.add_option("--repetitions", options->repetitions,
                     "Timed runs per kernel and runtime (default: per kernel)")
          ->check(whole_at_least_for(1, options->repetitions));
      app.add_flag("--quick", options->quick, "Small sizes and few runs (a smoke test, well under a minute)");
      app.add_option("--workers", options->workers,
                     "Threads per runtime (default: the CPUs this process may use)")
          ->check(whole_at_least_for(1, options->workers));
      // Callbacks, not "!--no-pin" flags: CLI11 prints those as "--no-pin{false}".
      app.add_flag_callback(
          "--no-pin", [options] { options->pin = false; },
          "Do not pin takt's workers to CPUs (oneTBB and OpenMP threads are never pinned)");
      app.add_flag_callback(
          "--no-caller-joins", [options] { options->caller_joins = false; },
          "takt: start P worker threads and block the calling thread during each run, instead of "
          "P-1 threads with the caller as worker 0 (as oneTBB's arena and OpenMP's team run)");
      app.add_option("--fib-n", options->fib_n, "n of the fib kernels (default 30; 25 with --quick)")
          ->check(whole_in_range(2, 40));
      app.add_option("--load-period", *load_period,
                     "Period of the multiprogrammed condition's load on each CPU, busy a quarter of "
                     "it (default 1ms, at most 1s)")
          ->check(duration_at_least(std::chrono::microseconds(100), "shorter busy parts drown in wake-up latency"));
      app.add_option("--openmp-schedule", *openmp_schedule,
                     "Schedule of OpenMP's loops (matmul, synthetic): static, dynamic, guided or auto, "
                     "with ,CHUNK but for auto (default dynamic,1, RTWS's centralized queue)")
          ->check(CLI::Validator(
              [](std::string& text) {
                return bench::parse_openmp_schedule(text)
                           ? std::string()
                           : "'" + text +
                                 "' is no OpenMP schedule: give static, dynamic, guided or auto, optionally "
                                 "with ,CHUNK (1 to 1000000; not with auto), e.g. guided or dynamic,16";
              },
              "SCHEDULE", "openmp schedule"));
      app.add_option("--kernels", options->kernels,
                     "Run only these kernels: fib, fib-1worker, uts, uts-t3-style, matmul, synthetic-1, "
                     "synthetic-2, synthetic-3")
          ->delimiter(',')
          ->check(one_of("kernel", {"fib", "fib-1worker", "uts", "uts-t3-style", "matmul", "synthetic-1",
                                    "synthetic-2", "synthetic-3"}));
      app.add_option(
             "--runtimes", options->runtimes,
             "Run only these runtimes: takt, onetbb, openmp, serial (a target needs both of its runtimes)")
          ->delimiter(',')
          ->check(one_of("runtime", {"takt", "onetbb", "openmp", "serial"}));
      return [options, load_period, openmp_schedule] {
        each_once(options->kernels, "--kernels", "kernel");
        each_once(options->runtimes, "--runtimes", "runtime");
        options->openmp_schedule = *bench::parse_openmp_schedule(*openmp_schedule);  // checked above
        options->load_period = model::parse_duration(*load_period);  // at least 100us: duration_at_least()
        if (options->load_period > std::chrono::seconds(1)) {
          // The load spins in SCHED_FIFO a quarter of each period, on every CPU at once.
          throw OptionError(
              fmt::format("--load-period {}: at most 1s (the load would hold every CPU for {} at a time); "
                          "give a shorter period",
                          *load_period, model::format_duration(options->load_period / 4)));
        }
        // SIGINT/SIGTERM: the round under way is finished, the rest not run; the table,
        // targets and JSON (complete: false, stopped: true) of the rounds measured are
        // written, then takt ends by the signal (finish_command).
        platform::StopOnSignal stop(
            "\ntakt bench runtime: stopping after the round in flight; a third Ctrl-C ends takt at once\n");
        options->stop_requested = [&stop] { return stop.requested(); };
        if (std::string problem = bench::runtime_bench_machine_problem(*options); !problem.empty()) {
          throw OptionError(problem);
        }
        const int code = bench::run_runtime_bench(*options);
        stop.measured();
        return code;
      };
    },
});

}  // namespace
}  // namespace takt::cli
