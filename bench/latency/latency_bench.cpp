// The latency micro-benchmarks of RT-OpenMP §VI.B (Table II) on this machine, with cyclictest as the floor.
#include "bench/latency/latency_bench.hpp"

#include "os/cpu.hpp"
#include "os/power.hpp"
#include "os/realtime.hpp"
#include "platform/metrics_json.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <iterator>
#include <optional>

namespace takt::bench {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

namespace {

constexpr double release_ratio_target = 1.5;    // release latency p50 and p99 within 1.5× of cyclictest's
constexpr double barrier_p95_target_us = 20.0;  // barrier latency p95 for 2 threads
constexpr nanoseconds spin_before_sleep = 100us;

void say(const LatencyBenchOptions& o, const std::string& line) {
  if (o.progress) o.progress(line);
}

/// Marks `r`'s target as not met when its distribution has no sample or left releases
/// out: a target is a claim about every release or round.
void check_samples(LatencyResult& r, std::uint64_t skipped = 0) {
  if (r.stats.samples == 0) {
    r.target_met = false;
    r.note +=
        (r.note.empty() ? "" : "; ") + std::string("no samples: lengthen --seconds or shorten --period-us");
  } else if (skipped > 0) {
    r.target_met = false;
  }
}

}  // namespace

void judge_scheduling_latency(LatencyResult& r, const platform::CyclictestResult& floor, std::uint64_t skipped) {
  if (floor.ran && floor.latency.p50_us > 0 && floor.latency.p99_us > 0) {
    r.ratio_p50 = r.stats.p50_us / floor.latency.p50_us;
    r.ratio_p99 = r.stats.p99_us / floor.latency.p99_us;
    r.target = fmt::format("p50 and p99 within 1.5x of {}", floor.tool);
    r.target_met = r.ratio_p50 <= release_ratio_target && r.ratio_p99 <= release_ratio_target;
    check_samples(r, skipped);
  } else {
    r.note += (r.note.empty() ? "" : "; ") + std::string("no cyclictest floor to compare with");
  }
}

void compare_with_openmp(LatencyResult& own, const LatencyResult& openmp) {
  if (own.benchmark != "barrier_latency" || own.variant == "openmp" || own.threads != openmp.threads) return;
  if (own.stats.samples == 0 || !(openmp.stats.p50_us > 0) || !(openmp.stats.p95_us > 0)) return;
  own.ratio_p50_openmp = own.stats.p50_us / openmp.stats.p50_us;
  own.ratio_p95_openmp = own.stats.p95_us / openmp.stats.p95_us;
  own.note += fmt::format("{}p50 {:.2f}x, p95 {:.2f}x OpenMP's", own.note.empty() ? "" : "; ",
                          own.ratio_p50_openmp, own.ratio_p95_openmp);
}

void judge_barrier_latency(LatencyResult& r) {
  if (r.threads != 2) return;
  r.target = "p95 <= 20 us for 2 threads";
  r.target_met = r.stats.p95_us <= barrier_p95_target_us;
  check_samples(r);
}

namespace {

/// Runs one condition into `c` (a condition of `report`), calling `checkpoint` after
/// each measurement.
void run_condition(const LatencyBenchOptions& o, const std::vector<int>& cpus, bool fifo, LatencyCondition& c,
                   LatencyReport& report, const LatencyCheckpoint& checkpoint) {
  auto done = [&] {
    if (checkpoint) checkpoint(report);
  };
  // Asked before each measurement: a stop ends the condition (and the run) there.
  auto stop = [&] {
    if (o.stop_requested && o.stop_requested()) report.stopped = true;
    return report.stopped;
  };
  c.name = fifo ? "SCHED_FIFO" : "SCHED_OTHER";
  const auto& priv = os::privileges();
  if (fifo && (priv.forced_off || !priv.fifo)) {
    c.reason = priv.forced_off
                   ? "TAKT_NO_RT is set"
                   : "no SCHED_FIFO privilege (" + priv.summary() + "; run as root or grant CAP_SYS_NICE)";
    return;
  }
  c.ran = true;
  std::string why;
  const bool locked = fifo && priv.mlock && os::lock_memory(&why);
  // Unlocked again when the condition ends: the SCHED_OTHER condition after it measures
  // what takt does without privileges, memory unlocked included.
  struct Unlock {
    bool locked;
    ~Unlock() {
      if (locked) os::unlock_memory();
    }
  } unlock{locked};
  if (fifo && priv.mlock && !locked) {
    // The probe compares the mappings with RLIMIT_MEMLOCK; mlockall of the whole process
    // can still exceed it, or take nearly all the memory left. Report what the
    // measurements got.
    os::Privileges got = priv;
    got.mlock = false;
    report.privileges = got.summary() + " (not for this process: " + why + ")";
  }
  const unsigned p = static_cast<unsigned>(cpus.size());
  os::CpuSet cpu_set;
  for (int cpu : cpus) cpu_set.add(cpu);

  if (stop()) {
    c.ran = false;  // nothing measured in it
    c.reason = "stopped before it";
    c.cyclictest.reason = "not run: stopped before it";
    return;
  }
  if (o.cyclictest) {
    say(o,
        fmt::format("{}: cyclictest for {:.1f} s", c.name, std::chrono::duration<double>(o.seconds).count()));
    platform::CyclictestOptions ct;
    ct.duration = o.seconds;
    ct.interval = o.period;
    ct.fifo = fifo;
    ct.priority = 80;  // the high-priority job's priority below
    ct.cpus = cpu_set;
    ct.stop_requested = o.stop_requested;
    c.cyclictest = platform::run_cyclictest(ct);
    if (c.cyclictest.stopped) report.stopped = true;
    done();
  } else {
    c.cyclictest.reason = "not run (--no-cyclictest)";
  }

  auto sched = [&](bool handoff) {
    if (stop()) return;
    say(o, fmt::format("{}: scheduling latency ({})", c.name, handoff ? "handoff" : "direct"));
    LatencyResult r;
    r.benchmark = "scheduling_latency";
    r.variant = handoff ? "handoff" : "direct";
    r.threads = handoff ? 1 : p;
    SchedulingLatency measured = measure_scheduling_latency(cpus, fifo, handoff, o.seconds, o.period);
    r.stats = measured.stats;
    if (measured.skipped > 0) {
      r.note = fmt::format("{} of {} releases skipped: a stalled job was still running", measured.skipped,
                           measured.released + measured.skipped);
    }
    judge_scheduling_latency(r, c.cyclictest, measured.skipped);
    c.results.push_back(r);
    done();
  };
  sched(false);
  sched(true);

  auto barrier = [&](unsigned threads, nanoseconds spin) {
    if (stop()) return;
    const char* variant = spin > 0ns ? "spin-then-sleep" : "sleep";
    say(o, fmt::format("{}: barrier latency, {} threads, {}", c.name, threads, variant));
    LatencyResult r;
    r.benchmark = "barrier_latency";
    r.variant = variant;
    r.threads = threads;
    r.stats = measure_barrier_latency(cpus, threads, fifo, spin, o.seconds);
    if (threads > p) r.note = fmt::format("{} threads share {} cores", threads, p);
    judge_barrier_latency(r);
    c.results.push_back(r);
    done();
  };
  // libgomp's barrier of each team size, measured right after takt's rows of that size
  // (the VM's speed drifts: all of takt's rows first and OpenMP's last compared different
  // moments), and takt's rows of that size against it.
  auto openmp = [&](unsigned threads) {
    if (stop()) return;
    say(o, fmt::format("{}: barrier latency, {} threads, OpenMP", c.name, threads));
    LatencyResult r;
    r.benchmark = "barrier_latency";
    r.variant = "openmp";
    r.threads = threads;
    r.note = "libgomp's omp barrier (it spins, then sleeps), for comparison";
    if (threads > p) r.note += fmt::format("; {} threads share {} cores", threads, p);
    try {
      r.stats = measure_openmp_barrier_latency(cpus, threads, fifo, o.seconds);
      check_samples(r);
      for (LatencyResult& own : c.results) compare_with_openmp(own, r);
    } catch (const Error& e) {
      // The rows measured before it are kept, and those after it are measured: the
      // error ended the command before, with no table and no final JSON.
      r.error = e.what();
      say(o,
          fmt::format("{}: barrier latency, {} threads, OpenMP: not measured: {}", c.name, threads, r.error));
    }
    c.results.push_back(r);
    done();
  };
  const std::vector<BarrierTeam> teams = barrier_teams(p);  // grouped by team size
  for (std::size_t i = 0; i < teams.size(); ++i) {
    barrier(teams[i].threads, teams[i].spin ? spin_before_sleep : 0ns);
    if (i + 1 == teams.size() || teams[i + 1].threads != teams[i].threads) openmp(teams[i].threads);
  }
}

}  // namespace

std::vector<BarrierTeam> barrier_teams(unsigned cores) {
  std::vector<BarrierTeam> teams{{2, false}};
  if (cores >= 2) teams.push_back({2, true});  // spinning only where every thread has its own core
  if (cores > 2) {
    teams.push_back({cores, false});
    teams.push_back({cores, true});
  }
  if (2 * cores != 2) teams.push_back({2 * cores, false});
  return teams;
}

LatencyReport run_latency_bench(const LatencyBenchOptions& o, const LatencyCheckpoint& checkpoint) {
  LatencyReport report;
  report.provenance = platform::provenance();
  report.cpus = os::allowed_cpus().cpus();
  report.privileges = os::privileges().summary();
  report.seconds = o.seconds;
  report.period = o.period;
  std::optional<os::WakeupLatencyRequest> qos;
  if (o.pm_qos) qos.emplace(std::chrono::microseconds(0));
  report.pm_qos = qos ? qos->summary() : "CPU wake-up latency not held (--no-pm-qos)";
  // Room for both conditions up front: run_condition fills one in place while the
  // checkpoint reads the report.
  report.conditions.reserve(2);
  // A stop leaves out the condition not begun (and, within one, the measurements after it).
  auto stop = [&] {
    if (o.stop_requested && o.stop_requested()) report.stopped = true;
    return report.stopped;
  };
  if (o.fifo && !stop()) {
    run_condition(o, report.cpus, true, report.conditions.emplace_back(), report, checkpoint);
  }
  if (o.other && !stop()) {
    run_condition(o, report.cpus, false, report.conditions.emplace_back(), report, checkpoint);
  }
  report.complete = !report.stopped;
  return report;
}

nlohmann::json to_json(const LatencyReport& r) {
  // complete false: written after a measurement, the run not (yet) finished.
  nlohmann::json doc = platform::benchmark_header("latency", r.provenance, r.complete, r.stopped_by);
  doc["cpus"] = r.cpus;
  doc["privileges"] = r.privileges;
  doc["pm_qos"] = r.pm_qos;
  doc["seconds_per_measurement"] = std::chrono::duration<double>(r.seconds).count();
  doc["period_us"] = r.period.count();
  // RT-OpenMP Table II (12 cores, RT_PREEMPT), for reference.
  doc["paper_table_ii"] = {
      {"scheduling_latency",
       {{"p25_us", 9.2}, {"p50_us", 9.9}, {"p75_us", 10.8}, {"p95_us", 12.5}, {"max_us", 27.5}}},
      {"barrier_latency_12_threads",
       {{"p25_us", 11.7}, {"p50_us", 12.2}, {"p75_us", 15.6}, {"p95_us", 18.1}, {"max_us", 76.8}}},
      {"barrier_latency_36_threads",
       {{"p25_us", 3277.5}, {"p50_us", 3284.9}, {"p75_us", 3290.1}, {"p95_us", 3296.6}, {"max_us", 6503.5}}}};
  nlohmann::json conditions = nlohmann::json::array();
  for (const auto& c : r.conditions) {
    nlohmann::json jc;
    jc["condition"] = c.name;
    jc["ran"] = c.ran;
    if (!c.reason.empty()) jc["reason"] = c.reason;
    jc["cyclictest"] = platform::cyclictest_json(c.cyclictest);
    nlohmann::json results = nlohmann::json::array();
    for (const auto& x : c.results) {
      nlohmann::json jr = platform::latency_stats_json(x.stats);
      jr["benchmark"] = x.benchmark;
      jr["variant"] = x.variant;
      jr["threads"] = x.threads;
      if (x.benchmark == "barrier_latency" && x.variant != "openmp") {
        const bool compared = x.ratio_p50_openmp > 0 && x.ratio_p95_openmp > 0;
        jr["ratio_p50_to_openmp"] = platform::json_or_null(compared, x.ratio_p50_openmp);
        jr["ratio_p95_to_openmp"] = platform::json_or_null(compared, x.ratio_p95_openmp);
      }
      if (x.benchmark == "scheduling_latency") {
        // null where there was no floor to compare with (the ratios stay 0 then)
        const bool compared = x.ratio_p50 > 0 && x.ratio_p99 > 0;
        jr["ratio_p50_to_cyclictest"] = platform::json_or_null(compared, x.ratio_p50);
        jr["ratio_p99_to_cyclictest"] = platform::json_or_null(compared, x.ratio_p99);
      }
      if (!x.target.empty()) {
        jr["target"] = x.target;
        jr["target_met"] = x.target_met;
      }
      if (!x.note.empty()) jr["note"] = x.note;
      if (!x.error.empty()) jr["error"] = x.error;
      results.push_back(std::move(jr));
    }
    jc["results"] = std::move(results);
    conditions.push_back(std::move(jc));
  }
  doc["conditions"] = std::move(conditions);
  return doc;
}

std::string format_table(const LatencyReport& r) {
  std::string out;
  auto it = std::back_inserter(out);
  os::CpuSet cpus;
  for (int c : r.cpus) cpus.add(c);
  fmt::format_to(it,
                 "takt bench latency: {:.1f} s per measurement, period {} us, CPUs {}\nprivileges: {}\n{}\n",
                 std::chrono::duration<double>(r.seconds).count(), r.period.count(), cpus.to_string(),
                 r.privileges, r.pm_qos);
  if (r.stopped) {
    fmt::format_to(it, "stopped{}: only the measurements made until then\n",
                   r.stopped_by.empty() ? std::string() : " by " + r.stopped_by);
  }
  fmt::format_to(it,
                 "RT-OpenMP Table II (12 cores, RT_PREEMPT): scheduling p50 9.9 us, max 27.5 us; "
                 "barrier (12 threads) p50 12.2 us, p95 18.1 us\n");
  for (const auto& c : r.conditions) {
    fmt::format_to(it, "\n== {} ==\n", c.name);
    if (!c.ran) {
      fmt::format_to(it, "not run: {}\n", c.reason);
      continue;
    }
    const auto& ct = c.cyclictest;
    if (ct.ran) {
      fmt::format_to(
          it,
          "{} ({}): p25 {:.0f}  p50 {:.0f}  p75 {:.0f}  p95 {:.0f}  p99 {:.0f}  max {:.0f} us"
          " over {} samples{}\n",
          ct.tool, ct.policy, ct.latency.p25_us, ct.latency.p50_us, ct.latency.p75_us, ct.latency.p95_us,
          ct.latency.p99_us, ct.latency.max_us, ct.latency.samples,
          ct.reason.empty() ? std::string() : " (" + ct.reason + ")");
    } else {
      fmt::format_to(it, "cyclictest: did not run: {}\n", ct.reason);
    }
    fmt::format_to(it, "{:<19} {:<16} {:>3} {:>7} {:>7} {:>7} {:>7} {:>7} {:>8}  {:>6} {:>6}  {}\n",
                   "benchmark", "variant", "thr", "p25", "p50", "p75", "p95", "p99", "max", "p50/ct",
                   "p99/ct", "target");
    for (const auto& x : c.results) {
      const auto& s = x.stats;
      std::string ratios = x.benchmark == "scheduling_latency" && x.ratio_p50 > 0
                               ? fmt::format("{:>6.2f} {:>6.2f}", x.ratio_p50, x.ratio_p99)
                               : fmt::format("{:>6} {:>6}", "-", "-");
      std::string target = x.target.empty()
                               ? std::string()
                               : fmt::format("{}: {}", x.target, x.target_met ? "met" : "NOT met");
      if (!x.note.empty()) target += (target.empty() ? "" : "; ") + x.note;
      if (!x.error.empty()) target += (target.empty() ? "" : "; ") + ("NOT MEASURED: " + x.error);
      if (s.samples == 0) {  // nothing measured: dashes, not zeros that read as latencies
        fmt::format_to(it, "{:<19} {:<16} {:>3} {:>7} {:>7} {:>7} {:>7} {:>7} {:>8}  {}  {}\n", x.benchmark,
                       x.variant, x.threads, "-", "-", "-", "-", "-", "-", ratios, target);
        continue;
      }
      fmt::format_to(it,
                     "{:<19} {:<16} {:>3} {:>7.1f} {:>7.1f} {:>7.1f} {:>7.1f} {:>7.1f} {:>8.1f}  {}  {}\n",
                     x.benchmark, x.variant, x.threads, s.p25_us, s.p50_us, s.p75_us, s.p95_us, s.p99_us,
                     s.max_us, ratios, target);
    }
  }
  fmt::format_to(it, "\nall latencies in us\n");
  return out;
}

}  // namespace takt::bench
