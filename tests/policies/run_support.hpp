// Helpers of the policy integration tests: test-local programs, one run of a task set, the consistency checks.
#pragma once

#include "analysis/analyse.hpp"
#include "apps/segments.hpp"
#include "model/duration.hpp"
#include "model/task_set.hpp"
#include "model/task_set_parser.hpp"
#include "os/clock.hpp"
#include "os/realtime.hpp"
#include "platform/run.hpp"
#include "policies/policy_registry.hpp"
#include "takt/error.hpp"
#include "takt/program.hpp"

#include "../support/held_in_some_run.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>

namespace takt::testing {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

#if defined(TAKT_TSAN)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

/// Busy-waits args[0] (a duration) per job, but args[1] on jobs whose index modulo
/// args[2] is args[3]: an injected overrun. Throws on the first job it runs whose index
/// is args[4] or more, when given (job args[4] itself, unless a stall of the machine
/// made the release engine skip it).
class OverrunTask final : public Task {
 public:
  void init(const TaskArgs& a) override {
    normal_ = model_duration(a.args.at(0));
    if (a.args.size() > 1) {
      long_ = model_duration(a.args.at(1));
      every_ = std::stoull(a.args.at(2));
      which_ = std::stoull(a.args.at(3));
    }
    if (a.args.size() > 4) throw_on_ = std::stoll(a.args.at(4));
    (void)apps::busy_units_per_ns();  // calibrates the busy loop now, not in the first job
  }
  void run(const Job& job) override {
    if (throw_on_ >= 0 && job.index >= static_cast<std::uint64_t>(throw_on_) && !thrown_.exchange(true)) {
      throw std::runtime_error("injected failure of job " + std::to_string(job.index));
    }
    apps::busy_wait(every_ > 0 && job.index % every_ == which_ ? long_ : normal_);
  }

 private:
  static nanoseconds model_duration(const std::string& text) { return model::parse_duration(text); }
  nanoseconds normal_{}, long_{};
  std::uint64_t every_ = 0, which_ = 0;
  long long throw_on_ = -1;
  std::atomic<bool> thrown_{false};
};

inline void register_test_programs() {
  apps::register_segments_program();
  if (!programs().contains("test-overrun")) {
    programs().add<OverrunTask>("test-overrun", "busy-waits; longer on chosen jobs; may throw");
  }
}

struct Outcome {
  analysis::AnalysisResult verdict;
  platform::RunMetrics metrics;
  nlohmann::json details;
};

/// Run options for a test: `duration`, no table, no messages, no progress line, no
/// signal handling.
inline platform::RunOptions quiet_run(nanoseconds duration) {
  platform::RunOptions run;
  run.duration = duration;
  run.table = nullptr;
  run.messages = nullptr;
  run.progress = false;
  run.handle_signals = false;
  return run;
}

/// Runs `set` under `policy` for `duration` (no table, no messages, no signals).
inline Outcome run_set(const model::TaskSet& set, model::Policy policy, nanoseconds duration) {
  register_test_programs();
  analysis::AnalysisOptions options;
  options.policy = policy;
  Outcome out;
  out.verdict = analysis::analyse(set, options);
  std::unique_ptr<platform::Policy> p = policies::make_policy(policy);
  platform::RunOptions run = quiet_run(duration);
  run.start_delay = 20ms;
  run.drain = 500ms;
  platform::RunResult r = platform::run_task_set(set, out.verdict, *p, run);
  EXPECT_FALSE(r.jobs_left_running);
  EXPECT_TRUE(r.output_errors.empty()) << r.output_errors;
  out.metrics = std::move(r.metrics);
  out.details = p->details();
  return out;
}

/// "the longest delay from a release to its job's start was X ms": a stall of the
/// machine shows there.
inline std::string longest_start_delay(const Outcome& o) {
  nanoseconds longest{0};
  for (const platform::JobResult& j : o.metrics.jobs) {
    if (j.start) longest = std::max(longest, *j.start - j.release);
  }
  return "the longest delay from a release to its job's start was " +
         std::to_string(static_cast<double>(longest.count()) / 1e6) + " ms";
}

/// What failed of the check "no task missed more than a tenth of its jobs" (empty when
/// it held): each such task's misses, and longest_start_delay().
inline std::string misses_above_a_tenth(const Outcome& o) {
  std::string report;
  for (const platform::TaskMetrics& t : o.metrics.tasks) {
    if (t.misses > t.jobs / 10) {
      report += t.name + " missed " + std::to_string(t.misses) + " of " + std::to_string(t.jobs) + "; ";
    }
  }
  return report.empty() ? report : report + longest_start_delay(o);
}

/// Jobs of a task released within `duration` (the release engine's rule).
inline std::uint64_t planned(const model::Task& t, nanoseconds duration) {
  if (t.offset >= duration) return 0;
  return static_cast<std::uint64_t>((duration - t.offset - 1ns) / t.period) + 1;
}

/// Every released job is accounted for exactly once, statuses add up, each finished
/// job took at least its work over the cores it was granted (80 % of it: the busy loop
/// is calibrated once per process on thread CPU time, and on a VM whose vCPUs share a
/// physical core a calibration that met a busy sibling makes later strands up to ~15 %
/// short), and "met" means finished by the deadline.
inline void expect_consistent(const model::TaskSet& set, const Outcome& o, nanoseconds duration) {
  const platform::RunMetrics& m = o.metrics;
  ASSERT_EQ(m.tasks.size(), set.tasks.size());
  std::uint64_t jobs = 0, misses = 0;
  for (std::size_t i = 0; i < set.tasks.size(); ++i) {
    const platform::TaskMetrics& t = m.tasks[i];
    SCOPED_TRACE("task " + t.name);
    EXPECT_EQ(t.jobs, planned(set.tasks[i], duration));
    EXPECT_EQ(t.jobs, t.released + t.skipped);
    EXPECT_EQ(t.met + t.misses + t.abandoned, t.jobs);
    EXPECT_EQ(t.abandoned, 0u);
    jobs += t.jobs;
    misses += t.misses;
  }
  EXPECT_EQ(m.jobs_total, jobs);
  EXPECT_EQ(m.misses_total, misses);
  std::map<std::uint32_t, std::vector<bool>> seen;
  for (std::size_t i = 0; i < set.tasks.size(); ++i) seen[static_cast<std::uint32_t>(i)].assign(m.tasks[i].jobs, false);
  for (const platform::JobResult& j : m.jobs) {
    ASSERT_LT(j.task, set.tasks.size());
    ASSERT_LT(j.index, seen[j.task].size());
    EXPECT_FALSE(seen[j.task][j.index]) << "job " << j.index << " of task " << j.task << " counted twice";
    seen[j.task][j.index] = true;
    const model::Task& spec = set.tasks[j.task];
    EXPECT_EQ(j.deadline - j.release, spec.deadline);
    if (j.status == platform::JobStatus::skipped) {
      EXPECT_FALSE(j.start.has_value());
      continue;
    }
    ASSERT_TRUE(j.start.has_value()) << "job " << j.index << " of " << spec.name;
    ASSERT_TRUE(j.finish.has_value()) << "job " << j.index << " of " << spec.name;
    EXPECT_GE(*j.start, j.release);
    EXPECT_GE(*j.finish, *j.start);
    EXPECT_EQ(j.status == platform::JobStatus::met, *j.finish <= j.deadline && j.status != platform::JobStatus::failed);
    if (j.status == platform::JobStatus::failed) continue;
    const unsigned cores = platform::granted_cores(o.verdict, j.task);
    const nanoseconds floor = spec.work() * 8 / 10 / static_cast<std::int64_t>(cores);
    EXPECT_GE(*j.finish - j.release, floor) << spec.name << " job " << j.index << " ran faster than work / cores";
  }
  for (auto& [task, flags] : seen) {
    for (std::size_t k = 0; k < flags.size(); ++k) EXPECT_TRUE(flags[k]) << "job " << k << " of task " << task << " missing";
  }
}

}  // namespace takt::testing
