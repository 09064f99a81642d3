// A strand observer that logs every strand event into preallocated per-worker buffers.
#pragma once

#include "takt/runtime/extension.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace takt::profiler {

/// Records the strand events of a pool (ext::StrandObserver) for later analysis: one
/// buffer per worker, each allocated up front for `capacity_per_worker` events, so
/// recording allocates nothing and takes no lock (a worker writes only its own buffer).
/// Events past a full buffer are counted in dropped(), not stored.
///
/// Read the events only after the computations that produced them have finished
/// (Pool::run returned): that is what orders the workers' writes before the reads.
class EventLog final : public ext::StrandObserver {
 public:
  EventLog(std::size_t workers, std::size_t capacity_per_worker);

  void on_event(const ext::StrandEvent& event) noexcept override;

  /// Forgets every event (keeps the buffers).
  void clear() noexcept;
  /// Every event of every worker, worker by worker, each in recording order.
  [[nodiscard]] std::vector<ext::StrandEvent> events() const;
  /// Events that did not fit, and events of a worker beyond the log's `workers`.
  [[nodiscard]] std::uint64_t dropped() const noexcept;

 private:
  struct alignas(64) Buffer {
    std::vector<ext::StrandEvent> events;
    std::size_t size = 0;
    std::uint64_t dropped = 0;
  };
  std::vector<Buffer> buffers_;
  /// Events of workers the log has no buffer for (any thread may add: atomic).
  std::atomic<std::uint64_t> foreign_{0};
};

}  // namespace takt::profiler
