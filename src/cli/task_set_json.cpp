// A task set as JSON (for `takt generate --json` and `takt convert --json`); the parser reads it back.
#include "cli/task_set_json.hpp"

#include "model/duration.hpp"
#include "model/task_set_writer.hpp"

namespace takt::cli {

using json = nlohmann::ordered_json;
using model::format_duration;

json task_set_json(const model::TaskSet& set) {
  json out;
  const model::Global& g = set.global;
  json global = json::object();
  if (g.cores) {
    if (g.cores->cpus.empty()) {
      global["cores"] = g.cores->count;
    } else {
      global["cores"] = g.cores->cpus;
    }
  }
  global["policy"] = model::to_string(g.policy);
  if (g.delta) global["delta"] = g.delta->to_string();
  if (model::writes_fit(g)) global["fit"] = model::to_string(g.fit);
  if (g.duration) global["duration"] = format_duration(*g.duration);
  if (g.jobs) global["jobs"] = *g.jobs;
  if (model::writes_overrun(g)) global["overrun"] = model::to_string(g.overrun);
  out["global"] = global;
  json tasks = json::array();
  for (const model::Task& t : set.tasks) {
    json task;
    task["name"] = t.name;
    task["period"] = format_duration(t.period);
    if (t.deadline != t.period) task["deadline"] = format_duration(t.deadline);
    if (t.offset.count() != 0) task["offset"] = format_duration(t.offset);
    if (t.priority) task["priority"] = *t.priority;
    if (!t.program.empty()) task["program"] = t.program;
    if (!t.args.empty()) task["args"] = t.args;
    if (!t.segments.empty()) {
      json segments = json::array();
      for (const model::Segment& s : t.segments) {
        segments.push_back({{"length", format_duration(s.length)}, {"strands", s.strands}});
      }
      task["segments"] = segments;
    }
    if (t.dag) {
      json nodes = json::array();
      for (const model::DagNode& n : t.dag->nodes) {
        json node{{"name", n.name}, {"length", format_duration(n.length)}};
        if (!n.predecessors.empty()) {
          json after = json::array();
          for (std::size_t p : n.predecessors) after.push_back(t.dag->nodes[p].name);
          node["after"] = after;
        }
        nodes.push_back(node);
      }
      task["dag"] = nodes;
    }
    if (t.measured_work) task["work"] = format_duration(*t.measured_work);
    if (t.measured_span) task["span"] = format_duration(*t.measured_span);
    if (t.burdened_span) task["burdened_span"] = format_duration(*t.burdened_span);
    tasks.push_back(task);
  }
  out["tasks"] = tasks;
  return out;
}

}  // namespace takt::cli
