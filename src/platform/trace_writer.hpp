// The run's timeline as Chrome trace-event JSON (opens in Perfetto and chrome://tracing).
//
// Layout: process "cores" has one track per CPU with a complete ("X") slice per job
// (jobs that recorded no strands) and per strand execution, and instant events for
// steals, preemptions and migrations; slices that would not nest on a CPU's track go
// to an extra track of that CPU ("cpu N (overlap k)"), so every track is properly
// nested as the format requires. Process "tasks" has one track per task with a slice
// per job (start → finish) and instant events for releases, skipped releases and
// deadline misses. Timestamps are microseconds from the run's origin. Thread ids are
// unique across both processes and never 0 (viewers key threads by tid).
#pragma once

#include "platform/event.hpp"
#include "platform/metrics.hpp"
#include "platform/periodic_task.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <span>

namespace takt::platform {

/// `events_dropped`: events the recorder could not keep (RunMetrics::system); the trace
/// says so in otherData, since what is missing cannot be drawn. `outcomes`: the metrics'
/// jobs (RunMetrics::jobs); a job's status and deadline-miss marker are its outcome's
/// (a job still running at the end is unfinished when its deadline passed by the run's
/// end). A job without one is judged from the events alone, its deadline against the
/// trace's last event. `run` (if given): how the run ended, in otherData.run (stopped,
/// abandoned, stalled, signal, as the metrics' run), with `incomplete` true and a note
/// when it was stopped or abandoned.
nlohmann::json make_trace(std::span<const PeriodicTask> tasks, std::span<const Event> events,
                          std::chrono::nanoseconds origin, std::uint64_t events_dropped = 0,
                          std::span<const JobResult> outcomes = {}, const RunInfo* run = nullptr);

/// make_trace() written to `path` (write_json_file: never half a file).
void write_trace(const std::filesystem::path& path, std::span<const PeriodicTask> tasks,
                 std::span<const Event> events, std::chrono::nanoseconds origin,
                 std::uint64_t events_dropped = 0, std::span<const JobResult> outcomes = {},
                 const RunInfo* run = nullptr);

}  // namespace takt::platform
