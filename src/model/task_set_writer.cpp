// Writes a TaskSet as a task-set YAML file that parse_task_set reads back unchanged.
#include "model/task_set_writer.hpp"

#include "model/duration.hpp"

#include <algorithm>
#include <sstream>

namespace takt::model {
namespace {

std::string cores_text(const Cores& cores) {
  if (cores.cpus.empty()) return std::to_string(cores.count);
  // A cpulist string: ranges of consecutive ids.
  std::string text;
  for (std::size_t i = 0; i < cores.cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cores.cpus.size() && cores.cpus[j + 1] == cores.cpus[j] + 1) ++j;
    if (!text.empty()) text += ",";
    text += std::to_string(cores.cpus[i]);
    if (j > i) text += "-" + std::to_string(cores.cpus[j]);
    i = j + 1;
  }
  // A single CPU id would read back as a count: write it as a one-element list.
  if (cores.cpus.size() == 1) return "[" + text + "]";
  return "\"" + text + "\"";
}

std::string flow_list(const std::vector<std::string>& items) {
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) text += ", ";
    text += yaml_scalar(items[i]);
  }
  return text + "]";
}

}  // namespace

namespace {

/// True when `scalar` reads back as `text` both as a flow-list item and as a block
/// mapping's value (yaml-cpp's reader, the one takt reads task sets with).
bool reads_back(const std::string& scalar, const std::string& text) {
  try {
    const YAML::Node flow = YAML::Load("[" + scalar + "]");
    const YAML::Node block = YAML::Load("key: " + scalar);
    return flow.IsSequence() && flow.size() == 1 && flow[0].IsScalar() && flow[0].as<std::string>() == text &&
           block.IsMap() && block["key"].IsScalar() && block["key"].as<std::string>() == text;
  } catch (const YAML::Exception&) {
    return false;
  }
}

}  // namespace

std::string yaml_scalar(const std::string& text) {
  YAML::Emitter out;
  out << text;
  std::string s = out.c_str();
  // The emitter writes some scalars plain that the reader does not take back in a flow
  // list: ',' '[' ']' '{' '}' end a plain scalar there, and yaml-cpp refuses a '?' in
  // one (args: [file?.dat]). Whatever does not read back as itself is double-quoted, and
  // so is text with a control character or a Unicode line break (NEL, LS, PS): yaml-cpp
  // reads a bare carriage return back, but YAML folds it, as other readers and editors do.
  const bool breaks = std::any_of(text.begin(), text.end(),
                                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }) ||
                      text.find("\xC2\x85") != std::string::npos ||
                      text.find("\xE2\x80\xA8") != std::string::npos ||
                      text.find("\xE2\x80\xA9") != std::string::npos;
  if (breaks || !reads_back(s, text)) {
    YAML::Emitter quoted;
    quoted << YAML::DoubleQuoted << text;
    s = quoted.c_str();
    // yaml-cpp's emitter leaves DEL and the Unicode line and paragraph separators as
    // they are inside the quotes, which other YAML readers refuse or fold: escape them.
    for (const auto& [raw, escaped] : {std::pair<std::string_view, std::string_view>{"\x7F", "\\u007F"},
                                       {"\xE2\x80\xA8", "\\u2028"},
                                       {"\xE2\x80\xA9", "\\u2029"}}) {
      for (std::size_t at = s.find(raw); at != std::string::npos; at = s.find(raw, at + escaped.size())) {
        s.replace(at, raw.size(), escaped);
      }
    }
  }
  return s;
}

void write_header_comment(std::ostream& out, const std::string& header) {
  if (header.empty()) return;
  std::istringstream lines(header);
  std::string line;
  while (std::getline(lines, line)) out << (line.empty() ? "#" : "# " + line) << "\n";
  out << "\n";
}

bool writes_fit(const Global& global) {
  return global.fit != Global{}.fit || global.policy == Policy::partitioned_dm;
}

bool writes_overrun(const Global& global) { return global.overrun != Global{}.overrun; }

std::string write_task_set(const TaskSet& set, const std::string& header) {
  std::ostringstream out;
  write_header_comment(out, header);
  const Global& g = set.global;
  out << "global:\n";
  if (g.cores) out << "  cores: " << cores_text(*g.cores) << "\n";
  out << "  policy: " << to_string(g.policy) << "\n";
  if (g.delta) out << "  delta: " << g.delta->to_string() << "\n";
  if (writes_fit(g)) out << "  fit: " << to_string(g.fit) << "\n";
  if (g.duration) out << "  duration: " << format_duration(*g.duration) << "\n";
  if (g.jobs) out << "  jobs: " << *g.jobs << "\n";
  if (writes_overrun(g)) out << "  overrun: " << to_string(g.overrun) << "\n";
  out << "\ntasks:\n";
  for (const Task& t : set.tasks) {
    out << "  - name: " << yaml_scalar(t.name) << "\n";
    out << "    period: " << format_duration(t.period) << "\n";
    if (t.deadline != t.period) out << "    deadline: " << format_duration(t.deadline) << "\n";
    if (t.offset.count() != 0) out << "    offset: " << format_duration(t.offset) << "\n";
    if (t.priority) out << "    priority: " << *t.priority << "\n";
    if (!t.program.empty()) out << "    program: " << yaml_scalar(t.program) << "\n";
    if (!t.args.empty()) out << "    args: " << flow_list(t.args) << "\n";
    if (!t.segments.empty()) {
      out << "    segments:\n";
      for (const Segment& s : t.segments) {
        out << "      - {length: " << format_duration(s.length) << ", strands: " << s.strands << "}\n";
      }
    }
    if (t.dag) {
      out << "    dag:\n";
      for (const DagNode& n : t.dag->nodes) {
        out << "      - {name: " << yaml_scalar(n.name) << ", length: " << format_duration(n.length);
        if (!n.predecessors.empty()) {
          std::vector<std::string> names;
          for (std::size_t p : n.predecessors) names.push_back(t.dag->nodes[p].name);
          out << ", after: " << flow_list(names);
        }
        out << "}\n";
      }
    }
    if (t.measured_work) out << "    work: " << format_duration(*t.measured_work) << "\n";
    if (t.measured_span) out << "    span: " << format_duration(*t.measured_span) << "\n";
    if (t.burdened_span) out << "    burdened_span: " << format_duration(*t.burdened_span) << "\n";
  }
  if (set.topology) {
    YAML::Emitter e;
    e << *set.topology;
    out << "\ntopology:\n";
    std::istringstream lines(e.c_str());
    std::string line;
    while (std::getline(lines, line)) out << "  " << line << "\n";
  }
  return out.str();
}

}  // namespace takt::model
