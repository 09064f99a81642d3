// Futex wait and wake on a 32-bit atomic word (process-private).
#include "os/futex.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <ctime>

namespace takt::os {
namespace {

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);

long futex(std::atomic<std::uint32_t>& word, int op, std::uint32_t value, const timespec* timeout,
           std::uint32_t value3 = 0) {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), op | FUTEX_PRIVATE_FLAG, value,
                 timeout, nullptr, value3);
}

}  // namespace

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) {
  futex(word, FUTEX_WAIT, expected, nullptr);
}

bool futex_wait_for(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                    std::chrono::nanoseconds timeout) {
  if (timeout.count() <= 0) return word.load(std::memory_order_acquire) != expected;
  timespec ts{static_cast<time_t>(timeout.count() / 1'000'000'000),
              static_cast<long>(timeout.count() % 1'000'000'000)};
  long rc = futex(word, FUTEX_WAIT, expected, &ts);
  return !(rc == -1 && errno == ETIMEDOUT);
}

bool futex_wait_until(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                      std::chrono::nanoseconds deadline) {
  if (deadline.count() < 0) return false;
  timespec ts{static_cast<time_t>(deadline.count() / 1'000'000'000),
              static_cast<long>(deadline.count() % 1'000'000'000)};
  // FUTEX_WAIT_BITSET takes an absolute timeout, on CLOCK_MONOTONIC unless
  // FUTEX_CLOCK_REALTIME is given.
  long rc = futex(word, FUTEX_WAIT_BITSET, expected, &ts, FUTEX_BITSET_MATCH_ANY);
  return !(rc == -1 && errno == ETIMEDOUT);
}

int futex_wake(std::atomic<std::uint32_t>& word, int count) {
  long rc = futex(word, FUTEX_WAKE, static_cast<std::uint32_t>(count), nullptr);
  return rc < 0 ? 0 : static_cast<int>(rc);
}

int futex_wake_all(std::atomic<std::uint32_t>& word) { return futex_wake(word, INT_MAX); }

}  // namespace takt::os
