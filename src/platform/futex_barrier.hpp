// A reusable futex barrier for a team of threads (RT-OpenMP §IV.B, §V), optionally spinning before it sleeps.
//
// Generation-counted: each round, the last thread to arrive resets the arrival count
// and advances the generation word, then wakes the sleepers with one futex_wake; the
// others wait for the generation to change, spinning for up to `spin` first, then
// sleeping in futex_wait. RT-OpenMP's dispatcher sleeps at once (spin = 0): its teams
// have more threads than cores, so spinning would steal the cores from the strands.
// No allocation, no lock; any number of rounds (the generation wraps harmlessly).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace takt::platform {

class FutexBarrier {
 public:
  /// `parties` threads meet each round (≥ 1); throws takt::Error for 0.
  explicit FutexBarrier(std::uint32_t parties,
                        std::chrono::nanoseconds spin = std::chrono::nanoseconds::zero());
  FutexBarrier(const FutexBarrier&) = delete;
  FutexBarrier& operator=(const FutexBarrier&) = delete;

  /// Arrives and blocks until all parties of this round have arrived. Returns true in
  /// exactly one thread per round: the last to arrive (the one that released the others).
  bool arrive_and_wait() noexcept;

  [[nodiscard]] std::uint32_t parties() const noexcept { return parties_; }
  [[nodiscard]] std::chrono::nanoseconds spin() const noexcept { return spin_; }
  /// Rounds completed so far (modulo 2^32).
  [[nodiscard]] std::uint32_t generation() const noexcept {
    return generation_.load(std::memory_order_acquire);
  }

 private:
  alignas(64) std::atomic<std::uint32_t> arrived_{0};
  alignas(64) std::atomic<std::uint32_t> generation_{0};
  alignas(64) std::atomic<std::uint32_t> sleepers_{0};
  const std::uint32_t parties_;
  const std::chrono::nanoseconds spin_;
};

}  // namespace takt::platform
