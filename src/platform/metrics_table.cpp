// Run metrics as a readable table for the terminal.
#include "platform/metrics_table.hpp"

#include "platform/recorder.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace takt::platform {

using std::chrono::nanoseconds;

namespace {
double ms(nanoseconds d) { return static_cast<double>(d.count()) / 1e6; }
double us(nanoseconds d) { return static_cast<double>(d.count()) / 1e3; }
// Jobs that execute more than 5 % beyond their declared C are reported: below that, the
// recording's own cost and clock granularity can account for the difference.
constexpr double kWorkRatioWarning = 1.05;
}  // namespace

std::string format_table(const RunMetrics& m, std::string_view work_remedy) {
  std::string out;
  auto it = std::back_inserter(out);
  const std::string_view ended = how_run_ended(m.run);
  fmt::format_to(it, "run: {:.2f} s{}, overrun \"{}\"{}\n",
                 static_cast<double>(m.run.duration().count()) / 1e9,
                 m.run.policy.empty() ? std::string() : ", policy " + m.run.policy, to_string(m.run.overrun),
                 ended.empty() ? std::string() : fmt::format(", {}", ended));
  if (!m.run.error.empty()) fmt::format_to(it, "error: {} (the results are those of the run until then)\n", m.run.error);
  if (!m.run.privileges.empty()) fmt::format_to(it, "privileges: {}\n", m.run.privileges);

  std::size_t name_width = 5;
  for (const auto& t : m.tasks) name_width = std::max(name_width, t.name.size());
  fmt::format_to(
      it, "\n{:<{}}  {:>7} {:>7} {:>7} {:>7} {:>5} {:>6}  {:>9} {:>9} {:>9} {:>9}  {:>8} {:>11}  {:>6}\n",
      "task", name_width, "jobs", "misses", "miss %", "skipped", "late", "failed", "resp min", "mean", "p99",
      "max", "rel.resp", "latency p99", "work/C");
  fmt::format_to(
      it, "{:<{}}  {:>7} {:>7} {:>7} {:>7} {:>5} {:>6}  {:>9} {:>9} {:>9} {:>9}  {:>8} {:>11}  {:>6}\n", "",
      name_width, "", "", "", "", "", "", "ms", "ms", "ms", "ms", "", "us", "");
  for (const auto& t : m.tasks) {
    // A task none of whose jobs finished (or started) has no response (or latency): "-", not 0.
    const bool responded = t.response.count > 0;
    auto resp = [responded](nanoseconds d) { return responded ? fmt::format("{:.3f}", ms(d)) : "-"; };
    fmt::format_to(it,
                   "{:<{}}  {:>7} {:>7} {:>7.2f} {:>7} {:>5} {:>6}  {:>9} {:>9} {:>9} {:>9}  "
                   "{:>8} {:>11}  {:>6}\n",
                   t.name, name_width, t.jobs, t.misses, 100.0 * t.miss_ratio, t.skipped, t.late, t.failed,
                   resp(t.response.min), resp(t.response.mean), resp(t.response.p99), resp(t.response.max),
                   responded ? fmt::format("{:.3f}", t.mean_relative_response) : "-",
                   t.release_latency.count > 0 ? fmt::format("{:.1f}", us(t.release_latency.p99)) : "-",
                   t.work_ratio > 0 ? fmt::format("{:.2f}", t.work_ratio) : "-");
  }
  fmt::format_to(it, "{:<{}}  {:>7} {:>7} {:>7.2f}\n", "total", name_width, m.jobs_total, m.misses_total,
                 100.0 * m.miss_ratio);
  for (const auto& t : m.tasks) {
    if (t.work_ratio <= kWorkRatioWarning) continue;
    if (t.executed_wall_clock == 0) {  // CPU time: the jobs did execute that long
      fmt::format_to(
          it,
          "warning: the jobs of {} executed {:.2f}x its declared work C = {:.3f} ms on average ({:.3f} "
          "ms of CPU time): the analysis assumed C and does not cover these jobs; measure C on this "
          "machine ({})\n",
          t.name, t.work_ratio, ms(t.declared_work), ms(t.executed.mean), work_remedy);
      continue;
    }
    // Wall-clock strand segments (a worker pool's): they count the time the OS ran
    // other threads on the core, so a ratio above 1 need not mean that C is too small.
    fmt::format_to(
        it,
        "warning: the jobs of {} took {:.2f}x its declared work C = {:.3f} ms on average ({:.3f} ms), "
        "timed by the wall clock on {} of its {} jobs: this counts the time other threads or processes "
        "ran on its cores, so it need not mean that C is too small. The analysis assumed C and does not "
        "cover these jobs: keep other load off the run's CPUs (isolated CPUs, real-time priority); if the "
        "ratio stays above 1 on otherwise idle CPUs, measure C on this machine ({})\n",
        t.name, t.work_ratio, ms(t.declared_work), ms(t.executed.mean), t.executed_wall_clock,
        t.executed.count, work_remedy);
  }

  const auto& s = m.system;
  if (s.release_latency.count == 0) {
    fmt::format_to(it, "\nrelease latency (release -> first instruction): - (no job started)\n");
  } else {
    fmt::format_to(
        it,
        "\nrelease latency (release -> first instruction): p50 {:.1f} us, p99 {:.1f} us, max {:.1f} us "
        "over {} job{}\n",
        us(s.release_latency.p50), us(s.release_latency.p99), us(s.release_latency.max),
        s.release_latency.count, s.release_latency.count == 1 ? "" : "s");
  }
  fmt::format_to(
      it, "migrations {} (of which the OS moved a thread: {}), steals {}, preemptions {}, strands {}\n",
      s.migrations, s.thread_migrations, s.steals, s.preemptions, s.strands);
  fmt::format_to(it, "context switches: {} voluntary, {} involuntary; process CPU time {:.3f} s\n",
                 s.context_switches.voluntary, s.context_switches.involuntary, ms(s.process_cpu_time) / 1e3);
  for (const auto& c : s.cores) {
    fmt::format_to(
        it, "cpu {}: jobs ran {:.3f} s{}\n", c.cpu, ms(c.job_time) / 1e3,
        c.busy ? fmt::format(", busy {:.3f} s (every process)", ms(*c.busy) / 1e3) : std::string());
  }
  if (s.events_dropped > 0 || s.events_unattached > 0) {
    fmt::format_to(
        it,
        "warning: {} events dropped (full buffers) and {} from threads without a recorder slot; the "
        "strand, steal, migration and preemption counts above and the trace miss them (the job ledger "
        "keeps every planned job's release, start and finish). The recorder takes at most 192 MiB of "
        "buffers and 128 MiB of ledger: a shorter run (--duration, --jobs) records every event\n",
        s.events_dropped, s.events_unattached);
    std::uint64_t outcome_unknown = 0;
    for (const auto& t : m.tasks) outcome_unknown += t.unknown;
    if (outcome_unknown > 0) {
      fmt::format_to(it,
                     "{} job(s) beyond the job ledger have no known outcome (status \"unknown\"): their "
                     "start or finish may be among the dropped events; they are not counted as misses nor "
                     "in the miss ratio\n",
                     outcome_unknown);
    }
    std::uint64_t unknown = 0, finished = 0;
    for (const auto& t : m.tasks) {
      unknown += t.executed_unknown;
      finished += t.executed.count + t.executed_unknown;
    }
    if (unknown > 0) {
      fmt::format_to(it,
                     "work/C counts only the jobs that finished before the first dropped event: {} of {} "
                     "finished jobs\n",
                     finished - unknown, finished);
    }
  }
  if (s.job_errors > 0) {
    fmt::format_to(it, "{} job(s) failed:\n", s.job_errors);
    std::uint64_t listed = 0;
    for (const auto& t : m.tasks) {
      for (const auto& e : t.errors) fmt::format_to(it, "  {}: {}\n", t.name, e);
      listed += t.errors.size();
    }
    if (listed < s.job_errors) {
      fmt::format_to(it, "  ... and {} more (the first {} messages of each thread are kept)\n",
                     s.job_errors - listed, ThreadRecorder::kept_errors);
    }
  }
  return out;
}

}  // namespace takt::platform
