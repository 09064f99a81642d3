// Something a signal or another thread can ask to stop: the release engine, a benchmark.
#pragma once

namespace takt::platform {

/// Both functions must be async-signal-safe (atomics and futex wakes only), because
/// SignalStop calls them from a signal handler.
class Stoppable {
 public:
  /// Stop releasing new work; let running work finish.
  virtual void request_stop() noexcept = 0;
  /// Stop waiting for running work.
  virtual void abandon() noexcept = 0;

 protected:
  ~Stoppable() = default;
};

}  // namespace takt::platform
