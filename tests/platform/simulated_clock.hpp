// A simulated clock for the release engine: time advances only when the engine waits, so timings are exact.
#pragma once

#include "platform/release_clock.hpp"

#include <functional>
#include <queue>
#include <stdexcept>
#include <vector>

namespace takt::platform::testing {

/// Single-threaded discrete-event clock. wait() runs the scheduled actions due
/// before the deadline, in time order (ties: scheduling order), advancing now() to
/// each; it returns as soon as an action changed the waited-on word, or at the
/// deadline. Waiting forever with nothing scheduled is a deadlock: it throws.
class SimulatedClock final : public ReleaseClock {
 public:
  std::chrono::nanoseconds now() override { return now_; }

  void wait(std::atomic<std::uint32_t>& word, std::uint32_t seen,
            std::chrono::nanoseconds deadline) override {
    ++waits_;
    while (word.load() == seen) {
      if (!actions_.empty() && actions_.top().when <= deadline) {
        Action a = actions_.top();
        actions_.pop();
        now_ = std::max(now_, a.when);
        a.run();
        continue;
      }
      if (deadline == std::chrono::nanoseconds::max())
        throw std::logic_error("simulation deadlock: waiting forever");
      now_ = std::max(now_, deadline);
      return;
    }
  }

  void notify(std::atomic<std::uint32_t>&) noexcept override {}

  /// Runs `action` when simulated time reaches `when`.
  void at(std::chrono::nanoseconds when, std::function<void()> action) {
    actions_.push(Action{when, sequence_++, std::move(action)});
  }
  /// Moves time forward (a job running inline on the lane takes time).
  void advance(std::chrono::nanoseconds d) { now_ += d; }
  [[nodiscard]] std::size_t waits() const { return waits_; }

 private:
  struct Action {
    std::chrono::nanoseconds when;
    std::uint64_t sequence;
    std::function<void()> run;
    bool operator>(const Action& o) const { return when != o.when ? when > o.when : sequence > o.sequence; }
  };
  std::chrono::nanoseconds now_{};
  std::uint64_t sequence_ = 0;
  std::size_t waits_ = 0;
  std::priority_queue<Action, std::vector<Action>, std::greater<>> actions_;
};

}  // namespace takt::platform::testing
