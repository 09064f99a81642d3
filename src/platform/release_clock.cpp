// The release engine's time source: CLOCK_MONOTONIC with absolute, wakeable sleeps.
#include "platform/release_clock.hpp"

#include "os/clock.hpp"
#include "os/futex.hpp"

namespace takt::platform {
namespace {

class MonotonicClock final : public ReleaseClock {
 public:
  std::chrono::nanoseconds now() override { return os::monotonic_now(); }

  void wait(std::atomic<std::uint32_t>& word, std::uint32_t seen,
            std::chrono::nanoseconds deadline) override {
    if (deadline == std::chrono::nanoseconds::max()) {
      os::futex_wait(word, seen);
    } else {
      os::futex_wait_until(word, seen, deadline);
    }
  }

  void notify(std::atomic<std::uint32_t>& word) noexcept override { os::futex_wake_all(word); }
};

}  // namespace

ReleaseClock& ReleaseClock::monotonic() {
  static MonotonicClock clock;
  return clock;
}

}  // namespace takt::platform
