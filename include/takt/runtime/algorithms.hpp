// parallel_for and parallel_reduce on top of spawn/sync, with lazy binary splitting.
#pragma once

#include "takt/runtime/scope.hpp"

#include <optional>
#include <utility>

namespace takt {

namespace detail {

struct ScopeAccess {
  static Block* block(const Scope& scope) noexcept { return scope.self_; }
};

/// Lazy binary splitting: a loop exposes half of its remaining range only while its
/// worker has nothing stealable (the deque is empty), so an undisturbed loop spawns
/// O(log n) times and each steal adds O(log n) splits. In measurement mode every loop
/// splits down to the grain: the largest invocation tree, as §4.2 requires.
inline bool split_wanted(const Block* self) noexcept {
  const WorkerHead* worker = self->worker;
  return worker->measuring || worker->level_top->load(std::memory_order_relaxed) >=
                                  worker->level_bottom->load(std::memory_order_relaxed);
}

template <class Index, class Body>
void for_range(Index begin, Index end, Index grain, Body& body) {
  Scope scope;
  Block* self = ScopeAccess::block(scope);
  if (self != nullptr) {
    while (end - begin > grain) {
      // Both ends are read at every check: for a deque only thieves move the top between
      // two splits, but for centralized_greedy the "top" is a constant 0 and the "bottom"
      // is the queue's size, which any worker changes. (If body itself spawns, the strand
      // may move to another worker and this reads the old worker's deque until the next
      // split: it only delays a split.)
      const WorkerHead* worker = self->worker;
      if (!worker->measuring) {
        const std::atomic<std::int64_t>& top = *worker->level_top;
        const std::atomic<std::int64_t>& bottom = *worker->level_bottom;
        // While nothing is stolen, look again only after 1, 2, 4, ... up to 16 grains, and
        // never after more than a sixteenth of what is left: a thief that just took this
        // strand's continuation finds new work soon, and a tiny body is not dominated by
        // the check.
        Index stride = 1;
        while (top.load(std::memory_order_relaxed) < bottom.load(std::memory_order_relaxed)) {
          Index left = (end - begin) / grain;
          Index run = stride < left / 16 ? stride : (left / 16 > 0 ? left / 16 : Index(1));
          for (Index stop = begin + run * grain; begin < stop; ++begin) body(begin);
          if (end - begin <= grain) break;
          if (stride < 16) stride = stride * 2;
        }
        if (end - begin <= grain) break;
      }
      Index middle = begin + (end - begin) / 2;
      scope.spawn([begin, middle, grain, &body] { for_range(begin, middle, grain, body); });
      begin = middle;
    }
  }
  for (; begin < end; ++begin) body(begin);
  scope.sync();
}

template <class Index, class T, class Body, class Combine>
T reduce_range(Index begin, Index end, Index grain, const T& identity, T partial, Body& body,
               Combine& combine) {
  Block* self = current_block();
  while (self != nullptr && end - begin > grain) {
    if (split_wanted(self)) {
      Index middle = begin + (end - begin) / 2;
      std::optional<T> left;
      Scope scope;
      scope.spawn([&] { left.emplace(reduce_range(begin, middle, grain, identity, identity, body, combine)); });
      T right = reduce_range(middle, end, grain, identity, identity, body, combine);
      scope.sync();
      return combine(combine(std::move(partial), std::move(*left)), std::move(right));
    }
    Index stop = begin + grain;
    partial = body(begin, stop, std::move(partial));
    begin = stop;
  }
  return body(begin, end, std::move(partial));
}

}  // namespace detail

/// Calls body(i) for every i in [begin, end), in parallel; iterations are handed out in
/// chunks of at least `grain` (grain < 1 counts as 1). Returns when all have run;
/// rethrows the first exception of a body.
template <class Index, class Body>
void parallel_for(Index begin, Index end, Index grain, Body&& body) {
  if (!(begin < end)) return;
  if (grain < Index(1)) grain = Index(1);
  detail::for_range(begin, end, grain, body);
}

/// Reduces [begin, end) in parallel: body(first, last, partial) folds the indices
/// [first, last) into `partial` and returns it; combine(a, b) joins two partial results
/// of adjacent ranges (a before b). `identity` starts every partial result. combine must
/// be associative; it need not be commutative.
template <class Index, class T, class Body, class Combine>
T parallel_reduce(Index begin, Index end, Index grain, T identity, Body&& body, Combine&& combine) {
  if (!(begin < end)) return identity;
  if (grain < Index(1)) grain = Index(1);
  return detail::reduce_range(begin, end, grain, identity, identity, body, combine);
}

}  // namespace takt
