// SIGINT / SIGTERM handling: the first signal stops releasing, the second abandons running jobs.
#pragma once

#include "platform/stoppable.hpp"

namespace takt::platform {

/// While alive, SIGINT and SIGTERM call target.request_stop() (first signal) and
/// target.abandon() (second); a third restores the default action and re-raises, so
/// a user can always get out. The handler only touches atomics and futexes. One
/// SignalStop may be alive at a time (constructing a second throws takt::Error saying
/// what to change); the previous handlers come back on destruction.
class SignalStop {
 public:
  explicit SignalStop(Stoppable& target);
  ~SignalStop();
  SignalStop(const SignalStop&) = delete;
  SignalStop& operator=(const SignalStop&) = delete;

  /// Signals received while this object was alive.
  [[nodiscard]] int signals_received() const noexcept;
  /// The last signal number received, 0 if none.
  [[nodiscard]] int last_signal() const noexcept;
};

}  // namespace takt::platform
