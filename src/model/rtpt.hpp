// Imports the .rtpt task-set format of the WUSTL federated-scheduling tools.
#pragma once

#include "model/task_set.hpp"

#include <string>
#include <string_view>

namespace takt::model {

/// Parses the text of an .rtpt file:
///   line 1:        first_core last_core
///   per task:      program arg...
///                  work_sec work_ns span_sec span_ns period_sec period_ns
///                  deadline_sec deadline_ns release_sec release_ns iterations
/// into a TaskSet (cores = the CPU list first..last, policy federated, one task per
/// pair of lines named "<program>-<k>", release → offset, the run length as
/// `duration` = the longest iterations × period). A `synthetic_task` line
/// ("synthetic_task S m_1 sec_1 ns_1 ... m_S sec_S ns_S") becomes the built-in
/// `segments` program with that structure. Throws takt::Error with
/// "source:line:column" on malformed lines and on invalid timing (D > T, span > D,
/// work < span, zero period, a synthetic_task whose segments' critical path exceeds
/// D, work Σ m·e or iterations × period above 2^62 ns): what it returns is a valid
/// task set that write_task_set and parse_task_set take unchanged.
TaskSet parse_rtpt(std::string_view text, const std::string& source);

/// Reads the .rtpt file at `path`.
TaskSet parse_rtpt_file(const std::string& path);

}  // namespace takt::model
