// The run loop of `takt run`: a parsed and analysed task set run under one policy, with every result written.
//
//   model::TaskSet set = model::parse_task_set_file("tasks.yaml");
//   analysis::AnalysisResult verdict = analysis::analyse(set, {...});
//   auto policy = policies::make_policy(verdict.policy);
//   platform::RunResult r = platform::run_task_set(set, verdict, *policy, options);
//
// What the loop does, in order: maps the analysis' cores onto CPUs (CoreMap); resolves
// each task's program and initialises one object per task (a `segments` task without
// `args:` gets its `segments:` as arguments); builds the release engine from the
// task set's global section and the options; probes the real-time privileges and says
// once what the run gets; asks the policy for its recording plan and sizes the
// recorder; lets the policy create its workers; installs SIGINT/SIGTERM handling, locks
// memory, holds the CPU wake-up latency low (PM QoS), starts the progress line; starts
// the engine `start_delay` from now and lets the policy run the lanes; then stops the
// policy's threads, finalises the tasks and writes the JSON, the trace and the table.
// Every output is attempted even when the run was stopped or an earlier output failed.
#pragma once

#include "analysis/analyse.hpp"
#include "model/task_set.hpp"
#include "os/cpu.hpp"
#include "platform/metrics.hpp"
#include "platform/policy.hpp"
#include "takt/program.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>

namespace takt::platform {

class SignalStop;

/// The shortest task period `takt run` accepts. Below it the release thread, which
/// spends microseconds per release, falls behind its releases and the run overruns its
/// length (a 1 us period made a 1 s run take 1.7 s on the development VM, 10 us 1.2 s).
inline constexpr std::chrono::nanoseconds kShortestPeriod = std::chrono::microseconds(10);

struct RunOptions {
  /// Overrides global.duration / global.jobs (at most one of the two may be set).
  std::optional<std::chrono::nanoseconds> duration;
  std::optional<std::uint64_t> jobs;
  /// The run length when neither the options nor the task set give one.
  std::chrono::nanoseconds default_duration = std::chrono::seconds(10);
  std::optional<std::filesystem::path> json;   ///< metrics JSON
  std::optional<std::filesystem::path> trace;  ///< Chrome trace-event timeline
  std::FILE* table = stdout;                   ///< the results table; null: none
  std::FILE* messages = stderr;                ///< what the run uses (CPUs, privileges); null: none
  /// The progress line: while the tasks' init runs (from half a second on: "takt:
  /// initialising task 'mm' (2 of 3, program matmul), 12.5 s"), then while the run goes
  /// on. nullopt prints it when progress_out is a terminal; a null progress_out: none.
  std::optional<bool> progress;
  std::FILE* progress_out = stderr;
  /// First releases this long after the workers were created.
  std::chrono::nanoseconds start_delay = std::chrono::milliseconds(50);
  /// How long running jobs may take to finish after releasing ended (ReleaseConfig::drain).
  std::chrono::nanoseconds drain = std::chrono::seconds(1);
  /// SIGINT / SIGTERM / SIGHUP stop the run (SignalStop); tests running several runs at once may
  /// turn it off.
  bool handle_signals = true;
  /// A SignalStop the caller holds across several runs (takt bench policies), so that a
  /// signal between two runs is counted instead of taking its default action: the run
  /// attaches it to its release engine while it runs, detaches it when it ends and
  /// leaves its handlers installed. When set, handle_signals is not looked at.
  SignalStop* signals = nullptr;
  /// Lock memory and request low wake-up latency (when the privileges allow).
  bool lock_memory = true;
};

struct RunResult {
  RunMetrics metrics;
  /// Some job was still running when the run ended (abandoned after a stop): the
  /// policy's threads, and the engine, recorder, tasks and RunContext they use, were
  /// left alive for it (leaked), and the tasks were not finalised. Destroying the policy
  /// then leaks it too (policies::make_policy), so the program may go on, but those
  /// threads keep their CPUs until the job ends; a program should exit soon
  /// (std::_Exit) when it can.
  bool jobs_left_running = false;
  /// The process should end with a failure: an output could not be written.
  std::string output_errors;
  /// A SIGINT or SIGTERM that came after the run had ended, while the policy shut down,
  /// the tasks were finalised or the results were made and written
  /// (RunOptions::handle_signals): it stopped nothing, since the run was
  /// over, and the handlers that were there before the run are back by now. A program
  /// that runs several sets should stop as after a stopped run (takt bench policies
  /// does). 0 if none came.
  int signal_after_run = 0;
  /// The CPUs the run's cores were mapped to (CoreMap), for measurements that belong
  /// beside it (report_floor_after_run).
  os::CpuSet cpus;
  /// The real-time facilities the run had (RealtimeSettings after the run's own
  /// mlockall): SCHED_FIFO or not, and the privileges line as the run reported it
  /// ("..., mlockall no (not for this process: RLIMIT_MEMLOCK)" where the probe found
  /// the mappings under the limit but the run, with its threads, went over it; "...: too
  /// little memory to lock it)" where locking would have taken nearly all the memory left,
  /// os::locking_refusal).
  bool fifo = false;
  std::string privileges;
  /// The metrics JSON document as written to RunOptions::json (none without one, or
  /// when writing it failed), so that what is measured after the run can be added to
  /// the file without reading it back (report_floor_after_run).
  std::optional<nlohmann::json> json_document;
};

/// Runs `set` under `policy` as `verdict` (analysis::analyse of the same set, for the
/// policy's model::Policy) admitted it. Throws takt::Error for bad input found before
/// the run starts (unknown program, missing shared object, an init that fails, more
/// cores than CPUs, a task the policy cannot run, a JSON or trace path that
/// check_writable() refuses).
RunResult run_task_set(const model::TaskSet& set, const analysis::AnalysisResult& verdict, Policy& policy,
                       const RunOptions& options);

/// The arguments `takt run` passes to task `task`'s init: its `args:`, or, for the
/// built-in `segments` program without args, its `segments:` as LENGTH*STRANDS. A
/// `segments` task whose args and segments describe different segments is bad input
/// (takt::Error naming `source`:line:column of its args).
std::vector<std::string> program_arguments(const model::Task& task, const std::string& source);

/// The program of task `task` of a set read from `source` (resolve_program, relative to
/// `base_dir`); an error names where the task's program is written and the task
/// ("set.yaml:12:14: task 'fib': unknown program 'fibb'; ...").
takt::Program resolve_task_program(const model::Task& task, const std::string& source,
                                   const std::filesystem::path& base_dir);

/// Cores granted to task `index` by the analysis (1 for a sequential task).
unsigned granted_cores(const analysis::AnalysisResult& verdict, std::size_t index);

/// Longest run the recorder is sized for when the run has no limit (it lasts until stopped).
inline constexpr std::chrono::nanoseconds kUnlimitedSizing = std::chrono::seconds(60);
/// The recorder's per-thread buffers never take more than this together (events beyond
/// it are dropped and counted).
inline constexpr std::size_t kRecorderBytes = std::size_t{192} << 20;
/// Nor its job ledger more than this (job events of jobs beyond it go to the buffers).
inline constexpr std::size_t kLedgerBytes = std::size_t{128} << 20;

/// Jobs task `t` releases within the limits (the engine's rule: releases before
/// offset-relative origin + duration, and at most jobs_per_task), or within
/// kUnlimitedSizing when the run has no limit.
std::uint64_t planned_jobs(const PeriodicTask& t, const ReleaseConfig& config);

/// The recorder for a run (docs/measurements.md, "What is recorded"): one buffer per
/// recording thread of the plan plus the lane, each of max(busiest task's events per
/// thread, all events / threads) · 2 + 1024 events, at least 4096, at most
/// kRecorderBytes over all; the ledger keeps every planned job (beyond kLedgerBytes the
/// first jobs of every task in proportion); each buffer reserves room for the release,
/// start and finish of the jobs outside the ledger, plus 64, within half of it.
RecorderConfig size_recorder(const RecordingPlan& plan, std::span<const PeriodicTask> timing,
                             const ReleaseConfig& config);

}  // namespace takt::platform
