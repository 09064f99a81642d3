// SIGINT / SIGTERM / SIGHUP handling: the first signal stops releasing, the second abandons running jobs.
#pragma once

#include "platform/stoppable.hpp"

#include <string>

namespace takt::platform {

/// While alive, SIGINT, SIGTERM and SIGHUP call target.request_stop() (first signal) and
/// target.abandon() (second); a third restores the default action and re-raises, so
/// a user can always get out. The handler only touches atomics and futexes. One
/// SignalStop may be alive at a time (constructing a second throws takt::Error saying
/// what to change); the previous handlers come back on destruction. A signal that was
/// ignored (SIG_IGN) when the SignalStop was made stays ignored, as a shell's background
/// job expects.
///
/// Without a target (constructed without one, or after detach()) the signals are
/// counted and nothing else happens, except that the third still ends the process:
/// run_task_set() detaches its SignalStop when the run ends and keeps it until the
/// results are written, so that a second Ctrl-C soon after the first does not kill the
/// process while it writes them; a signal that came then and that no target got is
/// reported (signal_since_detach(), RunResult::signal_after_run), never dropped. A
/// target attached after signals came gets them at once (request_stop(), and abandon()
/// after two).
class SignalStop {
 public:
  /// Installs the handlers without a target. Throws takt::Error if another SignalStop
  /// is alive.
  SignalStop();
  explicit SignalStop(Stoppable& target);
  ~SignalStop();
  SignalStop(const SignalStop&) = delete;
  SignalStop& operator=(const SignalStop&) = delete;

  /// Signals now go to `target` (one at a time; replaces none: detach() first).
  void attach(Stoppable& target);
  /// Signals are only counted again (and the handlers restart interrupted system calls,
  /// SA_RESTART, so that writing the results to a full pipe does not fail with EINTR);
  /// returns when no handler uses the old target.
  void detach() noexcept;
  /// The handlers that were there before come back now (the destructor does it too);
  /// a signal from then on is theirs.
  void restore_handlers() noexcept;

  /// Signals received while this object was alive.
  [[nodiscard]] int signals_received() const noexcept;
  /// The last signal number received, 0 if none.
  [[nodiscard]] int last_signal() const noexcept;
  /// "SIGINT", "SIGTERM" or "SIGHUP": the signal that stops the command, the first one handled
  /// (the one cli::finish_command ends the process by), else the last one received.
  [[nodiscard]] std::string stopping_signal_name() const;
  /// The last signal received since the first detach() after the last attach(), 0 if none
  /// came (or no target was detached): a signal no target got. run_task_set() reports it
  /// as RunResult::signal_after_run.
  [[nodiscard]] int signal_since_detach() const noexcept;

 private:
  static void install(bool restart);
};

/// SignalStop::attach(target) for a scope: detach() when the scope ends, however it ends
/// (an exception too), so that no handler is left pointing at a target that is gone.
class ScopedAttach {
 public:
  ScopedAttach(SignalStop& signals, Stoppable& target) : signals_(signals) { signals_.attach(target); }
  ~ScopedAttach() { signals_.detach(); }
  ScopedAttach(const ScopedAttach&) = delete;
  ScopedAttach& operator=(const ScopedAttach&) = delete;

 private:
  SignalStop& signals_;
};

/// "SIGINT", "SIGTERM", "SIGHUP" (the signals SignalStop handles), else "signal N": for messages.
std::string signal_name(int sig);

/// The first SIGINT, SIGTERM or SIGHUP that a SignalStop of this process handled, 0 if none: a
/// command that was stopped by one writes its results and then ends by it
/// (end_by_signal), as a shell expects of an interrupted program.
int first_handled_signal() noexcept;

/// signal_name(first_handled_signal()), or "" when no SignalStop handled a signal: a
/// benchmark's `stopped_by`.
std::string first_handled_signal_name();

/// Ends the process by `sig`'s default action (SIGINT, SIGTERM, SIGHUP: terminate), so that the
/// parent sees a process killed by that signal (a shell: status 128 + sig; bash then
/// stops a script that ran it, which it does not for a program that exits normally).
/// Flush what must be written first.
[[noreturn]] void end_by_signal(int sig) noexcept;

}  // namespace takt::platform
