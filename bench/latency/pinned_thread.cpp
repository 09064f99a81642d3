// A benchmark thread pinned to one CPU, in SCHED_FIFO at a given priority or in SCHED_OTHER.
#include "bench/latency/pinned_thread.hpp"

#include "os/cpu.hpp"
#include "os/realtime.hpp"

namespace takt::bench {

std::thread start_pinned(int cpu, std::optional<int> fifo_priority, std::function<void()> body) {
  return std::thread([cpu, fifo_priority, body = std::move(body)] {
    os::pin_current_thread(os::CpuSet({cpu}));
    if (fifo_priority) {
      os::set_fifo(*fifo_priority);
    } else {
      os::set_other();
    }
    os::prefault_stack(64 * 1024);
    body();
  });
}

}  // namespace takt::bench
