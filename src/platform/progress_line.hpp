// A progress line on stderr while a run goes on (jobs done, misses so far), or while its
// tasks are initialised, only on a terminal.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace takt::platform {

class ProgressLine {
 public:
  struct Counts {
    std::uint64_t jobs_done = 0;
    std::uint64_t misses = 0;
    std::optional<std::uint64_t> planned;  ///< jobs the run will release, when limited
    /// Due releases not made (overrun "skip"): with the jobs done they add up to `planned`.
    std::uint64_t skipped = 0;
  };
  using Source = std::function<Counts()>;
  /// The whole line, given the time since the ProgressLine was made.
  using Text = std::function<std::string(std::chrono::nanoseconds elapsed)>;

  /// Rewrites one line on `out` every `interval` until destroyed (the first after one
  /// interval, so a phase shorter than that prints nothing). `enabled`: print at all;
  /// by default only when `out` is a terminal; never with a null `out`. The line's thread runs in SCHED_OTHER
  /// whatever its creator's class. With a Source the line is format()'s.
  explicit ProgressLine(Source source, std::FILE* out = stderr, std::optional<bool> enabled = std::nullopt,
                        std::chrono::milliseconds interval = std::chrono::milliseconds(500));
  explicit ProgressLine(Text text, std::FILE* out = stderr, std::optional<bool> enabled = std::nullopt,
                        std::chrono::milliseconds interval = std::chrono::milliseconds(500));
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  [[nodiscard]] bool enabled() const { return enabled_; }
  /// The text of one line, e.g. "takt: 3.5 s, 120 of 400 jobs done, 2 missed (1.67 %)".
  static std::string format(const Counts& counts, std::chrono::nanoseconds elapsed);

 private:
  void loop();

  Text text_;
  std::FILE* out_;
  bool enabled_;
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point started_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool printed_ = false;
  std::thread thread_;
};

}  // namespace takt::platform
