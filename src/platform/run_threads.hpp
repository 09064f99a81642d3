// The threads a policy starts for a run (lanes, executors): joined at the end, or left running when stuck in a job.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace takt::platform {

class ReleaseEngine;

/// How long a policy's shutdown() waits for a release lane the run gave up on to return
/// (the engine has stopped: a lane out of a job skips the releases due and returns).
inline constexpr std::chrono::nanoseconds kLaneReturn = std::chrono::seconds(2);

class RunThreads {
 public:
  RunThreads() = default;
  RunThreads(const RunThreads&) = delete;
  RunThreads& operator=(const RunThreads&) = delete;
  /// Joins the threads that have returned and detaches the others.
  ~RunThreads();

  /// Starts a thread running `body`. An exception escaping `body` ends the process
  /// (bodies catch what they can recover from).
  void start(std::function<void()> body);
  /// Waits until every thread has returned, checking `give_up` every 20 ms; when it
  /// says so, stops waiting for the threads still running and returns false. Joins
  /// those that returned.
  bool wait(const std::function<bool()>& give_up);
  /// wait() for at most `limit`: a policy's shutdown() joins the lanes the run gave up
  /// on once the release engine has stopped (they return at once then).
  bool wait_for(std::chrono::nanoseconds limit);
  [[nodiscard]] std::size_t size() const noexcept { return threads_.size(); }
  /// Threads still running.
  [[nodiscard]] std::size_t running() const noexcept;

 private:
  // Shared with the thread, so that a thread left running may still finish safely.
  struct State {
    std::atomic<std::uint32_t> returned{0};
  };
  struct Slot {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> returned = std::make_shared<std::atomic<bool>>(false);
  };
  std::vector<std::unique_ptr<Slot>> threads_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

/// What every policy's shutdown() checks before it frees what its lanes use: no job of
/// `engine` (null: none was made) is in flight, since a lane inside a job is left
/// running, and every lane returns within kLaneReturn (a lane the run gave up on returns
/// at once once the engine has stopped). True when all lanes are joined; false when the
/// policy must leave its threads running (and leak what they use).
bool lanes_returned(const ReleaseEngine* engine, RunThreads& lanes);

}  // namespace takt::platform
