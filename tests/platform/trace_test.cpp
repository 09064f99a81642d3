// Tests of the Chrome trace-event timeline: required fields, one track per core and per task, proper nesting.
#include "platform/trace_writer.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace std::chrono_literals;
using std::chrono::nanoseconds;
using namespace takt::platform;

namespace {

Event ev(EventKind kind, std::uint32_t task, std::uint64_t job, nanoseconds time, int cpu,
         std::uint64_t arg = 0, std::uint8_t flags = 0) {
  Event e;
  e.kind = kind;
  e.task = task;
  e.job = job;
  e.time = time;
  e.release = 10ms * static_cast<std::int64_t>(job) + 1s;
  e.cpu = static_cast<std::int16_t>(cpu);
  e.arg = arg;
  e.flags = flags;
  return e;
}

const std::vector<PeriodicTask> tasks{PeriodicTask{"A", 10ms, 10ms, 0ms, 1},
                                      PeriodicTask{"B", 10ms, 5ms, 0ms, 2}};

// Origin 1 s. A#0 runs on cpu 0 (1.0001 → 1.004 s). B#0 runs strands on cpus 0 and 1;
// its strand on cpu 0 (1.003 → 1.005) straddles A#0's end: it cannot nest on cpu 0's main
// track and must go to an overlap track. B#0 finishes at 1.006, after its deadline 1.005.
std::vector<Event> events() {
  using E = EventKind;
  return {
      ev(E::release, 0, 0, 1s, 0),
      ev(E::release, 1, 0, 1s, 0),
      ev(E::start, 0, 0, 1s + 100us, 0),
      ev(E::start, 1, 0, 1s + 200us, 1),
      ev(E::strand_begin, 1, 0, 1s + 200us, 1, 1),
      ev(E::steal, 1, 0, 1s + 3ms, 0, 1),
      ev(E::strand_begin, 1, 0, 1s + 3ms, 0, 2),
      ev(E::finish, 0, 0, 1s + 4ms, 0),
      ev(E::strand_end, 1, 0, 1s + 5ms, 0, 2),
      ev(E::strand_end, 1, 0, 1s + 5500us, 1, 1),
      ev(E::finish, 1, 0, 1s + 6ms, 1),
      ev(E::skip, 0, 1, 1s + 10ms, 0),
  };
}

std::pair<int, int> track(int pid, int tid) { return {pid, tid}; }

/// Checks that the complete events of one track nest properly.
void expect_nested(std::vector<std::pair<double, double>> slices, const std::string& track) {
  std::sort(slices.begin(), slices.end(),
            [](auto a, auto b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
  std::vector<double> open;
  for (auto [b, e] : slices) {
    while (!open.empty() && open.back() <= b) open.pop_back();
    if (!open.empty()) {
      EXPECT_LE(e, open.back()) << "slice [" << b << ", " << e << "] does not nest on " << track;
    }
    open.push_back(e);
  }
}

}  // namespace

TEST(Trace, EveryEventHasTheFieldsTheFormatRequires) {
  nlohmann::json doc = make_trace(tasks, events(), 1s);
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc["traceEvents"].is_array());
  EXPECT_EQ(doc["displayTimeUnit"], "ms");
  EXPECT_EQ(doc["otherData"]["events_dropped"], 0);
  EXPECT_FALSE(doc["otherData"].contains("note"));
  std::set<std::string> phases;
  for (const auto& e : doc["traceEvents"]) {
    ASSERT_TRUE(e.contains("name") && e["name"].is_string()) << e;
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string()) << e;
    ASSERT_TRUE(e.contains("pid") && e["pid"].is_number_integer()) << e;
    ASSERT_TRUE(e.contains("tid") && e["tid"].is_number_integer()) << e;
    ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << e;
    const std::string ph = e["ph"];
    phases.insert(ph);
    if (ph == "X") {
      ASSERT_TRUE(e.contains("dur") && e["dur"].is_number()) << e;
      EXPECT_GE(e["dur"].get<double>(), 0.0);
      EXPECT_TRUE(e.contains("cat"));
    } else if (ph == "i") {
      EXPECT_TRUE(e.contains("s") && (e["s"] == "t" || e["s"] == "p" || e["s"] == "g")) << e;
    } else if (ph == "M") {
      EXPECT_TRUE(e["args"].is_object()) << e;
      const std::string name = e["name"];
      EXPECT_TRUE(name == "process_name" || name == "thread_name" || name == "process_sort_index" ||
                  name == "thread_sort_index")
          << name;
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  EXPECT_EQ(phases, (std::set<std::string>{"M", "X", "i"}));
}

TEST(Trace, OneTrackPerCoreAndPerTaskWithNestedSlices) {
  nlohmann::json doc = make_trace(tasks, events(), 1s);
  std::map<std::pair<int, int>, std::string> names;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  std::map<std::string, std::pair<int, int>> slice_track;
  for (const auto& e : doc["traceEvents"]) {
    std::pair<int, int> track{e["pid"], e["tid"]};
    if (e["ph"] == "M" && e["name"] == "thread_name") names[track] = e["args"]["name"];
    if (e["ph"] == "X") {
      double b = e["ts"], d = e["dur"];
      slices[track].emplace_back(b, b + d);
      slice_track[std::string(e["name"]) + "@" + std::to_string(track.first)] = track;
    }
  }
  // pid 1 = cores, pid 2 = tasks; tid = cpu + 1 / 1,000,001 + task; overlap k adds 10,000·k.
  EXPECT_EQ(names[track(1, 1)], "cpu 0");
  EXPECT_EQ(names[track(1, 2)], "cpu 1");
  EXPECT_EQ(names[track(1, 10001)], "cpu 0 (overlap 1)");
  EXPECT_EQ(names[track(2, 1000001)], "A");
  EXPECT_EQ(names[track(2, 1000002)], "B");
  // Every tid belongs to one process only, and none is 0.
  std::map<int, int> pid_of_tid;
  for (const auto& e : doc["traceEvents"]) {
    const int tid = e["tid"], pid = e["pid"];
    EXPECT_NE(tid, 0);
    auto [it, fresh] = pid_of_tid.emplace(tid, pid);
    EXPECT_EQ(it->second, pid) << "tid " << tid << " used by two processes";
  }
  for (const auto& [track, s] : slices) expect_nested(s, names[track]);

  // A#0 has no strands: a job slice on cpu 0. B#0's strands are on cpu 1 and (overlapping) cpu 0.
  EXPECT_EQ(slice_track["A #0@1"], (std::pair<int, int>{1, 1}));
  EXPECT_EQ(slice_track["B #0 s1@1"], (std::pair<int, int>{1, 2}));
  EXPECT_EQ(slice_track["B #0 s2@1"], (std::pair<int, int>{1, 10001}));
  // Task tracks: a slice per job, start → finish, in µs from the origin.
  EXPECT_EQ(slice_track["A #0@2"], (std::pair<int, int>{2, 1000001}));
  EXPECT_EQ(slice_track["B #0@2"], (std::pair<int, int>{2, 1000002}));
  ASSERT_EQ(slices[track(2, 1000002)].size(), 1u);
  EXPECT_DOUBLE_EQ(slices[track(2, 1000002)][0].first, 200.0);
  EXPECT_DOUBLE_EQ(slices[track(2, 1000002)][0].second, 6000.0);
}

TEST(Trace, MarksReleasesSkipsStealsAndMisses) {
  nlohmann::json doc = make_trace(tasks, events(), 1s);
  std::set<std::string> instants;
  nlohmann::json b0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "i") instants.insert(e["name"]);
    if (e["ph"] == "X" && e["name"] == "B #0" && e["pid"] == 2) b0 = e;
  }
  EXPECT_TRUE(instants.count("release #0"));
  EXPECT_TRUE(instants.count("skipped #1"));
  EXPECT_TRUE(instants.count("steal"));
  EXPECT_TRUE(instants.count("deadline miss #0")) << "B#0 finished at 6 ms, deadline 5 ms";
  EXPECT_EQ(b0["args"]["status"], "missed");
  EXPECT_DOUBLE_EQ(b0["args"]["response_us"].get<double>(), 6000.0);
  EXPECT_DOUBLE_EQ(b0["args"]["deadline_us"].get<double>(), 5000.0);
}

TEST(Trace, WrittenFileParsesBack) {
  const auto path = std::filesystem::temp_directory_path() / "takt_trace_test.json";
  const auto ev = events();
  write_trace(path, tasks, ev, 1s);
  std::ifstream in(path);
  nlohmann::json back = nlohmann::json::parse(in);
  EXPECT_GT(back["traceEvents"].size(), ev.size());
  EXPECT_EQ(back, make_trace(tasks, ev, 1s)) << "the file holds the whole trace, as made";
  std::filesystem::remove(path);
}

TEST(Trace, StatusWordsAndMissMarkersFollowTheMetrics) {
  // Task A (D = 10 ms; ev() puts job k's release at origin + 10 ms·k), origin 1 s, the
  // last event (a steal of task B) at 45 ms. Job 0 failed at 2 ms, before its deadline:
  // failed, no miss marker. Jobs 1 and 2 start and never finish, their deadlines (20 and
  // 30 ms) before the last event: unfinished, with a miss marker each. Job 4 (due 50 ms)
  // starts and never finishes: abandoned, no marker. Job 3's strand has no end event: it is
  // drawn until its job's finish at 34 ms, not until the last event; job 3 met its deadline.
  using E = EventKind;
  const std::vector<Event> evs = {
      ev(E::start, 0, 0, 1s + 1ms, 0),   ev(E::finish, 0, 0, 1s + 2ms, 0, 0, event_flag::failed),
      ev(E::start, 0, 1, 1s + 11ms, 0),  ev(E::start, 0, 2, 1s + 21ms, 1),
      ev(E::start, 0, 3, 1s + 30ms, 1),  ev(E::strand_begin, 0, 3, 1s + 31ms, 1, 7),
      ev(E::finish, 0, 3, 1s + 34ms, 1), ev(E::start, 0, 4, 1s + 41ms, 0),
      ev(E::steal, 1, 0, 1s + 45ms, 0),
  };
  const std::vector<PeriodicTask> two{PeriodicTask{"A", 10ms, 10ms, 0ms, 1},
                                      PeriodicTask{"B", 10ms, 10ms, 0ms, 1}};
  const nlohmann::json doc = make_trace(two, evs, 1s, 3);
  EXPECT_EQ(doc["otherData"]["events_dropped"], 3);
  EXPECT_TRUE(doc["otherData"].contains("note"));
  std::map<std::uint64_t, std::string> status;
  std::set<std::string> misses;
  double strand_dur = -1;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "job" && e["args"]["task"] == "A") {
      status[e["args"]["job"].get<std::uint64_t>()] = e["args"]["status"].get<std::string>();
    }
    if (e["ph"] == "i" && e["cat"] == "deadline") misses.insert(e["name"].get<std::string>());
    if (e["ph"] == "X" && e["cat"] == "strand") strand_dur = e["dur"].get<double>();
  }
  EXPECT_EQ(status[0], "failed");
  EXPECT_EQ(status[1], "unfinished");
  EXPECT_EQ(status[2], "unfinished");
  EXPECT_EQ(status[3], "met");
  EXPECT_EQ(status[4], "abandoned");
  EXPECT_EQ(misses, (std::set<std::string>{"deadline miss #1", "deadline miss #2"}));
  EXPECT_DOUBLE_EQ(strand_dur, 3000.0) << "31 ms to job 3's finish at 34 ms, in us";
}

TEST(Trace, AStrandWhoseThreadMovedToAnotherCpuInsideItIsDrawnOnTheCpuItBeganOn) {
  // B#0's strand 1 began on cpu 1 at 1.0002 s; its unpinned thread was moved to cpu 0,
  // where the strand ended at 1.0055 s. It was missing from the trace (its end was looked
  // up on cpu 0 only, and the open strand then ran to the job's finish).
  std::vector<Event> evs = events();
  for (Event& e : evs) {
    if (e.kind == EventKind::strand_end && e.task == 1 && e.arg == 1) e.cpu = 0;
  }
  const nlohmann::json doc = make_trace(tasks, evs, 1s);
  int drawn = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "strand" && e["args"]["strand"] == 1) {
      ++drawn;
      EXPECT_EQ(e["pid"], 1);
      EXPECT_EQ(e["tid"].get<int>() % 10'000, 2) << "cpu 1's track (or an overlap track of it)";
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 200.0);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 5300.0) << "1.0002 → 1.0055 s, in us";
    }
  }
  EXPECT_EQ(drawn, 1);
}

TEST(Trace, AJobHeldAtTheEndTakesItsStatusFromTheMetricsWhichJudgeByTheRunsEnd) {
  // A#0 starts at 1 ms and never finishes; its deadline (10 ms) is after the trace's last
  // event (5 ms) but before the run's end (20 ms, a stop that waited for it). The metrics
  // count it unfinished, a miss; the trace, judging by its last event, said abandoned and
  // drew no miss marker.
  using E = EventKind;
  const std::vector<Event> evs = {ev(E::release, 0, 0, 1s, 0), ev(E::start, 0, 0, 1s + 1ms, 0),
                                  ev(E::steal, 0, 0, 1s + 5ms, 0)};
  const std::vector<PeriodicTask> one{PeriodicTask{"A", 10ms, 10ms, 0ms, 1}};
  MetricsInput in;
  in.tasks = one;
  in.events = evs;
  in.run.origin = 1s;
  in.run.end = 1s + 20ms;
  const RunMetrics m = compute_metrics(in);
  ASSERT_EQ(m.jobs.size(), 1u);
  ASSERT_EQ(m.jobs[0].status, JobStatus::unfinished);
  const nlohmann::json doc = make_trace(one, evs, 1s, 0, m.jobs);
  std::string status;
  bool miss_marker = false;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "job" && e["pid"] == 2) status = e["args"]["status"];
    if (e["ph"] == "i" && e["name"] == "deadline miss #0") miss_marker = true;
  }
  EXPECT_EQ(status, "unfinished");
  EXPECT_TRUE(miss_marker);
}

TEST(Trace, AJobThatNeverStartedAndMissedItsDeadlineGetsTheMissMarker) {
  // A#0 is released at 0 and never starts (queued behind other work) before the run
  // ends at 50 ms: the metrics count it unfinished, a miss, but the trace drew no
  // marker for a job without a start.
  using E = EventKind;
  const std::vector<Event> evs = {ev(E::release, 0, 0, 1s, 0)};
  const std::vector<PeriodicTask> one{PeriodicTask{"A", 10ms, 10ms, 0ms, 1}};
  MetricsInput in;
  in.tasks = one;
  in.events = evs;
  in.run.origin = 1s;
  in.run.end = 1s + 50ms;
  const RunMetrics m = compute_metrics(in);
  ASSERT_EQ(m.jobs.size(), 1u);
  ASSERT_EQ(m.jobs[0].status, JobStatus::unfinished);
  const nlohmann::json doc = make_trace(one, evs, 1s, 0, m.jobs);
  int markers = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "i" && e["name"] == "deadline miss #0") ++markers;
  }
  EXPECT_EQ(markers, 1);
}

TEST(Trace, ANameThatIsNotUtf8IsWrittenWithReplacementCharacters) {
  // The whole file was lost (nlohmann::json refused to dump the string) after the run.
  const std::vector<PeriodicTask> bad{
      PeriodicTask{"ab\xff\xfe"
                   "cd",
                   10ms, 10ms, 0ms, 1}};
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "takt_trace_bad_utf8.json";
  write_trace(path, bad, std::vector<Event>{ev(EventKind::release, 0, 0, 1s, 0)}, 1s);
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  bool found = false;
  for (const auto& e : doc["traceEvents"]) {
    if (e.contains("args") && e["args"].contains("name") &&
        e["args"]["name"] ==
            "ab\xef\xbf\xbd\xef\xbf\xbd"
            "cd")
      found = true;
  }
  EXPECT_TRUE(found) << doc.dump();
  std::filesystem::remove(path);
}

TEST(Trace, AStoppedRunSaysSoInOtherData) {
  // Only the metrics JSON said that a run was stopped; a trace of it looked complete.
  const std::vector<PeriodicTask> one{PeriodicTask{"A", 10ms, 10ms, 0ms, 1}};
  const std::vector<Event> evs{ev(EventKind::release, 0, 0, 1s, 0)};
  RunInfo run;
  run.stopped = true;
  run.signal = 15;
  nlohmann::json doc = make_trace(one, evs, 1s, 0, {}, &run);
  EXPECT_TRUE(doc["otherData"]["incomplete"].get<bool>());
  EXPECT_TRUE(doc["otherData"]["run"]["stopped"].get<bool>());
  EXPECT_FALSE(doc["otherData"]["run"]["abandoned"].get<bool>());
  EXPECT_EQ(doc["otherData"]["run"]["signal"], 15);
  EXPECT_EQ(doc["otherData"]["run_note"].get<std::string>(),
            "stopped early (signal 15): releases end at the stop, and a job still running then ends where its "
            "events do");
  // Nobody stopped these two: a job held the run after its last release (stalled), and a
  // job outlived the drain at the end. The note said "the run was stopped" for both.
  run = RunInfo{};
  run.stalled = true;
  run.abandoned = true;
  doc = make_trace(one, evs, 1s, 0, {}, &run);
  EXPECT_TRUE(doc["otherData"]["incomplete"].get<bool>());
  EXPECT_EQ(doc["otherData"]["run_note"].get<std::string>(),
            "running jobs abandoned (no job released or finished after the last release): a job still running "
            "at the end ends where its events do");
  run.stalled = false;
  doc = make_trace(one, evs, 1s, 0, {}, &run);
  EXPECT_EQ(doc["otherData"]["run_note"].get<std::string>(),
            "running jobs abandoned at the end: a job still running at the end ends where its events do");
  run = RunInfo{};  // a run that ended by its limits
  doc = make_trace(one, evs, 1s, 0, {}, &run);
  EXPECT_FALSE(doc["otherData"]["incomplete"].get<bool>());
  EXPECT_FALSE(doc["otherData"].contains("run_note"));
}
