// Run metrics as JSON (nlohmann), with units in the key names.
#pragma once

#include "platform/metrics.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdio>
#include <chrono>
#include <filesystem>
#include <string_view>

namespace takt::platform {

/// `value` where it was measured (`known`), else null: a JSON value without a
/// measurement is null, not 0 (docs/measurements.md).
inline nlohmann::json json_or_null(bool known, double value) {
  return known ? nlohmann::json(value) : nlohmann::json();
}

/// Where a result file came from, for comparing results over time: `takt_version`,
/// `date` (when this is called, UTC, ISO 8601 to the second: "2026-11-27T16:40:57Z") and
/// `command` (this process's arguments as given, argv[0] first, from /proc/self/cmdline;
/// an empty list where that cannot be read). Every benchmark's JSON and `takt run`'s
/// carry them at the top level.
nlohmann::json provenance();

/// The top of every benchmark's JSON document: `benchmark` (its name), the members of
/// `provenance` (the run's provenance(), taken once when it starts, so that every write
/// of one run says the same; null: none), `complete` (false: written before or while
/// measuring, or a stop ended the measuring early) and, when `stopped_by` is not empty,
/// `stopped_by` (the signal that stopped the run: "SIGINT", "SIGTERM", "SIGHUP").
nlohmann::json benchmark_header(std::string_view benchmark, const nlohmann::json& provenance, bool complete,
                                std::string_view stopped_by = {});

/// The file a benchmark writes before it measures anything (so that a wrong path fails
/// first): benchmark_header() with `complete` false and the provenance() of now.
nlohmann::json benchmark_started(std::string_view benchmark);

/// The metrics document: run, totals, tasks, system and (when `with_jobs`) every job.
/// Job times are nanoseconds relative to the run's origin. Format: docs/measurements.md.
nlohmann::json metrics_to_json(const RunMetrics& metrics, bool with_jobs = true);

/// Writes `text` to `path` through a temporary file (`path` + ".partial") renamed into
/// place, so a reader never sees half a file and a failed write leaves the old file,
/// with the old file's permissions and owner. Exceptions, written in place as a shell's
/// > writes them (a reader may see half of it, a failed write leaves part of it): a file
/// with other names (hard links), and one whose owner this process cannot give the new
/// file. A write-protected file is refused, as > refuses it. A
/// symbolic link stays a link (the file it names, write_target(), is replaced, or
/// created when it is not there yet); a FIFO or a device (/dev/stdout) is written in
/// place, a FIFO once a process reads it (waiting at most kFifoReaderWait for one, then
/// takt::Error saying that none does). The temporary file is created afresh (a plain file left there is
/// removed first), so a link put there is not followed nor a FIFO waited on. Throws takt::Error naming the
/// path; a folder, and a temporary file there that is no plain file (a folder, a link, a FIFO), are refused
/// before anything is written, and if the rename fails the message names the temporary file, which keeps the
/// contents. SIGINT, SIGTERM and SIGHUP that would end the process at once (no handler installed) are held
/// back in the calling thread while the temporary file exists or the file is written in place, so that in a
/// process whose other threads block them too or that has no other threads (takt generate, convert, analyze)
/// they end it once the file is written; a handler's signals are not held back. What is this process's
/// standard output or standard error (a path such as /dev/stdout, or the file itself, with that stream
/// redirected to a file; also a pipe, socket or terminal) is written through the stream, after what was
/// printed to it before: replacing a plain file by a rename would leave the stream writing to the old,
/// unlinked file, whose contents the shell's file no longer holds, and a pipe written
/// through another descriptor would get the text before what the stream still buffers.
void write_text_file(const std::filesystem::path& path, std::string_view text);

/// How long write_text_file waits for a reader of a FIFO.
inline constexpr std::chrono::seconds kFifoReaderWait{10};

/// stdout or stderr when `path` names what that stream writes to (the same file, pipe,
/// socket or device, as fstat sees it), else null.
std::FILE* standard_stream_file(const std::filesystem::path& path);

/// Whether a benchmark may write `path` many times (a document when it starts and after
/// each step, "complete": false, then the last): where write_text_file replaces the
/// file whole, a plain file or none yet. A FIFO, a device, a socket, or what takt's own
/// standard output or error goes to takes what is written after what was there, so it
/// gets the last document only: one JSON document to read, not one per step. False for
/// an empty path (no file asked for).
bool takes_checkpoints(const std::filesystem::path& path);

/// Tests only: called with the temporary file's path after write_text_file() created it.
extern std::atomic<void (*)(const std::filesystem::path&)> while_temporary_exists_for_testing;

/// The file write_text_file() writes for `path`: `path`, or for a symbolic link the file
/// at the end of its links, whether or not that file is there. Throws takt::Error for
/// links that go round in a loop.
std::filesystem::path write_target(const std::filesystem::path& path);

/// Checks, before anything is computed, that write_text_file() could write `path`: throws
/// takt::Error naming the path for a folder, a path whose folder does not exist (or is no
/// folder), a file that is there but cannot be opened for writing (write-protected,
/// immutable or append-only), a new file that cannot be created, and a temporary
/// file (`path` + ".partial") that is no plain file, whether or not `path` is there.
/// Changes nothing: a file it creates to find out is removed again, and an existing file
/// is only opened for appending. A FIFO or a device is checked for write permission only
/// (opening a FIFO without a reader would wait).
void check_writable(const std::filesystem::path& path);

/// write_text_file() of `document`, pretty-printed.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& document);

}  // namespace takt::platform
