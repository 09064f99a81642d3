// Rebuilds a job's fork-join DAG from strand events recorded on any number of workers.
#include "profiler/dag.hpp"

#include "takt/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

namespace takt::profiler {
namespace {

using Kind = ext::StrandEvent::Kind;
using std::chrono::nanoseconds;

struct Strand {
  bool started = false, ended = false;
  Kind start_kind = Kind::task_begin;
  Kind end_kind = Kind::task_end;
  nanoseconds start{0}, end{0};
  std::uint64_t child = 0;        ///< spawn: the task it spawned
  std::uint64_t scope = 0;        ///< spawn, sync: the scope; joined start: the scope that joined
  std::uint64_t start_scope = 0;  ///< joined: the scope whose children it waited for
};

struct Task {
  std::vector<Strand> strands;
  std::uint64_t parent = 0;
  bool begun = false;
};

[[noreturn]] void broken(const std::string& what) {
  throw Error("the strand events do not form one complete fork-join computation: " + what);
}

bool is_start(Kind k) { return k == Kind::task_begin || k == Kind::resume || k == Kind::joined; }

class Rebuild {
 public:
  Rebuild(std::span<const ext::StrandEvent> events, const Burden& burden) : burden_(burden) {
    for (const ext::StrandEvent& e : events) add(e);
  }

  DagMeasure measure() {
    std::uint64_t root = 0;
    std::size_t roots = 0;
    for (const auto& [id, task] : tasks_) {
      if (!task.begun) broken(fmt::format("task {:#x} has strands but no task_begin", id));
      if (task.parent == 0) {
        root = id;
        ++roots;
      }
    }
    if (roots != 1) broken(fmt::format("{} root tasks (expected 1)", roots));
    Path end = walk(root, Path{});
    result_.span = end.plain;
    result_.burdened_span = end.burdened;
    if (visited_ != tasks_.size()) {
      broken(fmt::format("{} of {} tasks are not reachable from the root", tasks_.size() - visited_,
                         tasks_.size()));
    }
    return result_;
  }

 private:
  struct Path {
    nanoseconds plain{0};
    nanoseconds burdened{0};
  };

  void add(const ext::StrandEvent& e) {
    Task& task = tasks_[e.task];
    if (task.strands.size() <= e.strand) task.strands.resize(e.strand + 1);
    Strand& s = task.strands[e.strand];
    if (is_start(e.kind)) {
      if (s.started) broken(fmt::format("strand {} of task {:#x} starts twice", e.strand, e.task));
      s.started = true;
      s.start_kind = e.kind;
      s.start = e.time;
      if (e.kind == Kind::joined) s.start_scope = e.scope;
      if (e.kind == Kind::task_begin) {
        if (e.strand != 0) broken(fmt::format("task {:#x} begins with strand {}", e.task, e.strand));
        task.begun = true;
        task.parent = e.other;
      }
    } else {
      if (s.ended) broken(fmt::format("strand {} of task {:#x} ends twice", e.strand, e.task));
      s.ended = true;
      s.end_kind = e.kind;
      s.end = e.time;
      s.child = e.other;
      s.scope = e.scope;
    }
  }

  /// Longest paths from the root's start to the end of task `id`, entered with `in`.
  Path walk(std::uint64_t id, Path in) {
    auto it = tasks_.find(id);
    if (it == tasks_.end()) broken(fmt::format("task {:#x} was spawned but never started", id));
    ++visited_;
    const Task& task = it->second;
    std::vector<std::pair<std::uint64_t, Path>> pending;  // per open scope: the children's latest ends
    Path path = in;
    for (std::size_t i = 0; i < task.strands.size(); ++i) {
      const Strand& s = task.strands[i];
      if (!s.started || !s.ended) {
        broken(fmt::format("strand {} of task {:#x} has no {} event", i, id, s.started ? "end" : "start"));
      }
      if (s.start_kind == Kind::resume) {
        path.burdened += burden_.spawn;  // continuation edge
      } else if (s.start_kind == Kind::joined) {
        auto p = std::find_if(pending.begin(), pending.end(),
                              [&](const auto& e) { return e.first == s.start_scope; });
        if (p != pending.end()) {
          path.plain = std::max(path.plain, p->second.plain);
          path.burdened = std::max(path.burdened, p->second.burdened);
          pending.erase(p);
        }
      }
      const nanoseconds length = std::max(nanoseconds{0}, s.end - s.start);
      path.plain += length;
      path.burdened += length;
      result_.strand_work += length;
      result_.longest_strand = std::max(result_.longest_strand, length);
      ++result_.strands;
      if (s.end_kind == Kind::spawn) {
        ++result_.spawns;
        Path child = walk(s.child, path);
        child.burdened += burden_.sync;  // return edge
        auto p =
            std::find_if(pending.begin(), pending.end(), [&](const auto& e) { return e.first == s.scope; });
        if (p == pending.end()) {
          pending.emplace_back(s.scope, child);
        } else {
          p->second.plain = std::max(p->second.plain, child.plain);
          p->second.burdened = std::max(p->second.burdened, child.burdened);
        }
      } else if (s.end_kind == Kind::sync) {
        ++result_.syncs;
      } else if (i + 1 != task.strands.size()) {
        broken(fmt::format("task {:#x} ends at strand {} of {}", id, i, task.strands.size()));
      }
    }
    if (task.strands.empty() || task.strands.back().end_kind != Kind::task_end) {
      broken(fmt::format("task {:#x} has no task_end event", id));
    }
    if (!pending.empty()) broken(fmt::format("task {:#x} ended with children that never joined", id));
    return path;
  }

  Burden burden_;
  std::unordered_map<std::uint64_t, Task> tasks_;
  std::size_t visited_ = 0;
  DagMeasure result_;
};

}  // namespace

DagMeasure measure_dag(std::span<const ext::StrandEvent> events, const Burden& burden) {
  if (events.empty()) broken("there are no events (was the observer installed?)");
  return Rebuild(events, burden).measure();
}

}  // namespace takt::profiler
