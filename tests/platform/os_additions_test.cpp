// Tests of the os/ additions the platform needs: absolute wakeable futex waits and the PM QoS wake-up latency
// request.
#include "os/clock.hpp"
#include "os/futex.hpp"
#include "os/power.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <thread>

using namespace std::chrono_literals;

TEST(FutexWaitUntil, TimesOutAtTheAbsoluteDeadline) {
  std::atomic<std::uint32_t> word{3};
  const auto deadline = takt::os::monotonic_now() + 3ms;
  EXPECT_FALSE(takt::os::futex_wait_until(word, 3, deadline));
  EXPECT_GE(takt::os::monotonic_now(), deadline) << "never returns before the deadline on a timeout";
  // A deadline in the past, or a value that already differs, returns at once.
  const auto t0 = takt::os::monotonic_now();
  EXPECT_FALSE(takt::os::futex_wait_until(word, 3, t0 - 1s));
  EXPECT_TRUE(takt::os::futex_wait_until(word, 4, t0 + 10s));
  EXPECT_LT(takt::os::monotonic_now() - t0, 1s);
}

TEST(FutexWaitUntil, AWakeEndsTheWaitEarly) {
  std::atomic<std::uint32_t> word{0};
  std::atomic<bool> woken{false};
  const auto t0 = takt::os::monotonic_now();
  std::thread waiter([&] {
    while (word.load() == 0) takt::os::futex_wait_until(word, 0, t0 + 30s);
    woken = true;
  });
  std::this_thread::sleep_for(5ms);
  word.store(1);
  takt::os::futex_wake_all(word);
  waiter.join();
  EXPECT_TRUE(woken.load());
  EXPECT_LT(takt::os::monotonic_now() - t0, 10s) << "woken, not timed out";
}

TEST(WakeupLatencyRequest, HeldWhilePrivilegedOffWithNoRt) {
  {
    setenv("TAKT_NO_RT", "1", 1);
    takt::os::WakeupLatencyRequest off;
    unsetenv("TAKT_NO_RT");
    EXPECT_FALSE(off.active());
    EXPECT_NE(off.summary().find("TAKT_NO_RT"), std::string::npos) << off.summary();
  }
  takt::os::WakeupLatencyRequest request(0us);
  if (!request.active()) GTEST_SKIP() << request.summary();
  // While held, the kernel's aggregated target reads 0 µs (binary s32).
  std::ifstream in("/dev/cpu_dma_latency", std::ios::binary);
  std::int32_t value = -1;
  in.read(reinterpret_cast<char*>(&value), sizeof value);
  EXPECT_EQ(value, 0);
  EXPECT_NE(request.summary().find("held at 0 us"), std::string::npos);
}
