// Renders an analysis result for `takt analyze`: a readable table, or JSON.
#include "cli/analyze_report.hpp"

#include "model/duration.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace takt::cli {
namespace {

using analysis::AnalysisResult;
using analysis::Finding;
using model::display_duration;
using json = nlohmann::ordered_json;

std::string ids_text(const std::vector<int>& ids) {
  // "0-3,6" for readability.
  std::string text;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!text.empty()) text += ",";
    text += std::to_string(ids[i]);
    if (j > i) text += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return text.empty() ? "-" : text;
}

std::vector<int> all_ids(const model::Cores& cores) {
  std::vector<int> ids;
  for (int k = 0; k < cores.count; ++k) ids.push_back(cores.id(k));
  return ids;
}

json finding_json(const Finding& f) {
  json j{
      {"test", f.test}, {"passed", f.passed}, {"margin", f.margin}, {"unit", f.unit}, {"detail", f.detail}};
  j["task"] = f.task.empty() ? json(nullptr) : json(f.task);
  return j;
}

// A simple aligned table: header row, then rows; columns separated by two spaces.
std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  auto visible = [](const std::string& s) {
    // Count UTF-8 code points so that "≤" and "μ" take one column.
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  };
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], visible(row[c]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - visible(row[c]) + 2, ' ');
    }
    out += "  " + line + "\n";
  }
  return out;
}

std::string number(double value, int decimals = 3) { return fmt::format("{:.{}f}", value, decimals); }

void federated_json(json& out, const analysis::FederatedResult& r) {
  json& tasks = out["tasks"];
  for (const analysis::FederatedGrant& g : r.grants) {
    json t{{"name", g.name},
           {"kind", g.high ? "dedicated" : "shared"},
           {"granted", g.granted},
           {"cores", g.cores},
           {"core_ids", g.core_ids},
           {"work_ns", g.work.count()},
           {"span_ns", g.span.count()},
           // The span a dedicated task's core count used (L, or L̂ under eq. 3); a shared
           // task's was used by none: null (it read 0).
           {"span_used_ns", g.high ? json(g.span_used.count()) : json()},
           {"deadline_ns", g.deadline.count()},
           {"period_ns", g.period.count()},
           {"utilization", g.utilization},
           {"density", g.density},
           {"formula", g.formula}};
    if (g.expected_response_ns) t["expected_response_bound_ns"] = *g.expected_response_ns;
    tasks.push_back(t);
  }
  json f{{"with_overhead", r.with_overhead},
         {"dedicated_cores", r.dedicated_cores},
         {"granted_cores", r.granted_cores},
         {"shared_cores", r.shared_cores},
         {"capacity_augmentation",
          {{"factor", r.capacity.factor},
           {"applicable", r.capacity.not_applicable.empty()},
           {"not_applicable",
            r.capacity.not_applicable.empty() ? json(nullptr) : json(r.capacity.not_applicable)},
           {"holds", r.capacity.holds},
           {"sum_of", r.capacity.densities ? "C/D" : "C/T"},
           {"total_utilization", r.capacity.total_utilization},
           {"utilization_bound", r.capacity.utilization_bound},
           {"long_span_tasks", r.capacity.long_span_tasks}}}};
  f["delta"] = r.delta ? json(r.delta->value()) : json(nullptr);
  json shared = json::array();
  for (const analysis::SharedCore& s : r.shared) {
    shared.push_back({{"core_id", s.core_id}, {"density", s.density}, {"tasks", s.tasks}});
  }
  f["shared"] = shared;
  out["federated"] = f;
}

// One row of the strand table.
json strand_json(const model::TaskSet& set, const analysis::StrandAssignment& s) {
  json row{{"task", set.tasks[s.task].name},
           {"segment", s.segment},
           {"strand", s.strand},
           {"strand_in_segment", s.strand_in_segment},
           {"length_ns", s.length.count()},
           {"release_ns", s.release.count()},
           {"deadline_ns", s.deadline.count()},
           {"priority", s.priority},
           {"interference_ns", s.interference.count()}};
  row["core"] = s.core >= 0 ? json(s.core_id) : json(nullptr);
  return row;
}

// `partitioned_dm` of the JSON; without its `strands` (written row by row by
// write_analysis_json) unless `with_strands`.
void partitioned_json(json& out, const model::TaskSet& set, const analysis::PartitionedDmResult& r,
                      bool with_strands) {
  std::vector<std::set<int>> used(r.tasks.size());
  for (const analysis::StrandAssignment& s : r.strands) {
    if (s.core >= 0) used[s.task].insert(s.core_id);
  }
  json& tasks = out["tasks"];
  for (std::size_t i = 0; i < r.tasks.size(); ++i) {
    const analysis::TaskDecomposition& td = r.tasks[i];
    json segments = json::array();
    for (std::size_t j = 0; j < td.decomposition.segments.size(); ++j) {
      const analysis::SegmentWindow& w = td.decomposition.segments[j];
      segments.push_back({{"segment", j + 1},
                          {"heavy", w.heavy},
                          {"slack", w.slack},
                          {"release_ns", w.release.count()},
                          {"deadline_ns", w.deadline.count()},
                          {"priority", td.priorities.empty() ? 0 : td.priorities[j]}});
    }
    std::vector<int> ids(used[i].begin(), used[i].end());
    tasks.push_back({{"name", td.name},
                     {"cores", ids.size()},
                     {"core_ids", ids},
                     {"feasible", td.decomposition.feasible},
                     {"proportional", td.decomposition.proportional},
                     {"total_slack_ns", td.decomposition.total_slack_ns},
                     {"heavy_threshold", td.decomposition.heavy_threshold},
                     {"segments", segments}});
  }
  json dm = {{"fit", model::to_string(r.fit)}};
  if (with_strands) {
    json strands = json::array();
    for (const analysis::StrandAssignment& s : r.strands) strands.push_back(strand_json(set, s));
    dm["strands"] = std::move(strands);
  }
  dm["augmentation_bound"] = {
      {"factor", r.bound.factor},
      {"applicable", r.bound.not_applicable.empty()},
      {"not_applicable", r.bound.not_applicable.empty() ? json(nullptr) : json(r.bound.not_applicable)},
      {"holds", r.bound.holds},
      {"total_utilization", r.bound.total_utilization},
      {"utilization_bound", r.bound.utilization_bound},
      {"long_span_tasks", r.bound.long_span_tasks}};
  out["partitioned_dm"] = std::move(dm);
}

void global_edf_json(json& out, const analysis::GlobalEdfResult& r) {
  json& tasks = out["tasks"];
  for (const analysis::GlobalEdfTask& t : r.tasks) {
    tasks.push_back({{"name", t.name},
                     {"cores", r.cores},
                     {"core_ids", r.core_ids},
                     {"utilization", t.utilization},
                     {"density", t.density},
                     {"span_within_capacity_bound", t.span_ok}});
  }
  out["gedf_paws"] = {{"total_density", r.total_density},
                      {"max_density", r.max_density},
                      {"gfb", {{"holds", r.gfb_holds}, {"bound", r.gfb_bound}}},
                      {"capacity_augmentation",
                       {{"factor", analysis::kGlobalEdfCapacityBound},
                        {"holds", r.capacity_holds},
                        {"utilization_holds", r.capacity_utilization_holds},
                        {"utilization_bound", r.capacity_bound}}}};
}

std::string verdict_text(const AnalysisResult& result) {
  std::string out;
  if (result.schedulable) {
    out += "verdict: SCHEDULABLE under " + std::string(model::to_string(result.policy)) + "\n";
    return out;
  }
  out += "verdict: NOT SCHEDULABLE under " + std::string(model::to_string(result.policy)) + "\n";
  for (const Finding& f : result.reasons()) {
    out += "  - " + (f.task.empty() ? std::string("task set") : "task '" + f.task + "'") + ": " + f.test +
           ": " + f.detail + "\n";
  }
  return out;
}

std::string federated_text(const analysis::FederatedResult& r, model::Policy policy) {
  std::string out;
  std::vector<std::vector<std::string>> rows{
      {"task", "C", "L", "D", "T", "u", "kind", "cores", "core ids", "how"}};
  for (const analysis::FederatedGrant& g : r.grants) {
    rows.push_back({g.name, display_duration(g.work), display_duration(g.span), display_duration(g.deadline),
                    display_duration(g.period), number(g.utilization), g.high ? "dedicated" : "shared",
                    g.granted ? std::to_string(g.cores) : "-", g.granted ? ids_text(g.core_ids) : "-",
                    g.formula});
  }
  out += table(rows);
  if (r.with_overhead && policy == model::Policy::federated_greedy) {
    out +=
        "\nno expected response-time bound: E[R] of rtws §V.B bounds work stealing, not the centralized "
        "greedy executor of federated-greedy\n";
  } else if (r.with_overhead) {
    out += "\nexpected response-time bound E[R] (rtws §V.B, δ = " + r.delta->to_string() + "):\n";
    std::vector<std::vector<std::string>> bounds{{"task", "E[R] ≤", "D", "E[R]/D"}};
    std::string not_granted;  // the bound holds on n_i cores: a task without them has none
    for (const analysis::FederatedGrant& g : r.grants) {
      if (!g.granted) {  // a high task with a core count it did not get (it has no E[R])
        if (g.high && g.cores > 0) not_granted += (not_granted.empty() ? "" : ", ") + g.name;
        continue;
      }
      if (!g.expected_response_ns) continue;
      bounds.push_back(
          {g.name,
           display_duration(std::chrono::nanoseconds{static_cast<std::int64_t>(*g.expected_response_ns)}),
           display_duration(g.deadline),
           number(*g.expected_response_ns / static_cast<double>(g.deadline.count()))});
    }
    out += bounds.size() > 1 ? table(bounds) : "  (no task runs on dedicated cores)\n";
    if (!not_granted.empty()) {
      const bool several = not_granted.find(", ") != std::string::npos;
      out += "  no bound for " + not_granted +
             (several ? " (not granted their cores)\n" : " (not granted its cores)\n");
    }
  }
  out += "\ncores: " + std::to_string(r.granted_cores) + " dedicated";
  if (r.dedicated_cores != r.granted_cores) {
    out +=
        " (the high-utilization tasks need " +
        (r.dedicated_cores == std::numeric_limits<std::int64_t>::max() ? std::string("2^63 or more")
                                                                       : std::to_string(r.dedicated_cores)) +
        ")";
  }
  out += ", " + std::to_string(r.shared_cores) + " shared of " + std::to_string(r.cores) + "\n";
  for (const analysis::SharedCore& s : r.shared) {
    if (s.tasks.empty()) continue;
    std::string names;
    for (const std::string& n : s.tasks) names += (names.empty() ? "" : ", ") + n;
    out += "  shared core " + std::to_string(s.core_id) + ": Σ C/D = " + number(s.density) + " (" + names +
           ")\n";
  }
  const analysis::CapacityAugmentation& c = r.capacity;
  if (!c.not_applicable.empty()) {
    out += "capacity augmentation bound 2: not applicable (" + c.not_applicable + ")\n";
    return out;
  }
  const std::string sum = c.densities ? "Σ C/D" : "Σu";
  out += "capacity augmentation bound 2 (" + sum + " ≤ m/2 and L ≤ D/2 guarantee schedulability" +
         (c.densities ? "; densities C/D since some task has D < T" : "") + "): " + sum + " = " +
         number(c.total_utilization) + (c.total_utilization <= c.utilization_bound ? " ≤ " : " > ") +
         number(c.utilization_bound);
  if (!c.long_span_tasks.empty()) {
    out += "; L > D/2 for " + std::to_string(c.long_span_tasks.size()) + " task(s) (" +
           c.long_span_tasks.front() + (c.long_span_tasks.size() > 1 ? ", ..." : "") + ")";
  }
  out += c.holds ? " — holds\n" : " — does not hold (the verdict below comes from the core assignment)\n";
  return out;
}

// Ascending strand numbers as ranges ("1-3,7"); beyond six ranges the count and the
// first ones ("1563 strands: 1, 65, 129, ...").
std::string strand_list(const std::vector<int>& numbers) {
  std::vector<std::string> ranges;
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    ranges.push_back(std::to_string(numbers[i]) + (j > i ? "-" + std::to_string(numbers[j]) : ""));
    i = j + 1;
  }
  std::string text;
  if (ranges.size() <= 6) {
    for (const std::string& r : ranges) text += (text.empty() ? "" : ",") + r;
    return text;
  }
  text = std::to_string(numbers.size()) + " strands: ";
  for (std::size_t i = 0; i < 3; ++i) text += ranges[i] + ", ";
  return text + "...";
}

std::string partitioned_text(const model::TaskSet& set, const analysis::PartitionedDmResult& r) {
  std::string out;
  std::vector<std::vector<std::string>> rows{
      {"task", "C", "P", "D", "slack D−2.5P", "heavy threshold", "segments"}};
  for (std::size_t i = 0; i < r.tasks.size(); ++i) {
    const analysis::TaskDecomposition& td = r.tasks[i];
    std::string segs;
    for (std::size_t j = 0; j < td.decomposition.segments.size(); ++j) {
      const auto& w = td.decomposition.segments[j];
      segs += (j ? "  " : "") + std::string(w.heavy ? "H" : "L") + " l=" + number(w.slack, 2);
    }
    // C and P of the segments the decomposition divided (a measured work: and span:
    // beside a task's segments are not what it used).
    const model::Task& t = set.tasks[i];
    rows.push_back({td.name, display_duration(td.work), display_duration(td.span),
                    display_duration(t.deadline),
                    display_duration(
                        std::chrono::nanoseconds{static_cast<std::int64_t>(td.decomposition.total_slack_ns)}),
                    td.decomposition.feasible ? number(td.decomposition.heavy_threshold) : "-",
                    td.decomposition.proportional ? "D ≤ 2.5P, d = e·D/P: " + segs : segs});
  }
  out += table(rows);
  out += "\nstrand table (" + std::string(model::to_string(r.fit)) + "; priority 1 is the highest):\n";
  std::vector<std::vector<std::string>> strands{
      {"task", "segment", "strands", "release", "deadline", "length", "priority", "core"}};
  // One row per task, segment and core, the cores in the order the segment's strands
  // reach them (strands "2,5" of Fig. 2 share core 0 under worst-fit); long lists of
  // strand numbers are cut.
  for (std::size_t k = 0; k < r.strands.size();) {
    const analysis::StrandAssignment& s = r.strands[k];
    std::size_t end = k;
    while (end < r.strands.size() && r.strands[end].task == s.task && r.strands[end].segment == s.segment)
      ++end;
    std::vector<int> cores;                              // in order of first use; −1: fits nowhere
    std::map<int, std::pair<int, std::vector<int>>> on;  // core → (its id, its strands)
    for (std::size_t i = k; i < end; ++i) {
      auto [it, added] = on.try_emplace(r.strands[i].core, r.strands[i].core_id, std::vector<int>{});
      if (added) cores.push_back(r.strands[i].core);
      it->second.second.push_back(r.strands[i].strand);
    }
    for (int core : cores) {
      const auto& [id, which] = on[core];
      strands.push_back({set.tasks[s.task].name, std::to_string(s.segment), strand_list(which),
                         display_duration(s.release), display_duration(s.deadline),
                         display_duration(s.length), std::to_string(s.priority),
                         core >= 0 ? std::to_string(id) : "none"});
    }
    k = end;
  }
  out += table(strands);
  const analysis::AugmentationBound& b = r.bound;
  if (!b.not_applicable.empty()) {
    out += "augmentation bound 5: not applicable (" + b.not_applicable + ")\n";
    return out;
  }
  out += "augmentation bound 5 (Σu ≤ m/5 and P ≤ D/5 guarantee schedulability): Σu = " +
         number(b.total_utilization) + (b.total_utilization <= b.utilization_bound ? " ≤ " : " > ") +
         number(b.utilization_bound);
  if (!b.long_span_tasks.empty()) {
    out += "; P > D/5 for " + std::to_string(b.long_span_tasks.size()) + " task(s)";
  }
  out += b.holds ? " — holds\n" : " — does not hold (the verdict below comes from the placement)\n";
  return out;
}

std::string global_edf_text(const analysis::GlobalEdfResult& r) {
  std::string out;
  std::vector<std::vector<std::string>> rows{{"task", "u", "C/D", "L ≤ D/2.618"}};
  for (const analysis::GlobalEdfTask& t : r.tasks) {
    rows.push_back({t.name, number(t.utilization), number(t.density), t.span_ok ? "yes" : "no"});
  }
  out += table(rows);
  out += "\nall tasks share cores " + ids_text(r.core_ids) + " (one global EDF queue)\n";
  // With some D < T the sums and the maximum are of densities, labelled as such.
  const std::string sum = r.densities ? "Σ C/D" : "U", top = r.densities ? "max C/D" : "u_max";
  const std::string note = r.densities ? "; densities C/D since some task has D < T" : "";
  out += "GFB test (paws §2" + note + "): " + sum + " = " + number(r.total_density) + ", " + top + " = " +
         number(r.max_density) + ", m − (m−1)·" + top + " = " + number(r.gfb_bound) +
         (r.gfb_holds ? " — holds\n" : " — does not hold\n");
  // Which condition fails: the sum, or the spans of the tasks named.
  std::vector<std::string> long_spans;
  for (const analysis::GlobalEdfTask& t : r.tasks) {
    if (!t.span_ok) long_spans.push_back("'" + t.name + "'");
  }
  std::string spans;
  if (!long_spans.empty()) {
    const std::size_t shown = std::min<std::size_t>(long_spans.size(), 5);
    spans = "; L > D/2.618 for " +
            fmt::format("{}", fmt::join(long_spans.begin(), long_spans.begin() + shown, ", "));
    if (long_spans.size() > shown) spans += " and " + std::to_string(long_spans.size() - shown) + " more";
  }
  out += "capacity bound 2.618 (Li et al." + note + "): " + (r.densities ? "Σ C/D" : "Σu") + " = " +
         number(r.total_density) + (r.capacity_utilization_holds ? " ≤ " : " > ") +
         "m/2.618 = " + number(r.capacity_bound) + spans +
         (r.capacity_holds ? " — holds" : " — does not hold") +
         " (information only: proved for fully preemptive global EDF, which gedf-paws is not; the "
         "verdict below is the GFB test's)\n";
  return out;
}

json analysis_json_of(const model::TaskSet& set, const AnalysisResult& result, bool with_strands) {
  json out;
  out["file"] = set.source;
  out["policy"] = model::to_string(result.policy);
  out["cores"] = {{"count", result.cores.count}, {"ids", all_ids(result.cores)}};
  out["schedulable"] = result.schedulable;
  json reasons = json::array();
  for (const Finding& f : result.reasons()) reasons.push_back(finding_json(f));
  out["reasons"] = reasons;
  json findings = json::array();
  for (const Finding& f : result.findings) findings.push_back(finding_json(f));
  out["findings"] = findings;
  out["tasks"] = json::array();
  if (const auto* f = result.federated()) federated_json(out, *f);
  if (const auto* p = result.partitioned_dm()) partitioned_json(out, set, *p, with_strands);
  if (const auto* g = result.global_edf()) global_edf_json(out, *g);
  return out;
}

// `value.dump(2)` as it appears `depth` levels deep in a dump(2) of its container.
std::string nested_dump(const json& value, int depth) {
  const std::string text = value.dump(2);
  const std::string pad(static_cast<std::size_t>(2 * depth), ' ');
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

}  // namespace

json analysis_json(const model::TaskSet& set, const AnalysisResult& result) {
  return analysis_json_of(set, result, true);
}

void write_analysis_json(std::FILE* out, const model::TaskSet& set, const AnalysisResult& result) {
  // The layout of dump(2), assembled key by key so that the strand table goes out a
  // row at a time: as one tree, a million rows took over 2 GB.
  const json top = analysis_json_of(set, result, false);
  const analysis::PartitionedDmResult* dm = result.partitioned_dm();
  std::string text = "{";
  bool first = true;
  for (const auto& [key, value] : top.items()) {
    text += (first ? "\n  " : ",\n  ") + json(key).dump() + ": ";
    first = false;
    if (key != "partitioned_dm" || dm == nullptr) {
      text += nested_dump(value, 1);
      continue;
    }
    text += "{";
    bool first_inner = true;
    for (const auto& [inner_key, inner] : value.items()) {
      text += (first_inner ? "\n    " : ",\n    ") + json(inner_key).dump() + ": " + nested_dump(inner, 2);
      first_inner = false;
      if (inner_key != "fit") continue;
      text += ",\n    \"strands\": ";
      if (dm->strands.empty()) {
        text += "[]";
        continue;
      }
      text += "[";
      for (std::size_t k = 0; k < dm->strands.size(); ++k) {
        text += (k == 0 ? "\n      " : ",\n      ") + nested_dump(strand_json(set, dm->strands[k]), 3);
        if (text.size() > (1u << 16)) {
          std::fwrite(text.data(), 1, text.size(), out);
          text.clear();
        }
      }
      text += "\n    ]";
    }
    text += "\n  }";
  }
  text += first ? "}\n" : "\n}\n";
  std::fwrite(text.data(), 1, text.size(), out);
}

std::string analysis_text(const model::TaskSet& set, const AnalysisResult& result) {
  std::string out = set.source + ": " + std::to_string(set.tasks.size()) + " task(s), policy " +
                    std::string(model::to_string(result.policy)) + " on " +
                    std::to_string(result.cores.count) + " core(s) (" + ids_text(all_ids(result.cores)) +
                    ")\n\n";
  if (const auto* f = result.federated()) out += federated_text(*f, result.policy);
  if (const auto* p = result.partitioned_dm()) out += partitioned_text(set, *p);
  if (const auto* g = result.global_edf()) out += global_edf_text(*g);
  out += "\n" + verdict_text(result);
  return out;
}

}  // namespace takt::cli
