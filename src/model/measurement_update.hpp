// Writes measured work / span / burdened span into a task-set file's text in place.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace takt::model {

/// New measured values for one task (unset fields stay as they are).
struct MeasurementUpdate {
  std::string task;  ///< the task's name
  std::optional<std::chrono::nanoseconds> work;
  std::optional<std::chrono::nanoseconds> span;
  std::optional<std::chrono::nanoseconds> burdened_span;
};

/// Returns `text` (a task-set file named `source`) with the given measurements
/// written in: an existing `work:` / `span:` / `burdened_span:` value is replaced
/// where it stands; a missing key is added to the task's mapping (a new line
/// indented like the task's other keys, or ", key: value" before the closing brace
/// of a flow mapping, or a new line after its last value when it has one key a line,
/// as pretty-printed JSON). A value is quoted as the value it replaces, a new key as
/// the task's `name` key and a new value as its `period` value, so JSON stays JSON.
/// Every other byte, comments and layout included, is kept.
/// The result is parsed again to check it; throws takt::Error when the text does
/// not parse, a task is unknown, or the new values are invalid (e.g. span > deadline).
std::string update_measurements(std::string_view text, const std::string& source,
                                const std::vector<MeasurementUpdate>& updates);

}  // namespace takt::model
