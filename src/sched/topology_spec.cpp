// TopologySpec: the declarative description of a topology (the `topology:` YAML section).
#include "sched/topology_spec.hpp"

#include "model/duration.hpp"
#include "model/task_set.hpp"
#include "sched/component_registry.hpp"
#include "sched/processing_elements.hpp"
#include "sched/topology_graph.hpp"
#include "takt/error.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace takt::sched {
namespace {

SourceMark mark_of(const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  return SourceMark{m.line, m.column};
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

/// Reads one topology section; every error goes through fail().
class Parser {
 public:
  Parser(std::string file, const ComponentRegistry& registry) : registry_(registry) {
    spec_.file = std::move(file);
  }

  TopologySpec parse(const YAML::Node& section) {
    spec_.mark = mark_of(section);
    if (!section.IsDefined() || section.IsNull()) {
      fail(spec_.mark, "the topology section is empty: give it pipes, entry, instances and pes");
    }
    if (!section.IsMap())
      fail(spec_.mark, "a topology must be a map with keys name, description, pipes, entry, instances, pes");
    reject_repeated_keys(section, "the topology");
    for (const auto& kv : section) {
      const std::string key = kv.first.Scalar();
      if (key != "name" && key != "description" && key != "pipes" && key != "entry" && key != "instances" &&
          key != "pes") {
        fail(mark_of(kv.first),
             "unknown key '" + key +
                 "' in the topology (known keys: name, description, pipes, entry, instances, pes)");
      }
    }
    if (section["name"]) spec_.name = scalar(section["name"], "name");
    if (spec_.name.empty()) spec_.name = "topology";
    if (section["description"]) spec_.description = scalar(section["description"], "description");
    parse_pipes(section["pipes"]);
    parse_entry(section["entry"]);
    parse_instances(section["instances"]);
    parse_pes(section["pes"]);
    return std::move(spec_);
  }

  InstanceSpec replacement(const InstanceSpec& old, std::string_view component, const YAML::Node& params) {
    InstanceSpec spec = old;
    const ComponentInfo* info = component_info(std::string(component), old.mark);
    spec.component = info->name;
    for (const auto& [port, refs] : old.ports) {
      const PortInfo* p = info->find_port(port);
      if (p == nullptr) {
        fail(old.mark, "component '" + info->name + "' has no port '" + port + "' that instance '" +
                           old.name + "' uses, so it cannot replace '" + old.component +
                           "' (its ports: " + port_names(*info) + ")");
      }
      const PortInfo* old_port = registry_.find(old.component)->find_port(port);
      if (old_port != nullptr && old_port->many && !p->many) {
        fail(old.mark, "port '" + port + "' of component '" + info->name +
                           "' takes one pipe, but instance '" + old.name + "' binds several");
      }
    }
    for (const PortInfo& p : info->ports) {
      const bool bound =
          std::any_of(old.ports.begin(), old.ports.end(), [&](const auto& b) { return b.first == p.name; });
      if (!bound && !p.optional) {
        fail(old.mark, "component '" + info->name + "' needs port '" + p.name + "', which instance '" +
                           old.name + "' does not bind");
      }
    }
    spec.params = parse_params(*info, params, old.mark);
    return spec;
  }

  Params parse_params(const ComponentInfo& info, const YAML::Node& node, SourceMark where) {
    Params params;
    if (node && !node.IsNull()) {
      if (!node.IsMap()) fail(mark_of(node), "params of a " + info.name + " instance must be a map");
      reject_repeated_keys(node, "the params of a " + info.name + " instance");
      for (const auto& kv : node) {
        const std::string key = kv.first.Scalar();
        const ParamInfo* param = info.find_param(key);
        if (param == nullptr) {
          std::vector<std::string> names;
          for (const ParamInfo& p : info.params) names.push_back(p.name);
          fail(mark_of(kv.first), "unknown parameter '" + key + "' for component '" + info.name + "' (" +
                                      (names.empty() ? std::string("it takes no parameters")
                                                     : "its parameters: " + join(names)) +
                                      ")");
        }
        params.set(param->name, convert(*param, kv.second, mark_of(kv.second)));
      }
    }
    for (const ParamInfo& param : info.params) {
      if (params.has(param.name) || param.default_value.empty()) continue;
      params.set(param.name, convert(param, YAML::Load(param.default_value), where));
    }
    return params;
  }

  // yaml-cpp keeps every pair of a map with a repeated key, and a lookup finds the
  // first: reject the repetition instead of reading one of the values silently.
  void reject_repeated_keys(const YAML::Node& map, const std::string& context) const {
    std::set<std::string> seen;
    for (const auto& kv : map) {
      if (kv.first.IsScalar() && !seen.insert(kv.first.Scalar()).second) {
        fail(mark_of(kv.first), "key '" + kv.first.Scalar() + "' appears twice in " + context + "; keep one");
      }
    }
  }

 private:
  [[noreturn]] void fail(SourceMark mark, const std::string& message) const {
    throw takt::Error(spec_.where(mark) + ": " + message);
  }

  std::string scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(mark_of(node), what + " must be a single value");
    return node.Scalar();
  }

  const ComponentInfo* component_info(const std::string& name, SourceMark mark) const {
    const ComponentInfo* info = registry_.find(name);
    if (info == nullptr) {
      // termination is never declared (it is added to every pipe named in pes:).
      std::vector<std::string> names = registry_.names();
      std::erase(names, std::string("termination"));
      fail(mark, "unknown component '" + name + "' (known components: " + join(names) + ")");
    }
    return info;
  }

  static std::string port_names(const ComponentInfo& info) {
    std::vector<std::string> names;
    for (const PortInfo& p : info.ports) names.push_back(p.name);
    return names.empty() ? std::string("none") : join(names);
  }

  ParamValue convert(const ParamInfo& param, const YAML::Node& value, SourceMark mark) const {
    const std::string what = "parameter '" + param.name + "'";
    // Decimal only, as the task-set reader and pipe indices read numbers (yaml-cpp's
    // conversion read 010 as 8 and 0x10 as 16).
    auto integer = [&](const YAML::Node& n) -> std::int64_t {
      if (n.IsScalar()) {
        const std::string& text = n.Scalar();
        std::int64_t v = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, v, 10);
        if (!text.empty() && text.front() != '+' && ec == std::errc() && ptr == end) return v;
      }
      fail(mark_of(n).line >= 0 ? mark_of(n) : mark,
           what + " must be a decimal integer, got " +
               (n.IsScalar() ? "'" + n.Scalar() + "'"
                             : std::string(n.IsSequence() ? "a list"
                                           : n.IsMap()    ? "a map"
                                                          : "nothing")));
    };
    switch (param.type) {
      case ParamType::integer:
        return integer(value);
      case ParamType::duration: {
        // The task model's parser, so a duration is written the same way in a topology
        // and in a task set, and is refused with the same words.
        if (!value.IsScalar()) fail(mark, what + " must be a duration such as 250us, 10ms or 1.5s");
        try {
          return model::parse_duration(value.Scalar());
        } catch (const Error& e) {
          fail(mark, what + ": " + e.what());
        }
      }
      case ParamType::text: {
        if (!value.IsScalar()) fail(mark, what + " must be a single word");
        const std::string text = value.Scalar();
        if (!param.choices.empty() &&
            std::find(param.choices.begin(), param.choices.end(), text) == param.choices.end()) {
          fail(mark, what + " must be one of " + join(param.choices) + ", got '" + text + "'");
        }
        return text;
      }
      case ParamType::boolean: {
        try {
          if (value.IsScalar()) return value.as<bool>();
        } catch (const YAML::Exception&) {
        }
        fail(mark, what + " must be true or false");
      }
      case ParamType::integer_list: {
        std::vector<std::int64_t> list;
        // An empty list would match nothing yet read as "no such criterion" (the filter
        // kept every task for `pes: []`): refused.
        if (value.IsSequence() && value.size() == 0) {
          fail(mark, what + " lists nothing; list at least one value, or leave the parameter out");
        }
        if (value.IsSequence()) {
          for (const auto& item : value) list.push_back(integer(item));
        } else {
          list.push_back(integer(value));
        }
        return list;
      }
    }
    fail(mark, what + " has an unknown type");
  }

  void parse_pipes(const YAML::Node& node) {
    if (!node)
      fail(spec_.mark,
           "the topology declares no pipes: add `pipes: {NAME: one | per-pe | per-cluster, ...}`");
    if (!node.IsMap()) fail(mark_of(node), "pipes must be a map NAME: one | per-pe | per-cluster");
    for (const auto& kv : node) {
      const std::string name = kv.first.Scalar();
      if (!is_identifier(name))
        fail(mark_of(kv.first), "bad pipe name '" + name + "': use letters, digits, _ and -");
      if (spec_.find_pipe(name) != nullptr) fail(mark_of(kv.first), "pipe '" + name + "' is declared twice");
      const std::string per = kv.second.IsScalar() ? kv.second.Scalar() : std::string();
      PipeSpec pipe{name, Multiplicity::one, mark_of(kv.first)};
      if (per == "one") {
        pipe.per = Multiplicity::one;
      } else if (per == "per-pe") {
        pipe.per = Multiplicity::per_pe;
      } else if (per == "per-cluster") {
        pipe.per = Multiplicity::per_cluster;
      } else {
        fail(mark_of(kv.second), "pipe '" + name + "' must be one, per-pe or per-cluster, got '" + per + "'");
      }
      spec_.pipes.push_back(pipe);
    }
  }

  enum class Where { single_port, many_port, entry, pes };

  PipeRef parse_ref(const YAML::Node& node, Where where, Multiplicity instance_per,
                    const std::string& context) {
    if (!node.IsScalar())
      fail(mark_of(node), context + ": a pipe reference must be a single value such as ready or ready[pe]");
    const std::string text = node.Scalar();
    PipeRef ref;
    ref.mark = mark_of(node);
    const auto open = text.find('[');
    ref.pipe = text.substr(0, open);
    if (open != std::string::npos) {
      if (text.back() != ']') fail(ref.mark, context + ": bad pipe reference '" + text + "'");
      const std::string index = text.substr(open + 1, text.size() - open - 2);
      if (index == "#") {
        ref.index = PipeRef::Index::self;
      } else if (index == "*") {
        ref.index = PipeRef::Index::all;
      } else if (index == "pe") {
        ref.index = PipeRef::Index::pe;
      } else if (index == "cluster") {
        ref.index = PipeRef::Index::cluster;
      } else if (!index.empty() &&
                 std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        // A family has one member per PE or per cluster, at most model::kMaxCores.
        const std::size_t digits = index.size() - std::min(index.find_first_not_of('0'), index.size());
        if (digits > 5 || std::stoi(index) >= model::kMaxCores) {
          fail(ref.mark, context + ": index " + index + " in '" + text +
                             "' is too large: a family has at most " + std::to_string(model::kMaxCores) +
                             " members (one per PE or cluster), numbered from 0 to " +
                             std::to_string(model::kMaxCores - 1));
        }
        ref.index = PipeRef::Index::fixed;
        ref.fixed = std::stoi(index);
      } else {
        fail(ref.mark,
             context + ": bad index '" + index + "' in '" + text + "': use #, *, pe, cluster or a number");
      }
    }
    const PipeSpec* pipe = spec_.find_pipe(ref.pipe);
    if (pipe == nullptr) {
      std::vector<std::string> names;
      for (const PipeSpec& p : spec_.pipes) names.push_back(p.name);
      fail(ref.mark, context + ": unknown pipe '" + ref.pipe + "' (declared pipes: " + join(names) +
                         "); declare it under pipes:");
    }
    const bool family = pipe->per != Multiplicity::one;
    const std::string kind = to_string(pipe->per);
    using I = PipeRef::Index;
    switch (ref.index) {
      case I::none:
        if (family) {
          fail(ref.mark, context + ": pipe '" + ref.pipe + "' is " + kind + ": say which, e.g. " + ref.pipe +
                             "[#], " + ref.pipe + "[*] or " + ref.pipe + "[0]");
        }
        break;
      case I::self:
        if (where != Where::single_port && where != Where::many_port) {
          fail(ref.mark, context + ": [#] (this instance's index) is only meaningful in an instance's ports");
        }
        if (instance_per == Multiplicity::one) {
          fail(ref.mark, context + ": [#] needs an instance with per: pe or per: cluster");
        }
        if (pipe->per != instance_per) {
          fail(ref.mark, context + ": '" + text + "' indexes a " + kind + " pipe with the index of a " +
                             to_string(instance_per) + " instance");
        }
        break;
      case I::all:
        if (where != Where::many_port) {
          fail(ref.mark,
               context + ": [*] (every pipe of the family) needs a port that takes several pipes" +
                   std::string(where == Where::entry ? "; the entry is one pipe, or a family indexed "
                                                       "by the task ([pe] or [cluster])"
                                                     : ""));
        }
        if (!family) fail(ref.mark, context + ": pipe '" + ref.pipe + "' is a single pipe, it has no [*]");
        break;
      case I::fixed:
        if (!family) fail(ref.mark, context + ": pipe '" + ref.pipe + "' is a single pipe, it has no index");
        break;
      case I::pe:
      case I::cluster: {
        if (where != Where::entry && where != Where::pes) {
          fail(ref.mark, context + ": [" + std::string(ref.index == I::pe ? "pe" : "cluster") +
                             "] is only meaningful in entry: and pes:");
        }
        const Multiplicity needed = ref.index == I::pe ? Multiplicity::per_pe : Multiplicity::per_cluster;
        if (pipe->per != needed) {
          fail(ref.mark, context + ": '" + text + "' needs a " + to_string(needed) + " pipe, but '" +
                             ref.pipe + "' is " + kind);
        }
        break;
      }
    }
    return ref;
  }

  void parse_entry(const YAML::Node& node) {
    if (!node)
      fail(spec_.mark, "the topology has no entry pipe: add `entry: PIPE` (where admitted tasks go)");
    spec_.entry = parse_ref(node, Where::entry, Multiplicity::one, "entry");
    if (spec_.entry.index == PipeRef::Index::fixed) {
      fail(spec_.entry.mark, "entry: use a single pipe, or a family indexed by the task's [cluster] or [pe]");
    }
  }

  void parse_instances(const YAML::Node& node) {
    if (!node) fail(spec_.mark, "the topology has no instances: add `instances: {NAME: {component: ...}}`");
    if (!node.IsMap())
      fail(mark_of(node), "instances must be a map NAME: {component: ..., ports..., params: {...}}");
    for (const auto& kv : node) {
      const std::string name = kv.first.Scalar();
      const SourceMark mark = mark_of(kv.first);
      if (!is_identifier(name)) fail(mark, "bad instance name '" + name + "': use letters, digits, _ and -");
      if (spec_.find_instance(name) != nullptr) fail(mark, "instance '" + name + "' is declared twice");
      const YAML::Node& body = kv.second;
      if (!body.IsMap() || !body["component"]) {
        fail(mark, "instance '" + name + "' needs at least `component: NAME`");
      }
      reject_repeated_keys(body, "instance '" + name + "'");
      InstanceSpec instance;
      instance.name = name;
      instance.mark = mark;
      const ComponentInfo* info =
          component_info(scalar(body["component"], "component"), mark_of(body["component"]));
      instance.component = info->name;
      if (info->name == "termination") {
        fail(mark_of(body["component"]),
             "instance '" + name +
                 "': termination is added automatically to every pipe named in pes:, "
                 "do not declare it");
      }
      if (body["per"]) {
        const std::string per = scalar(body["per"], "per");
        if (per == "pe") {
          instance.per = Multiplicity::per_pe;
        } else if (per == "cluster") {
          instance.per = Multiplicity::per_cluster;
        } else if (per == "one") {
          instance.per = Multiplicity::one;
        } else {
          fail(mark_of(body["per"]),
               "instance '" + name + "': per must be pe, cluster or one, got '" + per + "'");
        }
      }
      for (const auto& field : body) {
        const std::string key = field.first.Scalar();
        if (key == "component" || key == "per" || key == "params") continue;
        const PortInfo* port = info->find_port(key);
        if (port == nullptr) {
          fail(mark_of(field.first), "unknown key '" + key + "' in instance '" + name + "' (component '" +
                                         info->name + "' has ports: " + port_names(*info) +
                                         "; other keys: component, per, params)");
        }
        const std::string context = "instance '" + name + "', port '" + key + "'";
        std::vector<PipeRef> refs;
        if (port->many) {
          if (field.second.IsSequence()) {
            for (const auto& item : field.second)
              refs.push_back(parse_ref(item, Where::many_port, instance.per, context));
          } else {
            refs.push_back(parse_ref(field.second, Where::many_port, instance.per, context));
          }
          if (refs.empty()) fail(mark_of(field.second), context + ": give at least one pipe");
        } else {
          if (field.second.IsSequence()) fail(mark_of(field.second), context + " takes one pipe, not a list");
          refs.push_back(parse_ref(field.second, Where::single_port, instance.per, context));
        }
        instance.ports.emplace_back(key, std::move(refs));
      }
      for (const PortInfo& port : info->ports) {
        const bool bound = std::any_of(instance.ports.begin(), instance.ports.end(),
                                       [&](const auto& b) { return b.first == port.name; });
        if (!bound && !port.optional) {
          fail(mark,
               "instance '" + name + "' (" + info->name + ") needs port '" + port.name + "': " + port.doc);
        }
      }
      instance.params = parse_params(*info, body["params"], mark);
      spec_.instances.push_back(std::move(instance));
    }
  }

  void parse_pes(const YAML::Node& node) {
    if (!node) {
      fail(spec_.mark, "topology '" + spec_.name +
                           "' gives the processing elements no terminal pipe: add `pes: {terminal: PIPE}`");
    }
    spec_.pes_mark = mark_of(node);
    if (!node.IsMap()) fail(spec_.pes_mark, "pes must be a map with terminal, and optionally pull and steal");
    reject_repeated_keys(node, "pes");
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      if (key != "terminal" && key != "pull" && key != "steal") {
        fail(mark_of(kv.first), "unknown key '" + key + "' in pes (known keys: terminal, pull, steal)");
      }
    }
    if (!node["terminal"]) {
      fail(spec_.pes_mark, "pes: the processing elements have no terminal pipe: add `terminal: PIPE`");
    }
    spec_.terminal = parse_ref(node["terminal"], Where::pes, Multiplicity::one, "pes.terminal");
    if (const YAML::Node pull = node["pull"]) {
      if (pull.IsSequence()) {
        for (const auto& item : pull)
          spec_.pull.push_back(parse_ref(item, Where::pes, Multiplicity::one, "pes.pull"));
      } else {
        spec_.pull.push_back(parse_ref(pull, Where::pes, Multiplicity::one, "pes.pull"));
      }
    }
    if (const YAML::Node steal = node["steal"]) {
      spec_.steal = scalar(steal, "pes.steal");
      spec_.steal_mark = mark_of(steal);
      const PipeSpec* pipe = spec_.find_pipe(spec_.steal);
      if (pipe == nullptr || pipe->per == Multiplicity::one) {
        fail(spec_.steal_mark,
             "pes.steal must name a per-pe or per-cluster pipe family, got '" + spec_.steal + "'");
      }
    }
  }

  const ComponentRegistry& registry_;
  TopologySpec spec_;
};

}  // namespace

const char* to_string(Multiplicity multiplicity) noexcept {
  switch (multiplicity) {
    case Multiplicity::one:
      return "one";
    case Multiplicity::per_pe:
      return "per-pe";
    case Multiplicity::per_cluster:
      return "per-cluster";
  }
  return "?";
}

std::string PipeRef::text() const {
  switch (index) {
    case Index::none:
      return pipe;
    case Index::self:
      return pipe + "[#]";
    case Index::all:
      return pipe + "[*]";
    case Index::fixed:
      return pipe + "[" + std::to_string(fixed) + "]";
    case Index::pe:
      return pipe + "[pe]";
    case Index::cluster:
      return pipe + "[cluster]";
  }
  return pipe;
}

const PipeSpec* TopologySpec::find_pipe(std::string_view pipe_name) const {
  for (const PipeSpec& p : pipes) {
    if (p.name == pipe_name) return &p;
  }
  return nullptr;
}

const InstanceSpec* TopologySpec::find_instance(std::string_view instance_name) const {
  for (const InstanceSpec& i : instances) {
    if (i.name == instance_name) return &i;
  }
  return nullptr;
}

std::string TopologySpec::where(SourceMark m) const {
  if (m.line < 0) return file;
  return file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

TopologySpec parse_topology(const YAML::Node& section, std::string file) {
  return parse_topology(section, std::move(file), ComponentRegistry::builtin());
}

TopologySpec parse_topology(const YAML::Node& section, std::string file, const ComponentRegistry& registry) {
  TopologySpec spec = Parser(std::move(file), registry).parse(section);
  probe_topology(spec, registry);
  return spec;
}

TopologySpec parse_topology_text(std::string_view yaml, std::string file) {
  YAML::Node document;
  try {
    document = YAML::Load(std::string(yaml));
  } catch (const YAML::ParserException& e) {
    throw takt::Error(file + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                      ": " + e.msg);
  }
  if (document.IsMap()) Parser(file, ComponentRegistry::builtin()).reject_repeated_keys(document, "the file");
  if (document.IsMap() && document["topology"]) return parse_topology(document["topology"], std::move(file));
  return parse_topology(document, std::move(file));
}

InstanceSpec replace_component(const TopologySpec& spec, const InstanceSpec& old, std::string_view component,
                               const YAML::Node& params, const ComponentRegistry& registry) {
  Parser parser(spec.file, registry);
  return parser.replacement(old, component, params);
}

void check_topology(const TopologySpec& spec, const ProcessingElements& pes,
                    const ComponentRegistry& registry) {
  (void)expand_topology(spec, pes, registry);
}

}  // namespace takt::sched
