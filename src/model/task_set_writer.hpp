// Writes a TaskSet as a task-set YAML file that parse_task_set reads back unchanged.
#pragma once

#include "model/task_set.hpp"

#include <ostream>
#include <string>

namespace takt::model {

/// Renders `set` as YAML in the layout of docs/task-set-format.md: `global`, then
/// one block per task, segments and DAG nodes in flow style, durations with units
/// (exact: reading the text back gives the same nanoseconds). `header` lines are
/// written first as comments ("# ..."); they may say how the file was made.
std::string write_task_set(const TaskSet& set, const std::string& header = {});

/// Writes each line of `header` as a YAML comment ("# ..."), then an empty line; nothing
/// when `header` is empty.
void write_header_comment(std::ostream& out, const std::string& header);

/// Whether the written form of `global` (YAML here, JSON in takt generate/convert --json)
/// names its `fit`: when it is not the default, and always under partitioned-dm, whose
/// strand placement it chooses.
bool writes_fit(const Global& global);
/// Whether it names its `overrun`: when it is not the default.
bool writes_overrun(const Global& global);

/// A YAML scalar for `text`, quoted only when YAML needs it.
std::string yaml_scalar(const std::string& text);

}  // namespace takt::model
