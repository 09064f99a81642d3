// The broker topics every scheduler registers, and their message types.
#pragma once

#include "sched/broker.hpp"
#include "sched/task.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace takt::sched {

/// A task event published by the scheduler after the operation (ADMIT, DISPATCH,
/// RELINQUISH, BLOCK, UNBLOCK, EXIT). `pe` is the processing element of a dispatch,
/// otherwise the task's last one.
struct TaskEvent {
  Task* task = nullptr;
  int pe = kAny;
};

/// AFFINITY: notify to change a queued task's cluster / processing element (the
/// affinity annotator stores it, distributors migrate the task); request to read it.
struct AffinityMessage {
  Task* task = nullptr;
  int cluster = kAny;
  int pe = kAny;
};

/// LAMPORT: request the Lamport stamp of a task (the order of admission).
struct LamportMessage {
  const Task* task = nullptr;
  std::uint64_t stamp = 0;
};

/// The number of tasks queued in one pipe.
struct PipeLoad {
  std::string pipe;
  std::size_t tasks = 0;
};

/// STATUS: request pipe loads; `pipe` empty asks for every pipe.
struct StatusMessage {
  std::string pipe;
  std::vector<PipeLoad> loads;
};

/// CPU_STATUS: a processing element came or went.
struct PeEvent {
  int pe = kAny;
  int cluster = kAny;
  bool online = false;
};

/// TIME: the current time on the caller's clock (the framework has none).
struct TimeMessage {
  Time now{0};
};

/// MARKER: a trace point; marker instances record it.
struct MarkerMessage {
  std::string_view label;
};

/// RECONFIGURED: a swap finished (`what` says which).
struct ReconfigurationMessage {
  std::string what;
};

/// Handles of the built-in topics. Every scheduler registers them first, in this
/// order, so the handles are the same constants everywhere (id i has uuid
/// 0x7a6b0001 + i); the scheduler keeps a reference to each for its lifetime.
namespace topics {
inline constexpr Topic<TaskEvent> admit{0, 0x7a6b0001};
inline constexpr Topic<TaskEvent> dispatch{1, 0x7a6b0002};
inline constexpr Topic<TaskEvent> relinquish{2, 0x7a6b0003};
inline constexpr Topic<TaskEvent> block{3, 0x7a6b0004};
inline constexpr Topic<TaskEvent> unblock{4, 0x7a6b0005};
inline constexpr Topic<TaskEvent> exit{5, 0x7a6b0006};
inline constexpr Topic<AffinityMessage> affinity{6, 0x7a6b0007};
inline constexpr Topic<LamportMessage> lamport{7, 0x7a6b0008};
inline constexpr Topic<StatusMessage> status{8, 0x7a6b0009};
inline constexpr Topic<PeEvent> cpu_status{9, 0x7a6b000a};
inline constexpr Topic<TimeMessage> time{10, 0x7a6b000b};
inline constexpr Topic<MarkerMessage> marker{11, 0x7a6b000c};
inline constexpr Topic<ReconfigurationMessage> reconfigured{12, 0x7a6b000d};
}  // namespace topics

/// Registers the built-in topics on an empty broker (ids as in `topics`).
void register_builtin_topics(Broker& broker);

}  // namespace takt::sched
