// Global EDF's preemption choice at a release (gedf-paws): which worker, if any, to ask to yield.
#include "policies/edf_preemption.hpp"

#include <algorithm>

namespace takt::policies {

WorkerView worker_view(bool running, std::chrono::nanoseconds key, std::int64_t asked) noexcept {
  return WorkerView{running, key, running && asked >= 0 && asked == key.count()};
}

std::optional<std::size_t> edf_preemption_victim(std::span<const WorkerView> workers,
                                                 std::span<std::chrono::nanoseconds> waiting) {
  std::size_t takers = 0;
  std::optional<std::size_t> victim;
  for (std::size_t w = 0; w < workers.size(); ++w) {
    const WorkerView& v = workers[w];
    if (!v.running || v.yield_pending) {
      ++takers;
    } else if (!victim || v.key > workers[*victim].key) {
      victim = w;
    }
  }
  if (!victim || waiting.size() <= takers) return std::nullopt;
  // The takers get the `takers` earliest waiting keys; the next one is left over.
  const auto left_over = waiting.begin() + static_cast<std::ptrdiff_t>(takers);
  std::nth_element(waiting.begin(), left_over, waiting.end());
  if (*left_over < workers[*victim].key) return victim;
  return std::nullopt;
}

}  // namespace takt::policies
