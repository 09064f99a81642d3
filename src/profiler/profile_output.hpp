// What takt profile writes: a table, JSON, a task-set update, a program-profiles entry.
#pragma once

#include "model/measurement_update.hpp"
#include "model/program_profile.hpp"
#include "profiler/profile.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace takt::profiler {

/// The values a task set or a profiles file gets: the chosen percentile of each
/// quantity, rounded up to whole microseconds; the span capped at the work (the
/// observed run's timestamps can make a nearly serial job's span exceed its
/// uninstrumented work by a few nanoseconds per strand) and the burdened span at least
/// the span.
struct WrittenValues {
  std::chrono::nanoseconds work{0};
  std::chrono::nanoseconds span{0};
  std::chrono::nanoseconds burdened_span{0};
};
WrittenValues written_values(const ProfileResult& result);

/// The readable report (several lines, ends with a newline).
std::string profile_text(const ProfileResult& result);

/// The JSON document of `takt profile --json` (docs/profiling.md lists the keys).
nlohmann::json profile_json(const ProfileResult& result);

/// The update of task `task` of a task-set file: work, span and burdened span.
model::MeasurementUpdate measurement_update(const ProfileResult& result, std::string task);

/// A program-profiles entry (`takt generate --method rtws --programs FILE`).
model::ProgramProfile program_profile(const ProfileResult& result, std::string name);

/// A default entry name: the program and its arguments joined by '-' ("cholesky-512-32").
std::string default_profile_name(const std::string& program, const std::vector<std::string>& args);
std::string default_profile_name(const ProfileResult& result);

/// The entries of the profiles file at `path`, which update_profiles_file() keeps: none
/// when the file is missing, empty (nothing but white space), or no regular file (a FIFO
/// or a device such as /dev/stdout or /dev/null is not read, as reading it would wait for
/// input or find nothing; the new entry is written into it alone). Throws takt::Error
/// when a regular file does not parse as a profiles file.
std::vector<model::ProgramProfile> existing_profiles(const std::string& path);

/// Adds `entry` to the profiles file at `path` (created when missing), replacing an
/// entry of the same name unless `replace` is false, and keeping the others
/// (existing_profiles()) in their order. The file's header comment is replaced by
/// `header`. Returns false, writing nothing, where an entry of that name is there and
/// `replace` is false. Throws takt::Error when an existing file does not parse or cannot
/// be written.
bool update_profiles_file(const std::string& path, const model::ProgramProfile& entry,
                          const std::string& header, bool replace = true);

}  // namespace takt::profiler
