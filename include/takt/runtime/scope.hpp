// Nested fork-join: a Scope spawns children and syncs them (Cilk's spawn/sync), fork_join.
#pragma once

#include "takt/runtime/detail/block.hpp"

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace takt {

namespace detail {
struct ScopeAccess;
struct ScopeState;
template <class F>
void child_entry(Block* self, void* closure);
}  // namespace detail

/// The spawn/sync region of one strand. spawn(f) runs f as a child that may execute in
/// parallel with the rest of the strand (the continuation); sync() waits until every
/// child spawned in this scope has finished and rethrows the first exception one of them
/// threw. The destructor syncs, so a function cannot return with children outstanding.
///
/// A worker never blocks in sync(): when a stolen child is still running, the strand is
/// parked on its coroutine stack and the worker goes on stealing (P³LS³ §3.2).
///
/// Outside a pool (no worker runs the calling thread) spawn(f) simply calls f: the
/// serial elision. An exception f throws is kept and rethrown by sync(), as on a pool.
/// Such a scope spawned into by a strand of a pool throws takt::Error (not checked inside
/// call_on_large_stack's function, where scopes of its own are serial the same way).
///
/// `f` is moved (or copied) onto the child's own stack before the parent can continue,
/// so a temporary lambda is fine; what it captures by reference must outlive sync().
///
/// A Scope belongs to the strand that made it: only that strand may spawn, sync or end
/// it. A child spawning into (or syncing) its parent's Scope, as oneTBB's task_group
/// allows, gets takt::Error; it makes a Scope of its own for its children. Keep a Scope
/// a local variable of the function that spawns: a strand that returns with one open
/// whose continuation a thief took ends the process with a message (a child may still run).
class Scope {
 public:
  Scope() noexcept : self_(detail::current_block()), uncaught_(uncaught_here(self_)) {}
  /// Syncs if spawn() was called since the last sync(). When the scope is destroyed by
  /// an exception unwinding the strand (one thrown since the scope was made), children's
  /// exceptions are dropped (the unwinding one wins); otherwise, also in a scope made
  /// inside a destructor that runs while an older exception unwinds, the first child
  /// exception is rethrown from here.
  ~Scope() noexcept(false) {
    if (!open_) return;
    if (static_cast<unsigned>(std::uncaught_exceptions()) > uncaught_) {
      sync_while_unwinding();
    } else {
      finish(true);
    }
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  /// Runs `f()` as a child strand. Throws takt::Error when the spawn would exceed the
  /// pool's static memory (depth D or the strand's stack).
  template <class F>
  void spawn(F&& f);

  /// Waits for every child spawned in this scope; rethrows the first child exception.
  void sync() { finish(false); }

 private:
  friend struct detail::ScopeAccess;
  friend struct detail::ScopeState;
  template <class F>
  friend void detail::child_entry(detail::Block* self, void* closure);

  /// std::uncaught_exceptions() of the strand that runs `self` (on a pool, read from the
  /// worker's exception-handling state: a few loads, not a call into the C++ runtime).
  static unsigned uncaught_here(const detail::Block* self) noexcept {
    return self != nullptr ? self->worker->eh->uncaught : static_cast<unsigned>(std::uncaught_exceptions());
  }
  /// sync(); `ending`: called by the destructor, which must not return while a child
  /// may still run (where the strand cannot wait, the process ends with a message).
  void finish(bool ending) {
    // The stack first: called from another strand (or thread), check_owner throws (or,
    // ending, ends the process) before anything of the scope is read or written.
    if (self_ != nullptr && !detail::in_spawn_range(*self_, detail::stack_pointer())) [[unlikely]] {
      check_owner(ending);
    }
    if (!open_) return;
    open_ = false;
    if (self_ != nullptr && (stolen_ || self_->worker->hooks.load(std::memory_order_relaxed) != 0))
        [[unlikely]] {
      sync_slow(ending);
    }
    if (failed_.load(std::memory_order_relaxed)) [[unlikely]]
      rethrow();
  }
  /// Returns when the calling code runs on the scope's strand (near the end of its
  /// stack, or on the large stack that strand called); else throws takt::Error, or,
  /// `ending` (an open scope's destructor), ends the process with a message.
  void check_owner(bool ending) const;
  void sync_slow(bool ending);
  void sync_while_unwinding() noexcept;
  [[noreturn]] void rethrow();
  /// The serial elision (outside a pool, or inside call_on_large_stack): f runs now, and
  /// an exception it throws is kept for sync(), as a child's is on a pool, so that the
  /// same code behaves the same way serially.
  template <class F>
  void run_inline(F&& f) {
    open_ = true;
    try {
      // A copy (or the moved callable), as a child on a pool runs: a stateful callable
      // then ends the same way serially and in parallel (its original stays as it was).
      std::remove_cvref_t<F> fn(std::forward<F>(f));
      fn();
    } catch (...) {
      // Claimed as a child's exception is (ScopeState::record_exception): inside
      // call_on_large_stack a stolen child of this scope may be recording its own.
      bool expected = false;
      if (failed_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
        error_ = std::current_exception();
      }
    }
  }

  detail::Block* self_;
  bool open_ = false;    ///< spawned since the last sync
  bool stolen_ = false;  ///< a thief took this strand's continuation since the last sync
  std::atomic<bool> failed_{false};
  /// std::uncaught_exceptions() when the scope was made: the destructor drops children's
  /// exceptions only for an exception thrown since.
  unsigned uncaught_;
  /// Join counter: + 1 per steal of this strand's continuation (a detached child), - 1
  /// per detached child that finishes, + kSync when the strand parks at sync(); whoever
  /// brings it to exactly kSync is the last and continues the strand.
  std::atomic<std::int64_t> join_{0};
  std::exception_ptr error_;
  std::uint64_t id_ = 0;  ///< observer only
};

namespace detail {

/// Entry of a spawned child on its own coroutine stack: take over the callable, publish
/// the parent's continuation, run.
template <class F>
void child_entry(Block* self, void* closure) {
  using Fn = std::remove_cvref_t<F>;
  auto* source = static_cast<std::remove_reference_t<F>*>(closure);
  if constexpr (std::is_nothrow_constructible_v<Fn, F&&>) {
    Fn fn(static_cast<F&&>(*source));
    child_started(self);
    fn();
  } else {
    std::optional<Fn> fn;
    try {
      fn.emplace(static_cast<F&&>(*source));
    } catch (...) {
      child_started(self);
      throw;
    }
    child_started(self);
    (*fn)();
  }
}

}  // namespace detail

template <class F>
void Scope::spawn(F&& f) {
  if constexpr (std::is_function_v<std::remove_reference_t<F>>) {
    // A function named by itself (spawn(work)): the child holds a pointer to it.
    auto* function = &f;
    spawn(function);
    return;
  } else {
    detail::Block* self = self_;
    if (self == nullptr) {
      detail::check_serial_spawn();
      run_inline(std::forward<F>(f));
      return;
    }
    // The stack first: called from another strand, the scope's strand's fields may be
    // changing under another thread (spawn_hooks then throws, having read none).
    const char* sp = detail::stack_pointer();
    detail::Block* child = nullptr;
    if (!detail::in_spawn_range(*self, sp) || (child = self->chain_next) == nullptr ||
        self->worker->hooks.load(std::memory_order_relaxed) != 0) [[unlikely]] {
      // Throws when out of static memory or called from another strand than the scope's;
      // may yield; false inside call_on_large_stack.
      if (!detail::spawn_hooks(*this, self)) {
        run_inline(std::forward<F>(f));
        return;
      }
      child = self->chain_next;
    }
    open_ = true;
    detail::WorkerHead* worker = self->worker;
    child->invoke = &detail::child_entry<F>;
    child->closure = const_cast<void*>(static_cast<const void*>(std::addressof(f)));
    child->parent = self;
    child->parent_scope = this;
    child->worker = worker;
    child->migrated = false;
    child->special = 0;
    self->push_scope = this;
    // A block entered for a new strand never holds saved exception state.
    detail::switch_to<detail::EhSides::outgoing>(child->context, self->context, worker->eh);
    // Here the child has returned, or a thief resumed this continuation.
  }
}

/// Runs f and g in parallel and returns when both have finished.
template <class F, class G>
void fork_join(F&& f, G&& g) {
  Scope scope;
  scope.spawn(std::forward<F>(f));
  std::forward<G>(g)();
  scope.sync();
}

}  // namespace takt
