// `takt bench analyze`: time `takt analyze` on generated 1,000-task sets for 64 cores, per policy.
#include "analysis/analyse.hpp"
#include "analysis/generator.hpp"
#include "cli/analyze_report.hpp"
#include "cli/command.hpp"
#include "model/task_set_parser.hpp"
#include "model/task_set_writer.hpp"
#include "os/diagnostics.hpp"
#include "platform/metrics_json.hpp"
#include "platform/percentile.hpp"
#include "platform/stop_flag.hpp"
#include "takt/error.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>

namespace takt::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchArgs {
  std::string json_file;
  int tasks = 1000;
  int cores = 64;
  int repetitions = 5;
  double utilization_share = 0.5;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// `count` tasks made by `method` for `cores` cores: sets generated with seeds 1, 2, ...
// are concatenated, then every period and deadline is scaled by one factor so that
// Σu = share·m (the structure, and so work and span, stay as generated).
model::TaskSet make_set(analysis::GeneratorMethod method, int count, int cores, double share) {
  model::TaskSet set;
  analysis::GeneratorOptions o;
  o.method = method;
  o.cores = cores;
  o.utilization = cores;
  std::uint64_t seed = 1;
  while (static_cast<int>(set.tasks.size()) < count) {
    o.seed = seed++;
    analysis::GeneratedSet g = analysis::generate(o);
    if (set.tasks.empty()) set.global = g.set.global;
    for (model::Task& t : g.set.tasks) {
      if (static_cast<int>(set.tasks.size()) == count) break;
      t.name = "t" + std::to_string(set.tasks.size() + 1);
      set.tasks.push_back(std::move(t));
    }
  }
  const double factor = set.total_utilization() / (share * cores);
  for (model::Task& t : set.tasks) {
    t.period = std::chrono::nanoseconds{
        static_cast<std::int64_t>(static_cast<double>(t.period.count()) * factor) + 1};
    t.deadline = t.period;
  }
  set.global.cores = model::Cores::of_count(cores);
  return set;
}

/// The rows: each set under each policy.
constexpr std::array kMethods{analysis::GeneratorMethod::rt_openmp, analysis::GeneratorMethod::paws};
constexpr std::array kPolicies{model::Policy::federated, model::Policy::federated_greedy,
                               model::Policy::partitioned_dm, model::Policy::gedf_paws};
constexpr std::size_t kRowsPlanned = kMethods.size() * kPolicies.size();

/// SIGINT/SIGTERM while measuring: the row in flight is cut short (between its runs) and
/// left out, no row is measured after it, and the rows measured are printed and written,
/// marked partial; cli::finish_command then ends takt by the signal.
int run_bench(const BenchArgs& a) {
  const nlohmann::json provenance = platform::provenance();
  platform::StopOnSignal stop(
      "\ntakt bench analyze: stopping; the row in flight is left out, the rows measured are written; a third "
      "Ctrl-C ends takt at once, without results\n");
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  nlohmann::ordered_json not_measured = nlohmann::ordered_json::array();  // rows a stop left out
  fmt::print("takt bench analyze: {} tasks on {} cores, Σu = {:.0f}% of m, median of {} runs\n", a.tasks,
             a.cores, a.utilization_share * 100, a.repetitions);
  fmt::print("target: takt analyze (parse + analyse + report) under 1 s per policy\n\n");
  fmt::print("{:<10} {:<17} {:>8} {:>11} {:>11} {:>11} {:>11} {:>10} {:>6}\n", "set", "policy", "strands",
             "parse", "analyse", "report", "total", "vs 1 s", "sched");
  std::fflush(stdout);
  double worst = 0;
  // The JSON file: after every row with "complete": false (a run killed, or one that
  // takes long at a large --tasks, keeps the rows measured), and at the end.
  auto save = [&](bool complete, const std::string& stopped_by) {
    nlohmann::ordered_json doc = platform::benchmark_header("analyze", provenance, complete, stopped_by);
    doc["tasks"] = a.tasks;
    doc["cores"] = a.cores;
    doc["repetitions"] = a.repetitions;
    doc["utilization_share"] = a.utilization_share;
    doc["note"] =
        "no oneTBB/OpenMP counterpart: analysis is takt's own; compared with the 1 s "
        "target of issue 3";
    doc["rows_planned"] = kRowsPlanned;  // a file written midway has fewer rows in all
    doc["results"] = results;
    if (!complete) doc["not_measured"] = not_measured;
    // Of the rows measured; null when none was.
    doc["slowest_total_s"] = results.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(worst);
    platform::write_text_file(
        a.json_file, doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
  };
  // A first document before anything is measured (an earlier run's file does not stay,
  // complete, under a run killed before its first row), then one per row; not into a
  // stream or FIFO, which gets the last document only.
  const bool checkpoints = platform::takes_checkpoints(a.json_file);
  if (checkpoints) save(false, "");
  std::string invalid;  // why a generated set could not be analysed, if one could not
  std::string invalid_short;  // "a set could not be generated" or "... analysed under a policy"
  // A row that is bad input (its set cannot be generated, or analysed under its policy, or
  // memory ran out): left out with the reason, the rows measured are still written, and
  // the first such reason is the command's error.
  auto leave_out = [&](analysis::GeneratorMethod method, model::Policy policy, const std::string& why,
                       const char* kind) {
    if (invalid.empty()) {
      invalid = why;
      invalid_short = kind;
    }
    not_measured.push_back(
        {{"set", analysis::to_string(method)}, {"policy", model::to_string(policy)}, {"reason", why}});
  };
  for (analysis::GeneratorMethod method : kMethods) {
    if (stop.requested()) {
      for (model::Policy policy : kPolicies) {
        not_measured.push_back({{"set", analysis::to_string(method)}, {"policy", model::to_string(policy)}});
      }
      continue;
    }
    // The set is checked once, untimed: scaled to the utilization asked for, a few tasks
    // on many cores get periods below their spans, and the error named a deadline in the
    // generated text, which nobody wrote, after every row measured was lost.
    std::string text, why;
    try {
      const model::TaskSet generated = make_set(method, a.tasks, a.cores, a.utilization_share);
      text = model::write_task_set(generated);
      (void)model::parse_task_set(text, "<bench>");
    } catch (const std::bad_alloc&) {
      why = fmt::format(
          "out of memory (an allocation failed) while generating the {} set of {} tasks; give fewer --tasks, "
          "or raise the limit on memory (ulimit -v)",
          analysis::to_string(method), a.tasks);
    } catch (const Error& e) {
      why = fmt::format(
          "the {} set of {} tasks scaled to {:.0f}% of {} cores is no valid task set ({}); give more --tasks "
          "or fewer --cores",
          analysis::to_string(method), a.tasks, a.utilization_share * 100, a.cores, e.what());
    }
    if (!why.empty()) {
      for (model::Policy policy : kPolicies) leave_out(method, policy, why, "a set could not be generated");
      continue;
    }
    for (model::Policy policy : kPolicies) {
      std::vector<double> parse, analyse, report, total;
      std::optional<std::size_t> strands;  // partitioned-dm's strand table; the others place none
      bool schedulable = false;
      std::string unmeasurable;  // why the set cannot be analysed under this policy, if it cannot
      for (int r = 0; r < a.repetitions && !stop.requested(); ++r) {
        // A set valid as a task set may still be bad input for one policy (more strands
        // than partitioned-dm places: --tasks 1000 --cores 1024), or too large for the
        // memory: that row is not measured, with the reason, and the others are (the
        // error ended takt, and every row measured before it was lost).
        try {
          const Clock::time_point t0 = Clock::now();
          model::TaskSet set = model::parse_task_set(text, "<bench>");
          const double t_parse = seconds_since(t0);
          const Clock::time_point t1 = Clock::now();
          analysis::AnalysisResult result =
              analysis::analyse(set, {policy, std::nullopt, std::nullopt, std::nullopt});
          const double t_analyse = seconds_since(t1);
          const Clock::time_point t2 = Clock::now();
          std::string out = analysis_text(set, result);
          const double t_report = seconds_since(t2);
          if (out.empty()) throw std::logic_error("empty report");
          parse.push_back(t_parse);
          analyse.push_back(t_analyse);
          report.push_back(t_report);
          total.push_back(t_parse + t_analyse + t_report);
          if (const auto* p = result.partitioned_dm()) strands = p->strands.size();
          schedulable = result.schedulable;
        } catch (const std::bad_alloc&) {
          unmeasurable = fmt::format(
              "out of memory (an allocation failed) while analysing the {} set of {} tasks under {}; give "
              "fewer "
              "--tasks, or raise the limit on memory (ulimit -v)",
              analysis::to_string(method), a.tasks, model::to_string(policy));
          break;
        } catch (const Error& e) {
          unmeasurable = fmt::format(
              "the {} set of {} tasks on {} cores cannot be analysed under {} ({}); give fewer --tasks or "
              "fewer "
              "--cores",
              analysis::to_string(method), a.tasks, a.cores, model::to_string(policy), e.what());
          break;
        }
      }
      if (!unmeasurable.empty()) {
        leave_out(method, policy, unmeasurable, "a set could not be analysed under a policy");
        continue;
      }
      if (static_cast<int>(total.size()) < a.repetitions) {  // a stop: a median of fewer runs is no row
        not_measured.push_back({{"set", analysis::to_string(method)}, {"policy", model::to_string(policy)}});
        continue;
      }
      auto median = [](std::vector<double> v) {  // nearest rank, as every other report
        std::sort(v.begin(), v.end());
        return platform::nearest_rank(std::span<const double>(v), 50);
      };
      const double total_median = median(total);
      worst = std::max(worst, total_median);
      results.push_back({{"set", analysis::to_string(method)},
                         {"policy", model::to_string(policy)},
                         {"tasks", a.tasks},
                         {"cores", a.cores},
                         {"strands", strands ? nlohmann::ordered_json(*strands) : nlohmann::ordered_json()},
                         {"schedulable", schedulable},
                         {"parse_s", median(parse)},
                         {"analyse_s", median(analyse)},
                         {"report_s", median(report)},
                         {"total_s", total_median},
                         {"total_min_s", *std::min_element(total.begin(), total.end())},
                         {"target_s", 1.0},
                         {"ratio_to_target", total_median / 1.0}});
      // Written before it is printed: a row on the screen is in the file.
      if (checkpoints) save(false, "");
      fmt::print("{:<10} {:<17} {:>8} {:>10.4f}s {:>10.4f}s {:>10.4f}s {:>10.4f}s {:>9.3f}x {:>6}\n",
                 analysis::to_string(method), model::to_string(policy),
                 strands ? std::to_string(*strands) : std::string("-"), median(parse), median(analyse),
                 median(report), total_median, total_median / 1.0, schedulable ? "yes" : "no");
      std::fflush(stdout);  // each row as it is measured, also into a pipe or a file
    }
  }
  stop.measured();  // a signal now is only counted (a third still ends takt)
  const bool complete = not_measured.empty();
  const std::string signal = stop.signal_name();
  const std::size_t rows = results.size() + not_measured.size();
  const std::string cut_short = invalid.empty() ? "stopped by " + signal : invalid_short;
  if (complete) {
    fmt::print("\nslowest policy: {:.4f} s ({})\n", worst,
               worst < 1.0 ? "meets the 1 s target" : "MISSES the 1 s target");
  } else if (!results.empty()) {
    fmt::print("\npartial: {} after {} of {} rows; slowest policy measured: {:.4f} s ({})\n", cut_short,
               results.size(), rows, worst, worst < 1.0 ? "meets the 1 s target" : "MISSES the 1 s target");
  } else {
    fmt::print("\npartial: {} before the first row was measured\n", cut_short);
  }
  if (!a.json_file.empty()) save(complete, complete || !invalid.empty() ? "" : signal);
  if (!invalid.empty()) {
    os::to_stderr("takt: error: {}{}\n", invalid,
                  a.json_file.empty() ? "" : "; the rows measured are written to " + a.json_file);
    return exit_bad_input;
  }
  if (!complete) {
    std::string left;
    for (const auto& row : not_measured) {
      left += fmt::format("{}{}/{}", left.empty() ? "" : ", ", row["set"].get<std::string>(),
                          row["policy"].get<std::string>());
    }
    os::to_stderr("takt bench analyze: stopped by {}: {} of {} rows measured{}; not measured: {}\n", signal,
                  results.size(), rows, a.json_file.empty() ? "" : " and written to " + a.json_file, left);
  } else {
    stop.say_if_it_came_too_late("bench analyze", "row", "every row was measured");
  }
  return exit_ok;
}

[[maybe_unused]] const bool registered = register_command({
    {"bench", "analyze"},
    "Time takt analyze on generated 1,000-task sets for 64 cores under every policy (target: < 1 s)",
    [](CLI::App& app) -> Action {
      auto args = std::make_shared<BenchArgs>();
      app.add_option("--json", args->json_file, "Write the results as JSON to this file")
          ->check(output_file());
      app.add_option("--tasks", args->tasks, "Tasks per set (default 1000)")
          ->check(whole_at_least_for(1, args->tasks));
      app.add_option("--cores", args->cores, "Cores m (default 64)")->check(whole_in_range(1, 65536));
      app.add_option("--repetitions", args->repetitions, "Runs per measurement (default 5)")
          ->check(whole_at_least_for(1, args->repetitions));
      return [args] { return run_bench(*args); };
    },
});

}  // namespace
}  // namespace takt::cli
