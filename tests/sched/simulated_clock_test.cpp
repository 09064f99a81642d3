// The same topologies driven by a simulated clock: a discrete-event simulation of global EDF.
#include "policies/builtin_topologies.hpp"
#include "sched/scheduler.hpp"
#include "sched_test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <vector>

using namespace takt::sched;
using namespace takt::sched::test;

namespace {

struct PeriodicTask {
  std::string name;
  int wcet;    // time units
  int period;  // = relative deadline
  int offset;
};

struct Job {
  Task task;
  std::string name;
  int remaining = 0;
  int finish = -1;
  int last_pe = -1;
  int migrations = 0;
  Job(std::uint64_t id, std::string n) : task(id), name(std::move(n)) {}
};

/// A discrete-event simulation on `pes` processing elements, time in units of 1 ms
/// on a simulated clock. At each event time: completions (exit), releases (admit,
/// or a TIME message when the jobs were admitted ahead), idle PEs ask schedule(pe)
/// in id order, then a queued job with an earlier deadline than the latest-deadline
/// running job preempts it (ties: the highest PE id), using peek() and relinquish().
/// The scheduler never sees a clock, only the times in the tasks and messages.
class Simulation {
 public:
  Simulation(Scheduler& s, int pes, std::vector<PeriodicTask> tasks, int horizon, bool admit_ahead)
      : s_(s),
        running_(static_cast<std::size_t>(pes), nullptr),
        horizon_(horizon),
        admit_ahead_(admit_ahead) {
    std::uint64_t id = 0;
    for (const PeriodicTask& t : tasks) {
      for (int k = 0, r = t.offset; r < horizon; ++k, r += t.period) {
        Job& job = jobs_.emplace_back(id++, t.name + "," + std::to_string(k + 1));
        job.remaining = t.wcet;
        job.task.release = unit(r);
        job.task.deadline = unit(r + t.period);
        job.task.payload = &job;
        releases_.emplace(r, &job);
      }
    }
  }

  void run() {
    if (admit_ahead_) {
      for (auto& [r, job] : releases_) s_.admit(job->task);  // the release gate holds them
    }
    int now = 0;
    for (;;) {
      complete(now);
      for (auto it = releases_.lower_bound(now); it != releases_.end() && it->first == now; ++it) {
        if (!admit_ahead_) s_.admit(it->second->task);
      }
      if (admit_ahead_) s_.notify(topics::time, TimeMessage{unit(now)});
      dispatch_idle(now);
      preempt(now);
      // Next event: a release or a completion.
      int next = horizon_ + 1;
      if (auto it = releases_.upper_bound(now); it != releases_.end()) next = std::min(next, it->first);
      for (Job* j : running_) {
        if (j != nullptr) next = std::min(next, now + j->remaining);
      }
      if (next > horizon_) break;
      for (Job* j : running_) {
        if (j != nullptr) j->remaining -= next - now;
      }
      now = next;
    }
  }

  std::map<std::string, int> finish_times() const {
    std::map<std::string, int> out;
    for (const Job& j : jobs_) out[j.name] = j.finish;
    return out;
  }
  int preemptions() const { return preemptions_; }
  int migrations() const {
    int n = 0;
    for (const Job& j : jobs_) n += j.migrations;
    return n;
  }

 private:
  static Time unit(int t) { return std::chrono::milliseconds(t); }

  void complete(int now) {
    for (Job*& j : running_) {
      if (j != nullptr && j->remaining == 0) {
        j->finish = now;
        EXPECT_TRUE(s_.exit(j->task));
        j = nullptr;
      }
    }
  }

  void start(int pe, Job* job) {
    if (job->last_pe >= 0 && job->last_pe != pe) ++job->migrations;
    job->last_pe = pe;
    running_[static_cast<std::size_t>(pe)] = job;
  }

  void dispatch_idle(int) {
    for (int pe = 0; pe < static_cast<int>(running_.size()); ++pe) {
      if (running_[pe] != nullptr) continue;
      if (Task* t = s_.schedule(pe)) start(pe, static_cast<Job*>(t->payload));
    }
  }

  void preempt(int) {
    for (;;) {
      int victim = -1;
      for (int pe = 0; pe < static_cast<int>(running_.size()); ++pe) {
        if (running_[pe] == nullptr) return;  // an idle PE found nothing: nothing queued
        if (victim < 0 || running_[pe]->task.deadline >= running_[victim]->task.deadline) victim = pe;
      }
      Task* head = s_.peek(victim);
      if (head == nullptr || head->deadline >= running_[victim]->task.deadline) return;
      s_.relinquish(running_[victim]->task);
      ++preemptions_;
      Task* t = s_.schedule(victim);
      ASSERT_EQ(t, head);
      start(victim, static_cast<Job*>(t->payload));
    }
  }

  Scheduler& s_;
  std::deque<Job> jobs_;
  std::multimap<int, Job*> releases_;
  std::vector<Job*> running_;
  int horizon_;
  bool admit_ahead_;
  int preemptions_ = 0;
};

// τ1 = (C 2, T 4), τ2 = (C 3, T 6), τ3 = (C 4, T 12) on 2 PEs under global EDF, by hand:
//   t=0  J1,1 (d4) on PE0, J2,1 (d6) on PE1, J3,1 (d12) waits
//   t=2  J1,1 done; J3,1 on PE0 (runs 2..6)
//   t=3  J2,1 done; PE1 idle
//   t=4  J1,2 (d8) on PE1 (4..6)
//   t=6  J1,2 and J3,1 done; J2,2 (d12) on PE0 (6..9)
//   t=8  J1,3 (d12) on PE1 (8..10)
const std::vector<PeriodicTask> set_a = {{"t1", 2, 4, 0}, {"t2", 3, 6, 0}, {"t3", 4, 12, 0}};
const std::map<std::string, int> finish_a = {{"t1,1", 2}, {"t1,2", 6}, {"t1,3", 10},
                                             {"t2,1", 3}, {"t2,2", 9}, {"t3,1", 6}};

}  // namespace

TEST(SimulatedClock, BuiltinGedfPawsTopologyRunsGlobalEdf) {
  Scheduler s(takt::policies::builtin_topology("gedf-paws"), ProcessingElements::uniform(2));
  Simulation sim(s, 2, set_a, 12, false);
  sim.run();
  EXPECT_EQ(sim.finish_times(), finish_a);
  EXPECT_EQ(sim.preemptions(), 0);
  EXPECT_EQ(s.attached_tasks(), 0u);
}

TEST(SimulatedClock, PreemptionsAndMigrationsUnderGlobalEdf) {
  // τ1 = τ2 = (C 4, T 8), τ3 = (C 1, T 2, offset 1), 2 PEs, by hand:
  //   t=0  J1 on PE0, J2 on PE1 (equal deadlines: first come first served)
  //   t=1  J3,1 (d3) preempts J2 on PE1 (the later deadline; tie -> higher PE); J2 left 3
  //   t=2  J3,1 done; J2 back on PE1
  //   t=3  J3,2 (d5) preempts J2 again (left 2)
  //   t=4  J1 and J3,2 done; J2 on PE0 (a migration) until 6
  //   t=5  J3,3 on PE1 (5..6);  t=7  J3,4 on PE0 (7..8)
  Scheduler s(takt::policies::builtin_topology("gedf-paws"), ProcessingElements::uniform(2));
  Simulation sim(s, 2, {{"t1", 4, 8, 0}, {"t2", 4, 8, 0}, {"t3", 1, 2, 1}}, 8, false);
  sim.run();
  const std::map<std::string, int> expected = {{"t1,1", 4}, {"t2,1", 6}, {"t3,1", 2},
                                               {"t3,2", 4}, {"t3,3", 6}, {"t3,4", 8}};
  EXPECT_EQ(sim.finish_times(), expected);
  EXPECT_EQ(sim.preemptions(), 2);
  EXPECT_EQ(sim.migrations(), 1);
}

TEST(SimulatedClock, TimeArrivesAsMessagesThroughAReleaseGate) {
  // The jobs of the whole horizon are admitted at once, ahead of their releases; the
  // gate lets each through when a TIME message reaches its release. Same schedule.
  Scheduler s(topology("topology:\n"
                       "  name: gated-gedf\n"
                       "  pipes: {in: one, released: one, ready: one}\n"
                       "  entry: in\n"
                       "  instances:\n"
                       "    gate: {component: release-gate, input: in, output: released}\n"
                       "    order: {component: edf, input: released, output: ready}\n"
                       "  pes: {terminal: ready}\n"),
              ProcessingElements::uniform(2));
  Simulation sim(s, 2, set_a, 12, true);
  sim.run();
  EXPECT_EQ(sim.finish_times(), finish_a);
}
