// `takt demo`: fib and UTS on a takt pool, with the per-worker statistics.
#include "apps/fib.hpp"
#include "apps/uts.hpp"
#include "cli/command.hpp"
#include "os/cpu.hpp"
#include "takt/runtime.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>

namespace takt::cli {
namespace {

struct DemoOptions {
  std::uint64_t fib_n = 30;
  std::string json;
};

void print_statistics(const Pool& pool) {
  fmt::print("  {:>6} {:>10} {:>8} {:>13} {:>7} {:>6} {:>6}\n", "worker", "spawns", "steals", "failed steals",
             "sleeps", "parks", "depth");
  for (std::size_t i = 0; i < pool.workers(); ++i) {
    WorkerStatistics s = pool.statistics(i);
    fmt::print("  {:>6} {:>10} {:>8} {:>13} {:>7} {:>6} {:>6}\n", i, s.spawns, s.steals, s.failed_steals, s.sleeps,
               s.parks, s.max_depth);
  }
}

int run_demo(const DemoOptions& options) {
  using Clock = std::chrono::steady_clock;
  const os::CpuSet cpus = os::allowed_cpus();
  fmt::print("takt demo: a work-stealing pool with static memory on CPUs {}\n\n", cpus.to_string());

  // Size the pool the P³LS³ way: one serial measurement run of the biggest computation.
  Measurement fib_need = measure([n = options.fib_n] { return apps::fib(n); });
  Measurement uts_need = measure([] { return apps::uts(apps::uts_p3ls3); });
  PoolConfig config;
  config.cpus = cpus;
  config.memory.depth = std::max(fib_need.depth, uts_need.depth);
  config.memory.stack_size = std::max(fib_need.recommended().stack_size, uts_need.recommended().stack_size);
  config.name = "demo";
  fmt::print("measurement run: fib({}) needs depth {}, UTS needs depth {}; peak stack {} bytes\n", options.fib_n,
             fib_need.depth, uts_need.depth, std::max(fib_need.peak_stack_bytes, uts_need.peak_stack_bytes));
  Pool pool(config);
  MemoryFootprint m = pool.memory();
  fmt::print("static memory: P = {} workers x R_S = {} blocks of {} bytes = {:.1f} MiB bound ({:.1f} MiB allocated)\n\n",
             m.workers, m.depth, m.block_bytes, m.bound_bytes / 1048576.0, m.total_bytes / 1048576.0);

  nlohmann::json out;
  auto t0 = Clock::now();
  std::uint64_t fib = pool.run([n = options.fib_n] { return apps::fib(n); });
  auto t1 = Clock::now();
  double fib_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  fmt::print("fib({}) = {} in {:.2f} ms ({} spawns)\n", options.fib_n, fib, fib_ms, apps::fib_spawns(options.fib_n));
  print_statistics(pool);
  out["fib"] = {{"n", options.fib_n}, {"value", fib}, {"ms", fib_ms}};

  pool.reset_statistics();
  t0 = Clock::now();
  apps::UtsResult uts = pool.run([] { return apps::uts(apps::uts_p3ls3); });
  t1 = Clock::now();
  double uts_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  fmt::print("\nUTS (P3LS3 tree): {} nodes, {} leaves, depth {} in {:.2f} ms\n", uts.nodes, uts.leaves, uts.max_depth,
             uts_ms);
  print_statistics(pool);
  out["uts"] = {{"nodes", uts.nodes}, {"leaves", uts.leaves}, {"depth", uts.max_depth}, {"ms", uts_ms}};
  if (!options.json.empty()) {
    std::ofstream(options.json) << out.dump(2) << '\n';
  }
  return exit_ok;
}

[[maybe_unused]] const bool registered = register_command({
    {"demo"},
    "Run fib and unbalanced tree search on a takt pool and print per-worker statistics",
    [](CLI::App& app) -> Action {
      auto options = std::make_shared<DemoOptions>();
      app.add_option("--fib", options->fib_n, "n of fib(n)")->check(CLI::Range(1, 40));
      app.add_option("--json", options->json, "Write the results as JSON to this file");
      return [options] { return run_demo(*options); };
    },
});

}  // namespace
}  // namespace takt::cli
