// The life of a strand on its block: the block's coroutine loop, spawn's child side,
// completion (return to the parent or join), sync, and the slow paths of spawn.
#include "os/clock.hpp"
#include "runtime/pool_state.hpp"
#include "takt/error.hpp"
#include "takt/runtime/measure.hpp"
#include "takt/runtime/scope.hpp"

#include <cxxabi.h>
#include <fmt/core.h>

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace takt {
namespace detail {

// The worker the calling thread runs (initial-exec TLS: one instruction to read).
thread_local Worker* tls_worker __attribute__((tls_model("initial-exec"))) = nullptr;
// Context of the thread priming blocks (TSan needs its fiber to switch back).
thread_local Context* tls_primer = nullptr;

std::atomic<std::int64_t>& ScopeState::join(Scope& s) noexcept { return s.join_; }
bool& ScopeState::stolen(Scope& s) noexcept { return s.stolen_; }
std::uint64_t& ScopeState::id(Scope& s) noexcept { return s.id_; }
Block* ScopeState::block(Scope& s) noexcept { return s.self_; }
void ScopeState::record_exception(Scope& s, std::exception_ptr error) noexcept {
  bool expected = false;
  if (s.failed_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) s.error_ = std::move(error);
}

EhGlobals* eh_globals() noexcept { return reinterpret_cast<EhGlobals*>(abi::__cxa_get_globals()); }

Block* current_block() noexcept {
  Worker* w = tls_worker;
  if (w == nullptr || w->on_large_stack) return nullptr;
  return w->current;
}

PoolState* current_pool() noexcept {
  Worker* w = tls_worker;
  return w != nullptr ? w->pool : nullptr;
}

namespace {

std::uint64_t scope_id(Worker* w, Scope& scope, Block* owner) {
  (void)w;
  std::uint64_t& id = ScopeState::id(scope);
  if (id == 0) id = ++owner->scope_seq;
  return id;
}

// TAKT_RUNTIME_OBSERVER=0 compiles the observer checks out; it exists only to show,
// by comparison, that with no observer installed the checks cost nothing measurable
// (docs/benchmarks-runtime.md).
#ifndef TAKT_RUNTIME_OBSERVER
#define TAKT_RUNTIME_OBSERVER 1
#endif

bool observing(const Worker* w) noexcept {
  if constexpr (TAKT_RUNTIME_OBSERVER == 0) return false;
  return (w->hooks.load(std::memory_order_relaxed) & hook_observer) != 0;
}

ext::StrandEvent event(ext::StrandEvent::Kind kind, Worker* w, Block* task) {
  ext::StrandEvent e;
  e.kind = kind;
  e.worker = static_cast<std::uint32_t>(w->index);
  e.task = task->task_id;
  e.strand = task->strand_index;
  e.time = os::monotonic_now();
  return e;
}

/// The running strand is done with its block; the worker has nothing to run now.
void go_idle(Worker* w, Block* self) noexcept {
  w->current = nullptr;
  switch_to<EhSides::incoming>(w->sched, self->context, w->eh);
}

/// A strand at depth k + 1 whose parent (depth k) is gone got a traded sub-chain of
/// depths 1..k: its worker's chain becomes that sub-chain, then this block, then the
/// blocks below it.
void refill(Worker* w, Block* sub, Block* self) noexcept {
  sub->sub_tail->chain_next = self;
  w->level->head = sub;
}

/// The strand on `self` ends (returns or throws) while a Scope of it whose continuation
/// a thief took is not synced since (a Scope kept beyond the function that spawned into it): a child of
/// that scope may still run, and the computation would go on (or end) without it.
[[noreturn, gnu::noinline, gnu::cold]] void strand_kept_a_scope_open(const Worker* w) noexcept {
  std::fprintf(stderr,
               "takt: fatal: pool '%s': a strand ended while a takt::Scope it spawned into was not synced, "
               "and a thief had taken its continuation, so a child of that scope may still run; the "
               "computation cannot go on without it. Sync the scope before the strand ends: keep a Scope a "
               "local variable of the function that spawns into it (its destructor syncs)\n",
               w->pool->config.name.c_str());
  std::abort();
}

/// A spawned child returned: give control back to the parent, or join. `Observed`
/// strands report the parent's resumption to the observer.
template <bool Observed>
[[gnu::always_inline]] inline void child_done(Worker* w, Block* self) noexcept {
  PoolState& pool = *w->pool;
  Block* parent = self->parent;
  Scope& scope = *self->parent_scope;
  if (!self->migrated && reclaim_continuation(w, parent, self->parent_epoch)) {
    // The common case: nobody stole the parent; it continues right here.
    w->current = parent;
    if constexpr (Observed) emit(w, event(ext::StrandEvent::Kind::resume, w, parent));
    switch_to<EhSides::incoming>(parent->context, self->context, w->eh);  // this strand has finished
    return;
  }
  // Detached: a thief took the parent's continuation (or this strand's: a strand with
  // a stolen continuation is `migrated`, so its end comes here). Arrive at the join.
  if (self->open_stolen_scopes != 0) [[unlikely]]
    strand_kept_a_scope_open(w);
  std::int64_t after = ScopeState::join(scope).fetch_sub(1, std::memory_order_acq_rel) - 1;
  if (after == ScopeState::kSync) {
    // Last: the parent is parked at its sync; continue it on this worker, its children
    // running on this block and the ones below.
    parent->chain_next = self;
    parent->worker = w;
    w->current = parent;
    switch_to<EhSides::incoming>(parent->context, self->context, w->eh);
    return;
  }
  refill(w, take_traded(pool, parent, true, self->parent_epoch), self);
  go_idle(w, self);
}

/// A root strand returned: its block heads the worker's chain again.
void root_done(Worker* w, Block* self, std::exception_ptr error) noexcept {
  PoolState& pool = *w->pool;
  if (self->open_stolen_scopes != 0) [[unlikely]]
    strand_kept_a_scope_open(w);
  w->level->head = self;
  ext::Job* job = self->job;
  self->job = nullptr;
  w->current = nullptr;
  w->running.store(false, std::memory_order_relaxed);
  // Compared before finished(): afterwards the job may be gone.
  const bool callers = pool.caller_root.load(std::memory_order_acquire) == job;
  JobAccess::in_flight(*job).store(false, std::memory_order_release);  // it may be submitted again
  job->finished(std::move(error));
  // A caller's computation: its `done` is 1 now (a seq_cst exchange, in finished()). A
  // caller that is not asleep sees it in its loop (caller_sleep announces the sleep
  // before its last look at `done`), so only a sleeping one needs the futex wake, a
  // system call that most runs (whose roots end on the caller itself) then skip.
  if (callers && pool.caller_sleeping.load(std::memory_order_seq_cst)) wake_caller(pool);
  leave_flight(pool);
  switch_to(w->sched, self->context, w->eh);
}

/// Completion of a root or of an observed strand (the slow path of run_strand).
[[gnu::noinline]] void special_done(Worker* w, Block* self, std::exception_ptr error) noexcept {
  const bool observed = (self->special & kObservedStrand) != 0;
  if (observed) emit(w, event(ext::StrandEvent::Kind::task_end, w, self));
  if ((self->special & kRootStrand) != 0) {
    root_done(w, self, std::move(error));
    return;
  }
  if (error) ScopeState::record_exception(*self->parent_scope, std::move(error));
  if (observed) {
    child_done<true>(w, self);
  } else {
    child_done<false>(w, self);
  }
}

/// Runs the strand assigned to `self`, then hands the worker on. Returns when the block
/// is entered again for a new strand.
void run_strand(Block* self) noexcept {
  // Completion happens outside the catch block: never switch away inside a handler.
  std::exception_ptr error;
  try {
    self->invoke(self, self->closure);
  } catch (...) {
    error = std::current_exception();
  }
  Worker* w = worker_of(self);
  if (self->special != 0) [[unlikely]] {
    special_done(w, self, std::move(error));
    return;
  }
  if (error) [[unlikely]] ScopeState::record_exception(*self->parent_scope, std::move(error));
  child_done<false>(w, self);
}

void block_main(transfer_t t) {
  Block* self = static_cast<Block*>(t.data);
  // Priming: give control back to the thread that created the block.
#if defined(TAKT_TSAN)
  __tsan_switch_to_fiber(tls_primer->fiber, 0);
#endif
  land(boost::context::detail::jump_fcontext(t.fctx, &self->context.fctx));
  for (;;) run_strand(self);
}

void large_main(transfer_t t) {
  auto* w = static_cast<Worker*>(t.data);
#if defined(TAKT_TSAN)
  __tsan_switch_to_fiber(tls_primer->fiber, 0);
#endif
  land(boost::context::detail::jump_fcontext(t.fctx, &w->large.fctx));
  for (;;) {
    w->large_call(w->large_arg);
    switch_to<EhSides::none>(*w->large_return, w->large, w->eh);
  }
}

}  // namespace

void prime_block(Block* block) noexcept {
  Context here;
#if defined(TAKT_TSAN)
  here.fiber = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(block->context.fiber, 0);
#endif
  tls_primer = &here;
  std::size_t size = static_cast<std::size_t>(block->stack_hi - block->stack_lo);
  fcontext_t fresh = boost::context::detail::make_fcontext(block->stack_hi, size, &block_main);
  land(boost::context::detail::jump_fcontext(fresh, block));
  tls_primer = nullptr;
}

void prime_large(Worker* w) noexcept {
  Context here;
#if defined(TAKT_TSAN)
  here.fiber = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(w->large.fiber, 0);
#endif
  tls_primer = &here;
  char* hi = w->pool->memory->large_hi(w->index);
  fcontext_t fresh = boost::context::detail::make_fcontext(hi, w->pool->memory->large_size(), &large_main);
  land(boost::context::detail::jump_fcontext(fresh, w));
  tls_primer = nullptr;
}

void root_entry(Block* self, void* job) {
  Worker* w = worker_of(self);
  if (observing(w)) {
    self->special |= kObservedStrand;
    self->task_id = new_task_id(w);
    self->strand_index = 0;
    self->scope_seq = 0;
    emit(w, event(ext::StrandEvent::Kind::task_begin, w, self));
  }
  static_cast<ext::Job*>(job)->run();
}

void child_started(Block* self) noexcept {
  Worker* w = worker_of(self);
  Block* parent = self->parent;
  w->current = self;
  if (observing(w)) [[unlikely]] {
    // Before the push: afterwards a thief may already resume the parent's continuation.
    self->special = kObservedStrand;
    self->task_id = new_task_id(w);
    self->strand_index = 0;
    self->scope_seq = 0;
    ext::StrandEvent spawn = event(ext::StrandEvent::Kind::spawn, w, parent);
    spawn.other = self->task_id;
    spawn.scope = scope_id(w, *self->parent_scope, parent);
    emit(w, spawn);
    ++parent->strand_index;
    ext::StrandEvent begin = event(ext::StrandEvent::Kind::task_begin, w, self);
    begin.other = parent->task_id;
    begin.scope = spawn.scope;
    emit(w, begin);
  }
  self->parent_epoch = publish_continuation(w, parent, false);
  bump(w->counters.spawns);
  std::uint32_t depth = self->depth.load(std::memory_order_relaxed);
  if (depth > w->counters.max_depth.load(std::memory_order_relaxed)) {
    w->counters.max_depth.store(depth, std::memory_order_relaxed);
  }
}

[[noreturn]] void throw_depth_exhausted(const Block* self) {
  const auto* w = static_cast<const Worker*>(self->worker);
  std::size_t needed = self->depth.load(std::memory_order_relaxed) + 1;
  if (w->pool->measure_pool) {  // takt::measure's own pool: its limit is MeasureOptions::max_depth
    throw takt::Error(fmt::format(
        "spawn at depth {} exceeds the depth takt::measure measures up to: MeasureOptions::max_depth = {}; "
        "pass takt::measure a MeasureOptions with a larger max_depth (at least {})",
        needed, w->pool->depth, needed));
  }
  throw takt::Error(fmt::format(
      "spawn at depth {} exceeds the static memory of pool '{}': StaticMemory::depth = {} (configured), "
      "at least {} needed; raise depth to the D that takt::measure reports for the worst-case input",
      needed, w->pool->config.name, w->pool->depth, needed));
}

[[noreturn]] void throw_stack_exhausted(const Block* self, const char* sp) {
  const auto* w = static_cast<const Worker*>(self->worker);
  auto used = static_cast<std::size_t>(self->stack_hi - sp);
  const std::size_t needed = used + static_cast<std::size_t>(self->stack_limit - self->stack_lo);
  if (w->pool->measure_pool) {
    throw takt::Error(
        fmt::format("strand stack nearly exhausted in takt::measure: {} of MeasureOptions::stack_size = {} "
                    "bytes in use at a "
                    "spawn, at least {} needed; pass takt::measure a MeasureOptions with a larger "
                    "stack_size, or move deep "
                    "serial code to takt::call_on_large_stack",
                    used, w->pool->memory->stack_size(), needed));
  }
  throw takt::Error(
      fmt::format("strand stack nearly exhausted in pool '{}': {} of StaticMemory::stack_size = {} bytes "
                  "(configured) in use "
                  "at a spawn, at least {} needed; raise stack_size (takt::measure reports the peak) or move "
                  "deep serial code "
                  "to takt::call_on_large_stack",
                  w->pool->config.name, used, w->pool->memory->stack_size(), needed));
}

void yield_point(Block* self, ext::YieldPoint::At at);

namespace {

/// True when a spawn or sync of `self`'s Scope runs on another stack than the strand's
/// and not, inside call_on_large_stack, on the large stack that strand called (its
/// worker runs it: current).
bool foreign_stack(const Block* self, const char* sp) noexcept {
  if (sp >= self->stack_lo && sp < self->stack_hi) return false;
  const Worker* here = tls_worker;
  return !(here != nullptr && here->on_large_stack && here->current == self);
}

std::string foreign_scope_message(const char* operation) {
  return fmt::format(
      "takt::Scope::{}() called from code that is not the strand that made the scope (a child "
      "spawning into or syncing its parent's Scope, or a Scope used from another thread): a Scope "
      "belongs to the strand that made it; make a Scope inside the child for its own children "
      "(takt::fork_join and parallel_for do)",
      operation);
}

/// A Scope's destructor cannot wait where it runs and must not return (the scope's
/// memory may go while a child of it still runs and will write to it).
[[noreturn]] void scope_cannot_end(const std::string& why) noexcept {
  std::fprintf(
      stderr,
      "takt: fatal: a takt::Scope ends while a child of it may still run, and it cannot wait where it "
      "ends: %s\n",
      why.c_str());
  std::abort();
}

}  // namespace

bool spawn_hooks(Scope& scope, Block* self) {
  (void)scope;
  const char* sp = stack_pointer();
  if (foreign_stack(self, sp)) throw takt::Error(foreign_scope_message("spawn"));
  Worker* w = worker_of(self);
  // A spawn on a Scope of the strand that called call_on_large_stack, from inside its
  // function: the continuation's frames are on the worker's one large stack, so it must
  // not become stealable (nor yield): the child runs inline, as a Scope made inside does.
  if ((w->hooks.load(std::memory_order_relaxed) & hook_large_stack) != 0) return false;
  if ((w->hooks.load(std::memory_order_relaxed) & hook_yield) != 0) {
    yield_point(self, ext::YieldPoint::At::spawn);
  }
  if (self->chain_next == nullptr) throw_depth_exhausted(self);
  if (sp < self->stack_limit) throw_stack_exhausted(self, sp);
  return true;
}

void check_serial_spawn() {
  // A Scope made outside any pool (or inside call_on_large_stack's function, where spawns
  // run inline) and spawned into by a strand of a pool: its children would run inline on
  // whichever strands use it, racing on the scope if they run in parallel.
  if (current_block() != nullptr) {
    throw takt::Error(
        "takt::Scope::spawn() called by a strand of a pool on a Scope made outside any pool (or inside "
        "takt::call_on_large_stack's function): a Scope belongs to the code that made it; make the Scope "
        "inside the computation that spawns (in the function given to Pool::run)");
  }
}

bool run_on_large_stack(void (*call)(void*), void* arg) {
  Worker* w = tls_worker;
  if (w == nullptr || w->on_large_stack || w->current == nullptr) return false;
  // Without a large stack f runs where it is: in a pool configured so, with ordinary
  // spawns (false: the caller runs it); in a measuring pool configured so
  // (MeasureOptions::large_stack_size = 0), by the large stack's rules below (spawns
  // inside run inline), so that what is measured is the DAG a pool runs.
  const bool in_place = w->large.fctx == nullptr;
  if (in_place && !w->pool->measuring) return false;
  w->on_large_stack = true;
  w->hooks.fetch_or(hook_large_stack, std::memory_order_relaxed);  // owner-only bit: relaxed
  if (in_place) {
    call(arg);  // noexcept: call_on_large_stack's wrapper keeps f's exception
  } else {
    Context here;
#if defined(TAKT_TSAN)
    here.fiber = w->current->context.fiber;
#endif
    w->large_call = call;
    w->large_arg = arg;
    w->large_return = &here;
    w->large_stack_used = true;
    // A nested call: f sees the exception state of its caller (a catch block's
    // exception, the uncaught count of an unwinding destructor) as a plain call would.
    switch_to<EhSides::none>(w->large, here, w->eh);
  }
  w->hooks.fetch_and(~hook_large_stack, std::memory_order_relaxed);
  w->on_large_stack = false;
  return true;
}

}  // namespace detail

void Scope::check_owner(bool ending) const {
  // Another strand (or thread) would park the scope's strand on its own worker, close
  // the scope under a child that still runs, or continue the strand on two stacks at
  // once. Decided before the scope is touched: its strand may be using it meanwhile. An
  // open scope ended there cannot know that no child of it runs (the caller may be one).
  if (!detail::foreign_stack(self_, detail::stack_pointer())) return;
  const std::string why = detail::foreign_scope_message(ending ? "~Scope" : "sync");
  if (ending) detail::scope_cannot_end(why);
  throw Error(why);
}

void Scope::sync_slow(bool ending) {
  detail::Block* self = self_;
  auto* w = detail::worker_of(self);
  const bool large_stack = (w->hooks.load(std::memory_order_relaxed) & detail::hook_large_stack) != 0;
  if (stolen_ && large_stack) {
    // Inside call_on_large_stack, on a Scope of the strand below: parking would leave
    // the strand's frames on the worker's one large stack, resumed on another thread.
    // The scope stays open, so that its destructor (outside) syncs it; checked before
    // the observer hears of a sync, which then happens once, outside.
    static constexpr const char* kLargeStack =
        "sync() of a takt::Scope made outside takt::call_on_large_stack, called inside its function "
        "while a child of that scope may still run on another worker: the strand cannot wait there (its "
        "frames are on the worker's one large stack); sync the scope before call_on_large_stack, or use "
        "a Scope made inside the function (its spawns run inline)";
    if (ending) detail::scope_cannot_end(kLargeStack);
    open_ = true;
    throw Error(kLargeStack);
  }
  bool observe = detail::observing(w);
  std::uint64_t scope = 0;
  if (observe) {
    scope = detail::scope_id(w, *this, self);
    auto e = detail::event(ext::StrandEvent::Kind::sync, w, self);
    e.scope = scope;
    detail::emit(w, e);
  }
  if (stolen_) {
    // A child may still run elsewhere: park here; the scheduler pops a traded sub-chain
    // (or, finding none, resumes this strand at once), and the last child continues us.
    w->request.kind = detail::Request::Kind::park;
    w->request.scope = this;
    w->current = nullptr;
    detail::switch_to(w->sched, self->context, w->eh);
    // Every child has joined; the counter is ours again.
    join_.store(0, std::memory_order_relaxed);
    stolen_ = false;
    --self->open_stolen_scopes;
    w = detail::worker_of(self);
  }
  if (observe) {
    ++self->strand_index;
    auto e = detail::event(ext::StrandEvent::Kind::joined, w, self);
    e.scope = scope;
    detail::emit(w, e);
  }
  if ((w->hooks.load(std::memory_order_relaxed) & detail::hook_yield) != 0 && !large_stack) {
    detail::yield_point(self, ext::YieldPoint::At::sync);
  }
}

void Scope::sync_while_unwinding() noexcept {
  // As finish(true): another strand ending the scope ends the process; a sync that
  // cannot wait (sync_slow) too.
  if (self_ != nullptr && !detail::in_spawn_range(*self_, detail::stack_pointer())) check_owner(true);
  open_ = false;
  if (self_ == nullptr) return;
  try {
    if (stolen_ || self_->worker->hooks.load(std::memory_order_relaxed) != 0) sync_slow(true);
  } catch (...) {
    // The exception already unwinding wins; children's errors are dropped.
  }
}

void Scope::rethrow() {
  failed_.store(false, std::memory_order_relaxed);
  std::exception_ptr error = std::move(error_);
  error_ = nullptr;
  std::rethrow_exception(error);
}

}  // namespace takt
