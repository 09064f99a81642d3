// A task set as JSON (for `takt generate --json` and `takt convert --json`); the parser reads it back.
#pragma once

#include "model/task_set.hpp"

#include <nlohmann/json.hpp>

namespace takt::cli {

/// The task set in the JSON form of the task-set format: the same keys as the YAML,
/// durations as strings with units ("10ms").
nlohmann::ordered_json task_set_json(const model::TaskSet& set);

}  // namespace takt::cli
