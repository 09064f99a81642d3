// Power management: hold CPU wake-up latency low while real-time work runs (PM QoS).
#include "os/power.hpp"

#include "os/diagnostics.hpp"
#include "os/realtime.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace takt::os {

namespace {
constexpr const char* pm_qos_device = "/dev/cpu_dma_latency";
}

WakeupLatencyRequest::WakeupLatencyRequest(std::chrono::microseconds max_latency)
    : max_latency_(max_latency) {
  if (realtime_forced_off()) {
    why_not_ = "not requested: TAKT_NO_RT is set";
    return;
  }
  int fd = open(pm_qos_device, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    why_not_ = fmt::format("cannot open {} ({})", pm_qos_device, std::strerror(errno));
    warn_once("pm_qos",
              fmt::format("{}: idle CPUs may wake slowly for releases. Run as root to let takt hold "
                          "the CPU wake-up latency low",
                          why_not_));
    return;
  }
  // The kernel keeps the request while the file stays open; the value is a binary s32 in µs.
  const std::int32_t value = static_cast<std::int32_t>(max_latency.count());
  const ssize_t written = write(fd, &value, sizeof value);
  if (written != static_cast<ssize_t>(sizeof value)) {
    // A short write sets no errno: say what was written instead of a stale one.
    why_not_ = written < 0 ? fmt::format("cannot write {} ({})", pm_qos_device, std::strerror(errno))
                           : fmt::format("cannot write {} ({} of {} bytes written)", pm_qos_device, written,
                                         sizeof value);
    warn_once("pm_qos", fmt::format("{}: idle CPUs may wake slowly for releases", why_not_));
    close(fd);
    return;
  }
  fd_ = fd;
}

WakeupLatencyRequest::~WakeupLatencyRequest() {
  if (fd_ >= 0) close(fd_);
}

std::string WakeupLatencyRequest::summary() const {
  if (active())
    return fmt::format("CPU wake-up latency held at {} us (PM QoS, {})", max_latency_.count(), pm_qos_device);
  return "CPU wake-up latency not held: " + why_not_;
}

}  // namespace takt::os
