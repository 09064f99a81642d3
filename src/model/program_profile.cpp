// Measured work and span of programs (the input of the rtws task-set generator).
#include "model/program_profile.hpp"

#include "model/duration.hpp"
#include "model/task_set_writer.hpp"
#include "model/yaml_reader.hpp"

#include <charconv>
#include <iterator>
#include <set>
#include <sstream>

namespace takt::model {

namespace {

ProfileMeasurement measurement(const YamlReader& r, const YAML::Node& m, const std::string& who) {
  r.expect_map(m, who + ": measured");
  r.check_keys(m, {"jobs", "percentile", "machine", "date"}, who + ": measured");
  for (const char* key : {"jobs", "percentile"}) {
    if (!m[key]) r.fail(m, who + ": measured needs '" + key + "'");
  }
  ProfileMeasurement out;
  out.jobs = r.integer(m["jobs"], who + ": measured jobs", 1);
  const std::string percentile = r.scalar(m["percentile"], who + ": measured percentile");
  double value = 0;
  const auto [end, error] = std::from_chars(percentile.data(), percentile.data() + percentile.size(), value);
  if (error != std::errc() || end != percentile.data() + percentile.size() || !(value > 0 && value <= 100)) {
    r.fail(m["percentile"], who +
                                ": measured percentile must be a number above 0 and at most 100 (100: the "
                                "maximum), got '" +
                                percentile + "'");
  }
  out.percentile = value;
  if (YAML::Node machine = m["machine"]) out.machine = r.scalar(machine, who + ": measured machine");
  if (YAML::Node date = m["date"]) out.date = r.scalar(date, who + ": measured date");
  return out;
}

}  // namespace

std::vector<ProgramProfile> parse_program_profiles(std::string_view text, const std::string& source) {
  YAML::Node root = load_yaml(text, source);
  YamlReader r(source, text);
  if (!root || root.IsNull())
    r.fail_at(SourceMark{1, 1, 0}, "the file is empty; it needs a 'programs:' list");
  r.expect_map(root, "a profile file");
  r.check_keys(root, {"programs"}, "a profile file");
  YAML::Node programs = root["programs"];
  if (!programs || !programs.IsSequence() || programs.size() == 0) {
    r.fail(programs ? programs : root, "'programs' must be a non-empty list of measured programs");
  }
  std::vector<ProgramProfile> out;
  std::set<std::string> names;
  for (const YAML::Node& n : programs) {
    r.expect_map(n, "a program");
    r.check_keys(n, {"name", "program", "args", "work", "span", "burdened_span", "measured"}, "a program");
    ProgramProfile p;
    for (const char* key : {"name", "program", "work", "span"}) {
      if (!n[key]) r.fail(n, std::string("a program needs '") + key + "'");
    }
    p.name = r.name(n["name"], "a program's name");
    if (!names.insert(p.name).second) r.fail(n["name"], "the name '" + p.name + "' is used twice");
    const std::string who = "program '" + p.name + "'";
    p.program = r.scalar(n["program"], who + ": program");
    if (p.program.empty()) r.fail(n["program"], who + ": program must not be empty");
    if (YAML::Node a = n["args"]) {
      if (!a.IsSequence()) r.fail(a, who + ": args must be a list");
      for (const YAML::Node& x : a) p.args.push_back(r.scalar(x, who + ": an argument"));
    }
    p.work = r.duration(n["work"], who + ": work");
    p.span = r.duration(n["span"], who + ": span");
    if (p.work.count() <= 0 || p.span.count() <= 0) r.fail(n, who + ": work and span must be positive");
    if (p.span > p.work) r.fail(n["span"], who + ": span exceeds work");
    if (YAML::Node b = n["burdened_span"]) {
      p.burdened_span = r.duration(b, who + ": burdened_span");
      if (*p.burdened_span < p.span) r.fail(b, who + ": burdened_span is below span");
    }
    if (YAML::Node m = n["measured"]) p.measured = measurement(r, m, who);
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<ProgramProfile> parse_program_profiles_file(const std::string& path) {
  return parse_program_profiles(read_text_file(path, "profile file"), path);
}

std::string write_program_profiles(const std::vector<ProgramProfile>& profiles, const std::string& header) {
  std::ostringstream out;
  write_header_comment(out, header);
  out << "programs:\n";
  for (const ProgramProfile& p : profiles) {
    out << "  - name: " << yaml_scalar(p.name) << "\n";
    out << "    program: " << yaml_scalar(p.program) << "\n";
    if (!p.args.empty()) {
      out << "    args: [";
      for (std::size_t i = 0; i < p.args.size(); ++i) out << (i ? ", " : "") << yaml_scalar(p.args[i]);
      out << "]\n";
    }
    out << "    work: " << format_duration(p.work) << "\n";
    out << "    span: " << format_duration(p.span) << "\n";
    if (p.burdened_span) out << "    burdened_span: " << format_duration(*p.burdened_span) << "\n";
    if (const auto& m = p.measured) {
      // The shortest text that reads back as the same double (99.99995, not 100).
      char percentile[32];
      const auto written = std::to_chars(std::begin(percentile), std::end(percentile), m->percentile);
      out << "    measured: {jobs: " << m->jobs
          << ", percentile: " << std::string_view(percentile, written.ptr);
      if (!m->machine.empty()) out << ", machine: " << yaml_scalar(m->machine);
      if (!m->date.empty()) out << ", date: " << yaml_scalar(m->date);
      out << "}\n";
    }
  }
  return out.str();
}

}  // namespace takt::model
