// Run metrics computed from the recorded events: per job, per task and for the system.
#include "platform/metrics.hpp"

#include "os/clock.hpp"
#include "platform/open_strands.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <set>

namespace takt::platform {

using std::chrono::nanoseconds;

std::string_view how_run_ended(const RunInfo& run) {
  if (!run.error.empty()) return run.abandoned ? "ended by an error (running jobs abandoned)" : "ended by an error";
  if (run.stopped) return run.abandoned ? "stopped (running jobs abandoned)" : "stopped early";
  if (run.stalled) return "running jobs abandoned (no job released or finished after the last release)";
  if (run.abandoned) return "running jobs abandoned at the end";
  return "";
}

std::string_view to_string(JobStatus status) {
  switch (status) {
    case JobStatus::met:
      return "met";
    case JobStatus::missed:
      return "missed";
    case JobStatus::failed:
      return "failed";
    case JobStatus::unfinished:
      return "unfinished";
    case JobStatus::abandoned:
      return "abandoned";
    case JobStatus::skipped:
      return "skipped";
    case JobStatus::unknown:
      return "unknown";
  }
  return "unknown";
}

std::optional<nanoseconds> JobResult::response() const {
  if (!finish) return std::nullopt;
  return *finish - release;
}

std::optional<nanoseconds> JobResult::tardiness() const {
  if (!finish) return std::nullopt;
  return std::max(nanoseconds::zero(), *finish - deadline);
}

std::optional<nanoseconds> JobResult::release_latency() const {
  if (!start) return std::nullopt;
  return *start - eligible;
}

bool JobResult::counts_as_miss() const {
  return status == JobStatus::missed || status == JobStatus::failed || status == JobStatus::unfinished ||
         status == JobStatus::skipped;
}

SystemSample sample_system() {
  SystemSample s;
  s.time = os::monotonic_now();
  s.process_cpu_time = os::process_cpu_time();
  s.context_switches = os::process_context_switches();
  s.cpu_busy = os::cpu_busy_times();
  return s;
}

namespace {

struct JobSeen {
  bool released = false;
  bool skipped = false;
  bool late = false;
  bool failed = false;
  bool has_strands = false;
  nanoseconds release{};
  nanoseconds eligible{};
  std::optional<nanoseconds> start;
  std::optional<nanoseconds> finish;
  int start_cpu = -1;
  int finish_cpu = -1;
  nanoseconds strand_time{};  // sum of the job's closed strand segments
  bool wall_clock_strands = false;      // a segment without its CPU time counted its wall-clock time
  std::optional<nanoseconds> cpu_time;  // from a cpu_timed finish
};

}  // namespace

RunMetrics compute_metrics(const MetricsInput& in) {
  RunMetrics out;
  out.run = in.run;
  const std::size_t n_tasks = in.tasks.size();

  // 1. Gather what each job did, and the system-wide counts.
  std::vector<std::map<std::uint64_t, JobSeen>> seen(n_tasks);
  std::map<int, nanoseconds> job_time;  // per CPU
  OpenStrands open_strands;
  SystemMetrics& sys = out.system;
  for (const Event& e : in.events) {
    if (e.task >= n_tasks) continue;  // not a task event (cannot happen with the engine's recorders)
    JobSeen* j = nullptr;
    auto job = [&]() -> JobSeen& {
      if (j == nullptr) {
        j = &seen[e.task][e.job];
        if (e.release != nanoseconds::zero() && j->release == nanoseconds::zero()) j->release = e.release;
      }
      return *j;
    };
    switch (e.kind) {
      case EventKind::release: {
        JobSeen& s = job();
        s.released = true;
        s.release = e.release;
        s.eligible = e.aux;
        s.late = (e.flags & event_flag::late) != 0;
        break;
      }
      case EventKind::skip: {
        JobSeen& s = job();
        s.skipped = true;
        s.release = e.release;
        break;
      }
      case EventKind::start: {
        JobSeen& s = job();
        if (!s.start) {
          s.start = e.time;
          s.start_cpu = e.cpu;
        }
        break;
      }
      case EventKind::finish: {
        JobSeen& s = job();
        s.finish = e.time;
        s.finish_cpu = e.cpu;
        s.failed = (e.flags & event_flag::failed) != 0;
        s.cpu_time.reset();
        if ((e.flags & event_flag::cpu_timed) != 0) {
          s.cpu_time = nanoseconds(static_cast<std::int64_t>(e.arg));
        }
        break;
      }
      case EventKind::strand_begin:
        job().has_strands = true;
        ++sys.strands;
        open_strands.begin(e);
        break;
      case EventKind::strand_end: {
        JobSeen& s = job();
        s.has_strands = true;
        if (const auto segment = open_strands.end(e)) {
          // The thread's CPU time in the segment when it measured it (partitioned-dm),
          // else the segment's wall-clock time.
          const bool cpu_timed = (e.flags & event_flag::cpu_timed) != 0;
          const nanoseconds length = cpu_timed ? e.aux : e.time - segment->begin;
          if (!cpu_timed) s.wall_clock_strands = true;
          job_time[segment->cpu] += length;
          s.strand_time += length;
        }
        break;
      }
      case EventKind::steal:
        ++sys.steals;
        break;
      case EventKind::preemption:
        ++sys.preemptions;
        break;
      case EventKind::migration:
        ++sys.migrations;
        if ((e.flags & event_flag::thread_moved) != 0) ++sys.thread_migrations;
        break;
    }
  }

  // 2. Per job and per task.
  std::vector<nanoseconds> all_latencies;
  std::vector<std::vector<std::string>> task_errors(n_tasks);
  for (const auto& err : in.errors) {
    if (err.task < n_tasks) task_errors[err.task].push_back(fmt::format("job {}: {}", err.job, err.message));
  }
  for (std::uint32_t t = 0; t < n_tasks; ++t) {
    const PeriodicTask& spec = in.tasks[t];
    TaskMetrics tm;
    tm.name = spec.name;
    tm.period = spec.period;
    tm.deadline = spec.deadline;
    tm.errors = std::move(task_errors[t]);
    std::vector<nanoseconds> responses;
    std::vector<nanoseconds> latencies;
    std::vector<nanoseconds> executed;
    long double relative_sum = 0;
    // The jobs the release engine decided on (indices below it): those with a job event
    // are counted here, the others below (their events were all dropped).
    const ReleaseCounts* engine = t < in.engine_counts.size() ? &in.engine_counts[t] : nullptr;
    const std::uint64_t decided = engine != nullptr ? engine->released + engine->skipped : 0;
    std::uint64_t recorded = 0, recorded_skips = 0;
    for (auto& [index, s] : seen[t]) {
      if (!s.released && !s.skipped && !s.start && !s.finish) continue;  // only strand events survived
      if (index < decided) {
        ++recorded;
        if (s.skipped && !s.released) ++recorded_skips;
      }
      JobResult r;
      r.task = t;
      r.index = index;
      r.release = s.release;
      r.eligible = s.released ? s.eligible : s.release;
      r.deadline = s.release + spec.deadline;
      r.start = s.start;
      r.finish = s.finish;
      r.late = s.late;
      r.start_cpu = s.start_cpu;
      if (s.has_strands) {
        r.executed = s.strand_time;
        r.executed_cpu_time = !s.wall_clock_strands;
      } else if (s.cpu_time) {
        r.executed = *s.cpu_time;  // its thread's CPU time: preemptions left out
        r.executed_cpu_time = true;
      } else if (s.start && s.finish) {
        r.executed = *s.finish - *s.start;
      }
      // Complete only if the job finished before the first dropped event, and no thread
      // recorded without a slot (its events, strands too, are all missing).
      if (in.events_unattached > 0 || (in.first_drop && !(s.finish && *s.finish < *in.first_drop))) {
        r.executed_known = false;
        r.executed = nanoseconds::zero();
      }
      if (s.skipped && !s.released) {
        r.status = JobStatus::skipped;
      } else if (s.finish) {
        r.status =
            s.failed ? JobStatus::failed : (*s.finish <= r.deadline ? JobStatus::met : JobStatus::missed);
      } else if (in.first_job_drop && !(t < in.ledger_jobs.size() && index < in.ledger_jobs[t])) {
        // Its finish (or start) may be among the dropped events: it is not a miss.
        r.status = JobStatus::unknown;
      } else {
        r.status = r.deadline <= in.run.end ? JobStatus::unfinished : JobStatus::abandoned;
      }
      ++tm.jobs;
      if (r.status != JobStatus::skipped) ++tm.released;
      if (r.late) ++tm.late;
      switch (r.status) {
        case JobStatus::met:
          ++tm.met;
          break;
        case JobStatus::missed:
          break;
        case JobStatus::failed:
          ++tm.failed;
          break;
        case JobStatus::unfinished:
          ++tm.unfinished;
          break;
        case JobStatus::abandoned:
          ++tm.abandoned;
          break;
        case JobStatus::skipped:
          ++tm.skipped;
          break;
        case JobStatus::unknown:
          ++tm.unknown;
          break;
      }
      if (r.counts_as_miss()) ++tm.misses;
      if (r.finish && r.status != JobStatus::failed) {
        responses.push_back(*r.response());
        if (r.executed_known) {
          executed.push_back(r.executed);
          if (!r.executed_cpu_time) ++tm.executed_wall_clock;
        } else {
          ++tm.executed_unknown;
        }
        relative_sum +=
            static_cast<long double>(r.response()->count()) / static_cast<long double>(spec.deadline.count());
      }
      if (auto lat = r.release_latency()) latencies.push_back(*lat);
      // Time executed per core, for jobs that recorded no strands (their strands count
      // instead): the thread's CPU time when known, else start → finish.
      if (!s.has_strands && s.start && s.finish && s.start_cpu >= 0)
        job_time[s.start_cpu] += s.cpu_time ? *s.cpu_time : *s.finish - *s.start;
      out.jobs.push_back(r);
    }
    // Jobs the release engine decided on of which no job event survived (all dropped,
    // beyond the job ledger, once the buffers were full): counted, not lost. Of those,
    // the engine's skips that no recorded skip event shows were skipped (a miss); the
    // rest were released, and their outcome is unknown.
    if (decided > recorded) {
      const std::uint64_t vanished = decided - recorded;
      const std::uint64_t skipped = std::min(vanished, engine->skipped - std::min(engine->skipped, recorded_skips));
      tm.jobs += vanished;
      tm.skipped += skipped;
      tm.misses += skipped;
      tm.released += vanished - skipped;
      tm.unknown += vanished - skipped;
    }
    const std::uint64_t with_outcome = tm.jobs - tm.abandoned - tm.unknown;
    tm.miss_ratio =
        with_outcome == 0 ? 0.0 : static_cast<double>(tm.misses) / static_cast<double>(with_outcome);
    if (!responses.empty()) tm.mean_relative_response = static_cast<double>(relative_sum / responses.size());
    tm.response = summarize(std::move(responses));
    tm.executed = summarize(std::move(executed));
    tm.declared_work = spec.work;
    if (spec.work > nanoseconds::zero() && tm.executed.count > 0) {
      tm.work_ratio = static_cast<double>(tm.executed.mean.count()) / static_cast<double>(spec.work.count());
    }
    all_latencies.insert(all_latencies.end(), latencies.begin(), latencies.end());
    tm.release_latency = summarize(std::move(latencies));
    out.jobs_total += tm.jobs;
    out.misses_total += tm.misses;
    out.tasks.push_back(std::move(tm));
  }
  std::uint64_t with_outcome = 0;
  for (const auto& tm : out.tasks) with_outcome += tm.jobs - tm.abandoned - tm.unknown;
  out.miss_ratio =
      with_outcome == 0 ? 0.0 : static_cast<double>(out.misses_total) / static_cast<double>(with_outcome);

  // 3. System.
  sys.release_latency = summarize(std::move(all_latencies));
  sys.threads = in.threads;
  sys.events_recorded = in.events.size();
  sys.events_dropped = in.events_dropped;
  sys.events_unattached = in.events_unattached;
  sys.job_errors = in.job_errors;
  std::set<int> cpus;
  for (const auto& [cpu, time] : job_time) cpus.insert(cpu);
  if (in.before && in.after) {
    sys.context_switches.voluntary =
        in.after->context_switches.voluntary - in.before->context_switches.voluntary;
    sys.context_switches.involuntary =
        in.after->context_switches.involuntary - in.before->context_switches.involuntary;
    sys.process_cpu_time = in.after->process_cpu_time - in.before->process_cpu_time;
    const std::size_t n = std::min(in.before->cpu_busy.size(), in.after->cpu_busy.size());
    for (std::size_t c = 0; c < n; ++c) {
      if (in.after->cpu_busy[c] > nanoseconds::zero() || job_time.count(static_cast<int>(c)) != 0) {
        cpus.insert(static_cast<int>(c));
      }
    }
  } else {
    for (const auto& th : in.threads) {
      sys.context_switches.voluntary += th.voluntary_switches;
      sys.context_switches.involuntary += th.involuntary_switches;
      sys.process_cpu_time += th.cpu_time;
    }
  }
  for (int cpu : cpus) {
    if (cpu < 0) continue;
    CoreMetrics cm;
    cm.cpu = cpu;
    if (auto it = job_time.find(cpu); it != job_time.end()) cm.job_time = it->second;
    if (in.before && in.after && static_cast<std::size_t>(cpu) < in.before->cpu_busy.size() &&
        static_cast<std::size_t>(cpu) < in.after->cpu_busy.size()) {
      cm.busy = in.after->cpu_busy[static_cast<std::size_t>(cpu)] -
                in.before->cpu_busy[static_cast<std::size_t>(cpu)];
    }
    sys.cores.push_back(cm);
  }
  return out;
}

MetricsInput metrics_input(std::span<const PeriodicTask> tasks, std::span<const Event> events,
                           const Recorder& recorder, const RunInfo& run, std::optional<SystemSample> before,
                           std::optional<SystemSample> after) {
  MetricsInput in;
  in.tasks = tasks;
  in.events = events;
  in.run = run;
  in.before = std::move(before);
  in.after = std::move(after);
  in.threads = recorder.threads();
  in.errors = recorder.errors();
  in.job_errors = recorder.error_count();
  in.events_dropped = recorder.dropped();
  in.events_unattached = recorder.unattached();
  in.first_drop = recorder.first_drop();
  in.first_job_drop = recorder.first_job_drop();
  in.ledger_jobs = recorder.ledger_jobs();
  return in;
}

RunMetrics compute_metrics(std::span<const PeriodicTask> tasks, const Recorder& recorder, const RunInfo& run,
                           std::optional<SystemSample> before, std::optional<SystemSample> after) {
  const std::vector<Event> events = recorder.events();
  return compute_metrics(metrics_input(tasks, events, recorder, run, std::move(before), std::move(after)));
}

}  // namespace takt::platform
