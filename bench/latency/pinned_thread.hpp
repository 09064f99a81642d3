// A benchmark thread pinned to one CPU, in SCHED_FIFO at a given priority or in SCHED_OTHER.
#pragma once

#include <functional>
#include <optional>
#include <thread>

namespace takt::bench {

/// Starts `body` on a new thread pinned to `cpu`, in SCHED_FIFO at `fifo_priority` when
/// given (falling back to SCHED_OTHER with one warning), else SCHED_OTHER; its stack is
/// pre-faulted first.
std::thread start_pinned(int cpu, std::optional<int> fifo_priority, std::function<void()> body);

}  // namespace takt::bench
