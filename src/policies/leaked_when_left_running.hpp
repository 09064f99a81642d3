// A policy that is leaked, not destroyed, when a job was left running on its threads.
#pragma once

#include "platform/policy.hpp"

#include <memory>
#include <utility>

namespace takt::policies {

/// Forwards every call to `policy`. Destroying it destroys `policy` only when its
/// threads were joined: shutdown() returned true (called on destruction if nobody did).
/// When shutdown() returned false (a job was left running), `policy` is leaked on
/// purpose, a heap block owned by nobody: the threads it left running (the job's, and
/// its pool's workers or its executors after the job) keep using its members (the
/// pool, the work source and yield policy it is, its scheduler, job slots, teams)
/// until the process ends. Every built-in policy's factory returns its policy wrapped.
class LeakedWhenLeftRunning final : public platform::Policy {
 public:
  explicit LeakedWhenLeftRunning(std::unique_ptr<platform::Policy> policy) : policy_(std::move(policy)) {}
  ~LeakedWhenLeftRunning() override {
    if (!shutdown_called_) joined_ = policy_->shutdown();
    if (!joined_) (void)policy_.release();  // leaked on purpose: its threads still use it
  }
  LeakedWhenLeftRunning(const LeakedWhenLeftRunning&) = delete;
  LeakedWhenLeftRunning& operator=(const LeakedWhenLeftRunning&) = delete;

  [[nodiscard]] std::string_view name() const override { return policy_->name(); }
  [[nodiscard]] sched::TopologySpec default_topology() const override { return policy_->default_topology(); }
  platform::RecordingPlan plan(const platform::RunContext& ctx) override { return policy_->plan(ctx); }
  void prepare(platform::RunContext& ctx) override { policy_->prepare(ctx); }
  void run(platform::RunContext& ctx) override { policy_->run(ctx); }
  bool shutdown() override {
    joined_ = policy_->shutdown();
    shutdown_called_ = true;
    return joined_;
  }
  [[nodiscard]] nlohmann::json details() const override { return policy_->details(); }

 private:
  std::unique_ptr<platform::Policy> policy_;
  bool shutdown_called_ = false;
  bool joined_ = false;
};

}  // namespace takt::policies
