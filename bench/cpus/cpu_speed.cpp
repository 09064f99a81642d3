// `takt bench cpus`: the calibrated busy loop's speed per CPU, alone and all CPUs at once.
#include "bench/cpus/cpu_speed.hpp"

#include "apps/segments.hpp"
#include "apps/synthetic.hpp"
#include "os/cpu.hpp"
#include "platform/percentile.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <span>
#include <thread>

namespace takt::bench {
namespace {

using Clock = std::chrono::steady_clock;

/// Chunk speeds (iterations per ns) on `cpu` until `end`, sorted.
std::vector<double> run_chunks(int cpu, Clock::time_point end) {
  os::CpuSet one;
  one.add(cpu);
  os::pin_current_thread(one);
  std::vector<double> speeds;
  speeds.reserve(1 << 16);
  while (Clock::now() < end) {
    const auto t0 = Clock::now();
    apps::busy_units(kCpuSpeedChunk);
    const auto ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    if (ns > 0) speeds.push_back(kCpuSpeedChunk / ns);
  }
  std::sort(speeds.begin(), speeds.end());
  return speeds;
}

/// Nearest-rank percentile of sorted values (0 for none).
double percentile(const std::vector<double>& sorted, double p) {
  return sorted.empty() ? 0.0 : platform::nearest_rank(std::span<const double>(sorted), p);
}

}  // namespace

CpuSpeedReport measure_cpu_speed(const CpuSpeedOptions& options) {
  if (!(options.seconds > 0)) throw Error("--seconds must be positive");
  CpuSpeedReport report;
  report.seconds = options.seconds;
  report.calibrated = apps::busy_units_per_ns();
  const std::vector<int> cpus = os::allowed_cpus().cpus();
  const auto span =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.seconds));
  std::vector<std::vector<double>> together(cpus.size());
  // Alone: one thread at a time, on each CPU in turn.
  for (int cpu : cpus) {
    std::vector<double> alone;
    std::thread([&] { alone = run_chunks(cpu, Clock::now() + span); }).join();
    CpuSpeed s;
    s.cpu = cpu;
    s.alone_p50 = percentile(alone, 50);
    s.max = alone.empty() ? 0 : alone.back();
    report.cpus.push_back(s);
  }
  // Together: one thread per CPU, all measuring over the same interval.
  {
    std::atomic<bool> go{false};
    Clock::time_point end{};
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      threads.emplace_back([&, i] {
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        together[i] = run_chunks(cpus[i], end);
      });
    }
    end = Clock::now() + span;
    go.store(true, std::memory_order_release);
    for (auto& t : threads) t.join();
  }
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    CpuSpeed& s = report.cpus[i];
    s.together_p10 = percentile(together[i], 10);
    s.together_p50 = percentile(together[i], 50);
    if (!together[i].empty()) s.max = std::max(s.max, together[i].back());
  }
  set_worst_stretch(report);
  return report;
}

void set_worst_stretch(CpuSpeedReport& report) {
  report.worst_stretch_alone = 0;
  report.worst_stretch_together = 0;
  for (const CpuSpeed& s : report.cpus) {
    if (s.alone_p50 > 0) {
      report.worst_stretch_alone = std::max(report.worst_stretch_alone, report.calibrated / s.alone_p50);
    }
    if (s.together_p50 > 0) {
      report.worst_stretch_together =
          std::max(report.worst_stretch_together, report.calibrated / s.together_p50);
    }
  }
}

std::string format_cpu_speed(const CpuSpeedReport& r) {
  std::string out = fmt::format(
      "takt bench cpus: the busy loop of the segments and synthetic programs, chunks of {} iterations, "
      "{:.2f} s per phase\ncalibrated (what the programs assume): {:.3f} iterations/ns\n\n",
      kCpuSpeedChunk, r.seconds, r.calibrated);
  out += fmt::format("{:>4}  {:>10}  {:>13}  {:>13}  {:>8}  {:>15}\n", "cpu", "alone p50", "together p10",
                     "together p50", "max", "stretch (p50)");
  for (const CpuSpeed& s : r.cpus) {
    const std::string stretch =
        fmt::format("{:.2f} / {:.2f}", s.alone_p50 > 0 ? r.calibrated / s.alone_p50 : 0.0,
                    s.together_p50 > 0 ? r.calibrated / s.together_p50 : 0.0);
    out += fmt::format("{:>4}  {:>10.3f}  {:>13.3f}  {:>13.3f}  {:>8.3f}  {:>15}\n", s.cpu, s.alone_p50,
                       s.together_p10, s.together_p50, s.max, stretch);
  }
  out += fmt::format(
      "\nstretch = calibrated / median speed: a synthetic node declared as 1 ms runs this long, in ms "
      "(alone / every CPU busy), as does a segments strand shorter than 50 us; a longer one uses its "
      "declared "
      "CPU time everywhere (it reads the thread's CPU clock)\n"
      "worst: {:.2f} alone, {:.2f} with every CPU busy\n",
      r.worst_stretch_alone, r.worst_stretch_together);
  if (std::max(r.worst_stretch_alone, r.worst_stretch_together) > 1.1) {
    out += fmt::format(
        "warning: on this machine the loop runs up to {:.2f}x slower than calibrated: the synthetic "
        "program's "
        "nodes and short segments strands run that much longer than declared, so their declared work is too "
        "small (measure it with `takt "
        "profile --update FILE`), and the runtime's own code (spawns, steals, syncs) slows alike; run on "
        "CPUs "
        "that hold their speed (no frequency scaling, vCPUs on idle physical cores)\n",
        std::max(r.worst_stretch_alone, r.worst_stretch_together));
  }
  return out;
}

nlohmann::json to_json(const CpuSpeedReport& r) {
  nlohmann::json j;
  j["benchmark"] = "cpus";
  j["seconds_per_phase"] = r.seconds;
  j["chunk_iterations"] = kCpuSpeedChunk;
  j["calibrated_iterations_per_ns"] = r.calibrated;
  j["worst_stretch_alone"] = r.worst_stretch_alone;
  j["worst_stretch_together"] = r.worst_stretch_together;
  j["cpus"] = nlohmann::json::array();
  for (const CpuSpeed& s : r.cpus) {
    j["cpus"].push_back({{"cpu", s.cpu},
                         {"alone_p50_iterations_per_ns", s.alone_p50},
                         {"together_p10_iterations_per_ns", s.together_p10},
                         {"together_p50_iterations_per_ns", s.together_p50},
                         {"max_iterations_per_ns", s.max}});
  }
  return j;
}

}  // namespace takt::bench
