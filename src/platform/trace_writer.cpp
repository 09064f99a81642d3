// The run's timeline as Chrome trace-event JSON (opens in Perfetto and chrome://tracing).
#include "platform/trace_writer.hpp"

#include "platform/metrics_json.hpp"
#include "platform/open_strands.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace takt::platform {

using std::chrono::nanoseconds;

namespace {

// Thread ids are unique across both processes and never 0 (Perfetto keys threads by
// tid): cpu N's track is N + 1, task i's is 1,000,001 + i, and the k-th overlap track of
// either adds 10,000·k.
constexpr int cores_pid = 1;
constexpr int tasks_pid = 2;
constexpr int cores_tid_base = 1;
constexpr int tasks_tid_base = 1'000'001;
constexpr int overlap_tid_step = 10'000;

struct Slice {
  nanoseconds begin{};
  nanoseconds end{};
  std::string name;
  std::string category;
  nlohmann::json args;
};

/// Places slices on the fewest tracks such that each track is properly nested;
/// returns, per slice (in the given order), its track number (0 = the main track).
std::vector<int> nest(std::vector<Slice>& slices) {
  std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  std::vector<std::vector<nanoseconds>> stacks;  // per track: ends of the open slices
  std::vector<int> track_of(slices.size());
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const Slice& s = slices[i];
    int placed = -1;
    for (std::size_t k = 0; k < stacks.size() && placed < 0; ++k) {
      auto& stack = stacks[k];
      while (!stack.empty() && stack.back() <= s.begin) stack.pop_back();
      if (stack.empty() || s.end <= stack.back()) {
        stack.push_back(s.end);
        placed = static_cast<int>(k);
      }
    }
    if (placed < 0) {
      stacks.push_back({s.end});
      placed = static_cast<int>(stacks.size() - 1);
    }
    track_of[i] = placed;
  }
  return track_of;
}

}  // namespace

nlohmann::json make_trace(std::span<const PeriodicTask> tasks, std::span<const Event> events,
                          nanoseconds origin, std::uint64_t events_dropped,
                          std::span<const JobResult> outcomes, const RunInfo* run) {
  nanoseconds base = origin;
  for (const Event& e : events) base = std::min(base, e.time);
  auto ts = [&](nanoseconds t) { return static_cast<double>((t - base).count()) / 1e3; };
  auto rel_us = [&](nanoseconds t) { return static_cast<double>((t - origin).count()) / 1e3; };
  nanoseconds last = origin;
  for (const Event& e : events) last = std::max(last, e.time);

  nlohmann::json out = nlohmann::json::array();
  auto metadata = [&](int pid, int tid, const char* what, nlohmann::json args) {
    out.push_back(
        {{"name", what}, {"ph", "M"}, {"ts", 0}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}});
  };
  metadata(cores_pid, cores_tid_base, "process_name", {{"name", "cores"}});
  metadata(cores_pid, cores_tid_base, "process_sort_index", {{"sort_index", 0}});
  metadata(tasks_pid, tasks_tid_base, "process_name", {{"name", "tasks"}});
  metadata(tasks_pid, tasks_tid_base, "process_sort_index", {{"sort_index", 1}});

  auto task_name = [&](std::uint32_t t) {
    return t < tasks.size() ? tasks[t].name : fmt::format("task{}", t);
  };

  // Per job: what happened, for job slices and task tracks.
  struct JobInfo {
    std::optional<nanoseconds> release, start, finish;
    nanoseconds nominal{};
    int start_cpu = -1;
    bool strands = false, failed = false, skipped = false;
  };
  std::map<std::pair<std::uint32_t, std::uint64_t>, JobInfo> jobs;
  std::map<int, std::vector<Slice>> core_slices;
  OpenStrands open_strands;
  std::vector<nlohmann::json> instants;
  for (const Event& e : events) {
    JobInfo& j = jobs[{e.task, e.job}];
    if (j.nominal == nanoseconds::zero()) j.nominal = e.release;
    const std::string label = fmt::format("{} #{}", task_name(e.task), e.job);
    switch (e.kind) {
      case EventKind::release:
        j.release = e.time;
        break;
      case EventKind::skip:
        j.skipped = true;
        break;
      case EventKind::start:
        j.start = e.time;
        j.start_cpu = e.cpu;
        break;
      case EventKind::finish:
        j.finish = e.time;
        j.failed = (e.flags & event_flag::failed) != 0;
        break;
      case EventKind::strand_begin:
        j.strands = true;
        open_strands.begin(e);
        break;
      case EventKind::strand_end: {
        j.strands = true;
        const auto segment = open_strands.end(e);
        if (!segment) break;
        // On the track of the CPU it began on (its thread may have moved inside it).
        core_slices[segment->cpu].push_back(Slice{segment->begin,
                                           e.time,
                                           fmt::format("{} s{}", label, e.arg),
                                           "strand",
                                           {{"task", task_name(e.task)},
                                            {"job", e.job},
                                            {"strand", e.arg},
                                            {"preempted", (e.flags & event_flag::preempted) != 0}}});
        break;
      }
      case EventKind::steal:
      case EventKind::preemption:
      case EventKind::migration: {
        nlohmann::json args{{"task", task_name(e.task)}, {"job", e.job}};
        if (e.kind == EventKind::steal) args["victim_cpu"] = e.arg;
        if (e.kind == EventKind::preemption) args["strand"] = e.arg;
        if (e.kind == EventKind::migration) {
          args["from_cpu"] = e.arg;
          args["thread_moved"] = (e.flags & event_flag::thread_moved) != 0;
        }
        instants.push_back({{"name", std::string(to_string(e.kind))},
                            {"cat", std::string(to_string(e.kind))},
                            {"ph", "i"},
                            {"s", "t"},
                            {"ts", ts(e.time)},
                            {"pid", cores_pid},
                            {"tid", cores_tid_base + e.cpu},
                            {"args", std::move(args)}});
        break;
      }
    }
  }
  // Strands still open at the end (their end event is missing) run to their job's
  // finish when it is known, else to the last event.
  for (const auto& [key, begin] : open_strands.still_open()) {
    const auto& [task, job, strand, cpu] = key;
    const auto found = jobs.find({task, job});
    const nanoseconds until = found != jobs.end() && found->second.finish && *found->second.finish >= begin
                                  ? *found->second.finish
                                  : last;
    core_slices[cpu].push_back(
        Slice{begin,
              until,
              fmt::format("{} #{} s{}", task_name(task), job, strand),
              "strand",
              {{"task", task_name(task)}, {"job", job}, {"strand", strand}, {"unfinished", true}}});
  }

  std::map<std::pair<std::uint32_t, std::uint64_t>, const JobResult*> outcome_of;
  for (const JobResult& r : outcomes) outcome_of[{r.task, r.index}] = &r;

  std::map<std::uint32_t, std::vector<Slice>> task_slices;
  for (const auto& [key, j] : jobs) {
    const auto [task, index] = key;
    const std::string label = fmt::format("{} #{}", task_name(task), index);
    const nanoseconds deadline =
        j.nominal + (task < tasks.size() ? tasks[task].deadline : nanoseconds::zero());
    const int task_tid = tasks_tid_base + static_cast<int>(task);
    if (j.skipped) {
      instants.push_back({{"name", fmt::format("skipped #{}", index)},
                          {"cat", "release"},
                          {"ph", "i"},
                          {"s", "t"},
                          {"ts", ts(j.nominal)},
                          {"pid", tasks_pid},
                          {"tid", task_tid},
                          {"args", {{"job", index}}}});
    }
    if (j.release) {
      instants.push_back({{"name", fmt::format("release #{}", index)},
                          {"cat", "release"},
                          {"ph", "i"},
                          {"s", "t"},
                          {"ts", ts(*j.release)},
                          {"pid", tasks_pid},
                          {"tid", task_tid},
                          {"args", {{"job", index}, {"nominal_release_us", rel_us(j.nominal)}}}});
    }
    // The metrics' outcome when given. Without one, as the metrics judge: a job without a
    // finish is unfinished once its deadline passed (here: by the trace's last event),
    // abandoned before; a failed job is failed, not missed. A deadline passed unfinished
    // or finished late gets the miss marker, also for a released job that never started.
    const auto found = outcome_of.find(key);
    const JobResult* outcome = found != outcome_of.end() ? found->second : nullptr;
    const bool late = outcome != nullptr
                          ? outcome->status == JobStatus::missed || outcome->status == JobStatus::unfinished
                      : j.finish ? !j.failed && *j.finish > deadline
                                 : deadline <= last;
    if (late && (j.start || j.release)) {
      instants.push_back({{"name", fmt::format("deadline miss #{}", index)},
                          {"cat", "deadline"},
                          {"ph", "i"},
                          {"s", "t"},
                          {"ts", ts(deadline)},
                          {"pid", tasks_pid},
                          {"tid", task_tid},
                          {"args", {{"job", index}}}});
    }
    if (!j.start) continue;
    const nanoseconds end = j.finish.value_or(last);
    const std::string status = outcome != nullptr ? std::string(to_string(outcome->status))
                               : !j.finish        ? (deadline <= last ? "unfinished" : "abandoned")
                               : j.failed         ? "failed"
                               : late             ? "missed"
                                                  : "met";
    nlohmann::json args{{"task", task_name(task)},
                        {"job", index},
                        {"release_us", rel_us(j.nominal)},
                        {"deadline_us", rel_us(deadline)},
                        {"status", status}};
    if (j.finish) args["response_us"] = static_cast<double>((*j.finish - j.nominal).count()) / 1e3;
    task_slices[task].push_back(Slice{*j.start, end, label, "job", args});
    if (!j.strands && j.start_cpu >= 0)
      core_slices[j.start_cpu].push_back(Slice{*j.start, end, label, "job", args});
  }

  auto emit_slices = [&](int pid, int first_tid, std::vector<Slice>& slices, const std::string& track_name,
                         int sort_index) {
    std::vector<int> track = nest(slices);
    int tracks = 1;
    for (int k : track) tracks = std::max(tracks, k + 1);
    for (int k = 0; k < tracks; ++k) {
      int tid = first_tid + overlap_tid_step * k;
      metadata(pid, tid, "thread_name",
               {{"name", k == 0 ? track_name : fmt::format("{} (overlap {})", track_name, k)}});
      metadata(pid, tid, "thread_sort_index", {{"sort_index", sort_index * 16 + k}});
    }
    for (std::size_t i = 0; i < slices.size(); ++i) {
      Slice& s = slices[i];
      out.push_back({{"name", s.name},
                     {"cat", s.category},
                     {"ph", "X"},
                     {"ts", ts(s.begin)},
                     {"dur", static_cast<double>((s.end - s.begin).count()) / 1e3},
                     {"pid", pid},
                     {"tid", first_tid + overlap_tid_step * track[i]},
                     {"args", std::move(s.args)}});
    }
  };
  // Every CPU that saw an event gets its track, even without slices (instants only).
  for (const Event& e : events) core_slices[e.cpu];
  for (auto& [cpu, slices] : core_slices) {
    if (cpu >= 0) emit_slices(cores_pid, cores_tid_base + cpu, slices, fmt::format("cpu {}", cpu), cpu);
  }
  for (std::uint32_t t = 0; t < tasks.size(); ++t) {
    emit_slices(tasks_pid, tasks_tid_base + static_cast<int>(t), task_slices[t], tasks[t].name,
                static_cast<int>(t));
  }
  for (auto& i : instants) out.push_back(std::move(i));

  nlohmann::json doc;
  doc["traceEvents"] = std::move(out);
  doc["displayTimeUnit"] = "ms";
  doc["otherData"] = {{"generator", "takt"},
                      {"origin_us", static_cast<double>((origin - base).count()) / 1e3},
                      {"events_dropped", events_dropped}};
  doc["otherData"].update(provenance());  // its date: when the trace is written
  if (events_dropped > 0) {
    doc["otherData"]["note"] =
        "the recorder dropped events: strands, steals and finishes after the first drop are missing, and a "
        "job "
        "whose strands were dropped is drawn as one slice on the CPU it started on";
  }
  if (run != nullptr) {
    doc["otherData"]["run"] = {{"stopped", run->stopped},
                               {"abandoned", run->abandoned},
                               {"stalled", run->stalled},
                               {"signal", run->signal},
                               {"error", run->error.empty() ? nlohmann::json() : nlohmann::json(run->error)}};
    const std::string_view ended = how_run_ended(*run);
    const bool incomplete = !ended.empty();
    doc["otherData"]["incomplete"] = incomplete;
    if (incomplete) {
      // The table's words; releases end at a stop, and at the run's length otherwise.
      doc["otherData"]["run_note"] =
          fmt::format("{}{}: {}", ended,
                      run->signal != 0 ? fmt::format(" (signal {})", run->signal) : std::string(),
                      run->stopped || !run->error.empty()
                          ? "releases end at the stop, and a job still running then ends where its events do"
                          : "a job still running at the end ends where its events do");
    }
  }
  return doc;
}

void write_trace(const std::filesystem::path& path, std::span<const PeriodicTask> tasks,
                 std::span<const Event> events, nanoseconds origin, std::uint64_t events_dropped,
                 std::span<const JobResult> outcomes, const RunInfo* run) {
  write_json_file(path, make_trace(tasks, events, origin, events_dropped, outcomes, run));
}

}  // namespace takt::platform
