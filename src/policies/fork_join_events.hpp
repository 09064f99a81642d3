// How many events a job records when it runs as a fork-join computation on a pool (for sizing the recorder).
#pragma once

#include "model/task.hpp"

#include <cstddef>

namespace takt::policies {

/// Release, start and finish, plus the strand events of the job: for a task with
/// `segments:` (the built-in `segments` program splits every segment down to single
/// strands) about six per strand (spawn, task begin and end, resume, sync, joined),
/// and for any other program a budget of 512 (a fine-grained program records more,
/// and the recorder counts what it drops).
inline std::size_t fork_join_events(const model::Task& task) {
  if (task.segments.empty()) return 3 + 512;
  std::size_t strands = 0;
  for (const auto& s : task.segments) strands += static_cast<std::size_t>(s.strands);
  return 3 + 6 * strands + 4 * task.segments.size();
}

}  // namespace takt::policies
