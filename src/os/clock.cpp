// Clocks: monotonic time, absolute-time sleeps, thread and process CPU time.
#include "os/clock.hpp"

#include "os/cpu_relax.hpp"

#include <cerrno>
#include <ctime>

namespace takt::os {
namespace {

std::chrono::nanoseconds read(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

}  // namespace

std::chrono::nanoseconds monotonic_now() { return read(CLOCK_MONOTONIC); }

std::string utc_now(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  const std::size_t length = std::strftime(text, sizeof text, format, &utc);
  return std::string(text, length);
}

void sleep_until(std::chrono::nanoseconds when) {
  timespec ts{static_cast<time_t>(when.count() / 1'000'000'000),
              static_cast<long>(when.count() % 1'000'000'000)};
  // With an absolute time, sleeping again after EINTR keeps the same end.
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

std::chrono::nanoseconds thread_cpu_time() { return read(CLOCK_THREAD_CPUTIME_ID); }
std::chrono::nanoseconds process_cpu_time() { return read(CLOCK_PROCESS_CPUTIME_ID); }

void spin_for(std::chrono::nanoseconds duration) {
  auto end = monotonic_now() + duration;
  while (monotonic_now() < end) {
    cpu_relax();
  }
}

}  // namespace takt::os
