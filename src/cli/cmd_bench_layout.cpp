// `takt bench layout`: what the order of a chain's blocks costs once trades have mixed
// two workers' chains (docs/runtime.md, "Block layout").
#include "bench/layout/block_layout.hpp"
#include "cli/command.hpp"
#include "os/diagnostics.hpp"
#include "platform/metrics_json.hpp"
#include "platform/stop_flag.hpp"

#include <fmt/core.h>

#include <memory>
#include <string>

namespace takt::cli {
namespace {

struct LayoutArgs {
  bench::BlockLayoutOptions options;
  std::string json;
};

/// SIGINT/SIGTERM: the run in flight finishes, nothing more is measured, and the rounds
/// every row finished are printed and written, marked partial; cli::finish_command then
/// ends takt by the signal.
int run_layout(const LayoutArgs& a) {
  if (!a.json.empty()) platform::write_json_file(a.json, platform::benchmark_started("layout"));
  platform::StopOnSignal stop(
      "\ntakt bench layout: stopping after the run in flight; a third Ctrl-C ends takt at once, without "
      "results\n");
  bench::BlockLayoutOptions options = a.options;
  options.stop_requested = [&stop] { return stop.requested(); };
  bench::BlockLayoutReport r = bench::measure_block_layout(options);
  stop.measured();
  if (!r.complete) r.stopped_by = stop.signal_name();
  fmt::print("{}", bench::format_block_layout(r));
  if (!a.json.empty()) {
    platform::write_json_file(a.json, bench::to_json(r));
    fmt::print("results written to {}{}\n", a.json, r.complete ? "" : " (partial)");
  }
  if (!r.complete) {
    os::to_stderr("takt bench layout: stopped by {}: {} run(s) per row kept\n", r.stopped_by,
                  r.rows.front().samples_ms.size());
  } else {
    stop.say_if_it_came_too_late("bench layout", "run", "every row was measured");
  }
  return 0;
}

[[maybe_unused]] const bool registered = register_command({
    {"bench", "layout"},
    "What the order of a chain's blocks in memory costs once resource trading has exchanged blocks between "
    "two "
    "workers' chains: fib on 2 workers with the blocks in position order (takt's layout before 2026-11-28) "
    "and in takt's shuffled order, with no block exchanged, the one at 40 % of the depth D fib needs, or the "
    "up to six around it (3 below to 2 above, within 1..D: six for fib(30), fewer for a small --fib-n)",
    [](CLI::App& app) -> Action {
      auto a = std::make_shared<LayoutArgs>();
      app.add_option("--runs", a->options.runs,
                     "Timed runs per row, in three rounds of fresh pools (default 30)")
          ->check(whole_in_range(1, 100000));
      app.add_option("--fib-n", a->options.fib_n, "n of fib (default 30)")->check(whole_in_range(8, 40));
      app.add_option("--json", a->json, "Write the results as JSON to FILE")
          ->type_name("FILE")
          ->check(output_file());
      return [a] { return run_layout(*a); };
    },
});

}  // namespace
}  // namespace takt::cli
