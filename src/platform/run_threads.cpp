// The threads a policy starts for a run (lanes, executors): joined at the end, or left running when stuck in a job.
#include "platform/run_threads.hpp"

#include "os/clock.hpp"
#include "os/futex.hpp"
#include "os/thread_start.hpp"
#include "platform/release_engine.hpp"

#include <chrono>

namespace takt::platform {

RunThreads::~RunThreads() {
  for (auto& slot : threads_) {
    if (!slot->thread.joinable()) continue;
    if (slot->returned->load(std::memory_order_acquire)) {
      slot->thread.join();
    } else {
      slot->thread.detach();
    }
  }
}

void RunThreads::start(std::function<void()> body) {
  auto slot = std::make_unique<Slot>();
  slot->thread = os::start_thread("a thread of the run", [state = state_, returned = slot->returned, body = std::move(body)] {
    body();
    returned->store(true, std::memory_order_release);
    state->returned.fetch_add(1, std::memory_order_acq_rel);
    os::futex_wake_all(state->returned);
  });
  threads_.push_back(std::move(slot));
}

std::size_t RunThreads::running() const noexcept {
  std::size_t n = 0;
  for (const auto& slot : threads_) n += slot->returned->load(std::memory_order_acquire) ? 0 : 1;
  return n;
}

bool RunThreads::wait(const std::function<bool()>& give_up) {
  for (;;) {
    const std::uint32_t seen = state_->returned.load(std::memory_order_acquire);
    if (seen == threads_.size()) break;
    if (give_up && give_up()) break;
    os::futex_wait_for(state_->returned, seen, std::chrono::milliseconds(20));
  }
  bool all = true;
  for (auto& slot : threads_) {
    if (!slot->thread.joinable()) continue;
    if (slot->returned->load(std::memory_order_acquire)) {
      slot->thread.join();
    } else {
      all = false;
    }
  }
  return all;
}

bool RunThreads::wait_for(std::chrono::nanoseconds limit) {
  const std::chrono::nanoseconds until = os::monotonic_now() + limit;
  return wait([until] { return os::monotonic_now() > until; });
}

bool lanes_returned(const ReleaseEngine* engine, RunThreads& lanes) {
  if (engine != nullptr && engine->started() && engine->jobs_in_flight() > 0) return false;
  return lanes.wait_for(kLaneReturn);
}

}  // namespace takt::platform
