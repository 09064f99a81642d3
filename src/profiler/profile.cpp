// profile(): the work, span and T_P runs of a task, job by job, and their order statistics.
#include "profiler/profile.hpp"

#include "os/clock.hpp"
#include "os/realtime.hpp"
#include "profiler/span_observer.hpp"
#include "takt/error.hpp"
#include "takt/runtime.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <memory>

namespace takt::profiler {
namespace {

using std::chrono::nanoseconds;

nanoseconds at_percentile(std::vector<nanoseconds> values, double p) {
  std::sort(values.begin(), values.end());
  return platform::nearest_rank(std::span<const nanoseconds>(values), p);
}

/// Open scopes the span observer must hold: a scope with children lives on a strand's
/// stack, so at most (stack bytes / sizeof(Scope)) per strand, D strands at once.
std::size_t scope_capacity(const StaticMemory& memory) {
  const std::size_t per_strand = memory.stack_size / sizeof(Scope) + 1;
  return std::min<std::size_t>(memory.depth * per_strand + 64, std::size_t{1} << 22);
}

}  // namespace

double ProfileResult::parallelism() const {
  return span.p50.count() > 0 ? static_cast<double>(work.p50.count()) / static_cast<double>(span.p50.count())
                              : 0.0;
}

double ProfileResult::burdened_parallelism() const {
  return burdened_span.p50.count() > 0
             ? static_cast<double>(work.p50.count()) / static_cast<double>(burdened_span.p50.count())
             : 0.0;
}

os::CpuSet profiled_cpus(const ProfileOptions& options) {
  return options.cpus.empty() ? os::allowed_cpus() : options.cpus;
}

Job profiling_job(std::string_view name, std::uint64_t index, unsigned cores, const ProfileOptions& options) {
  Job job;
  job.task = name;
  job.index = index;
  job.release = os::monotonic_now();
  job.period = options.period;
  job.relative_deadline = options.relative_deadline;
  job.deadline = job.release + job.relative_deadline;  // as takt::Job promises, also for 0
  job.cores = cores;
  return job;
}

ProfileResult profile(Task& task, std::string program, std::vector<std::string> args,
                      const ProfileOptions& options) {
  if (options.jobs < 1) throw Error("profile: --jobs must be at least 1");
  if (!(options.percentile > 0 && options.percentile <= 100)) {
    throw Error(fmt::format("profile: --percentile must be in (0, 100], got {}", options.percentile));
  }
  auto say = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  // Every job sees the same job.cores, the number of CPUs profiled on (what `takt
  // profile` gives the task's init): a task that splits its work by job.cores then runs
  // the same DAG in the measurement, work, span and T_P runs.
  const auto job_cores = static_cast<unsigned>(profiled_cpus(options).size());
  ProfileResult result;
  result.program = std::move(program);
  result.args = std::move(args);
  result.jobs_requested = options.jobs;
  result.percentile = options.percentile;

  auto failed = [&](std::uint64_t index, std::string_view phase, const std::exception& e) {
    return Error(fmt::format("profiling '{}': job {} failed in the {} run: {}", result.program, index, phase,
                             e.what()));
  };

  // Real-time priority for the measured workers, when the process may have it.
  int fifo = 0;
  if (options.fifo_priority <= 0) {
    result.scheduling = "SCHED_OTHER (asked for)";
  } else if (os::realtime_forced_off()) {
    result.scheduling = "SCHED_OTHER (TAKT_NO_RT is set)";
  } else if (!os::privileges().fifo) {
    result.scheduling = "SCHED_OTHER (no privilege for SCHED_FIFO)";
  } else {
    fifo = std::min(options.fifo_priority, os::fifo_max_priority);
    result.scheduling = fmt::format("SCHED_FIFO/{}", fifo);
  }
  std::function<void(std::size_t)> on_worker_start;
  if (fifo > 0) on_worker_start = [fifo](std::size_t) { os::set_fifo(fifo); };

  say("sizing static memory (takt::measure, one job)");
  try {
    result.memory = measure([&] { task.run(profiling_job(result.program, 0, job_cores, options)); });
  } catch (const std::exception& e) {
    throw failed(0, "measurement", e);
  }
  if (options.stop_requested && options.stop_requested()) {
    result.stopped = true;  // nothing measured: no job, no calibration
    return result;
  }
  if (options.burden) {
    result.burden = *options.burden;
  } else {
    say("calibrating the spawn and sync burdens");
    CalibrationOptions calibration;
    calibration.cpus = options.cpus;
    calibration.fifo_priority = fifo;
    result.calibration = calibrate_burden(calibration);
    result.burden = result.calibration->burden;
  }

  const StaticMemory memory = result.memory.recommended();
  PoolConfig work_config;
  work_config.workers = 1;
  work_config.cpus = options.cpus;
  work_config.pin = false;
  work_config.memory = memory;
  work_config.name = "profile: work";
  work_config.on_worker_start = on_worker_start;
  PoolConfig span_config = work_config;
  span_config.measurement_mode = true;  // keeps the measured large stack: stack_size leaves it out
  span_config.prefault = false;
  span_config.name = "profile: span";
  Pool work_pool(work_config);
  Pool span_pool(span_config);
  SpanObserver observer({memory.depth, scope_capacity(memory)}, result.burden);
  span_pool.extension().set_observer(&observer);

  std::vector<std::unique_ptr<Pool>> parallel_pools;
  for (std::size_t p : options.parallel_workers) {
    if (p < 1) throw Error("profile: a worker count for T_P must be at least 1");
    PoolConfig c = work_config;
    c.workers = p;
    c.pin = true;
    c.name = fmt::format("profile: T_{}", p);
    parallel_pools.push_back(std::make_unique<Pool>(c));
  }

  auto timed = [&](Pool& pool, const Job& job) {
    return pool.run([&] {
      const nanoseconds start = os::monotonic_now();
      task.run(job);
      return os::monotonic_now() - start;
    });
  };

  for (std::size_t k = 0; k < options.jobs; ++k) {
    if (options.stop_requested && options.stop_requested()) {
      result.stopped = true;
      break;
    }
    const std::uint64_t index = k + 1;
    say(fmt::format("job {} of {}", k + 1, options.jobs));
    JobProfile jp;
    try {
      jp.work = timed(work_pool, profiling_job(result.program, index, job_cores, options));
    } catch (const std::exception& e) {
      throw failed(index, "work", e);
    }
    observer.reset();
    try {
      timed(span_pool, profiling_job(result.program, index, job_cores, options));
    } catch (const std::exception& e) {
      throw failed(index, "span", e);
    }
    jp.dag = observer.result();
    for (std::size_t i = 0; i < parallel_pools.size(); ++i) {
      try {
        jp.parallel.push_back(
            timed(*parallel_pools[i],
                  profiling_job(result.program, index, job_cores, options)));
      } catch (const std::exception& e) {
        throw failed(index, fmt::format("T_{}", options.parallel_workers[i]), e);
      }
    }
    result.per_job.push_back(std::move(jp));
  }
  span_pool.extension().set_observer(nullptr);
  result.jobs = result.per_job.size();
  if (result.per_job.empty()) return result;  // stopped before the first job

  std::vector<nanoseconds> work, span, burdened, strand_work;
  for (const JobProfile& j : result.per_job) {
    work.push_back(j.work);
    span.push_back(j.dag.span);
    burdened.push_back(j.dag.burdened_span);
    strand_work.push_back(j.dag.strand_work);
    result.spawns = std::max(result.spawns, j.dag.spawns);
    result.syncs = std::max(result.syncs, j.dag.syncs);
    result.strands = std::max(result.strands, j.dag.strands);
  }
  result.work = platform::summarize(work);
  result.span = platform::summarize(span);
  result.burdened_span = platform::summarize(burdened);
  result.strand_work = platform::summarize(strand_work);
  result.chosen_work = at_percentile(work, options.percentile);
  result.chosen_span = at_percentile(span, options.percentile);
  result.chosen_burdened_span = at_percentile(burdened, options.percentile);
  for (std::size_t i = 0; i < options.parallel_workers.size(); ++i) {
    std::vector<nanoseconds> t;
    for (const JobProfile& j : result.per_job) t.push_back(j.parallel[i]);
    result.parallel.push_back({options.parallel_workers[i], platform::summarize(t)});
  }
  return result;
}

}  // namespace takt::profiler
