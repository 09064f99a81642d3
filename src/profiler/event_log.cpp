// EventLog: per-worker preallocated strand-event buffers.
#include "profiler/event_log.hpp"

namespace takt::profiler {

EventLog::EventLog(std::size_t workers, std::size_t capacity_per_worker) : buffers_(workers) {
  for (Buffer& b : buffers_) b.events.resize(capacity_per_worker);
}

void EventLog::on_event(const ext::StrandEvent& event) noexcept {
  if (event.worker >= buffers_.size()) {
    foreign_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  Buffer& b = buffers_[event.worker];
  if (b.size < b.events.size()) {
    b.events[b.size++] = event;
  } else {
    ++b.dropped;
  }
}

void EventLog::clear() noexcept {
  for (Buffer& b : buffers_) {
    b.size = 0;
    b.dropped = 0;
  }
  foreign_.store(0, std::memory_order_relaxed);
}

std::vector<ext::StrandEvent> EventLog::events() const {
  std::vector<ext::StrandEvent> all;
  for (const Buffer& b : buffers_) all.insert(all.end(), b.events.begin(), b.events.begin() + b.size);
  return all;
}

std::uint64_t EventLog::dropped() const noexcept {
  std::uint64_t n = foreign_.load(std::memory_order_relaxed);
  for (const Buffer& b : buffers_) n += b.dropped;
  return n;
}

}  // namespace takt::profiler
