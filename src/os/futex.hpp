// Futex wait and wake on a 32-bit atomic word (process-private).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace takt::os {

/// Blocks while `word` holds `expected`. Returns after a wake, a signal, a spurious
/// wake-up, or at once when the value already differs: callers re-check their condition.
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected);

/// As futex_wait, but gives up after `timeout`. Returns false on timeout.
bool futex_wait_for(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                    std::chrono::nanoseconds timeout);

/// As futex_wait, but gives up when CLOCK_MONOTONIC reaches `deadline`, an absolute
/// time as monotonic_now() reads it (FUTEX_WAIT_BITSET: the same hrtimer as an
/// absolute clock_nanosleep, so a periodic release does not drift, yet another thread
/// can wake it early). Returns false when the deadline has passed.
bool futex_wait_until(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                      std::chrono::nanoseconds deadline);

/// Wakes up to `count` threads blocked on `word`; returns how many were woken.
int futex_wake(std::atomic<std::uint32_t>& word, int count);

/// Wakes every thread blocked on `word`.
int futex_wake_all(std::atomic<std::uint32_t>& word);

}  // namespace takt::os
