// Reads and strictly validates a task-set file (YAML or JSON) into a TaskSet.
#pragma once

#include "model/task_set.hpp"

#include <string>
#include <string_view>

namespace takt::model {

/// Reads the task-set file at `path` (YAML; JSON works too, it parses as YAML).
/// Throws takt::Error with "path:line:column: what is wrong; what to change" for
/// syntax errors, unknown or missing keys, bad units, non-positive periods, D > T,
/// span > deadline, work < span, cyclic DAGs, duplicate task names, ...
/// The format is described in docs/task-set-format.md.
TaskSet parse_task_set_file(const std::string& path);

/// The same for text already in memory; `source` names it in messages.
TaskSet parse_task_set(std::string_view text, const std::string& source = "<string>");

}  // namespace takt::model
