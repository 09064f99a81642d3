// The interface a scheduling policy implements to run a task set on the platform (one policy = one file plus its topology).
//
// The run loop (run.hpp) owns everything common to all policies: it resolves and
// initialises the tasks, maps the analysis' cores onto CPUs, builds the release engine
// and the recorder, handles signals, memory locking and the progress line, and writes
// the results. A policy (src/policies/) decides where and how jobs run: which threads
// exist on which CPUs, which release lanes they serve, how a released job reaches a
// worker (through its topology of the scheduling framework: releases are admitted, idle
// workers ask schedule(pe)), and what it records. The calls come in this order:
//
//   plan(ctx)      checks that every task can run under the policy (takt::Error naming
//                  the task and the policy to use instead) and says how much the run
//                  will record; no threads yet.
//   prepare(ctx)   creates pools and threads on the granted CPUs; they attach to
//                  ctx.recorder and wait. The release engine is not started yet.
//   run(ctx)       the engine is started: runs every release lane until the engine's
//                  run has ended for it (limits reached, or stopped) and returns.
//   shutdown()     stops and joins every thread it created, or, when a job is still
//                  running (abandoned), leaves them and returns false. The threads left
//                  running go on using the policy object: it must then outlive them,
//                  so destroying it must leak it instead (the built-in policies'
//                  factories wrap it in policies::LeakedWhenLeftRunning), and the run
//                  loop leaks the engine, the recorder, the tasks and the RunContext.
//   details()      policy-specific measurements for the JSON (pool and scheduler
//                  statistics), after shutdown.
#pragma once

#include "analysis/analyse.hpp"
#include "model/task_set.hpp"
#include "platform/core_map.hpp"
#include "platform/periodic_task.hpp"
#include "platform/realtime_settings.hpp"
#include "platform/recorder.hpp"
#include "platform/release_engine.hpp"
#include "sched/topology_spec.hpp"
#include "takt/task.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <span>
#include <string_view>

namespace takt::platform {

/// Everything a policy works with. `set` and `analysis` are the caller's and may be gone
/// once run_task_set() has returned: a thread that may be left running in a job must
/// not read them (the rest is leaked with it, see shutdown() above).
struct RunContext {
  const model::TaskSet& set;
  const analysis::AnalysisResult& analysis;
  const CoreMap& cores;
  /// The tasks' timing, by task index (the same as engine.tasks()).
  std::span<const PeriodicTask> timing;
  /// The initialised task objects, by task index.
  std::span<Task* const> tasks;
  ReleaseEngine& engine;
  const RealtimeSettings& realtime;
  /// The policy's topology: the task set's own `topology:` section, or the built-in one.
  const sched::TopologySpec& topology;
  /// Set by the run loop after plan(), before prepare().
  Recorder* recorder = nullptr;
  /// True once the run has been stopped (a signal) and its drain time is over, or it
  /// was abandoned: threads still inside a job then are left running (RunThreads::wait).
  std::function<bool()> overdue = [] { return false; };
};

/// How much a run will record, so that the recorder can be sized before it starts.
struct RecordingPlan {
  /// Threads that will record (lanes, workers, executors).
  std::size_t threads = 1;
  /// Events each task's job records (release, start, finish, strands, steals, ...),
  /// by task index.
  std::vector<std::size_t> events_per_job;
  /// Recording threads over which each task's events spread (its workers), by task
  /// index; the busiest thread's share sizes every buffer.
  std::vector<std::size_t> threads_per_task;
};

class Policy {
 public:
  virtual ~Policy() = default;
  /// The policy's name as written in task-set files ("federated", ...).
  [[nodiscard]] virtual std::string_view name() const = 0;
  /// The policy's built-in topology (used when the task set has no `topology:`).
  [[nodiscard]] virtual sched::TopologySpec default_topology() const = 0;
  virtual RecordingPlan plan(const RunContext& ctx) = 0;
  virtual void prepare(RunContext& ctx) = 0;
  virtual void run(RunContext& ctx) = 0;
  virtual bool shutdown() = 0;
  [[nodiscard]] virtual nlohmann::json details() const { return nlohmann::json::object(); }
};

}  // namespace takt::platform
