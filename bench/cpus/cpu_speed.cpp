// `takt bench cpus`: the calibrated busy loop's speed per CPU, alone and all CPUs at once.
#include "bench/cpus/cpu_speed.hpp"

#include "apps/segments.hpp"
#include "apps/synthetic.hpp"
#include "os/cpu.hpp"
#include "platform/metrics_json.hpp"
#include "platform/percentile.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <span>
#include <thread>

namespace takt::bench {
namespace {

using Clock = std::chrono::steady_clock;

/// Chunk speeds (iterations per ns) on `cpu` until `end`, sorted; std::nullopt when
/// `stop` (asked between chunks, may be empty) cut the measurement short.
std::optional<std::vector<double>> run_chunks(int cpu, Clock::time_point end,
                                              const std::function<bool()>& stop) {
  os::CpuSet one;
  one.add(cpu);
  os::pin_current_thread(one);
  std::vector<double> speeds;
  speeds.reserve(1 << 16);
  while (Clock::now() < end) {
    if (stop && stop()) return std::nullopt;
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

/// "1.234" for a value, "-" for none, right-aligned in `width`.
std::string cell(const std::optional<double>& v, int width) {
  return fmt::format("{:>{}}", v ? fmt::format("{:.3f}", *v) : "-", width);
}

/// The value, or null for none.
nlohmann::json json_value(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

CpuSpeedReport measure_cpu_speed(const CpuSpeedOptions& options) {
  if (!(options.seconds > 0)) throw Error("--seconds must be positive");
  CpuSpeedReport report;
  report.provenance = platform::provenance();
  report.seconds = options.seconds;
  report.calibrated = apps::busy_units_per_ns();
  report.short_strands_timed = apps::short_waits_are_timed();
  const std::vector<int> cpus = os::allowed_cpus().cpus();
  for (int cpu : cpus) {
    CpuSpeed s;
    s.cpu = cpu;
    report.cpus.push_back(s);
  }
  const auto span =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.seconds));
  const auto stopped = [&options] { return options.stop_requested && options.stop_requested(); };
  // Alone: one thread at a time, on each CPU in turn.
  for (CpuSpeed& s : report.cpus) {
    std::optional<std::vector<double>> alone;
    if (!stopped()) {
      std::thread([&] { alone = run_chunks(s.cpu, Clock::now() + span, options.stop_requested); }).join();
    }
    if (!alone) {
      report.complete = false;
      break;
    }
    s.alone_p50 = percentile(*alone, 50);
    s.max = alone->empty() ? 0 : alone->back();
  }
  if (!report.complete || stopped()) {
    report.complete = false;
    set_worst_stretch(report);
    return report;
  }
  // Together: one thread per CPU, all measuring over the same interval.
  std::vector<std::optional<std::vector<double>>> together(cpus.size());
  {
    std::atomic<bool> go{false};
    Clock::time_point end{};
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      threads.emplace_back([&, i] {
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        together[i] = run_chunks(cpus[i], end, options.stop_requested);
      });
    }
    end = Clock::now() + span;
    go.store(true, std::memory_order_release);
    for (auto& t : threads) t.join();
  }
  // A stop in this phase leaves it out on every CPU: the CPUs that were not cut short
  // measured beside ones that stopped, not with every CPU busy.
  if (std::any_of(together.begin(), together.end(), [](const auto& t) { return !t; })) {
    report.complete = false;
    set_worst_stretch(report);
    return report;
  }
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    CpuSpeed& s = report.cpus[i];
    const std::vector<double>& speeds = *together[i];
    s.together_p10 = percentile(speeds, 10);
    s.together_p50 = percentile(speeds, 50);
    if (!speeds.empty()) s.max = std::max(s.max.value_or(0), speeds.back());
  }
  set_worst_stretch(report);
  return report;
}

std::size_t cpus_measured_alone(const CpuSpeedReport& report) {
  return static_cast<std::size_t>(std::count_if(report.cpus.begin(), report.cpus.end(),
                                                [](const CpuSpeed& s) { return s.alone_p50.has_value(); }));
}

bool measured_together(const CpuSpeedReport& report) {
  return !report.cpus.empty() && std::all_of(report.cpus.begin(), report.cpus.end(),
                                             [](const CpuSpeed& s) { return s.together_p50.has_value(); });
}

void set_worst_stretch(CpuSpeedReport& report) {
  report.worst_stretch_alone = 0;
  report.worst_stretch_together = 0;
  for (const CpuSpeed& s : report.cpus) {
    if (s.alone_p50.value_or(0) > 0) {
      report.worst_stretch_alone = std::max(report.worst_stretch_alone, report.calibrated / *s.alone_p50);
    }
    if (s.together_p50.value_or(0) > 0) {
      report.worst_stretch_together =
          std::max(report.worst_stretch_together, report.calibrated / *s.together_p50);
    }
  }
}

std::string format_cpu_speed(const CpuSpeedReport& r) {
  std::string out = fmt::format(
      "takt bench cpus: the busy loop of the segments and synthetic programs, chunks of {} iterations, "
      "{:.2f} s per phase\ncalibrated (what the programs assume): {:.3f} iterations/ns\n",
      kCpuSpeedChunk, r.seconds, r.calibrated);
  if (!r.complete) {
    // measure_cpu_speed measures the phase with every CPU busy last, and only in full.
    out += fmt::format(
        "partial: stopped{}{}: {} of {} CPU(s) measured alone, {} with every CPU busy; - = not measured\n",
        r.stopped_by.empty() ? "" : " by ", r.stopped_by, cpus_measured_alone(r), r.cpus.size(),
        measured_together(r) ? "all" : "none");
  }
  out += "\n";
  out += fmt::format("{:>4}  {:>10}  {:>13}  {:>13}  {:>8}  {:>15}\n", "cpu", "alone p50", "together p10",
                     "together p50", "max", "stretch (p50)");
  const auto stretch = [&r](const std::optional<double>& p50) {
    return p50 ? fmt::format("{:.2f}", *p50 > 0 ? r.calibrated / *p50 : 0.0) : std::string("-");
  };
  for (const CpuSpeed& s : r.cpus) {
    out += fmt::format("{:>4}  {}  {}  {}  {}  {:>15}\n", s.cpu, cell(s.alone_p50, 10),
                       cell(s.together_p10, 13), cell(s.together_p50, 13), cell(s.max, 8),
                       stretch(s.alone_p50) + " / " + stretch(s.together_p50));
  }
  const auto worst = [](double w) { return w > 0 ? fmt::format("{:.2f}", w) : std::string("-"); };
  out += fmt::format(
      "\nstretch = calibrated / median speed: a synthetic node declared as 1 ms runs this long, in ms "
      "(alone / every CPU busy){}\n"
      "worst{}: {} alone, {} with every CPU busy\n",
      r.short_strands_timed ? "; segments strands do not stretch (from 50 us they read the thread's CPU "
                              "clock, shorter ones the monotonic clock)"
                            : ", as does a segments strand shorter than 50 us (the monotonic clock is too "
                              "slow to read here); a longer one uses its declared CPU time everywhere (it "
                              "reads the thread's CPU clock)",
      r.complete ? "" : " of those measured", worst(r.worst_stretch_alone), worst(r.worst_stretch_together));
  if (std::max(r.worst_stretch_alone, r.worst_stretch_together) > 1.1) {
    out += fmt::format(
        "warning: on this machine the loop runs up to {:.2f}x slower than calibrated: the synthetic "
        "program's nodes{} run that much longer than declared, so their declared work is too small (measure "
        "it with `takt profile --update FILE`), and the runtime's own code (spawns, steals, syncs) slows "
        "alike; run on CPUs that hold their speed (no frequency scaling, vCPUs on idle physical cores)\n",
        std::max(r.worst_stretch_alone, r.worst_stretch_together),
        r.short_strands_timed ? "" : " and short segments strands");
  }
  return out;
}

nlohmann::json to_json(const CpuSpeedReport& r) {
  // complete false: a stop (stopped_by) ended the measuring early; what was not measured
  // is null.
  nlohmann::json j =
      platform::benchmark_header("cpus", r.provenance, r.complete, r.complete ? std::string() : r.stopped_by);
  j["seconds_per_phase"] = r.seconds;
  j["chunk_iterations"] = kCpuSpeedChunk;
  j["calibrated_iterations_per_ns"] = r.calibrated;
  j["short_segments_strands_timed"] = r.short_strands_timed;
  // Over the CPUs measured in that phase; null when none was.
  j["worst_stretch_alone"] = json_value(r.worst_stretch_alone > 0 ? std::optional(r.worst_stretch_alone)
                                                                  : std::nullopt);
  j["worst_stretch_together"] = json_value(
      r.worst_stretch_together > 0 ? std::optional(r.worst_stretch_together) : std::nullopt);
  j["cpus"] = nlohmann::json::array();
  for (const CpuSpeed& s : r.cpus) {
    j["cpus"].push_back({{"cpu", s.cpu},
                         {"alone_p50_iterations_per_ns", json_value(s.alone_p50)},
                         {"together_p10_iterations_per_ns", json_value(s.together_p10)},
                         {"together_p50_iterations_per_ns", json_value(s.together_p50)},
                         {"max_iterations_per_ns", json_value(s.max)}});
  }
  return j;
}

}  // namespace takt::bench
