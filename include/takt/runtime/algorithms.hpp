// parallel_for and parallel_reduce on top of spawn/sync, with lazy binary splitting.
#pragma once

#include "takt/runtime/scope.hpp"

#include <concepts>
#include <optional>
#include <type_traits>
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

/// Index arithmetic in the unsigned type of the same width: end - begin of a signed range
/// wider than the type's maximum (INT_MIN..INT_MAX) does not fit in the type itself.
/// Conversions to and from the unsigned type are modular (C++20), so the distance of
/// begin < end is exact and begin + n (n <= the distance) lands inside the range.
template <class Index>
using Distance = std::make_unsigned_t<Index>;

template <class Index>
Distance<Index> distance(Index begin, Index end) noexcept {
  return static_cast<Distance<Index>>(static_cast<Distance<Index>>(end) -
                                      static_cast<Distance<Index>>(begin));
}

template <class Index>
Index advance(Index begin, Distance<Index> n) noexcept {
  return static_cast<Index>(static_cast<Distance<Index>>(static_cast<Distance<Index>>(begin) + n));
}

template <class Index, class Body>
void for_range(Index begin, Index end, Distance<Index> grain, Body& body) {
  using D = Distance<Index>;
  Scope scope;
  Block* self = ScopeAccess::block(scope);
  if (self != nullptr) {
    while (distance(begin, end) > grain) {
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
        D stride = 1;
        while (top.load(std::memory_order_relaxed) < bottom.load(std::memory_order_relaxed)) {
          D left = static_cast<D>(distance(begin, end) / grain);
          D run = stride < left / 16 ? stride : (left / 16 > 0 ? static_cast<D>(left / 16) : D(1));
          for (Index stop = advance(begin, static_cast<D>(run * grain)); begin < stop; ++begin) body(begin);
          if (distance(begin, end) <= grain) break;
          if (stride < 16) stride = static_cast<D>(stride * 2);
        }
        if (distance(begin, end) <= grain) break;
      }
      Index middle = advance(begin, static_cast<D>(distance(begin, end) / 2));
      scope.spawn([begin, middle, grain, &body] { for_range(begin, middle, grain, body); });
      begin = middle;
    }
  }
  for (; begin < end; ++begin) body(begin);
  scope.sync();
}

template <class Index, class T, class Body, class Combine>
T reduce_range(Index begin, Index end, Distance<Index> grain, const T& identity, T partial, Body& body,
               Combine& combine) {
  Block* self = current_block();
  while (self != nullptr && distance(begin, end) > grain) {
    if (split_wanted(self)) {
      Index middle = advance(begin, static_cast<Distance<Index>>(distance(begin, end) / 2));
      std::optional<T> left;
      Scope scope;
      scope.spawn([&] { left.emplace(reduce_range(begin, middle, grain, identity, identity, body, combine)); });
      T right = reduce_range(middle, end, grain, identity, identity, body, combine);
      scope.sync();
      return combine(combine(std::move(partial), std::move(*left)), std::move(right));
    }
    Index stop = advance(begin, grain);
    partial = body(begin, stop, std::move(partial));
    begin = stop;
  }
  return body(begin, end, std::move(partial));
}

}  // namespace detail

/// An integer type other than bool: the index types of parallel_for and parallel_reduce.
template <class Index>
concept LoopIndex = std::integral<Index> && !std::same_as<Index, bool>;

/// Calls body(i) for every i in [begin, end), in parallel; iterations are handed out in
/// chunks of at least `grain` (grain < 1 counts as 1). Index is an integer type; any
/// range of it works, also one wider than its maximum (INT_MIN..INT_MAX). Returns when
/// all have run; rethrows the first exception of a body.
template <LoopIndex Index, class Body>
void parallel_for(Index begin, Index end, Index grain, Body&& body) {
  if (!(begin < end)) return;
  if (grain < Index(1)) grain = Index(1);
  detail::for_range(begin, end, static_cast<detail::Distance<Index>>(grain), body);
}

/// Reduces [begin, end) in parallel: body(first, last, partial) folds the indices
/// [first, last) into `partial` and returns it; combine(a, b) joins two partial results
/// of adjacent ranges (a before b). `identity` starts every partial result. combine must
/// be associative; it need not be commutative. Index is an integer type, as for
/// parallel_for.
template <LoopIndex Index, class T, class Body, class Combine>
T parallel_reduce(Index begin, Index end, Index grain, T identity, Body&& body, Combine&& combine) {
  if (!(begin < end)) return identity;
  if (grain < Index(1)) grain = Index(1);
  return detail::reduce_range(begin, end, static_cast<detail::Distance<Index>>(grain), identity, identity,
                              body, combine);
}

}  // namespace takt
