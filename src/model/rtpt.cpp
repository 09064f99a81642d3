// Imports the .rtpt task-set format of the WUSTL federated-scheduling tools.
#include "model/rtpt.hpp"

#include "model/duration.hpp"
#include "model/yaml_reader.hpp"
#include "takt/error.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace takt::model {
namespace {

using std::chrono::nanoseconds;

struct Word {
  std::string text;
  int column;  // 1-based
  long offset;
};

struct Line {
  int number;  // 1-based
  long offset;
  std::vector<Word> words;
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  std::size_t pos = 0;
  int number = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++number;
    Line line{number, static_cast<long>(pos), {}};
    std::size_t i = pos;
    while (i < end) {
      while (i < end && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      std::size_t start = i;
      while (i < end && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      if (i > start) {
        line.words.push_back({std::string(text.substr(start, i - start)), static_cast<int>(start - pos) + 1,
                              static_cast<long>(start)});
      }
    }
    if (!line.words.empty()) lines.push_back(std::move(line));
    pos = end + 1;
  }
  return lines;
}

class RtptReader {
 public:
  explicit RtptReader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const Line& line, int column, const std::string& message) const {
    throw Error(source_ + ":" + std::to_string(line.number) + ":" + std::to_string(column) + ": " + message);
  }

  std::int64_t number(const Line& line, const Word& w, const std::string& what) const {
    const bool digits = !w.text.empty() && std::all_of(w.text.begin(), w.text.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    if (!digits) fail(line, w.column, what + " must be a non-negative whole number, not '" + w.text + "'");
    // Leading zeros do not count; more than 18 digits is too large (it was called "not
    // a whole number" until 2026-11-29).
    const std::size_t first = std::min(w.text.find_first_not_of('0'), w.text.size() - 1);
    if (w.text.size() - first > 18) {
      fail(line, w.column, what + " " + w.text + " is too large: at most 999999999999999999 (18 digits)");
    }
    return std::stoll(w.text.substr(first));
  }

  // sec + ns, with 0 ≤ ns < 10^9.
  nanoseconds time(const Line& line, std::size_t index, const std::string& what) const {
    std::int64_t sec = number(line, line.words[index], what + " seconds");
    std::int64_t ns = number(line, line.words[index + 1], what + " nanoseconds");
    if (ns >= 1'000'000'000)
      fail(line, line.words[index + 1].column, what + " nanoseconds must be below 1000000000");
    if (sec > 4'000'000'000)
      fail(line, line.words[index].column,
           what + " seconds is too large (at most 4000000000, about 127 years)");
    return nanoseconds{sec * 1'000'000'000 + ns};
  }

  TaskSet read(std::string_view text) {
    std::vector<Line> lines = split_lines(text);
    TaskSet set;
    set.source = source_;
    if (lines.empty())
      throw Error(source_ + ": the file is empty; an .rtpt file starts with 'first_core last_core'");
    const Line& cores = lines[0];
    if (cores.words.size() != 2) {
      fail(cores, 1,
           "the first line must be 'first_core last_core' (two numbers), found " +
               std::to_string(cores.words.size()) + " words");
    }
    std::int64_t first = number(cores, cores.words[0], "first_core");
    std::int64_t last = number(cores, cores.words[1], "last_core");
    if (last < first) fail(cores, cores.words[1].column, "last_core is below first_core");
    if (last > CpuSet::kMaxId)
      fail(cores, cores.words[1].column,
           "last_core is too large (at most " + std::to_string(CpuSet::kMaxId) +
               ", the largest CPU number takt handles)");
    Cores c;
    for (std::int64_t k = first; k <= last; ++k) c.cpus.push_back(static_cast<int>(k));
    c.count = static_cast<int>(c.cpus.size());
    set.global.cores = c;
    set.global.policy = Policy::federated;
    set.global.policy_given = true;

    if ((lines.size() - 1) % 2 != 0) {
      const Line& extra = lines.back();
      fail(extra, 1,
           "each task takes two lines (program line, timing line); this program line has no timing line");
    }
    std::map<std::string, int> used;
    nanoseconds longest{0};
    for (std::size_t i = 1; i + 1 < lines.size(); i += 2) {
      const Line& program = lines[i];
      const Line& timing = lines[i + 1];
      Task task;
      task.program = program.words[0].text;
      for (std::size_t w = 1; w < program.words.size(); ++w) task.args.push_back(program.words[w].text);
      // The program's name becomes the task's name: the rules of names apply (convert
      // refused its own output for a program named with a control character).
      if (const std::string problem = name_problem(task.program); !problem.empty()) {
        fail(program, 1, "the program " + problem);
      }
      std::string base = task.program.substr(task.program.find_last_of('/') + 1);
      task.name = base + "-" + std::to_string(++used[base]);
      task.marks.task = SourceMark{program.number, 1, program.offset};
      task.marks.name = task.marks.task;

      if (timing.words.size() != 11) {
        fail(timing, 1,
             "the timing line of task '" + task.name +
                 "' must have 11 numbers (work_sec work_ns span_sec span_ns period_sec period_ns "
                 "deadline_sec deadline_ns release_sec release_ns iterations), found " +
                 std::to_string(timing.words.size()));
      }
      nanoseconds work = time(timing, 0, "work");
      nanoseconds span = time(timing, 2, "span");
      task.period = time(timing, 4, "period");
      task.deadline = time(timing, 6, "deadline");
      task.offset = time(timing, 8, "release");
      std::int64_t iterations = number(timing, timing.words[10], "iterations");
      std::string who = "task '" + task.name + "'";
      if (task.period.count() == 0)
        fail(timing, timing.words[4].column, who + ": the period must be positive");
      if (task.deadline.count() == 0)
        fail(timing, timing.words[6].column, who + ": the deadline must be positive");
      if (task.deadline > task.period) {
        fail(timing, timing.words[6].column,
             who + ": deadline " + format_duration(task.deadline) + " exceeds the period " +
                 format_duration(task.period));
      }
      if (work.count() == 0 || span.count() == 0) {
        fail(timing, timing.words[0].column, who + ": work and span must be positive");
      }
      if (span > work) {
        fail(timing, timing.words[2].column,
             who + ": span " + format_duration(span) + " exceeds work " + format_duration(work));
      }
      // As a task set requires (its first deadline and second release stay durations):
      // refused here, at the release, not in the converted text.
      if (task.offset > kMaxDuration - task.period) {
        fail(timing, timing.words[8].column,
             who + ": release " + format_duration(task.offset) + " plus the period " +
                 format_duration(task.period) + " is more than the largest duration, " +
                 format_duration(kMaxDuration) + "; lower the release or the period");
      }
      if (span > task.deadline) {
        fail(timing, timing.words[2].column,
             who + ": span " + format_duration(span) + " exceeds the deadline " +
                 format_duration(task.deadline));
      }
      if (base == "synthetic_task") {
        read_synthetic(program, task);
        const nanoseconds path = segments_span(task.segments);
        if (path > task.deadline) {
          fail(program, 1,
               who + ": the critical path of its segments (" + format_duration(path) +
                   ") exceeds the deadline " + format_duration(task.deadline) +
                   " of its timing line; no number of cores can meet it (raise the deadline)");
        }
      }
      if (task.segments.empty() || segments_work(task.segments) != work ||
          segments_span(task.segments) != span) {
        task.measured_work = work;
        task.measured_span = span;
      }
      // The run length iterations × period, in 128 bits: it must fit a duration.
      const __int128 run = static_cast<__int128>(task.period.count()) * iterations;
      if (run > kMaxDuration.count()) {
        fail(timing, timing.words[10].column,
             who + ": " + timing.words[10].text + " iterations of the period " +
                 format_duration(task.period) +
                 " run longer than 2^62 ns (about 146 years), the most takt supports; lower the iterations");
      }
      longest = std::max(longest, nanoseconds{static_cast<std::int64_t>(run)});
      set.tasks.push_back(std::move(task));
    }
    if (set.tasks.empty()) throw Error(source_ + ": the file lists no tasks after the core range");
    if (longest.count() > 0) set.global.duration = longest;
    return set;
  }

 private:
  // "synthetic_task S  m_1 sec_1 ns_1  ...  m_S sec_S ns_S": segments of the built-in
  // synthetic program.
  void read_synthetic(const Line& line, Task& task) const {
    const std::vector<Word>& w = line.words;
    if (w.size() < 2) fail(line, 1, "synthetic_task needs the number of segments");
    std::int64_t count = number(line, w[1], "the number of segments");
    if (count < 1) {
      fail(line, w[1].column,
           "synthetic_task needs at least 1 segment (got " + w[1].text + "); give the number of segments, then "
           "strands sec ns for each");
    }
    if (w.size() != static_cast<std::size_t>(2 + 3 * count)) {
      fail(line, w[1].column,
           "synthetic_task with " + w[1].text + " segments needs " + std::to_string(3 * count) +
               " numbers after it (strands sec ns per segment)");
    }
    // C = Σ m·e in 128 bits, within kMaxDuration (then so is P = Σ e).
    __int128 work = 0;
    for (std::int64_t s = 0; s < count; ++s) {
      std::size_t at = 2 + 3 * static_cast<std::size_t>(s);
      Segment seg;
      std::int64_t strands = number(line, w[at], "strands");
      if (strands < 1) fail(line, w[at].column, "a segment needs 1 or more strands");
      if (strands > kMaxSegmentStrands) {
        fail(line, w[at].column, too_many_strands(w[at].text));
      }
      seg.strands = static_cast<int>(strands);
      seg.length = time(line, at + 1, "segment length");
      if (seg.length.count() == 0) fail(line, w[at + 1].column, "a segment's length must be positive");
      work += static_cast<__int128>(seg.length.count()) * seg.strands;
      if (work > kMaxDuration.count()) {
        fail(line, w[at].column,
             "with this segment (" + w[at].text + " × " + format_duration(seg.length) +
                 ") the work of the segments (Σ m·e) exceeds 2^62 ns (about 146 years), the most takt "
                 "supports; use fewer strands or shorter lengths");
      }
      seg.mark = SourceMark{line.number, w[at].column, w[at].offset};
      task.segments.push_back(seg);
      task.marks.strands.push_back(seg.mark);
    }
    task.program = std::string(kSegmentsProgram);
    task.args.clear();
  }

  std::string source_;
};

}  // namespace

TaskSet parse_rtpt(std::string_view text, const std::string& source) {
  // Names from the file end up in YAML or JSON output: bytes that are not UTF-8 are
  // reported here, at their place in the .rtpt file, not in the converted text.
  check_utf8_text(text, source);
  // A UTF-8 byte-order mark (an editor's) is no part of the first number.
  text.remove_prefix(utf8_bom_size(text));
  return RtptReader(source).read(text);
}

TaskSet parse_rtpt_file(const std::string& path) {
  return parse_rtpt(read_text_file(path, ".rtpt file"), path);
}

}  // namespace takt::model
