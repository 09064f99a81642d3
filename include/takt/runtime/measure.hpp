// Measurement mode (P³LS³ §4.2): run a computation serially to size static memory; and
// calls into deep serial code on a separate large stack.
#pragma once

#include "takt/runtime/config.hpp"
#include "takt/runtime/pool.hpp"

#include <cstddef>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

namespace takt {

/// Limits of the measurement run itself (its stacks are reserved, not touched, so they
/// may be large).
struct MeasureOptions {
  std::size_t max_depth = 4096;
  std::size_t stack_size = 1024 * 1024;
  /// The large stack call_on_large_stack runs its function on (measured apart; 0: on the
  /// strand's stack, counted into peak_stack_bytes).
  std::size_t large_stack_size = 64 * 1024 * 1024;
};

/// What a serial run of a computation needed (§4.2): the depth D and the peak stack use
/// of its strands; recommended() turns them into a pool configuration.
struct Measurement {
  std::size_t depth = 0;              ///< D: deepest strand, the root being 1
  std::size_t peak_stack_bytes = 0;   ///< most stack any strand used (page granularity)
  std::size_t spawns = 0;             ///< strands spawned in the run
  /// Most of the large stack that call_on_large_stack's functions used (0: not called,
  /// or MeasureOptions::large_stack_size = 0, which runs them on the strand's stack).
  std::size_t peak_large_stack_bytes = 0;
  /// depth = max(D, 1); stack_size = peak + `stack_margin` bytes rounded up to whole
  /// pages, at least 16 KiB; large_stack_size likewise from the large-stack peak when
  /// call_on_large_stack was called, else StaticMemory's default.
  [[nodiscard]] StaticMemory recommended(std::size_t stack_margin = 8 * 1024) const;
};

namespace detail {
PoolConfig measuring_config(const MeasureOptions& options);
Measurement measurement_of(Pool& pool);
/// Runs call(arg) on the current worker's large stack (in a measuring pool without one,
/// where it is), with spawns inside made inline; false outside a pool's strand, already
/// inside such a call, or in a pool without a large stack (then the caller runs it
/// where it is).
bool run_on_large_stack(void (*call)(void*), void* arg);
}  // namespace detail

/// Runs f() once on a single worker with every loop split to its grain, and reports the
/// depth and stack it needed: trigger the biggest invocation tree your program can build
/// (worst-case input), then configure pools with measurement.recommended().
template <class F>
Measurement measure(F&& f, const MeasureOptions& options = {}) {
  Pool pool(detail::measuring_config(options));
  pool.run(std::forward<F>(f));
  return detail::measurement_of(pool);
}

/// Calls f() on the worker's large stack (StaticMemory::large_stack_size), for serial code
/// that needs more stack than a strand's coroutine stack. f runs serially: a spawn inside
/// runs inline, on a Scope made inside f or on one of the calling strand's scopes; a
/// sync() of such an outer scope whose continuation was stolen since its last sync (a
/// child may still run on another worker) throws takt::Error (sync it before calling).
/// Outside a pool, or in a pool configured with large_stack_size = 0, f runs where it is
/// (its spawns are ordinary spawns). takt::measure runs f on a large stack of its own
/// (MeasureOptions::large_stack_size) and reports its use apart; given
/// large_stack_size = 0 it runs f on the strand's stack by the rules above (its spawns
/// run inline), so that what is measured is what a pool runs.
template <class F>
decltype(auto) call_on_large_stack(F&& f) {
  using Result = std::invoke_result_t<F&>;
  struct Call {
    std::remove_reference_t<F>* f;  // F is G& for a named callable

    std::optional<std::conditional_t<std::is_void_v<Result>, bool, Result>> result;
    std::exception_ptr error;
    static void invoke(void* arg) noexcept {
      auto* self = static_cast<Call*>(arg);
      try {
        if constexpr (std::is_void_v<Result>) {
          (*self->f)();
          self->result.emplace(true);
        } else {
          self->result.emplace((*self->f)());
        }
      } catch (...) {
        self->error = std::current_exception();
      }
    }
  } call{&f, std::nullopt, nullptr};
  if (!detail::run_on_large_stack(&Call::invoke, &call)) return f();
  if (call.error) std::rethrow_exception(call.error);
  if constexpr (!std::is_void_v<Result>) return Result(std::move(*call.result));
}

}  // namespace takt
