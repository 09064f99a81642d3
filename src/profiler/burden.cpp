// Calibration of the per-spawn and per-sync burdens by a steal-every-spawn micro-benchmark.
#include "profiler/burden.hpp"

#include "os/clock.hpp"
#include "os/realtime.hpp"
#include "platform/percentile.hpp"
#include "profiler/event_log.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

namespace takt::profiler {
namespace {

using Kind = ext::StrandEvent::Kind;
using std::chrono::nanoseconds;

BurdenSamples summarize(std::vector<nanoseconds> samples) {
  BurdenSamples s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  std::span<const nanoseconds> view(samples);
  s.count = samples.size();
  s.p50 = platform::nearest_rank(view, 50);
  s.p90 = platform::nearest_rank(view, 90);
  s.p99 = platform::nearest_rank(view, 99);
  s.max = samples.back();
  return s;
}

/// One calibration run with children of `child_time`; nullopt when too few rounds
/// were stolen or joined through a parked parent (`stolen`, `joined` say how many).
std::optional<BurdenCalibration> attempt(const os::CpuSet& two, const CalibrationOptions& options,
                                         nanoseconds child_time, std::size_t& stolen_rounds,
                                         std::size_t& joined_rounds) {
  const std::size_t rounds = options.warmup + options.iterations;
  PoolConfig config;
  config.cpus = two;
  config.workers = 2;
  config.memory.depth = 4;
  config.memory.stack_size = 32 * 1024;
  config.memory.large_stack_size = 0;
  config.name = "burden calibration";
  if (options.fifo_priority > 0) {
    const int priority = options.fifo_priority;
    config.on_worker_start = [priority](std::size_t) { os::set_fifo(priority); };
  }
  Pool pool(config);
  // Per round and worker at most: spawn, task_begin, task_end, resume, sync, joined.
  EventLog log(2, 6 * rounds + 16);
  pool.extension().set_observer(&log);
  pool.run([&] {
    for (std::size_t i = 0; i < rounds; ++i) {
      Scope scope;
      scope.spawn([child_time] { os::spin_for(child_time); });
      scope.sync();
    }
  });
  pool.extension().set_observer(nullptr);
  if (log.dropped() != 0) throw Error("burden calibration: the event log overflowed");

  CalibrationSamples samples = calibration_samples(log.events(), rounds, options.warmup);
  stolen_rounds = samples.steals.size();
  joined_rounds = samples.joins.size();
  if (stolen_rounds < options.iterations / 4 || joined_rounds < options.iterations / 4) return std::nullopt;
  BurdenCalibration c;
  c.steal = summarize(std::move(samples.steals));
  c.join = summarize(std::move(samples.joins));
  c.burden = Burden{c.steal.p50, c.join.p50};
  c.iterations = options.iterations;
  c.workers = 2;
  c.child_time = child_time;
  return c;
}

}  // namespace

CalibrationSamples calibration_samples(std::span<const ext::StrandEvent> events, std::size_t rounds,
                                       std::size_t warmup) {
  std::uint64_t root = 0;
  for (const auto& e : events) {
    if (e.kind == Kind::task_begin && e.other == 0) root = e.task;
  }
  constexpr nanoseconds none = nanoseconds::min();
  std::vector<nanoseconds> spawned(rounds, none), resumed(rounds, none), synced(rounds, none),
      joined(rounds, none);
  std::vector<bool> stolen(rounds, false);
  std::vector<std::uint64_t> child(rounds, 0);
  std::unordered_map<std::uint64_t, nanoseconds> child_end;
  for (const auto& e : events) {
    if (e.task != root) {
      if (e.kind == Kind::task_end) child_end[e.task] = e.time;
      continue;
    }
    if (e.kind == Kind::joined) {
      if (e.strand > 0 && (e.strand - 1) / 2 < rounds) joined[(e.strand - 1) / 2] = e.time;
      continue;
    }
    const std::size_t round = e.strand / 2;
    if (round >= rounds) continue;
    if (e.kind == Kind::spawn) {
      spawned[round] = e.time;
      child[round] = e.other;
    } else if (e.kind == Kind::resume) {
      resumed[round] = e.time;
      stolen[round] = e.stolen;
    } else if (e.kind == Kind::sync) {
      synced[round] = e.time;
    }
  }
  CalibrationSamples out;
  for (std::size_t i = warmup; i < rounds; ++i) {
    if (!stolen[i] || spawned[i] == none || resumed[i] == none) continue;
    out.steals.push_back(resumed[i] - spawned[i]);
    auto end = child_end.find(child[i]);
    // A join through the protocol: the parent parked at the sync before the child ended,
    // so the child's end resumed it.
    if (end != child_end.end() && synced[i] != none && joined[i] != none && synced[i] < end->second &&
        joined[i] >= end->second) {
      out.joins.push_back(joined[i] - end->second);
    }
  }
  return out;
}

BurdenCalibration calibrate_burden(const CalibrationOptions& options) {
  os::CpuSet cpus = options.cpus.empty() ? os::allowed_cpus() : options.cpus;
  if (cpus.size() < 2) {
    throw Error(fmt::format(
        "calibrating the burden needs two CPUs (a steal needs a second worker), but only {} is available; "
        "give the burdens instead (takt profile --burden-spawn T --burden-sync T)",
        cpus.size()));
  }
  os::CpuSet two;
  two.add(cpus[0]);
  two.add(cpus[1]);
  // A busy machine may keep the idle worker from stealing before the child ends: then
  // try again with children 4 and 16 times as long.
  std::size_t stolen = 0, joined = 0;
  for (int factor : {1, 4, 16}) {
    if (auto c = attempt(two, options, options.child_time * factor, stolen, joined)) return *c;
  }
  throw Error(fmt::format(
      "burden calibration: only {} of {} rounds were stolen and {} joined through a parked parent, even with "
      "children of {} us (the machine is too busy, or a CPU is not available); retry, or give the burdens "
      "(takt profile --burden-spawn T --burden-sync T)",
      stolen, options.iterations, joined,
      std::chrono::duration_cast<std::chrono::microseconds>(options.child_time * 16).count()));
}

}  // namespace takt::profiler
