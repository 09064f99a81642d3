// takt bench policies: the four policies on the same task sets at several utilizations.
#include "bench/policies/policies_bench.hpp"

#include "analysis/analyse.hpp"
#include "analysis/generator.hpp"
#include "apps/segments.hpp"
#include "model/duration.hpp"
#include "model/policy.hpp"
#include "model/task_set_parser.hpp"
#include "os/cpu.hpp"
#include "os/power.hpp"
#include "os/realtime.hpp"
#include "platform/core_map.hpp"
#include "platform/metrics_json.hpp"
#include "platform/run.hpp"
#include "platform/signal_stop.hpp"
#include "platform/stop_flag.hpp"
#include "policies/policy_registry.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

namespace takt::bench {

void CellTally::add(PolicyCell& cell, const platform::RunMetrics& metrics, const model::TaskSet& set) {
  for (const platform::JobResult& j : metrics.jobs) {
    if (j.status == platform::JobStatus::abandoned || j.status == platform::JobStatus::unknown) {
      continue;  // no outcome
    }
    ++cell.jobs;
    if (j.counts_as_miss()) ++cell.misses;
    if (j.status != platform::JobStatus::failed && j.response()) {
      const double rel =
          static_cast<double>(j.response()->count()) / static_cast<double>(set.tasks[j.task].deadline.count());
      relative_sum += rel;
      cell.max_relative_response = std::max(cell.max_relative_response, rel);
      ++cell.finished;
      if (j.executed_known) {
        executed_ns += static_cast<double>(j.executed.count());
        declared_ns += static_cast<double>(set.tasks[j.task].work().count());
      }
    }
  }
}

void CellTally::finish(PolicyCell& cell) const {
  cell.miss_ratio = cell.jobs > 0 ? static_cast<double>(cell.misses) / static_cast<double>(cell.jobs) : 0.0;
  cell.mean_relative_response = cell.finished > 0 ? relative_sum / static_cast<double>(cell.finished) : 0.0;
  cell.work_ratio = declared_ns > 0 ? executed_ns / declared_ns : 0.0;
}

namespace {

using std::chrono::nanoseconds;

constexpr model::Policy kPolicies[] = {model::Policy::federated, model::Policy::federated_greedy,
                                       model::Policy::partitioned_dm, model::Policy::gedf_paws};

// Workload "fine": strands of 4 µs, 64 per parallel segment, a 100 µs sequential
// segment first and last, period 5 ms.
constexpr std::int64_t kStrandNs = 4'000;
constexpr int kStrands = 64;
constexpr std::int64_t kEdgeNs = 100'000;
constexpr std::int64_t kFinePeriodNs = 5'000'000;

struct Workload {
  std::string name;
  int utilization = 0;
  std::vector<model::TaskSet> sets;
};

/// Jobs per second of a set: Σ 1/T_i.
double job_rate(const model::TaskSet& set) {
  double rate = 0;
  for (const model::Task& t : set.tasks) rate += 1e9 / static_cast<double>(t.period.count());
  return rate;
}

std::vector<model::TaskSet> make_sets(const std::string& workload, int cores, int utilization, int sets) {
  std::vector<model::TaskSet> out;
  if (workload == "fine") {
    out.push_back(model::parse_task_set(fine_grained_set(cores, utilization), "fine"));
  } else if (workload == "rt-openmp") {
    for (int seed = 1; seed <= sets; ++seed) {
      analysis::GeneratorOptions g;
      g.method = analysis::GeneratorMethod::rt_openmp;
      g.cores = cores;
      g.utilization = utilization / 100.0 * cores;
      g.seed = static_cast<std::uint64_t>(seed);
      g.timescale = std::chrono::milliseconds(2);
      out.push_back(analysis::generate(g).set);
    }
  } else {
    throw Error("unknown workload '" + workload + "'; use rt-openmp or fine");
  }
  return out;
}

}  // namespace

std::string fine_grained_set(int cores, int utilization) {
  // C = U·m·T; the parallel segments carry C − 2·edge in units of kStrands strands.
  const double work = utilization / 100.0 * cores * static_cast<double>(kFinePeriodNs);
  const double segment_work = static_cast<double>(kStrands * kStrandNs);
  const auto segments = std::max<std::int64_t>(1, std::llround((work - 2.0 * kEdgeNs) / segment_work));
  const std::int64_t c = 2 * kEdgeNs + segments * kStrands * kStrandNs;
  const std::int64_t deadline = std::min<std::int64_t>(kFinePeriodNs, (3 * c / 4) / 1000 * 1000);
  std::string yaml = fmt::format(
      "# workload 'fine' at {}% of {} cores: C = {}, L = {}, T = {}, D = {}\n"
      "global: {{cores: {}}}\n"
      "tasks:\n"
      "  - name: fine\n"
      "    period: {}\n"
      "    deadline: {}\n"
      "    program: segments\n"
      "    segments:\n",
      utilization, cores, model::format_duration(nanoseconds(c)),
      model::format_duration(nanoseconds(2 * kEdgeNs + segments * kStrandNs)),
      model::format_duration(nanoseconds(kFinePeriodNs)), model::format_duration(nanoseconds(deadline)), cores,
      model::format_duration(nanoseconds(kFinePeriodNs)), model::format_duration(nanoseconds(deadline)));
  const std::string edge = fmt::format("      - {{length: {}}}\n", model::format_duration(nanoseconds(kEdgeNs)));
  yaml += edge;
  for (std::int64_t k = 0; k < segments; ++k) {
    yaml += fmt::format("      - {{length: {}, strands: {}}}\n", model::format_duration(nanoseconds(kStrandNs)),
                        kStrands);
  }
  yaml += edge;
  return yaml;
}

std::string policies_bench_machine_problem(const PoliciesBenchOptions& options) {
  const std::size_t cpus = os::allowed_cpus().size();
  if (options.cores < 1 || static_cast<std::size_t>(options.cores) <= cpus) return {};
  return fmt::format("--cores {} is more than the {} CPU(s) this process may run on; lower --cores",
                     options.cores, cpus);
}

PoliciesReport run_policies_bench(const PoliciesBenchOptions& options) {
  apps::register_segments_program();
  if (options.cores < 1) throw Error("--cores must be at least 1");
  if (std::string problem = policies_bench_machine_problem(options); !problem.empty()) throw Error(problem);
  // 'fine' has D = 3C/4: on one core no policy can meet it (every job missed), so its
  // cells would compare nothing.
  if (options.cores < 2 &&
      std::find(options.workloads.begin(), options.workloads.end(), "fine") != options.workloads.end()) {
    throw Error(
        "the 'fine' workload needs --cores 2 or more: its deadline is 3/4 of its work, which one core "
        "cannot meet; give more cores, or --workload rt-openmp");
  }
  auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };

  PoliciesReport report;
  report.provenance = platform::provenance();
  report.options = {
      {"cores", options.cores},
      {"utilizations_percent", options.utilizations},
      {"workloads", options.workloads},
      {"sets", options.sets},
      {"min_jobs", options.min_jobs},
      {"max_run_s", std::chrono::duration<double>(options.max_run).count()},
      {"cyclictest_s", options.run_cyclictest
                           ? nlohmann::json(std::chrono::duration<double>(options.cyclictest).count())
                           : nlohmann::json()}};
  report.privileges = os::privileges().summary();
  report.max_run_seconds = std::chrono::duration<double>(options.max_run).count();
  report.machine =
      fmt::format("{} allowed CPU(s), m = {} cores used", os::allowed_cpus().size(), options.cores);

  // Build every set first: a generator error is bad input, found before anything runs.
  std::vector<Workload> workloads;
  for (const std::string& w : options.workloads) {
    for (int u : options.utilizations) {
      if (u <= 0 || u > 100) throw Error(fmt::format("utilization {}% is outside 1..100", u));
      workloads.push_back({w, u, make_sets(w, options.cores, u, options.sets)});
    }
  }

  // One SignalStop from here to the end (the command's, or this one): cyclictest and
  // the runs attach to it in turn, and a signal between them is counted (it took
  // SIGINT's default action there, ending takt without its tables and files).
  std::optional<platform::SignalStop> own_signals;
  platform::SignalStop& signals = options.signals != nullptr ? *options.signals : own_signals.emplace();

  if (options.run_cyclictest) {
    say(fmt::format("cyclictest for {}", model::format_duration(options.cyclictest)));
    platform::CyclictestOptions c;
    c.duration = options.cyclictest;
    // The CPUs the runs use (isolated ones first, platform::CoreMap), not the first m
    // allowed: with isolcpus the floor was measured on other CPUs than the jobs ran on.
    c.cpus = platform::CoreMap::for_this_process(model::Cores::of_count(options.cores)).all();
    // The runs hold the CPU wake-up latency at 0 us where they run in SCHED_FIFO
    // (platform::run_task_set); the floor is measured in the same state (cyclictest runs
    // with --default-system, so it does not set its own).
    std::optional<os::WakeupLatencyRequest> qos;
    if (os::privileges().fifo) qos.emplace();
    {
      // SIGINT/SIGTERM during the baseline: cyclictest gets SIGINT and reports the
      // samples so far, and the experiment ends with them.
      platform::StopFlag stop(
          "\ntakt bench policies: stopping cyclictest with the samples so far; a third Ctrl-C ends takt at "
          "once\n");
      c.stop_requested = [&stop] { return stop.requested(); };
      {
        platform::ScopedAttach attached(signals, stop);  // detached however it ends
        report.cyclictest = platform::run_cyclictest(c);
      }
      if (stop.requested()) {
        report.stopped =
            fmt::format("stopped by {} during cyclictest, before any set ran", signals.stopping_signal_name());
        return report;
      }
    }
  } else {
    report.cyclictest.reason = "--no-cyclictest";
  }

  for (const Workload& w : workloads) {
    const auto per_set = (options.min_jobs + w.sets.size() - 1) / w.sets.size();
    for (model::Policy policy : kPolicies) {
      PolicyCell cell;
      cell.workload = w.name;
      cell.utilization = w.utilization;
      cell.policy = std::string(model::to_string(policy));
      cell.sets_planned = static_cast<int>(w.sets.size());
      CellTally tally;
      // An experiment that ends early keeps the sets of this cell that ran.
      auto keep_sets_run = [&] {
        if (cell.sets == 0) return;
        tally.finish(cell);
        cell.stopped = true;
        cell.short_of_jobs = cell.jobs < options.min_jobs;
        report.cells.push_back(cell);
      };
      for (std::size_t s = 0; s < w.sets.size(); ++s) {
        const model::TaskSet& set = w.sets[s];
        analysis::AnalysisOptions a;
        a.policy = policy;
        a.cores = options.cores;
        const analysis::AnalysisResult verdict = analysis::analyse(set, a);
        const double seconds = std::min(static_cast<double>(per_set) / job_rate(set) + 0.05,
                                        std::chrono::duration<double>(options.max_run).count());
        platform::RunOptions run;
        run.signals = &signals;
        run.duration = nanoseconds(static_cast<std::int64_t>(std::ceil(seconds * 1e9)));
        run.table = nullptr;
        run.messages = nullptr;
        run.progress = false;
        // A signal that came between two runs (or between cyclictest and a run) ends the
        // experiment before this set; so does one that came just before the run began
        // and stopped it before its first release (the set is then not counted).
        auto stop_before_this_set = [&] {
          report.stopped = fmt::format("stopped by {} before {} {}% set {} under {}", signals.stopping_signal_name(),
                                       w.name, w.utilization, s + 1, cell.policy);
          keep_sets_run();
          return report;
        };
        if (signals.signals_received() > 0) return stop_before_this_set();
        say(fmt::format("{} {}% set {} of {} under {} ({}, {:.1f} s)", w.name, w.utilization, s + 1, w.sets.size(),
                        cell.policy, verdict.schedulable ? "admitted" : "not admitted, forced", seconds));
        std::unique_ptr<platform::Policy> p = policies::make_policy(policy);
        platform::RunResult r;
        try {
          r = platform::run_task_set(set, verdict, *p, run);
        } catch (const Error& e) {
          report.stopped = fmt::format("{} {}% set {} under {}: {}", w.name, w.utilization, s + 1, cell.policy, e.what());
          keep_sets_run();  // as on a stop
          return report;
        }
        if (r.metrics.run.stopped && r.metrics.jobs.empty() && !r.jobs_left_running) return stop_before_this_set();
        ++cell.sets;
        if (verdict.schedulable) ++cell.admitted;
        // Measured (first release to the last lane's return), not the length planned: a
        // run that a signal stopped is shorter.
        cell.seconds += std::chrono::duration<double>(r.metrics.run.duration()).count();
        tally.add(cell, r.metrics, set);
        // The experiment ends with this set: a job left running, a stop by a signal, or a
        // signal that came after the set ran whole, while its results were made.
        std::string stop;
        if (r.jobs_left_running) {
          stop = fmt::format("{} {}% set {} under {}: a job was still running at the end", w.name, w.utilization,
                             s + 1, cell.policy);
        } else if (r.metrics.run.stopped) {
          stop = fmt::format("stopped by {}", platform::signal_name(r.metrics.run.signal));
        } else if (r.signal_after_run != 0) {
          stop = fmt::format("stopped by {} after {} {}% set {} under {}", platform::signal_name(r.signal_after_run),
                             w.name, w.utilization, s + 1, cell.policy);
        }
        if (!stop.empty()) {
          keep_sets_run();
          report.stopped = std::move(stop);
          return report;
        }
      }
      tally.finish(cell);
      cell.short_of_jobs = cell.jobs < options.min_jobs;
      report.cells.push_back(cell);
      if (options.checkpoint) options.checkpoint(report);
    }
  }
  report.complete = true;
  if (signals.signals_received() > 0) {
    say(fmt::format("{} came after the last set: the experiment is complete", signals.stopping_signal_name()));
  }
  return report;
}

std::string format_markdown(const PoliciesReport& report) {
  std::string out;
  out += fmt::format("machine: {}; privileges: {}\n\n", report.machine, report.privileges);
  out += platform::cyclictest_summary(report.cyclictest) + "\n\n";
  std::vector<std::string> workloads;
  for (const PolicyCell& cell : report.cells) {
    if (std::find(workloads.begin(), workloads.end(), cell.workload) == workloads.end()) {
      workloads.push_back(cell.workload);
    }
  }
  for (const std::string& w : workloads) {
    out += fmt::format("workload {}\n\n", w);
    out +=
        "| U | policy | sets admitted | jobs | misses | miss ratio | mean rel. response | max rel. response | "
        "work / C |\n";
    out += "|---|---|---|---|---|---|---|---|---|\n";
    for (const PolicyCell& cell : report.cells) {
      if (cell.workload != w) continue;
      // A cell an early stop cut short says how many of its sets ran.
      const std::string sets = cell.stopped ? fmt::format("{} of {} ({} of {} ran, stopped)", cell.admitted,
                                                          cell.sets, cell.sets, cell.sets_planned)
                                            : fmt::format("{} of {}", cell.admitted, cell.sets);
      out += fmt::format("| {}% | {} | {} | {} | {} | {:.4f} | {:.3f} | {:.3f} | {} |\n", cell.utilization,
                         cell.policy, sets, cell.jobs, cell.misses, cell.miss_ratio,
                         cell.mean_relative_response, cell.max_relative_response,
                         cell.work_ratio > 0 ? fmt::format("{:.2f}", cell.work_ratio) : "-");
    }
    out += "\n";
  }
  for (const PolicyCell& cell : report.cells) {
    if (cell.short_of_jobs) {
      out += fmt::format("{} {}% under {}: {} jobs, fewer than asked for ({})\n", cell.workload,
                         cell.utilization, cell.policy, cell.jobs,
                         cell.stopped ? std::string("the experiment stopped in this cell")
                                      : fmt::format("each run stops after {:g} s", report.max_run_seconds));
    }
  }
  if (!report.stopped.empty()) out += fmt::format("the experiment stopped early: {}\n", report.stopped);
  return out;
}

nlohmann::json to_json(const PoliciesReport& report) {
  // complete false: a checkpoint or a run stopped early. stopped_by: the signal's name,
  // as every benchmark's JSON says it (stopped gives the whole reason, an error's too).
  nlohmann::json j = platform::benchmark_header(
      "policies", report.provenance, report.complete,
      report.stopped.empty() ? std::string() : platform::first_handled_signal_name());
  if (report.options.is_object()) j["options"] = report.options;
  j["machine"] = report.machine;
  j["privileges"] = report.privileges;
  j["cyclictest"] = platform::cyclictest_json(report.cyclictest);
  j["cells"] = nlohmann::json::array();
  for (const PolicyCell& cell : report.cells) {
    j["cells"].push_back(
        {{"workload", cell.workload},
         {"utilization_percent", cell.utilization},
         {"policy", cell.policy},
         {"sets", cell.sets},
         {"sets_planned", cell.sets_planned},
         {"admitted", cell.admitted},
         {"jobs", cell.jobs},
         {"misses", cell.misses},
         {"finished", cell.finished},
         {"miss_ratio", cell.miss_ratio},
         // null without a finished job, or without one whose executed
         // time is known (work_ratio), not 0
         {"mean_relative_response", platform::json_or_null(cell.finished > 0, cell.mean_relative_response)},
         {"max_relative_response", platform::json_or_null(cell.finished > 0, cell.max_relative_response)},
         {"work_ratio", platform::json_or_null(cell.work_ratio > 0, cell.work_ratio)},
         {"seconds", cell.seconds},
         {"short_of_jobs", cell.short_of_jobs},
         {"stopped", cell.stopped}});
  }
  j["stopped"] = report.stopped;
  return j;
}

}  // namespace takt::bench
