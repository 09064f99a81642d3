// Power management: hold CPU wake-up latency low while real-time work runs (PM QoS).
#pragma once

#include <chrono>
#include <string>

namespace takt::os {

/// While alive, asks the kernel to keep every CPU's wake-up latency at or below
/// `max_latency` (PM QoS through /dev/cpu_dma_latency): idle CPUs then stay in shallow
/// idle states, so a release or a futex wake reaches a sleeping thread quickly. This
/// is what cyclictest does by default. Without the privilege (the file is root's) the
/// request is inactive and warns once; with TAKT_NO_RT it is not made, without a
/// warning (summary() says why); the run goes on either way.
class WakeupLatencyRequest {
 public:
  explicit WakeupLatencyRequest(std::chrono::microseconds max_latency = std::chrono::microseconds(0));
  ~WakeupLatencyRequest();
  WakeupLatencyRequest(const WakeupLatencyRequest&) = delete;
  WakeupLatencyRequest& operator=(const WakeupLatencyRequest&) = delete;

  [[nodiscard]] bool active() const { return fd_ >= 0; }
  [[nodiscard]] std::chrono::microseconds max_latency() const { return max_latency_; }
  /// One line for reports: "CPU wake-up latency held at 0 us (PM QoS)" or why not.
  [[nodiscard]] std::string summary() const;

 private:
  int fd_ = -1;
  std::chrono::microseconds max_latency_;
  std::string why_not_;
};

}  // namespace takt::os
