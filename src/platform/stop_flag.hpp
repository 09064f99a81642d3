// A Stoppable that only raises a flag, and the signal handling around it: for commands that stop
// between measurements.
#pragma once

#include "os/diagnostics.hpp"
#include "platform/signal_stop.hpp"
#include "platform/stoppable.hpp"

#include <fmt/core.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <string_view>
#include <unistd.h>

namespace takt::platform {

/// request_stop() (SignalStop: the first SIGINT/SIGTERM) raises the flag and writes
/// `notice` to stderr at once (write(2) is async-signal-safe), so that a user waiting for
/// the measurement in flight knows the signal came; abandon() (the second) does nothing
/// more: what is in flight cannot be cut short safely. The command asks requested()
/// between measurements, writes what it has measured, and ends by the signal
/// (cli::finish_command).
class StopFlag final : public Stoppable {
 public:
  /// `notice` must outlive the flag (a string literal): e.g. "\ntakt bench cpus:
  /// stopping after the measurement in flight; a third Ctrl-C ends takt at once\n".
  explicit StopFlag(std::string_view notice = {}) noexcept : notice_(notice) {}
  void request_stop() noexcept override {
    requested_.store(true, std::memory_order_relaxed);
    if (!notice_.empty()) (void)!::write(STDERR_FILENO, notice_.data(), notice_.size());
  }
  void abandon() noexcept override {}
  [[nodiscard]] bool requested() const noexcept { return requested_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> requested_{false};
  std::string_view notice_;
};

/// A StopFlag with the (one) SignalStop pointed at it: a command makes one just before
/// its first measurement, asks requested() between measurements, calls measured() before
/// writing its results, and names the signal in its messages.
class StopOnSignal {
 public:
  /// `notice`: as for StopFlag (a string literal).
  explicit StopOnSignal(std::string_view notice) : flag_(notice), signals_(flag_) {}
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
  [[nodiscard]] bool requested() const noexcept { return flag_.requested(); }
  /// "SIGINT", "SIGTERM" or "SIGHUP": the signal that stopped the command (SignalStop::stopping_signal_name).
  [[nodiscard]] std::string signal_name() const { return signals_.stopping_signal_name(); }
  /// Measuring is over: a signal from now on is only counted (SA_RESTART; a third still
  /// ends the process), so that the results are written whole.
  void measured() noexcept { signals_.detach(); }
  /// For a command whose measurement was whole although a signal came (after its last
  /// step): says so on stderr, "takt COMMAND: SIGINT came after the last STEP: OUTCOME";
  /// nothing when no signal came.
  void say_if_it_came_too_late(std::string_view command, std::string_view step, std::string_view outcome) const {
    if (requested()) {
      os::to_stderr("takt {}: {} came after the last {}: {}\n", command, signal_name(), step, outcome);
    }
  }

 private:
  StopFlag flag_;
  SignalStop signals_;
};

}  // namespace takt::platform
