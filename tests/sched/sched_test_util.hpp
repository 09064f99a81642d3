// Helpers shared by the scheduling framework's tests: task pools, topologies from text.
#pragma once

#include "sched/scheduler.hpp"
#include "sched/topology_spec.hpp"

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace takt::sched::test {

using namespace std::chrono_literals;

/// Tasks live in a deque: they cannot move, and pipes point at them.
class TaskPool {
 public:
  Task& make(std::uint64_t id, Time deadline = Time{0}, int priority = 0, int cluster = kAny, int pe = kAny,
             Time release = Time{0}) {
    Task& t = tasks_.emplace_back(id);
    t.deadline = deadline;
    t.priority = priority;
    t.cluster = cluster;
    t.pe = pe;
    t.release = release;
    return t;
  }
  Task& operator[](std::size_t i) { return tasks_[i]; }
  std::size_t size() const { return tasks_.size(); }

 private:
  std::deque<Task> tasks_;
};

inline TopologySpec topology(const std::string& yaml) { return parse_topology_text(yaml, "test.yaml"); }

/// Ids of the tasks queued in a pipe, in order.
inline std::vector<std::uint64_t> ids(const std::vector<Task*>& tasks) {
  std::vector<std::uint64_t> out;
  for (const Task* t : tasks) out.push_back(t->id);
  return out;
}

inline std::vector<std::uint64_t> queued_ids(Scheduler& s, const std::string& pipe) {
  return ids(s.queued(pipe));
}

/// Schedules `pe` until it has nothing, exiting every task; the ids in order.
inline std::vector<std::uint64_t> drain(Scheduler& s, int pe) {
  std::vector<std::uint64_t> out;
  while (Task* t = s.schedule(pe)) {
    out.push_back(t->id);
    s.exit(*t);
  }
  return out;
}

/// entry -> one instance of `component` -> terminal, one PE.
inline std::string single_stage(const std::string& component, const std::string& params = "",
                                const std::string& extra_instances = "") {
  return "topology:\n"
         "  name: single\n"
         "  pipes: {in: one, out: one}\n"
         "  entry: in\n"
         "  instances:\n"
         "    stage:\n"
         "      component: " +
         component + "\n" + (params.empty() ? std::string() : "      params: " + params + "\n") +
         "      input: in\n"
         "      output: out\n" +
         extra_instances + "  pes: {terminal: out}\n";
}

}  // namespace takt::sched::test
