// Run metrics as JSON (nlohmann), with units in the key names.
#include "platform/metrics_json.hpp"

#include "os/clock.hpp"
#include "os/diagnostics.hpp"
#include "takt/error.hpp"
#include "takt/version.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <optional>
#include <string_view>

namespace takt::platform {

using std::chrono::nanoseconds;

namespace {

double ms(nanoseconds d) { return static_cast<double>(d.count()) / 1e6; }
double us(nanoseconds d) { return static_cast<double>(d.count()) / 1e3; }

/// The statistics; null where there is no sample (count 0), as the table shows "-":
/// a 0 would read as a perfect response time.
nlohmann::json stats_json(const DurationStats& s, double (*unit)(nanoseconds), bool with_p50) {
  const auto value = [&](nanoseconds d) { return s.count == 0 ? nlohmann::json(nullptr) : nlohmann::json(unit(d)); };
  nlohmann::json j;
  j["count"] = s.count;
  j["min"] = value(s.min);
  j["mean"] = value(s.mean);
  if (with_p50) j["p50"] = value(s.p50);
  j["p99"] = value(s.p99);
  j["max"] = value(s.max);
  return j;
}

}  // namespace

nlohmann::json provenance() {
  std::string date = os::utc_now("%Y-%m-%dT%H:%M:%SZ");
  // NUL-separated arguments, each ended by a NUL.
  nlohmann::json command = nlohmann::json::array();
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  for (std::string argument; std::getline(in, argument, '\0');) command.push_back(argument);
  return {{"takt_version", takt::version}, {"date", std::move(date)}, {"command", std::move(command)}};
}

nlohmann::json benchmark_header(std::string_view benchmark, const nlohmann::json& provenance, bool complete,
                                std::string_view stopped_by) {
  nlohmann::json document{{"benchmark", benchmark}};
  if (provenance.is_object()) document.update(provenance);
  document["complete"] = complete;
  if (!stopped_by.empty()) document["stopped_by"] = stopped_by;
  return document;
}

nlohmann::json benchmark_started(std::string_view benchmark) {
  return benchmark_header(benchmark, provenance(), false);
}

nlohmann::json metrics_to_json(const RunMetrics& m, bool with_jobs) {
  nlohmann::json doc;
  doc["format"] = "takt-run-metrics";
  doc["format_version"] = 1;
  const auto origin = m.run.origin;
  doc["run"] = {
      {"policy", m.run.policy},
      {"overrun", std::string(to_string(m.run.overrun))},
      {"privileges", m.run.privileges},
      {"duration_s", static_cast<double>(m.run.duration().count()) / 1e9},
      {"stopped", m.run.stopped},
      {"abandoned", m.run.abandoned},
      {"stalled", m.run.stalled},
      {"signal", m.run.signal},
      {"error", m.run.error.empty() ? nlohmann::json() : nlohmann::json(m.run.error)},
  };
  doc["totals"] = {{"jobs", m.jobs_total}, {"misses", m.misses_total}, {"miss_ratio", m.miss_ratio}};

  nlohmann::json tasks = nlohmann::json::array();
  for (const auto& t : m.tasks) {
    nlohmann::json j;
    j["name"] = t.name;
    j["period_ms"] = ms(t.period);
    j["deadline_ms"] = ms(t.deadline);
    j["jobs"] = t.jobs;
    j["released"] = t.released;
    j["met"] = t.met;
    j["misses"] = t.misses;
    j["miss_ratio"] = t.miss_ratio;
    j["skipped"] = t.skipped;
    j["late"] = t.late;
    j["failed"] = t.failed;
    j["unfinished"] = t.unfinished;
    j["abandoned"] = t.abandoned;
    j["unknown"] = t.unknown;
    j["response_ms"] = stats_json(t.response, ms, true);
    // null without a finished job (as "-" in the table), not a perfect 0.
    j["mean_relative_response"] =
        t.response.count == 0 ? nlohmann::json(nullptr) : nlohmann::json(t.mean_relative_response);
    j["release_latency_us"] = stats_json(t.release_latency, us, true);
    j["executed_ms"] = stats_json(t.executed, ms, true);
    j["executed_unknown"] = t.executed_unknown;
    j["executed_wall_clock"] = t.executed_wall_clock;
    j["declared_work_ms"] = ms(t.declared_work);
    j["work_ratio"] = t.work_ratio > 0 ? nlohmann::json(t.work_ratio) : nlohmann::json(nullptr);
    j["errors"] = t.errors;
    tasks.push_back(std::move(j));
  }
  doc["tasks"] = std::move(tasks);

  const auto& s = m.system;
  nlohmann::json sys;
  sys["migrations"] = s.migrations;
  sys["thread_migrations"] = s.thread_migrations;
  sys["steals"] = s.steals;
  sys["preemptions"] = s.preemptions;
  sys["strands"] = s.strands;
  sys["context_switches"] = {{"voluntary", s.context_switches.voluntary},
                             {"involuntary", s.context_switches.involuntary}};
  sys["release_latency_us"] = stats_json(s.release_latency, us, true);
  sys["process_cpu_time_ms"] = ms(s.process_cpu_time);
  nlohmann::json cores = nlohmann::json::array();
  for (const auto& c : s.cores) {
    nlohmann::json j{{"cpu", c.cpu}, {"job_time_ms", ms(c.job_time)}};
    j["busy_ms"] = c.busy ? nlohmann::json(ms(*c.busy)) : nlohmann::json(nullptr);
    cores.push_back(std::move(j));
  }
  sys["cores"] = std::move(cores);
  sys["events"] = {
      {"recorded", s.events_recorded}, {"dropped", s.events_dropped}, {"unattached", s.events_unattached}};
  sys["job_errors"] = s.job_errors;
  nlohmann::json threads = nlohmann::json::array();
  for (const auto& t : s.threads) {
    threads.push_back({{"name", t.name},
                       {"cpu", t.cpu},
                       {"closed", t.closed},
                       {"cpu_time_ms", ms(t.cpu_time)},
                       {"voluntary_switches", t.voluntary_switches},
                       {"involuntary_switches", t.involuntary_switches},
                       {"events", t.events},
                       {"dropped", t.dropped}});
  }
  sys["threads"] = std::move(threads);
  doc["system"] = std::move(sys);

  if (with_jobs) {
    nlohmann::json jobs = nlohmann::json::array();
    for (const auto& r : m.jobs) {
      auto rel = [&](nanoseconds t) { return (t - origin).count(); };
      nlohmann::json j;
      j["task"] = m.tasks[r.task].name;
      j["index"] = r.index;
      j["status"] = std::string(to_string(r.status));
      j["release_ns"] = rel(r.release);
      j["eligible_ns"] = rel(r.eligible);
      j["deadline_ns"] = rel(r.deadline);
      j["start_ns"] = r.start ? nlohmann::json(rel(*r.start)) : nlohmann::json(nullptr);
      j["finish_ns"] = r.finish ? nlohmann::json(rel(*r.finish)) : nlohmann::json(nullptr);
      j["response_ns"] = r.response() ? nlohmann::json(r.response()->count()) : nlohmann::json(nullptr);
      j["tardiness_ns"] = r.tardiness() ? nlohmann::json(r.tardiness()->count()) : nlohmann::json(nullptr);
      j["release_latency_ns"] =
          r.release_latency() ? nlohmann::json(r.release_latency()->count()) : nlohmann::json(nullptr);
      j["late"] = r.late;
      j["cpu"] = r.start_cpu;
      j["executed_ns"] = r.executed_known ? nlohmann::json(r.executed.count()) : nlohmann::json(nullptr);
      jobs.push_back(std::move(j));
    }
    doc["jobs"] = std::move(jobs);
  }
  return doc;
}

void write_json_file(const std::filesystem::path& path, const nlohmann::json& document) {
  // A string that is not UTF-8 (a task name from a file in another encoding) is written
  // with U+FFFD in place of its bad bytes instead of losing the whole file.
  write_text_file(path, document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + '\n');
}

namespace {

int write_all(int fd, std::string_view text);

/// While alive, SIGPIPE is blocked in the calling thread: a write to a FIFO or pipe whose
/// reader went away fails with EPIPE, which is reported, instead of the signal ending
/// takt with nothing said and its other outputs unwritten. A SIGPIPE the write raised
/// is taken off before the signal is unblocked. (Standard output keeps the default: a
/// pipeline such as `takt generate ... | head` ends as usual.)
class PipeSignalBlocked {
 public:
  PipeSignalBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    active_ = ::pthread_sigmask(SIG_BLOCK, &pipe_, &before_) == 0 && sigismember(&before_, SIGPIPE) == 0;
  }
  ~PipeSignalBlocked() {
    if (!active_) return;
    sigset_t pending;
    if (::sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
      const timespec now{0, 0};
      while (::sigtimedwait(&pipe_, nullptr, &now) < 0 && errno == EINTR) {
      }
    }
    ::pthread_sigmask(SIG_SETMASK, &before_, nullptr);
  }
  PipeSignalBlocked(const PipeSignalBlocked&) = delete;
  PipeSignalBlocked& operator=(const PipeSignalBlocked&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t before_{};
  bool active_ = false;
};

/// Writes `text` into the FIFO `target` once a process reads it: opened without
/// blocking, again every 10 ms while none does, for at most kFifoReaderWait (a plain
/// open waited for ever, after the run, with the table printed after the file held back).
void write_fifo(const std::filesystem::path& shown, const std::filesystem::path& target, std::string_view text) {
  const auto until = std::chrono::steady_clock::now() + kFifoReaderWait;
  int fd = -1;
  for (;;) {
    fd = ::open(target.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) break;
    if (errno == EINTR) continue;
    if (errno != ENXIO) throw Error(fmt::format("cannot write '{}': {}", shown.string(), std::strerror(errno)));
    if (std::chrono::steady_clock::now() >= until) {
      throw Error(fmt::format("cannot write '{}': it is a FIFO that no process reads (waited {} s); start its "
                              "reader first, or give a plain file",
                              shown.string(), std::chrono::duration_cast<std::chrono::seconds>(kFifoReaderWait).count()));
    }
    const timespec pause{0, 10'000'000};
    ::nanosleep(&pause, nullptr);
  }
  // A reader is there: write as a blocking writer, at the pace it reads.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  int error = 0;
  {
    PipeSignalBlocked guard;
    error = write_all(fd, text);
  }
  ::close(fd);
  if (error != 0) throw Error(fmt::format("writing '{}' failed: {}", shown.string(), std::strerror(error)));
}

/// Writes `text` to `target` in place (a terminal, /dev/stdout, or a file in a folder
/// where no temporary file may be created; a FIFO goes to write_fifo).
void write_in_place(const std::filesystem::path& shown, const std::filesystem::path& target,
                    std::string_view text) {
  PipeSignalBlocked guard;  // a device may be a pipe (/dev/stdout of a pipeline)
  std::ofstream out(target, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw Error(fmt::format("cannot write '{}': {}", shown.string(), std::strerror(errno)));
  }
  errno = 0;
  out << text;
  out.flush();
  if (!out) {
    throw Error(fmt::format("writing '{}' failed: {}", shown.string(),
                            errno != 0 ? std::strerror(errno) : "the stream refused the text"));
  }
}

/// A file that exists but cannot be opened for writing.
Error protected_error(const std::filesystem::path& path, const std::filesystem::path& target, int error) {
  return Error(
      fmt::format("cannot write '{}': {}{}", path.string(), std::strerror(error),
                  error == EACCES || error == EPERM
                      ? fmt::format("; the file is write-protected (make it writable, chmod u+w '{}', "
                                    "or give another path)",
                                    target.string())
                      : std::string()));
}

Error folder_error(const std::filesystem::path& path) {
  return Error(fmt::format("cannot write '{}': it is a folder; give a file name", path.string()));
}

/// Refuses a temporary file `tmp` (for `path`) that is there and is no plain file: a
/// folder left behind, say, which no write could replace, or a symbolic link or a FIFO,
/// which a write would follow or wait on.
void check_temporary(const std::filesystem::path& path, const std::filesystem::path& tmp) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(tmp, ec);
  if (!fs::exists(status) || fs::is_regular_file(status)) return;
  throw Error(fmt::format("cannot write '{}': '{}', where takt writes it first, is {}; remove it",
                          path.string(), tmp.string(),
                          fs::is_directory(status)  ? "a folder"
                          : fs::is_symlink(status) ? "a symbolic link"
                                                   : "not a plain file"));
}

/// Writes all of `text` to `fd`; false (errno set) when a write failed.
/// Writes all of `text`; 0, or the errno of the write that failed (ENOSPC for a write
/// that wrote nothing).
int write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ENOSPC;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

}  // namespace

std::filesystem::path write_target(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  // Followed link by link rather than by weakly_canonical(), which leaves a link to a
  // file not there yet as it is (and the rename would then replace the link).
  constexpr int kMaxLinks = 40;  // Linux's limit on the links of one path
  fs::path target = path;
  for (int links = 0;; ++links) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(target, ec))) return target;
    const fs::path next = fs::read_symlink(target, ec);
    if (ec) return target;
    // A /proc file-descriptor link to what has no path ("pipe:[87400]", "socket:[...]":
    // /dev/stdout of a pipeline, a shell's >(...), which names /dev/fd/63, a link in
    // /dev/fd, itself a link to /proc/self/fd): the link itself opens it.
    if (!next.is_absolute()) {
      if (target.string().rfind("/proc/", 0) == 0) return target;
      std::error_code parent_error;
      const fs::path parent = fs::canonical(target.parent_path(), parent_error);
      if (!parent_error && parent.string().rfind("/proc/", 0) == 0) return target;
    }
    if (links == kMaxLinks) {
      throw Error(fmt::format("cannot write '{}': its symbolic links go round in a loop; point the "
                              "link at a file",
                              path.string()));
    }
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
}

namespace {
/// A file attribute that forbids replacing the file by a rename (so write_text_file()
/// would fail only at the end): its name and chattr's letter for it.
struct Unreplaceable {
  const char* name;
  char letter;
};

/// The file's immutable or append-only attribute (chattr +i, +a), if it has one and its
/// attributes can be read.
std::optional<Unreplaceable> unreplaceable_attribute(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  int flags = 0;
  const bool known = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
  ::close(fd);
  if (!known) return std::nullopt;
  if ((flags & FS_IMMUTABLE_FL) != 0) return Unreplaceable{"immutable", 'i'};
  if ((flags & FS_APPEND_FL) != 0) return Unreplaceable{"append-only", 'a'};
  return std::nullopt;
}

/// Throws where `target` (the file `path` names) is immutable or append-only.
void refuse_unreplaceable(const std::filesystem::path& path, const std::filesystem::path& target) {
  if (const auto attribute = unreplaceable_attribute(target)) {
    throw Error(fmt::format(
        "cannot write '{}': the file is {} (lsattr shows it): takt writes the new file beside it and "
        "renames it into place, which such a file refuses; remove the attribute (chattr -{} '{}') or give "
        "another path",
        path.string(), attribute->name, attribute->letter, target.string()));
  }
}

/// Whether takt may write the file `target` (effective ids and capabilities, as open()
/// decides); errno says why not.
bool may_write(const std::filesystem::path& target) {
  return ::faccessat(AT_FDCWD, target.c_str(), W_OK, AT_EACCESS) == 0;
}
}  // namespace

namespace {
/// 0, 1 or 2 where `path` names takt's standard input, output or error through
/// /proc/self/fd (/dev/stdin, /dev/stdout, /dev/fd/2, /proc/self/fd/1), followed link by
/// link; -1 otherwise.
int standard_descriptor_named(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  const fs::path own_fds = fs::path("/proc") / std::to_string(::getpid()) / "fd";
  fs::path p = path;
  for (int links = 0; links < 40; ++links) {
    std::error_code ec;
    const fs::path parent = fs::canonical(p.has_parent_path() ? p.parent_path() : fs::path("."), ec);
    if (!ec && parent == own_fds && (p.filename() == "0" || p.filename() == "1" || p.filename() == "2")) {
      return p.filename().string()[0] - '0';
    }
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return -1;
    const fs::path next = fs::read_symlink(p, ec);
    if (ec) return -1;
    p = next.is_absolute() ? next : p.parent_path() / next;
  }
  return -1;
}
}  // namespace

void check_writable(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Standard output or error that takt was started without (>&-) holds a read-only
  // /dev/null (cli::run_main): what went there would be lost, or fail only at the end.
  if (const int fd = standard_descriptor_named(path); fd >= 0) {
    const int flags = ::fcntl(fd, F_GETFL);
    // Standard input is read-only as a rule: only one takt was started without counts.
    if (os::started_without(fd) || flags == -1 || (fd != 0 && (flags & O_ACCMODE) == O_RDONLY)) {
      throw Error(fmt::format(
          "cannot write '{}': it is takt's standard {}, which is closed (started with {}{}&-) or not open "
          "for writing; give a file",
          path.string(),
          fd == 0   ? "input"
          : fd == 1 ? "output"
                    : "error",
          fd, fd == 0 ? '<' : '>'));
    }
  }
  const fs::path target = write_target(path);
  const fs::file_status status = fs::status(target, ec);
  if (fs::is_directory(status)) throw folder_error(path);
  // A file of /proc or /sys is a kernel setting, not a place for results: writing the
  // JSON there would change the setting (--json /proc/sys/kernel/hostname renamed the
  // machine). Pipes and terminals reached through /proc/self/fd are not regular files.
  if (struct statfs fs_info{}; fs::is_regular_file(status) && ::statfs(target.c_str(), &fs_info) == 0 &&
                               (fs_info.f_type == PROC_SUPER_MAGIC || fs_info.f_type == SYSFS_MAGIC)) {
    throw Error(
        fmt::format("cannot write '{}': it is a file of the kernel's {} interface, not one to hold "
                    "results (writing it would change a kernel setting); give a path of a file on disk",
                    path.string(), fs_info.f_type == PROC_SUPER_MAGIC ? "/proc" : "/sys"));
  }
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    if (may_write(target)) return;
    throw Error(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
  }
  // The temporary file write_text_file() creates; removed again unless it was there before.
  fs::path tmp = target;
  tmp += ".partial";
  check_temporary(path, tmp);
  int error = 0;  // why the file itself cannot be opened
  if (fs::exists(status)) {
    refuse_unreplaceable(path, target);
    const int fd = ::open(target.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd >= 0) {
      ::close(fd);
      return;
    }
    // Write-protected (or on a read-only file system): refused, as a shell's > refuses
    // it, although a rename through FILE.partial could replace it (until 2026-11-29 it did).
    throw protected_error(path, target, errno);
  }
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const fs::file_status folder_status = fs::status(folder, ec);
  if (!fs::exists(folder_status)) {
    throw Error(
        fmt::format("cannot write '{}': the folder '{}' does not exist; create it or give another path",
                    path.string(), folder.string()));
  }
  if (!fs::is_directory(folder_status)) {
    throw Error(fmt::format("cannot write '{}': '{}' is not a folder; give a path in a folder", path.string(),
                            folder.string()));
  }
  bool created = true;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EEXIST) {
    created = false;  // a plain file (check_temporary): neither followed nor waited on
    fd = ::open(tmp.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  }
  if (fd < 0) {
    if (error == 0) error = errno;
    throw Error(fmt::format("cannot write '{}': {}; check that its folder is writable", path.string(),
                            std::strerror(error)));
  }
  ::close(fd);
  if (created) fs::remove(tmp, ec);
}

std::atomic<void (*)(const std::filesystem::path&)> while_temporary_exists_for_testing{nullptr};

namespace {

/// While alive, the calling thread holds back SIGINT, SIGTERM and SIGHUP that would end
/// the process at once (their default action: no handler installed); one that comes
/// meanwhile takes effect when this ends. A handler's signals are left alone.
class HoldBackDefaultSignals {
 public:
  HoldBackDefaultSignals() {
    sigemptyset(&held_);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      if (::sigaction(sig, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) == 0 &&
          current.sa_handler == SIG_DFL) {
        sigaddset(&held_, sig);
      }
    }
    active_ = ::pthread_sigmask(SIG_BLOCK, &held_, &before_) == 0;
  }
  ~HoldBackDefaultSignals() {
    if (active_) ::pthread_sigmask(SIG_SETMASK, &before_, nullptr);
  }
  HoldBackDefaultSignals(const HoldBackDefaultSignals&) = delete;
  HoldBackDefaultSignals& operator=(const HoldBackDefaultSignals&) = delete;

 private:
  sigset_t held_{};
  sigset_t before_{};
  bool active_ = false;
};

}  // namespace

std::FILE* standard_stream_file(const std::filesystem::path& path) {
  struct stat file {};
  if (::stat(path.c_str(), &file) != 0) return nullptr;
  for (std::FILE* stream : {stdout, stderr}) {
    // A stream takt was started without has /dev/null, read-only, in its place
    // (cli::run_main): `--json /dev/null` is then no write through it.
    const int flags = ::fcntl(::fileno(stream), F_GETFL);
    if (flags == -1 || (flags & O_ACCMODE) == O_RDONLY) continue;
    struct stat s {};
    if (::fstat(::fileno(stream), &s) == 0 && s.st_dev == file.st_dev && s.st_ino == file.st_ino) return stream;
  }
  return nullptr;
}

bool takes_checkpoints(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  if (path.empty()) return false;
  std::error_code ec;
  const fs::path target = write_target(path);
  const fs::file_status status = fs::status(target, ec);
  if (standard_stream_file(target) != nullptr) return false;
  return !fs::exists(status) || fs::is_regular_file(status);
}

void write_text_file(const std::filesystem::path& path, std::string_view text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = write_target(path);
  const fs::file_status status = fs::status(target, ec);
  if (fs::is_directory(status)) throw folder_error(path);
  if (std::FILE* stream = standard_stream_file(target)) {
    // After what the stream holds so far, in its order; no rename (see the header). A
    // pipe's reader that left is an error here too (EPIPE), not the end of takt.
    PipeSignalBlocked guard;
    std::fflush(stream);
    if (std::fwrite(text.data(), 1, text.size(), stream) != text.size() || std::fflush(stream) != 0) {
      throw Error(fmt::format("writing '{}' ({}) failed: {}", path.string(),
                              stream == stdout ? "standard output" : "standard error", std::strerror(errno)));
    }
    return;
  }
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    // A FIFO or a device: nothing to rename into place.
    if (fs::is_fifo(status)) {
      write_fifo(path, target, text);
    } else {
      write_in_place(path, target, text);
    }
    return;
  }
  // A file that is there is replaced with its permissions and owner, as a shell's >
  // keeps them; one it cannot be written is refused (check_writable says the same before
  // a run). One with other names (hard links) is written in place, so that every name
  // reads the new text; so is one whose owner takt cannot give the new file.
  // FILE.partial that is no plain file is refused whether or not it is used, as
  // check_writable refuses it.
  fs::path tmp = target;
  tmp += ".partial";
  check_temporary(path, tmp);
  // From here until the file is in place (renamed, or written in place), a Ctrl-C or kill
  // that would end takt at once (a command without a handler: generate, convert,
  // analyze) waits: it ends takt after the file is written, instead of leaving
  // FILE.partial beside the old FILE, or half a file written in place.
  HoldBackDefaultSignals hold;
  struct stat old {};
  const bool replacing = fs::is_regular_file(status) && ::stat(target.c_str(), &old) == 0;
  if (replacing) {
    refuse_unreplaceable(path, target);
    if (!may_write(target)) throw protected_error(path, target, errno);
    if (old.st_nlink > 1) {
      write_in_place(path, target, text);
      return;
    }
  }
  // A plain file left there (a rename that failed) is removed, not opened: the new one is
  // created afresh (O_EXCL), so no link there is followed, no FIFO waited on, and no other
  // name of the old file (a hard link) truncated.
  int error = 0;
  if (::unlink(tmp.c_str()) != 0 && errno != ENOENT) error = errno;
  int fd = -1;
  if (error == 0) {
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) error = errno;
  }
  if (fd < 0) {
    if (fs::is_regular_file(status) && may_write(target)) {
      write_in_place(path, target, text);  // the file is writable, its folder is not
      return;
    }
    check_temporary(path, tmp);  // put there since the check above
    throw Error(fmt::format("cannot write '{}': {}; check that the folder exists and is writable",
                            path.string(), std::strerror(error)));
  }
  if (replacing) {
    const bool owner_kept =
        (old.st_uid == ::geteuid() && old.st_gid == ::getegid()) || ::fchown(fd, old.st_uid, old.st_gid) == 0;
    if (!owner_kept) {
      ::close(fd);
      ::unlink(tmp.c_str());
      write_in_place(path, target, text);
      return;
    }
    // After fchown, which clears the set-user-ID and set-group-ID bits.
    (void)::fchmod(fd, old.st_mode & 07777);
  }
  if (auto* hook = while_temporary_exists_for_testing.load(std::memory_order_relaxed)) [[unlikely]] hook(tmp);
  error = write_all(fd, text);
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    fs::remove(tmp, ec);
    throw Error(fmt::format("writing '{}' failed: {}{}", path.string(), std::strerror(error),
                            error == EFBIG ? " (the limit on file sizes, ulimit -f)" : ""));
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    throw Error(fmt::format("cannot move '{}' into place as '{}': {}; the complete contents are in '{}'",
                            tmp.string(), path.string(), ec.message(), tmp.string()));
  }
}

}  // namespace takt::platform
