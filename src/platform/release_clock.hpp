// The release engine's time source: CLOCK_MONOTONIC with absolute, wakeable sleeps (or a simulated clock in
// tests).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace takt::platform {

/// What the release engine needs of time. The real clock is monotonic(); tests drive
/// the engine with a simulated clock to get exact, repeatable timings.
class ReleaseClock {
 public:
  virtual ~ReleaseClock() = default;
  /// Now, on the clock's time line (CLOCK_MONOTONIC for the real clock).
  virtual std::chrono::nanoseconds now() = 0;
  /// Blocks until now() reaches `deadline` (an absolute time; nanoseconds::max(): no
  /// deadline) or `word` no longer holds `seen` after a notify(). May return early.
  virtual void wait(std::atomic<std::uint32_t>& word, std::uint32_t seen,
                    std::chrono::nanoseconds deadline) = 0;
  /// Wakes every wait() on `word` (call after changing it). Async-signal-safe for the
  /// real clock.
  virtual void notify(std::atomic<std::uint32_t>& word) noexcept = 0;

  /// CLOCK_MONOTONIC; waits are absolute-time futex waits (os::futex_wait_until).
  static ReleaseClock& monotonic();
};

}  // namespace takt::platform
