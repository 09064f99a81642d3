// Reads and strictly validates a task-set file (YAML or JSON) into a TaskSet.
#include "model/task_set_parser.hpp"

#include "model/duration.hpp"
#include "model/yaml_reader.hpp"
#include "takt/error.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace takt::model {
namespace {

using std::chrono::nanoseconds;

constexpr const char* kLimitText = "2^62 ns (about 146 years), the most takt supports";

/// Walks the YAML tree, turning every problem into a takt::Error at its position.
class Reader : public YamlReader {
 public:
  using YamlReader::YamlReader;

  TaskSet read(const YAML::Node& root) {
    TaskSet set;
    set.source = source();
    if (!root || root.IsNull()) {
      fail_at(SourceMark{1, 1},
              "the file is empty; a task set needs at least a 'tasks:' list "
              "(see docs/task-set-format.md)");
    }
    if (!root.IsMap()) fail(root, "a task set is a mapping with the keys 'global', 'tasks' and 'topology'");
    check_keys(root, {"global", "tasks", "topology"}, "the task set");
    if (YAML::Node global = root["global"]) set.global = read_global(global);
    YAML::Node tasks = root["tasks"];
    if (!tasks) fail(root, "missing key 'tasks'; add a list of tasks (see docs/task-set-format.md)");
    if (!tasks.IsSequence() || tasks.size() == 0) {
      fail(tasks, "'tasks' must be a non-empty list of tasks (each item starts with '- name: ...')");
    }
    std::map<std::string, std::pair<SourceMark, std::size_t>> names;  // name → (where, item)
    for (const YAML::Node& t : tasks) {
      Task task = read_task(t);
      const std::size_t item = set.tasks.size() + 1;
      auto [it, inserted] = names.emplace(task.name, std::make_pair(task.marks.name, item));
      if (!inserted) {
        const auto& [first, first_item] = it->second;
        if (first.offset == task.marks.name.offset) {
          // The same node again: a YAML alias (*name) repeats an anchored task, and
          // yaml-cpp keeps no position of the alias itself.
          fail_at(first, "task '" + task.name + "' is listed twice: item " + std::to_string(item) +
                             " of 'tasks' repeats item " + std::to_string(first_item) +
                             " through a YAML alias (*...); give every task its own mapping and name");
        }
        fail_at(task.marks.name, "duplicate task name '" + task.name + "' (first used at line " +
                                     std::to_string(first.line) + "); give every task its own name");
      }
      set.tasks.push_back(std::move(task));
    }
    if (YAML::Node topology = root["topology"]) set.topology = topology;
    return set;
  }

 private:
  // --- global ------------------------------------------------------------------------

  Global read_global(const YAML::Node& node) const {
    Global g;
    g.marks.section = mark_of(node.Mark());
    if (node.IsNull()) return g;
    expect_map(node, "'global'");
    check_keys(node, {"cores", "policy", "delta", "fit", "duration", "jobs", "overrun"}, "'global'");
    if (YAML::Node n = node["cores"]) {
      g.marks.cores = mark_of(n.Mark());
      g.cores = read_cores(n);
    }
    if (YAML::Node n = node["policy"]) {
      g.marks.policy = mark_of(n.Mark());
      std::string text = scalar(n, "policy");
      auto policy = parse_policy(text);
      if (!policy) fail(n, "unknown policy '" + text + "'; use one of " + policy_names());
      g.policy = *policy;
      g.policy_given = true;
    }
    if (YAML::Node n = node["delta"]) {
      g.marks.delta = mark_of(n.Mark());
      std::string text = scalar(n, "delta");
      try {
        g.delta = Decimal::parse(text);
      } catch (const Error& e) {
        fail(n, std::string("delta: ") + e.what() +
                    "; the papers use 3.65 (theory), 1.7 (Cilkview), 1.5 (Cilkprof)");
      }
      if (std::string problem = delta_problem(*g.delta); !problem.empty()) fail(n, "delta " + problem);
    }
    if (YAML::Node n = node["fit"]) {
      g.marks.fit = mark_of(n.Mark());
      std::string text = scalar(n, "fit");
      auto fit = parse_fit(text);
      if (!fit) fail(n, "unknown fit '" + text + "'; use first-fit or worst-fit");
      g.fit = *fit;
    }
    if (YAML::Node n = node["duration"]) {
      g.marks.duration = mark_of(n.Mark());
      g.duration = duration(n, "duration");
      if (g.duration->count() <= 0) fail(n, "duration must be positive (e.g. 10s)");
    }
    if (YAML::Node n = node["jobs"]) {
      g.marks.jobs = mark_of(n.Mark());
      g.jobs = integer(n, "jobs", 1);
      if (g.duration) fail(n, "give either 'duration' or 'jobs', not both");
    }
    if (YAML::Node n = node["overrun"]) {
      g.marks.overrun = mark_of(n.Mark());
      std::string text = scalar(n, "overrun");
      auto overrun = parse_overrun(text);
      if (!overrun) fail(n, "unknown overrun handling '" + text + "'; use skip or wait");
      g.overrun = *overrun;
    }
    return g;
  }

  Cores read_cores(const YAML::Node& node) const {
    Cores cores;
    if (node.IsSequence()) {
      for (const YAML::Node& c : node) {
        const std::int64_t id = integer(c, "a CPU id", 0, kMaxCores - 1, cpu_id_too_large);
        cores.cpus.push_back(static_cast<int>(id));
      }
    } else {
      std::string text = scalar(node, "cores");
      // A plain number is a count; a quoted one ("5", or JSON's "5") is a CPU list of
      // that one CPU, as the Linux cpulist "5" is.
      const bool quoted = node.Tag() == "!";
      bool digits_only = !quoted && !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      });
      const bool negative = !quoted && text.size() > 1 && text[0] == '-' &&
                            std::all_of(text.begin() + 1, text.end(),
                                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
      if (digits_only || negative) {
        const std::int64_t count = integer(node, "cores", 1, kMaxCores, [](const std::string& t) {
          return "cores: " + t + " is more cores than takt supports (at most " + std::to_string(kMaxCores) +
                 ")";
        });
        return Cores::of_count(static_cast<int>(count));
      }
      cores.cpus = parse_cpu_list(node, text);
    }
    std::sort(cores.cpus.begin(), cores.cpus.end());
    if (std::adjacent_find(cores.cpus.begin(), cores.cpus.end()) != cores.cpus.end()) {
      fail(node, "cores lists a CPU twice; name each CPU once");
    }
    if (cores.cpus.empty()) fail(node, "cores must name at least one CPU");
    cores.count = static_cast<int>(cores.cpus.size());
    return cores;
  }

  static std::string cpu_id_too_large(const std::string& id) {
    return "cores: CPU id " + id + " is above " + std::to_string(kMaxCores - 1) +
           ", the largest takt supports; name CPUs that exist (see /sys/devices/system/cpu/online)";
  }

  // A Linux cpulist such as "0-3,6,8-9"; every id below kMaxCores, checked before a
  // range is expanded.
  std::vector<int> parse_cpu_list(const YAML::Node& node, const std::string& text) const {
    std::vector<int> cpus;
    std::stringstream parts(text);
    std::string part;
    auto bad = [&](const std::string& why) {
      fail(node, "cores: '" + text + "' " + why + "; write a count (4) or a CPU list such as 0-3,6");
    };
    auto number = [&](std::string s) {
      s.erase(0, s.find_first_not_of(' '));
      s.erase(s.find_last_not_of(' ') + 1);
      const bool digits = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      });
      if (digits && s.size() > 6) fail(node, cpu_id_too_large(s));  // "bad part" said nothing of the size
      if (!digits) {
        bad(s.empty() ? "has an empty part (a CPU id is missing before or after a ',' or '-')"
                      : "has the bad part '" + s + "'");
      }
      const int id = std::stoi(s);
      if (id >= kMaxCores) fail(node, cpu_id_too_large(s));
      return id;
    };
    while (std::getline(parts, part, ',')) {
      auto dash = part.find('-');
      if (dash == std::string::npos) {
        cpus.push_back(number(part));
      } else {
        int first = number(part.substr(0, dash));
        int last = number(part.substr(dash + 1));
        if (last < first) bad("has the range '" + part + "' that runs backwards");
        for (int c = first; c <= last; ++c) cpus.push_back(c);
      }
    }
    if (!text.empty() && text.back() == ',') bad("ends with a comma");
    return cpus;
  }

  // --- tasks -------------------------------------------------------------------------

  Task read_task(const YAML::Node& node) const {
    Task task;
    task.marks.task = mark_of(node.Mark());
    expect_map(node, "a task");
    YAML::Node name = node["name"];
    std::string context = "a task";
    if (name && name.IsScalar()) context = "task '" + name.Scalar() + "'";
    check_keys(node,
               {"name", "period", "deadline", "offset", "priority", "program", "args", "segments", "dag",
                "work", "span", "burdened_span"},
               context);
    for (auto it = node.begin(); it != node.end(); ++it) {
      YAML::Node key = it->first;
      task.marks.keys.emplace(key.Scalar(), mark_of(key.Mark()));
    }
    if (!name) fail(node, "a task needs a 'name'");
    task.name = this->name(name, "a task's name");
    task.marks.name = mark_of(name.Mark());
    const std::string who = "task '" + task.name + "'";

    YAML::Node period = node["period"];
    if (!period) fail(node, who + " needs a 'period' (e.g. period: 10ms)");
    task.period = duration(period, who + ": period");
    task.marks.period = mark_of(period.Mark());
    if (task.period.count() <= 0) fail(period, who + ": the period must be positive");

    task.deadline = task.period;
    task.marks.deadline = task.marks.period;
    if (YAML::Node n = node["deadline"]) {
      task.deadline = duration(n, who + ": deadline");
      task.marks.deadline = mark_of(n.Mark());
      if (task.deadline.count() <= 0) fail(n, who + ": the deadline must be positive");
      if (task.deadline > task.period) {
        fail(n, who + ": deadline " + format_duration(task.deadline) + " exceeds the period " +
                    format_duration(task.period) +
                    "; takt needs D ≤ T (lower the deadline or raise the period)");
      }
    }
    if (YAML::Node n = node["offset"]) {
      task.offset = duration(n, who + ": offset");
      task.marks.offset = mark_of(n.Mark());
      // The first deadline, offset + D, and the second release, offset + T, must stay
      // durations (two values at the limit add up to 2^63 ns, past 64 bits).
      if (task.offset > kMaxDuration - task.period) {
        fail(n, who + ": offset " + format_duration(task.offset) + " plus the period " +
                    format_duration(task.period) + " is more than the largest duration, " +
                    format_duration(kMaxDuration) + "; lower the offset or the period");
      }
    }
    if (YAML::Node n = node["priority"]) {
      const std::int64_t p = integer(n, who + ": priority", 1, 1'000'000, [&](const std::string& t) {
        return who + ": priority " + t + " is too large: at most 1000000 (1 is the highest)";
      });
      task.priority = static_cast<int>(p);
    }
    if (YAML::Node n = node["program"]) {
      task.program = scalar(n, who + ": program");
      if (task.program.empty()) fail(n, who + ": program must not be empty");
    }
    if (YAML::Node n = node["args"]) {
      if (!n.IsSequence()) fail(n, who + ": args must be a list, e.g. args: [--size, 1024]");
      for (const YAML::Node& a : n) task.args.push_back(scalar(a, who + ": each argument"));
    }

    YAML::Node segments = node["segments"];
    YAML::Node dag = node["dag"];
    if (segments && dag) fail(dag, who + ": give either 'segments' or 'dag', not both");
    if (segments) {
      task.marks.structure = mark_of(segments.Mark());
      read_segments(segments, who, task);
    }
    if (dag) {
      task.marks.structure = mark_of(dag.Mark());
      task.dag = read_dag(dag, who);
    }

    YAML::Node work = node["work"];
    YAML::Node span = node["span"];
    YAML::Node burdened = node["burdened_span"];
    if (work) {
      task.measured_work = duration(work, who + ": work");
      task.marks.work = mark_of(work.Mark());
      if (task.measured_work->count() <= 0) fail(work, who + ": work must be positive");
    }
    if (span) {
      task.measured_span = duration(span, who + ": span");
      task.marks.span = mark_of(span.Mark());
      if (task.measured_span->count() <= 0) fail(span, who + ": span must be positive");
    }
    if (burdened) {
      task.burdened_span = duration(burdened, who + ": burdened_span");
      task.marks.burdened_span = mark_of(burdened.Mark());
    }
    if (work && !span) fail(work, who + ": 'work' needs a 'span' beside it (the critical-path length)");
    if (span && !work) fail(span, who + ": 'span' needs a 'work' beside it (the total execution time)");
    if (burdened && !span) fail(burdened, who + ": 'burdened_span' needs 'work' and 'span' beside it");
    if (!work && !segments && !dag) {
      fail(node, who + " needs a structure ('segments' or 'dag') or measured 'work' and 'span'");
    }
    if (task.measured_work && *task.measured_span > *task.measured_work) {
      fail(span, who + ": span " + format_duration(*task.measured_span) + " exceeds work " +
                     format_duration(*task.measured_work) +
                     "; the critical path cannot be longer than the work");
    }
    if (task.burdened_span && *task.burdened_span < *task.measured_span) {
      fail(burdened, who + ": burdened_span " + format_duration(*task.burdened_span) + " is below span " +
                         format_duration(*task.measured_span) + "; the burdened span includes the span");
    }
    // Span against deadline, for the measured values and for the structure.
    if (task.measured_span && *task.measured_span > task.deadline) {
      fail(span, who + ": span " + format_duration(*task.measured_span) + " exceeds the deadline " +
                     format_duration(task.deadline) +
                     "; no number of cores can meet it (raise the deadline)");
    }
    if (segments || dag) {
      nanoseconds structural = task.dag ? task.dag->critical_path() : segments_span(task.segments);
      if (structural > task.deadline) {
        fail(segments ? segments : dag, who + ": the critical path of its " + (dag ? "DAG" : "segments") +
                                            " (" + format_duration(structural) + ") exceeds the deadline " +
                                            format_duration(task.deadline) +
                                            "; no number of cores can meet it (raise the deadline)");
      }
    }
    return task;
  }

  void read_segments(const YAML::Node& node, const std::string& who, Task& task) const {
    if (!node.IsSequence() || node.size() == 0) {
      fail(node, who + ": segments must be a non-empty list such as [{length: 2ms, strands: 4}]");
    }
    // C = Σ m·e is summed in 128 bits: each length (≤ 2^62 ns) times its strands
    // (≤ 10^8) fits, and the sum must stay within kMaxDuration (then so does P = Σ e).
    __int128 work = 0;
    for (const YAML::Node& s : node) {
      expect_map(s, who + ": a segment");
      check_keys(s, {"length", "strands"}, who + "'s segment");
      Segment segment;
      segment.mark = mark_of(s.Mark());
      SourceMark strands_mark = segment.mark;
      YAML::Node length = s["length"];
      if (!length) fail(s, who + ": a segment needs a 'length' (each strand's execution time, e.g. 2ms)");
      segment.length = duration(length, who + ": segment length");
      if (segment.length.count() <= 0) fail(length, who + ": a segment's length must be positive");
      if (YAML::Node n = s["strands"]) {
        strands_mark = mark_of(n.Mark());
        const std::int64_t m =
            integer(n, who + ": strands", 1, kMaxSegmentStrands,
                    [&](const std::string& t) { return who + ": " + too_many_strands(t); });
        segment.strands = static_cast<int>(m);
      }
      work += static_cast<__int128>(segment.length.count()) * segment.strands;
      if (work > kMaxDuration.count()) {
        fail(s, who + ": with this segment (" + std::to_string(segment.strands) + " × " +
                    format_duration(segment.length) + ") the work of its segments (Σ m·e) exceeds " +
                    kLimitText + "; use fewer strands or shorter lengths");
      }
      task.segments.push_back(segment);
      task.marks.strands.push_back(strands_mark);
    }
  }

  Dag read_dag(const YAML::Node& node, const std::string& who) const {
    if (!node.IsSequence() || node.size() == 0) {
      fail(node, who + ": dag must be a non-empty list of nodes such as [{name: a, length: 1ms}]");
    }
    Dag dag;
    std::map<std::string, std::size_t> index;
    std::vector<YAML::Node> afters;
    // C = Σ lengths in 128 bits, within kMaxDuration (then so is every path).
    __int128 work = 0;
    for (const YAML::Node& n : node) {
      expect_map(n, who + ": a DAG node");
      check_keys(n, {"name", "length", "after"}, who + "'s DAG node");
      DagNode d;
      d.mark = mark_of(n.Mark());
      YAML::Node name = n["name"];
      if (!name) fail(n, who + ": every DAG node needs a 'name'");
      d.name = this->name(name, who + ": a DAG node's name");
      YAML::Node length = n["length"];
      if (!length) fail(n, who + ": DAG node '" + d.name + "' needs a 'length' (its execution time)");
      d.length = duration(length, who + ": node length");
      if (!index.emplace(d.name, dag.nodes.size()).second) {
        fail(name, who + ": DAG node name '" + d.name + "' is used twice; name each node once");
      }
      work += d.length.count();
      if (work > kMaxDuration.count()) {
        fail(n, who + ": with node '" + d.name +
                    "' the work of its DAG (the sum of its node lengths) exceeds " + kLimitText +
                    "; use shorter lengths");
      }
      afters.push_back(n["after"]);
      dag.nodes.push_back(std::move(d));
    }
    for (std::size_t v = 0; v < dag.nodes.size(); ++v) {
      const YAML::Node& after = afters[v];
      if (!after) continue;
      if (!after.IsSequence()) fail(after, who + ": 'after' lists node names, e.g. after: [a, b]");
      for (const YAML::Node& p : after) {
        std::string pred = scalar(p, who + ": a predecessor");
        auto it = index.find(pred);
        if (it == index.end()) {
          fail(p, who + ": node '" + dag.nodes[v].name + "' comes after '" + pred +
                      "', which is not a node of this DAG");
        }
        if (it->second == v) fail(p, who + ": node '" + pred + "' cannot come after itself");
        std::vector<std::size_t>& predecessors = dag.nodes[v].predecessors;
        if (std::find(predecessors.begin(), predecessors.end(), it->second) != predecessors.end()) {
          fail(p, who + ": node '" + dag.nodes[v].name + "' lists '" + pred +
                      "' twice in 'after'; list it once");
        }
        predecessors.push_back(it->second);
      }
    }
    if (auto cycle = dag.find_cycle()) {
      std::string path;
      for (std::size_t v : *cycle) path += (path.empty() ? "" : " → ") + dag.nodes[v].name;
      fail_at(dag.nodes[cycle->front()].mark,
              who + ": the DAG has a cycle " + path + "; remove one of these 'after' edges");
    }
    if (dag.work().count() <= 0) fail(node, who + ": the DAG's nodes have no work (all lengths are 0)");
    return dag;
  }
};

}  // namespace

TaskSet parse_task_set(std::string_view text, const std::string& source) {
  YAML::Node root = load_yaml(text, source);
  try {
    return Reader(source, text).read(root);
  } catch (const YAML::Exception& e) {
    // A tree the reader did not expect (e.g. an alias to a missing anchor).
    throw Error(mark_of(e.mark).where(source) + ": " + e.msg);
  }
}

TaskSet parse_task_set_file(const std::string& path) {
  return parse_task_set(read_text_file(path, "task-set file"), path);
}

}  // namespace takt::model
