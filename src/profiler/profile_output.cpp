// Formatting of profile results: table, JSON, task-set measurements and program profiles.
#include "profiler/profile_output.hpp"

#include "model/duration.hpp"
#include "model/yaml_reader.hpp"
#include "platform/metrics_json.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace takt::profiler {
namespace {

using std::chrono::nanoseconds;

nanoseconds ceil_us(nanoseconds d) { return std::chrono::ceil<std::chrono::microseconds>(d); }

std::string show(nanoseconds d) { return model::display_duration(d, 3); }

std::string stats_row(std::string_view label, const platform::DurationStats& s) {
  return fmt::format("  {:<26}{:>12}{:>12}{:>12}{:>12}\n", label, show(s.min), show(s.p50), show(s.p99),
                     show(s.max));
}

nlohmann::json stats_json(const platform::DurationStats& s) {
  return {{"min_ns", s.min.count()},
          {"median_ns", s.p50.count()},
          {"p99_ns", s.p99.count()},
          {"max_ns", s.max.count()},
          {"mean_ns", s.mean.count()}};
}

nlohmann::json samples_json(const BurdenSamples& s) {
  return {{"count", s.count},
          {"p50_ns", s.p50.count()},
          {"p90_ns", s.p90.count()},
          {"p99_ns", s.p99.count()},
          {"max_ns", s.max.count()}};
}

std::string joined_args(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) out += " " + a;
  return out;
}

}  // namespace

WrittenValues written_values(const ProfileResult& r) {
  WrittenValues v;
  v.work = ceil_us(r.chosen_work);
  v.span = std::min(ceil_us(r.chosen_span), v.work);
  v.burdened_span = std::max(ceil_us(r.chosen_burdened_span), v.span);
  return v;
}

std::string profile_text(const ProfileResult& r) {
  std::string out = fmt::format("profile of {}{}: {} job(s){}; per job: min, median, p99, max\n", r.program,
                                joined_args(r.args), r.jobs,
                                r.stopped ? fmt::format(" (stopped after {} of {})", r.jobs, r.jobs_requested)
                                          : std::string());
  out += fmt::format("  {:<26}{:>12}{:>12}{:>12}{:>12}\n", "", "min", "median", "p99", "max");
  out += stats_row("work C (T1, one worker)", r.work);
  out += stats_row("span L", r.span);
  out += stats_row("burdened span L^", r.burdened_span);
  out += stats_row("strand work (observed)", r.strand_work);
  for (const ParallelTime& p : r.parallel)
    out += stats_row(fmt::format("T{} ({} pinned worker{})", p.workers, p.workers, p.workers == 1 ? "" : "s"),
                     p.time);
  out += fmt::format(
      "  parallelism C/L {:.1f}, C/L^ {:.1f} (medians); {} spawns, {} syncs, {} strands per job\n",
      r.parallelism(), r.burdened_parallelism(), r.spawns, r.syncs, r.strands);
  out += fmt::format("  workers: {}\n", r.scheduling);
  out += fmt::format("  static memory: depth D = {}, peak stack {} KiB{}\n", r.memory.depth,
                     (r.memory.peak_stack_bytes + 1023) / 1024,
                     r.memory.peak_large_stack_bytes > 0
                         ? fmt::format(", large stack (call_on_large_stack) {} KiB",
                                       (r.memory.peak_large_stack_bytes + 1023) / 1024)
                         : std::string());
  if (r.calibration) {
    const BurdenCalibration& c = *r.calibration;
    out += fmt::format(
        "  burden: {} per spawn (steal latency median; p90 {}, p99 {}), {} per sync (join latency median; "
        "p90 {}, "
        "p99 {}), calibrated here over {} rounds on 2 workers\n",
        show(r.burden.spawn), show(c.steal.p90), show(c.steal.p99), show(r.burden.sync), show(c.join.p90),
        show(c.join.p99), c.iterations);
  } else {
    out += fmt::format("  burden: {} per spawn, {} per sync (given)\n", show(r.burden.spawn),
                       show(r.burden.sync));
  }
  const WrittenValues v = written_values(r);
  const std::string which = r.percentile >= 100 ? std::string("max") : fmt::format("p{:g}", r.percentile);
  out += fmt::format("for the task set ({} over the jobs): work: {}, span: {}, burdened_span: {}\n", which,
                     model::format_duration(v.work), model::format_duration(v.span),
                     model::format_duration(v.burdened_span));
  return out;
}

nlohmann::json profile_json(const ProfileResult& r) {
  const WrittenValues v = written_values(r);
  nlohmann::json j;
  j["program"] = r.program;
  j["args"] = r.args;
  j["jobs"] = r.jobs;
  j["jobs_requested"] = r.jobs_requested;
  j["stopped"] = r.stopped;
  j["percentile"] = r.percentile;
  j["work"] = stats_json(r.work);
  j["span"] = stats_json(r.span);
  j["burdened_span"] = stats_json(r.burdened_span);
  j["strand_work"] = stats_json(r.strand_work);
  j["parallelism"] = r.parallelism();
  j["burdened_parallelism"] = r.burdened_parallelism();
  j["spawns"] = r.spawns;
  j["syncs"] = r.syncs;
  j["strands"] = r.strands;
  j["scheduling"] = r.scheduling;
  j["static_memory"] = {{"depth", r.memory.depth},
                        {"peak_stack_bytes", r.memory.peak_stack_bytes},
                        {"peak_large_stack_bytes", r.memory.peak_large_stack_bytes},
                        {"spawns", r.memory.spawns}};
  nlohmann::json burden = {{"spawn_ns", r.burden.spawn.count()},
                           {"sync_ns", r.burden.sync.count()},
                           {"source", r.calibration ? "calibrated" : "given"}};
  if (r.calibration) {
    burden["steal"] = samples_json(r.calibration->steal);
    burden["join"] = samples_json(r.calibration->join);
    burden["rounds"] = r.calibration->iterations;
  }
  j["burden"] = burden;
  nlohmann::json parallel = nlohmann::json::array();
  for (const ParallelTime& p : r.parallel) {
    nlohmann::json e = stats_json(p.time);
    e["workers"] = p.workers;
    parallel.push_back(e);
  }
  j["parallel"] = parallel;
  nlohmann::json jobs = nlohmann::json::array();
  for (const JobProfile& job : r.per_job) {
    nlohmann::json e = {{"work_ns", job.work.count()},
                        {"span_ns", job.dag.span.count()},
                        {"burdened_span_ns", job.dag.burdened_span.count()},
                        {"strand_work_ns", job.dag.strand_work.count()},
                        {"longest_strand_ns", job.dag.longest_strand.count()},
                        {"spawns", job.dag.spawns},
                        {"syncs", job.dag.syncs},
                        {"strands", job.dag.strands}};
    nlohmann::json tp = nlohmann::json::array();
    for (nanoseconds t : job.parallel) tp.push_back(t.count());
    e["parallel_ns"] = tp;
    jobs.push_back(e);
  }
  j["per_job"] = jobs;
  j["task_set"] = {{"work", model::format_duration(v.work)},
                   {"span", model::format_duration(v.span)},
                   {"burdened_span", model::format_duration(v.burdened_span)}};
  return j;
}

model::MeasurementUpdate measurement_update(const ProfileResult& r, std::string task) {
  const WrittenValues v = written_values(r);
  model::MeasurementUpdate u;
  u.task = std::move(task);
  u.work = v.work;
  u.span = v.span;
  u.burdened_span = v.burdened_span;
  return u;
}

std::string default_profile_name(const std::string& program, const std::vector<std::string>& args) {
  std::string name = program;
  for (const std::string& a : args) name += "-" + a;
  return name;
}

std::string default_profile_name(const ProfileResult& r) { return default_profile_name(r.program, r.args); }

model::ProgramProfile program_profile(const ProfileResult& r, std::string name) {
  const WrittenValues v = written_values(r);
  model::ProgramProfile p;
  p.name = std::move(name);
  p.program = r.program;
  p.args = r.args;
  p.work = v.work;
  p.span = v.span;
  p.burdened_span = v.burdened_span;
  p.measured = model::ProfileMeasurement{static_cast<std::int64_t>(r.jobs), r.percentile, {}, {}};
  return p;
}

std::vector<model::ProgramProfile> existing_profiles(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status) || (!fs::is_regular_file(status) && !fs::is_directory(status))) return {};
  const std::string text = model::read_text_file(path, "profile file");
  // No entries yet: an empty file, white space only, or comments only (a file a user
  // started with a note of their own; takt's header replaces the comments).
  bool holds_nothing = true;
  std::istringstream lines(text);
  for (std::string line; holds_nothing && std::getline(lines, line);) {
    const auto first = line.find_first_not_of(" \t\r");
    holds_nothing = first == std::string::npos || line[first] == '#';
  }
  if (holds_nothing) return {};
  return model::parse_program_profiles(text, path);
}

bool update_profiles_file(const std::string& path, const model::ProgramProfile& entry,
                          const std::string& header, bool replace) {
  std::vector<model::ProgramProfile> profiles = existing_profiles(path);
  const auto same = std::find_if(profiles.begin(), profiles.end(),
                                 [&](const model::ProgramProfile& p) { return p.name == entry.name; });
  if (same == profiles.end()) {
    profiles.push_back(entry);
  } else if (replace) {
    *same = entry;
  } else {
    return false;
  }
  platform::write_text_file(path, model::write_program_profiles(profiles, header));
  return true;
}

}  // namespace takt::profiler
