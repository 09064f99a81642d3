// A reusable futex barrier for a team of threads (RT-OpenMP §IV.B, §V), optionally spinning before it sleeps.
#include "platform/futex_barrier.hpp"

#include "os/clock.hpp"
#include "os/futex.hpp"
#include "takt/error.hpp"

namespace takt::platform {
namespace {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

FutexBarrier::FutexBarrier(std::uint32_t parties, std::chrono::nanoseconds spin)
    : parties_(parties), spin_(spin) {
  if (parties == 0) throw Error("a barrier needs at least one party");
}

bool FutexBarrier::arrive_and_wait() noexcept {
  // Read the generation before arriving: it cannot advance until this thread has
  // arrived, so `gen` is this round's.
  const std::uint32_t gen = generation_.load(std::memory_order_acquire);
  if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == parties_) {
    // Last in. Nobody arrives for the next round before seeing the new generation,
    // so resetting the count first is safe; the release below publishes it.
    arrived_.store(0, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_seq_cst);
    // seq_cst pairs with a sleeper's increment: either it sees the new generation in
    // futex_wait (and returns at once) or this load sees it and wakes it.
    if (sleepers_.load(std::memory_order_seq_cst) != 0) os::futex_wake_all(generation_);
    return true;
  }
  if (spin_ > std::chrono::nanoseconds::zero()) {
    const auto until = os::monotonic_now() + spin_;
    unsigned n = 0;
    while (generation_.load(std::memory_order_acquire) == gen) {
      cpu_relax();
      // Reading the clock costs ~20 ns: look at it every 64 pauses.
      if ((++n & 63u) == 0 && os::monotonic_now() >= until) break;
    }
  }
  while (generation_.load(std::memory_order_acquire) == gen) {
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    os::futex_wait(generation_, gen);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }
  return false;
}

}  // namespace takt::platform
