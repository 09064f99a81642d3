// The run loop of `takt run`: a parsed and analysed task set run under one policy, with every result written.
#include "platform/run.hpp"
#include "platform/run_report.hpp"

#include "apps/programs.hpp"
#include "apps/segments.hpp"
#include "model/duration.hpp"
#include "os/clock.hpp"
#include "os/diagnostics.hpp"
#include "os/power.hpp"
#include "os/realtime.hpp"
#include "platform/metrics_json.hpp"
#include "platform/metrics_table.hpp"
#include "platform/progress_line.hpp"
#include "platform/recorder.hpp"
#include "platform/release_engine.hpp"
#include "platform/signal_stop.hpp"
#include "platform/trace_writer.hpp"
#include "sched/topology_spec.hpp"
#include "takt/error.hpp"
#include "takt/program.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <new>
#include <numeric>
#include <optional>
#include <set>

namespace takt::platform {

using std::chrono::nanoseconds;
using namespace std::chrono_literals;

std::uint64_t planned_jobs(const PeriodicTask& t, const ReleaseConfig& c) {
  std::uint64_t n = c.jobs_per_task.value_or(UINT64_MAX);
  const nanoseconds horizon = c.duration.value_or(c.jobs_per_task ? nanoseconds::max() : kUnlimitedSizing);
  if (horizon != nanoseconds::max()) {
    const std::uint64_t by_time =
        t.offset >= horizon ? 0 : static_cast<std::uint64_t>((horizon - t.offset - 1ns) / t.period) + 1;
    n = std::min(n, by_time);
  }
  return n;
}

RecorderConfig size_recorder(const RecordingPlan& plan, std::span<const PeriodicTask> timing,
                             const ReleaseConfig& config) {
  RecorderConfig rc;
  rc.threads = plan.threads + 1;
  long double total = 0, busiest = 0;
  std::vector<std::uint64_t> planned;
  for (const PeriodicTask& t : timing) planned.push_back(planned_jobs(t, config));
  const long double jobs_total = std::accumulate(planned.begin(), planned.end(), 0.0L);
  // The ledger keeps every planned job's release, start and finish whichever thread
  // records them; past its limit, the first jobs of every task in proportion.
  const long double ledger_room = static_cast<long double>(kLedgerBytes / JobLedger::entry_bytes());
  long double covered = 0;
  for (std::uint64_t jobs : planned) {
    if (jobs_total > ledger_room) {
      jobs = static_cast<std::uint64_t>(static_cast<long double>(jobs) * ledger_room / jobs_total);
    }
    rc.ledger_jobs.push_back(jobs);
    covered += static_cast<long double>(jobs);
  }
  for (std::size_t i = 0; i < timing.size(); ++i) {
    const long double jobs = static_cast<long double>(planned[i]);
    const std::size_t per_job = i < plan.events_per_job.size() ? plan.events_per_job[i] : 8;
    const std::size_t spread =
        std::max<std::size_t>(1, i < plan.threads_per_task.size() ? plan.threads_per_task[i] : 1);
    total += jobs * static_cast<long double>(per_job);
    busiest = std::max(busiest, jobs * static_cast<long double>(per_job) / static_cast<long double>(spread));
  }
  long double per_thread = std::max(busiest, total / static_cast<long double>(rc.threads)) * 2 + 1024;
  const long double cap = static_cast<long double>(kRecorderBytes / sizeof(Event) / rc.threads);
  per_thread = std::min(per_thread, cap);
  rc.events_per_thread = std::max<std::size_t>(4096, static_cast<std::size_t>(per_thread));
  // Room for the release, start and finish of every job outside the ledger on any one
  // thread (the lane records the releases, whichever thread completes a job its
  // finish), within half the buffer.
  const long double job_events = (jobs_total - covered) * 3 + 64;
  rc.reserved_per_thread = static_cast<std::size_t>(std::min(job_events, static_cast<long double>(rc.events_per_thread / 2)));
  return rc;
}

namespace {

OverrunPolicy overrun_of(model::Overrun o) {
  return o == model::Overrun::skip ? OverrunPolicy::skip : OverrunPolicy::wait;
}

/// The message of an exception that ended a run midway.
std::string error_text(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    return "out of memory (an allocation failed)";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

struct InitialisedTasks {
  std::vector<std::unique_ptr<Task>> objects;
  std::vector<Task*> pointers;
  void finalize_all() noexcept {
    for (std::size_t i = 0; i < objects.size(); ++i) {
      try {
        objects[i]->finalize();
      } catch (const std::exception& e) {
        os::warn(fmt::format("finalize of task {} failed: {}", i, e.what()));
      } catch (...) {
        os::warn(fmt::format("finalize of task {} failed", i));
      }
    }
  }
};

/// Everything a policy's threads can reach through the RunContext during a run. Freed
/// when run_task_set returns with every thread joined; when a job was left running on
/// one of them, deliberately leaked (owned by nobody), since that thread goes on using
/// the engine, the recorder, the task objects and the context until its job ends.
struct RunState {
  explicit RunState(CoreMap map) : cores(std::move(map)) {}
  const CoreMap cores;
  std::unique_ptr<InitialisedTasks> tasks = std::make_unique<InitialisedTasks>();
  std::unique_ptr<ReleaseEngine> engine;
  RealtimeSettings realtime;
  std::optional<sched::TopologySpec> topology;
  std::unique_ptr<Recorder> recorder;
  std::optional<RunContext> ctx;
};

}  // namespace

std::vector<std::string> program_arguments(const model::Task& task, const std::string& source) {
  if (task.program == model::kSegmentsProgram && !task.args.empty() && !task.segments.empty()) {
    // Both: the analysis reads `segments:`, the program would run `args:`. They must
    // describe the same segments, or what is admitted is not what runs.
    std::vector<SegmentShape> from_args;
    try {
      from_args = apps::parse_segment_args(task.args);
    } catch (const Error&) {
      from_args.clear();  // unreadable args: not the same segments
    }
    bool same = from_args.size() == task.segments.size();
    for (std::size_t j = 0; same && j < from_args.size(); ++j) {
      same = from_args[j].length == task.segments[j].length &&
             static_cast<int>(from_args[j].strands) == task.segments[j].strands;
    }
    if (!same) {
      std::string listed;
      for (const auto& s : task.segments) {
        listed += (listed.empty() ? "" : ", ") +
                  apps::format_segment_arg(SegmentShape{s.length, static_cast<std::uint32_t>(s.strands)});
      }
      throw Error(fmt::format("{}: task '{}': its args: and its segments: ([{}]) describe different segments; "
                              "the analysis uses segments: and the segments program would run args:, so give "
                              "only one of them (segments:)",
                              task.marks.key_or_task("args").where(source), task.name, listed));
    }
  }
  if (task.program == model::kSegmentsProgram && task.args.empty() && !task.segments.empty()) {
    std::vector<std::string> args;
    for (const auto& s : task.segments) {
      args.push_back(apps::format_segment_arg(SegmentShape{s.length, static_cast<std::uint32_t>(s.strands)}));
    }
    return args;
  }
  return task.args;
}

Program resolve_task_program(const model::Task& task, const std::string& source,
                             const std::filesystem::path& base_dir) {
  try {
    return resolve_program(task.program, base_dir);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: task '{}': {}", task.marks.key_or_task("program").where(source), task.name,
                            e.what()));
  }
}

unsigned granted_cores(const analysis::AnalysisResult& verdict, std::size_t index) {
  if (const auto* f = verdict.federated()) {
    if (index < f->grants.size() && f->grants[index].cores > 0) {
      return static_cast<unsigned>(std::min<std::int64_t>(f->grants[index].cores, verdict.cores.count));
    }
    return 1;
  }
  if (const auto* p = verdict.partitioned_dm()) {
    std::set<int> cores;
    for (const auto& s : p->strands) {
      if (s.task == index && s.core >= 0) cores.insert(s.core);
    }
    return std::max<unsigned>(1, static_cast<unsigned>(cores.size()));
  }
  return static_cast<unsigned>(std::max(1, verdict.cores.count));
}

namespace {

/// A distributor of the topology that withheld jobs (no output takes them) keeps them
/// until an AFFINITY notification moves them; without one they never run, and the run
/// only shows misses. Say which instance did it and what to change; so for a filter
/// that let none of its jobs through.
void warn_withheld(const nlohmann::json& details) {
  if (!details.contains("scheduler")) return;
  for (const nlohmann::json& instance : details["scheduler"]) {
    const nlohmann::json counters = instance.value("counters", nlohmann::json::object());
    const std::string name = instance.value("instance", std::string("?"));
    if (const std::uint64_t withheld = counters.value("withheld", 0ULL); withheld != 0) {
      os::warn(
          fmt::format("the topology's {} '{}' withheld a job {} time(s): none of its outputs takes a job "
                      "without a cluster or PE value, or with one beyond its outputs, and it has no "
                      "`unassigned:` output; a withheld job waits for an AFFINITY notification and without "
                      "one never runs. Add an `unassigned:` output or route by a value every job has",
                      instance.value("component", std::string("?")), name, withheld));
    }
    // A filter that let none of the jobs it was offered through: on a path that every
    // job takes, no job ever runs, and the run shows only misses.
    const std::uint64_t offered = counters.value("offered", 0ULL);
    if (instance.value("component", std::string()) == "filter" && offered != 0 &&
        counters.value("passed", 0ULL) == 0) {
      os::warn(
          fmt::format("the topology's filter '{}' let none of the {} job(s) it was offered through (its "
                      "criteria match none of them); jobs that only reach a dispatcher through it never "
                      "run: check its clusters, pes, priority or relative_deadline criteria",
                      name, offered));
    }
  }
}

/// A filter that let some jobs through and held back others: a task whose jobs it held
/// back never runs, and the run showed only that task's misses (the warning above is
/// for a filter that lets none through). Names each task that released jobs of which
/// none started, beside the filters that held jobs back.
void warn_filtered_tasks(const nlohmann::json& details, const RunMetrics& metrics) {
  if (!details.contains("scheduler")) return;
  std::string filters;
  for (const nlohmann::json& instance : details["scheduler"]) {
    const nlohmann::json counters = instance.value("counters", nlohmann::json::object());
    const std::uint64_t offered = counters.value("offered", 0ULL), passed = counters.value("passed", 0ULL);
    if (instance.value("component", std::string()) != "filter" || passed == 0 || passed >= offered) continue;
    filters += fmt::format("{}'{}' ({} of {} held back)", filters.empty() ? "" : ", ",
                           instance.value("instance", std::string("?")), offered - passed, offered);
  }
  if (filters.empty()) return;
  std::vector<bool> started(metrics.tasks.size(), false);
  for (const JobResult& j : metrics.jobs) {
    if (j.start && j.task < started.size()) started[j.task] = true;
  }
  for (std::size_t t = 0; t < metrics.tasks.size(); ++t) {
    if (started[t] || metrics.tasks[t].released == 0) continue;
    os::warn(
        fmt::format("none of the {} released job(s) of task '{}' started, and the topology's filter(s) {} "
                    "held jobs back: if the task's jobs do not match a filter's criteria (clusters, pes, "
                    "priority, relative_deadline), they never run; check the criteria and the task's "
                    "priority",
                    metrics.tasks[t].released, metrics.tasks[t].name, filters));
  }
}

/// Says which job held the run after its last release and what the limit was.
void report_stall(std::FILE* messages, const Stall& stall, const std::vector<PeriodicTask>& tasks) {
  os::print_message(
      messages,
      "takt run: job {} of task '{}' still runs, and no job has been released or finished for {} "
      "since the last release of the run (the limit: the longest deadline or declared work C of "
      "the tasks, plus the drain time, plus 0.5 s = {}); abandoning the jobs still running. A job "
      "that runs far beyond its declared work C never ends or has a C too small: fix its program "
      "or measure C (takt profile --update FILE)\n",
      stall.job, tasks[stall.task].name, model::display_duration(stall.quiet),
      model::display_duration(stall.patience));
  std::fflush(messages);
}

}  // namespace

RunResult run_task_set(const model::TaskSet& set, const analysis::AnalysisResult& verdict, Policy& policy,
                       const RunOptions& options) {
  if (options.duration && options.jobs) throw Error("give either a duration or a number of jobs, not both");
  const nlohmann::json started = provenance();  // the JSON's takt_version, date and command
  // The outputs are written after the run: a path that cannot take them fails now.
  if (options.json) check_writable(*options.json);
  if (options.trace) check_writable(*options.trace);
  // Nor may an output replace a task's shared object (`--json task.so` by a slip).
  const std::filesystem::path folder = std::filesystem::path(set.source).parent_path();
  for (const auto& [option, output] : {std::pair{"--json", options.json}, std::pair{"--trace", options.trace}}) {
    if (!output) continue;
    for (const model::Task& t : set.tasks) {
      if (t.program.empty() || !names_shared_object(t.program)) continue;
      std::filesystem::path program(t.program);
      if (program.is_relative()) program = (folder.empty() ? std::filesystem::current_path() : folder) / program;
      std::error_code ec;
      if (std::filesystem::equivalent(write_target(*output), program, ec) && !ec) {
        throw Error(fmt::format("{} '{}' is the shared object of task '{}' (program: {}); writing it would "
                                "destroy it: give {} another file",
                                option, output->string(), t.name, t.program, option));
      }
    }
  }
  for (const model::Task& t : set.tasks) {
    if (t.period < kShortestPeriod) {
      throw Error(
          fmt::format("{}: task '{}': its period {} is shorter than {}, the shortest that `takt run` "
                      "releases: each release and each job costs microseconds of the release "
                      "thread, so the run could not keep up with its releases or end on time; "
                      "lengthen the period",
                      t.marks.key_or_task("period").where(set.source), t.name,
                      model::format_duration(t.period), model::format_duration(kShortestPeriod)));
    }
  }
  auto state = std::make_unique<RunState>(CoreMap::for_this_process(verdict.cores));
  const CoreMap& cores = state->cores;

  // Tasks: one object per task, initialised with its arguments.
  // Every built-in program can be named by `program:` (docs/programs.md).
  apps::register_segments_program();
  apps::register_builtin_programs();
  std::unique_ptr<InitialisedTasks>& tasks = state->tasks;
  std::vector<PeriodicTask> timing;
  const std::filesystem::path base = std::filesystem::path(set.source).parent_path();
  // A program's init may take long (the built-in ones compute their reference result
  // serially: an hour for matmul 16384): say which task is at it, and for how long its
  // init has run (not the time of all inits so far).
  std::atomic<std::size_t> initialising{0};
  std::atomic<std::int64_t> init_began{os::monotonic_now().count()};
  std::optional<ProgressLine> init_line;
  if (!set.tasks.empty()) {
    init_line.emplace(
        [&set, &initialising, &init_began](nanoseconds) {
          const std::size_t i = initialising.load(std::memory_order_acquire);
          const model::Task& t = set.tasks[i];
          const nanoseconds running =
              os::monotonic_now() - nanoseconds(init_began.load(std::memory_order_relaxed));
          return fmt::format("takt: initialising task '{}' ({} of {}, program {}), {:.1f} s", t.name, i + 1,
                             set.tasks.size(), t.program, static_cast<double>(running.count()) / 1e9);
        },
        options.progress_out, options.progress);
  }
  try {
    for (std::size_t i = 0; i < set.tasks.size(); ++i) {
      init_began.store(os::monotonic_now().count(), std::memory_order_relaxed);
      initialising.store(i, std::memory_order_release);
      const model::Task& t = set.tasks[i];
      if (t.program.empty()) {
        throw Error(fmt::format(
            "task '{}' names no program; `takt run` needs one: `program: segments` runs its segments as "
            "busy-wait strands, or name a built-in program or a shared object (docs/writing-tasks.md)",
            t.name));
      }
      Program program = resolve_task_program(t, set.source, base);
      std::unique_ptr<Task> object = program.create();
      TaskArgs args;
      args.task = t.name;
      args.args = program_arguments(t, set.source);
      args.cores = granted_cores(verdict, i);
      try {
        object->init(args);
      } catch (const Error& e) {
        const std::string what = e.what();
        if (what.rfind("task '", 0) == 0) throw;
        throw Error(fmt::format("task '{}': init of program '{}' failed: {}", t.name, program.name, what));
      } catch (const std::bad_alloc&) {
        // The program's data did not fit (a built-in matmul of N = 16384 needs 6 GiB):
        // say so and what to change, not a bare "std::bad_alloc".
        throw Error(fmt::format(
            "task '{}': init of program '{}' failed: out of memory (an allocation of its data "
            "failed); give it smaller arguments (now: {}), or raise the limit on memory "
            "(ulimit -v)",
            t.name, program.name,
            args.args.empty() ? std::string("its defaults") : fmt::format("{}", fmt::join(args.args, " "))));
      } catch (const std::exception& e) {
        throw Error(fmt::format("task '{}': init of program '{}' failed: {}", t.name, program.name, e.what()));
      }
      tasks->objects.push_back(std::move(object));
      tasks->pointers.push_back(tasks->objects.back().get());
      timing.push_back(PeriodicTask{t.name, t.period, t.deadline, t.offset, args.cores, t.work()});
    }
  } catch (...) {
    init_line.reset();
    tasks->finalize_all();
    throw;
  }
  init_line.reset();

  ReleaseConfig config;
  config.overrun = overrun_of(set.global.overrun);
  config.drain = options.drain;
  if (options.duration) {
    config.duration = *options.duration;
  } else if (options.jobs) {
    config.jobs_per_task = *options.jobs;
  } else if (set.global.duration) {
    config.duration = *set.global.duration;
  } else if (set.global.jobs) {
    config.jobs_per_task = static_cast<std::uint64_t>(*set.global.jobs);
  } else {
    config.duration = options.default_duration;
  }
  state->engine = std::make_unique<ReleaseEngine>(timing, config);
  std::unique_ptr<ReleaseEngine>& engine = state->engine;

  RealtimeSettings& realtime = state->realtime = RealtimeSettings::probe();
  const sched::TopologySpec& topology = state->topology.emplace(
      set.topology ? sched::parse_topology(*set.topology, set.source) : policy.default_topology());

  RunContext& ctx = state->ctx.emplace(
      RunContext{set, verdict, cores, engine->tasks(), tasks->pointers, *engine, realtime, topology});
  RecordingPlan plan;
  try {
    plan = policy.plan(ctx);
  } catch (...) {
    tasks->finalize_all();
    throw;
  }
  state->recorder = std::make_unique<Recorder>(size_recorder(plan, engine->tasks(), config));
  std::unique_ptr<Recorder>& recorder = state->recorder;
  ctx.recorder = recorder.get();

  // From prepare() on, the policy's threads exist and use the engine, the recorder and
  // the tasks. Whatever throws before the run has ended stops the run as a second
  // signal would, lets the policy stop and join its threads and finalises the tasks
  // before the exception leaves; when a job still runs on one of the threads, the
  // state it uses is leaked instead, as after a run that left a job running.
  auto end_after_failure = [&] {
    engine->abandon();
    if (policy.shutdown()) {
      tasks->finalize_all();
      return false;
    }
    (void)state.release();  // leaked on purpose: a job still runs on it (RunState)
    return true;
  };
  try {
    policy.prepare(ctx);
  } catch (...) {
    (void)end_after_failure();
    throw;
  }

  // Makes the metrics from the recorder and writes every requested output, after the
  // run or after an error that ended it midway (then partial: what ran until then).
  // `info`: how it ended (its origin, overrun rule, policy and privileges are filled in
  // here); `left_running`: a job still runs on the policy's threads; `before` and
  // `after`: the system samples around the run.
  auto make_results = [&](RunResult& result, RunInfo info, bool left_running, const SystemSample& before,
                          const SystemSample& after) {
    info.origin = engine->origin();
    info.overrun = config.overrun;
    info.policy = std::string(policy.name());
    info.privileges = realtime.privileges;
    const nlohmann::json details = policy.details();
    warn_withheld(details);
    // The run is over: with MCL_FUTURE still set, every later allocation counts against a
    // finite RLIMIT_MEMLOCK, and the copies of the events and the metrics below could fail
    // there, losing the results.
    if (options.lock_memory && realtime.lock_memory) os::unlock_memory();

    // A lane still inside a job (partitioned-dm runs jobs on its lanes) never considered
    // the releases due since that job began: account for them as skipped at the stop.
    // Read before the events, so that a lane whose job ends meanwhile and skips them
    // itself gives a duplicate (dropped below), never a gap; at most as many as the
    // recorder holds, the rest counted as dropped events.
    std::vector<Event> unconsidered;
    std::uint64_t unconsidered_left_out = 0;
    if (left_running) {
      unconsidered = engine->unconsidered_releases(std::min(engine->stop_time(), info.end),
                                                   kRecorderBytes / sizeof(Event), &unconsidered_left_out);
    }
    std::vector<Event> events = recorder->events();
    if (!unconsidered.empty()) {
      std::set<std::pair<std::uint32_t, std::uint64_t>> recorded;
      for (const Event& e : events) {
        if (e.kind == EventKind::release || e.kind == EventKind::skip) recorded.emplace(e.task, e.job);
      }
      for (const Event& e : unconsidered) {
        if (!recorded.contains({e.task, e.job})) events.push_back(e);
      }
      std::stable_sort(events.begin(), events.end(),
                       [](const Event& a, const Event& b) { return a.time < b.time; });
    }
    MetricsInput input = metrics_input(engine->tasks(), events, *recorder, info, before, after);
    input.events_dropped += unconsidered_left_out;
    for (std::uint32_t t = 0; t < engine->tasks().size(); ++t) input.engine_counts.push_back(engine->counts(t));
    result.metrics = compute_metrics(input);
    warn_filtered_tasks(details, result.metrics);

    result.output_errors = write_run_outputs(
        result.metrics, engine->tasks(), events, info.origin, {options.json, options.trace, options.table},
        [&](const RunMetrics& metrics) {
          nlohmann::json document = metrics_to_json(metrics);
          document.update(started);
          document["policy"] = details;
          document["policy"]["name"] = policy.name();
          document["cores"] = {{"cpus", cores.all().to_string()},
                               {"isolated", cores.isolated().to_string()},
                               {"description", cores.describe()}};
          return document;
        },
        &result.json_document);
  };

  std::optional<SignalStop> own_signals;
  SignalStop* signals = nullptr;  // the caller's (RunOptions::signals) or own_signals
  // The caller's SignalStop is detached from the engine on every way out, an exception
  // too: it outlives the engine, and its handler would otherwise call a freed one.
  std::optional<ScopedAttach> attached;
  std::optional<os::WakeupLatencyRequest> qos;
  std::optional<ProgressLine> progress;
  nanoseconds stop_seen = nanoseconds::max();
  SystemSample before;
  int signals_at_start = 0;  // counted by then: a signal since either stopped the run or came after it
  try {
    if (options.signals != nullptr) {
      signals = options.signals;
      attached.emplace(*signals, *engine);
    } else if (options.handle_signals) {
      signals = &own_signals.emplace(*engine);
    }
    if (signals) signals_at_start = signals->signals_received();
    if (options.messages != nullptr) {
      const std::string length = config.duration ? model::format_duration(*config.duration)
                                 : *config.jobs_per_task == 1
                                     ? std::string("1 job per task")
                                     : fmt::format("{} jobs per task", *config.jobs_per_task);
      os::print_message(options.messages, "takt run: {} task(s) under {} for {}, overrun \"{}\"; {}\n",
                        set.tasks.size(), policy.name(), length, to_string(config.overrun), cores.describe());
      std::fflush(options.messages);
    }
    // Locked after the run's first line, so that a warning about locking follows it, and
    // before the second, which says what the run got.
    if (std::string why; options.lock_memory && realtime.lock_memory && !os::lock_memory(&why)) {
      // The probe compares the mappings with RLIMIT_MEMLOCK; the process may have mapped
      // more since (the run's threads), or locking them would take nearly all the memory
      // left. Report what the run got, not what the probe saw.
      realtime.lock_memory = false;
      realtime.not_locked = why;
      os::Privileges got = os::privileges();
      got.mlock = false;
      realtime.privileges = got.summary() + " (not for this process: " + why + ")";
    }
    if (options.messages != nullptr) {
      os::print_message(options.messages, "takt run: {}\n", realtime.describe());
      // A task first released at or after the end releases nothing: say so before the
      // run, not only as 0 jobs in the table.
      for (const model::Task& t : set.tasks) {
        if (config.duration && t.offset >= *config.duration) {
          os::print_message(
              options.messages,
              "takt run: warning: task '{}' is first released at its offset {}, at or after the run's "
              "end ({}): it releases no job; run longer (--duration) or lower its offset\n",
              t.name, model::format_duration(t.offset), model::format_duration(*config.duration));
        }
      }
      std::fflush(options.messages);
    }
    if (options.lock_memory && realtime.fifo) qos.emplace();
    const std::optional<std::uint64_t> planned = engine->planned_releases();
    progress.emplace(
        [&recorder, &engine, planned] {
          const RecorderProgress p = recorder->progress();
          std::uint64_t skipped = 0;
          for (std::uint32_t t = 0; t < engine->tasks().size(); ++t) skipped += engine->counts(t).skipped;
          return ProgressLine::Counts{p.jobs_done, p.misses, planned, skipped};
        },
        options.progress_out, options.progress);

    ctx.overdue = [&engine, &stop_seen, drain = options.drain, messages = options.messages] {
      if (!engine->stop_requested()) {
        const std::optional<Stall> stall = engine->abandon_if_stalled();
        if (stall && messages != nullptr) report_stall(messages, *stall, engine->tasks());
        return false;
      }
      const nanoseconds now = os::monotonic_now();
      if (stop_seen == nanoseconds::max()) stop_seen = now;
      const nanoseconds limit = engine->abandoned() ? nanoseconds(200ms) : drain + 500ms;
      return now - stop_seen > limit;
    };

    before = sample_system();
    engine->start(os::monotonic_now() + options.start_delay);
    policy.run(ctx);
  } catch (...) {
    // A signal during the shutdown below is not the run's.
    const int signal_at_failure = signals && engine->stop_requested() ? signals->last_signal() : 0;
    progress.reset();
    // The run's end is the error, not the end of the shutdown below (up to seconds): a
    // job abandoned at the error whose deadline lies in between is not a miss.
    const bool started = engine->started();
    const nanoseconds failed_at = os::monotonic_now();
    const SystemSample after = started ? sample_system() : SystemSample{};
    const bool left_running = end_after_failure();
    if (!started) throw;
    // The run had begun (a thread that could not start midway, memory that ran out):
    // what ran until the error is still measured and written, then the error goes on
    // to the caller. A failure to make or write those results does not replace it.
    const std::exception_ptr error = std::current_exception();
    try {
      RunResult partial;
      RunInfo info;
      info.end = failed_at;
      info.abandoned = left_running || engine->jobs_in_flight() > 0;
      info.error = error_text(error);
      info.signal = signal_at_failure;
      if (signals) signals->detach();
      qos.reset();
      make_results(partial, info, left_running, before, after);
      if (!partial.output_errors.empty()) os::warn(partial.output_errors);
    } catch (const std::exception& e) {
      os::warn(fmt::format("the results of the failed run could not be made: {}", e.what()));
    } catch (...) {
      os::warn("the results of the failed run could not be made");
    }
    std::rethrow_exception(error);
  }
  // How the run ended, read before the policy shuts down (up to seconds): a signal that
  // comes meanwhile asks a run whose releases are all made to stop, and must not label
  // it "stopped early".
  const bool stop_asked = engine->stop_requested();
  // A signal is counted before its handler asks the engine to stop. With a stop asked,
  // the signals counted by now are the run's; without, none is, and any since the start
  // came after the run: during the shutdown or the tasks' finalize below, or while the
  // results are made (signal_after_run).
  const int signals_at_end = !signals ? 0 : stop_asked ? signals->signals_received() : signals_at_start;
  const int signal_at_end = signals && stop_asked ? signals->last_signal() : 0;
  // Jobs were abandoned only if some still ran when the run stopped waiting for them (a
  // second signal while none ran abandons nothing).
  const bool jobs_abandoned = engine->abandoned() && engine->jobs_in_flight() > 0;
  progress.reset();
  const SystemSample after = sample_system();
  const nanoseconds end = os::monotonic_now();

  RunResult result;
  result.cpus = cores.all();
  result.fifo = realtime.fifo;
  result.privileges = realtime.privileges;
  result.jobs_left_running = !policy.shutdown();
  if (!result.jobs_left_running) {
    tasks->finalize_all();
  } else {
    // A job still runs on one of the policy's threads and uses the engine, the
    // recorder, the tasks and the context: leaked on purpose (RunState), at once, so
    // that nothing thrown while the results are made can free them.
    (void)state.release();
  }
  RunInfo info;
  info.end = end;
  info.stopped = stop_asked && !engine->stalled();
  info.stalled = engine->stalled();
  info.abandoned = jobs_abandoned || result.jobs_left_running;
  info.signal = signal_at_end;
  // The handlers stay until the results are written (the SignalStop goes when this
  // function returns): a second or third Ctrl-C soon after the first would otherwise
  // find the default action and end the process before the JSON, trace and table. They
  // only count now, except that a third signal still ends the process.
  if (signals) signals->detach();
  qos.reset();
  make_results(result, info, result.jobs_left_running, before, after);
  if (signals) {
    // From here on a signal goes to the handlers of before (or, with the caller's
    // SignalStop, is counted by it); one that came while the results were made reached
    // no target and is passed on to the caller.
    if (own_signals) own_signals->restore_handlers();
    result.signal_after_run = signals->signals_received() > signals_at_end ? signals->last_signal() : 0;
  }
  return result;
}

}  // namespace takt::platform
