// Pool start-up (all static memory), shutdown, job submission, statistics and the
// extension interface.
#include "os/clock.hpp"
#include "os/cpu.hpp"
#include "os/futex.hpp"
#include "os/thread_start.hpp"
#include "runtime/pool_state.hpp"
#include "takt/error.hpp"
#include "takt/runtime/measure.hpp"
#include "takt/runtime/pool.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <system_error>

namespace takt {
namespace detail {

extern thread_local Worker* tls_worker;

namespace {

constexpr std::size_t kMinStack = 16 * 1024;
/// A block's stack size is kept in 32 bits (Block::spawn_span).
constexpr std::size_t kMaxStack = std::size_t{1} << 30;

/// Stack kept free below a spawn: a spawn with less left throws takt::Error instead of
/// letting the strand run on into the guard page. Throwing itself (formatting the
/// message, the unwinder's two phases) needs up to about 6 KiB of it.
std::size_t headroom(std::size_t stack_size) { return std::min<std::size_t>(stack_size / 2, 8192); }

void link_chain(Block* const* blocks, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    blocks[i]->chain_next = i + 1 < count ? blocks[i + 1] : nullptr;
    blocks[i]->depth.store(static_cast<std::uint32_t>(i + 1), std::memory_order_relaxed);
  }
}

/// The order in which a chain takes the `depth` blocks set aside for it: chain position
/// d (0-based) gets block order[d]. Shuffled (a fixed seed, so every pool is laid out
/// alike) so that no two consecutive positions are a constant stride apart in memory.
/// With blocks in position order, fib(30) on two workers ran 40 % slower once trades
/// had exchanged one block of each chain at depth 12 (only where the exchanged block sat
/// between blocks the other worker was running on), and the multiprogrammed benchmark
/// saw takt's fib step between such levels from round to round; with this order the
/// exchange costs nothing measured (`takt bench layout`). The explanation that fits
/// every variant measured (the VM shows no performance counters): a worker walking its
/// chain down and up trains a stride prefetcher on one block's step, and the block one
/// step on can be one the other worker is writing (docs/runtime.md, "Block layout").
std::vector<std::size_t> chain_order(std::size_t depth) {
  std::vector<std::size_t> order(depth);
  for (std::size_t i = 0; i < depth; ++i) order[i] = i;
  if (depth < 3) return order;
  std::uint64_t state = 0x2545F4914F6CDD1DULL;
  auto next = [&state] {  // splitmix64
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  auto stride = [&order](std::size_t d) {
    return static_cast<std::int64_t>(order[d + 1]) - static_cast<std::int64_t>(order[d]);
  };
  auto regular = [&] {  // two consecutive steps of the same stride (a prefetcher's pattern)
    for (std::size_t d = 0; d + 2 < depth; ++d) {
      if (stride(d) == stride(d + 1)) return true;
    }
    return false;
  };
  for (int attempt = 0; attempt < 64; ++attempt) {  // at most 8 for depths 3 to 1,199, 2,048, 4,096, 8,192
    for (std::size_t i = depth - 1; i > 0; --i) std::swap(order[i], order[next() % (i + 1)]);
    if (!regular()) return order;
  }
  // Never needed so far: 0, D-1, 1, D-2, ... (strides alternate in sign).
  for (std::size_t i = 0; i < depth; ++i) order[i] = i % 2 == 0 ? i / 2 : depth - 1 - i / 2;
  return order;
}

}  // namespace

std::vector<std::size_t> chain_order_for_testing(std::size_t depth) { return chain_order(depth); }
std::atomic<ChainLayout> chain_layout_for_testing{nullptr};

PoolState::PoolState(PoolConfig cfg) : config(std::move(cfg)), strategy(config.strategy) {
  measuring = config.measurement_mode;
  measure_pool = measuring && config.name == kMeasurePoolName;
  if (config.cpus.empty()) config.cpus = os::allowed_cpus();
  if (config.cpus.empty()) throw takt::Error(fmt::format("pool '{}': no CPU to run on", config.name));
  workers_count = config.workers != 0 ? config.workers : config.cpus.size();
  depth = config.memory.depth;
  if (depth < 1) {
    throw takt::Error(fmt::format("pool '{}': StaticMemory::depth = 0; it must be at least 1", config.name));
  }
  // takt::measure's pool takes its stack sizes from MeasureOptions.
  const char* stack_knob =
      measure_pool ? "takt::measure: MeasureOptions::stack_size" : "StaticMemory::stack_size";
  if (config.memory.stack_size < kMinStack) {
    throw takt::Error(fmt::format("pool '{}': {} = {} bytes is too small; use at least {}", config.name,
                                  stack_knob, config.memory.stack_size, kMinStack));
  }
  if (config.memory.stack_size > kMaxStack) {
    throw takt::Error(
        fmt::format("pool '{}': {} = {} bytes is too large; use at most {} (1 GiB){}", config.name,
                    stack_knob, config.memory.stack_size, kMaxStack,
                    measure_pool ? "" : " and move deep serial code to takt::call_on_large_stack"));
  }
  if (config.caller_joins && measuring) config.caller_joins = false;  // the measurement runs on its one thread
  if (config.caller_joins && workers_count < 2) {
    throw takt::Error(fmt::format(
        "pool '{}': caller_joins needs at least 2 workers (worker 0 is the calling thread; submitted jobs need a "
        "thread of the pool's own); set workers >= 2 or caller_joins = false",
        config.name));
  }
  threads_count = config.caller_joins ? workers_count - 1 : workers_count;
  levels = strategy == QueueStrategy::priority_aware ? std::max<std::size_t>(1, config.priority_levels) : 1;
  reserve_total = config.suspended_strands * depth;
  block_count = workers_count * levels * depth + reserve_total;
  if (block_count > 0xFFFFFFF0u) {
    throw takt::Error(fmt::format("pool '{}': {} blocks are too many; lower depth or workers", config.name, block_count));
  }
  const bool large = config.memory.large_stack_size > 0;
  memory = std::make_unique<StackMemory>(block_count, config.memory.stack_size, large ? workers_count : 0,
                                         config.memory.large_stack_size, workers_count, measuring,
                                         config.name, measure_pool);
  if (config.prefault && !measuring) memory->prefault();

  blocks = std::make_unique<Block[]>(block_count);
  for (std::size_t i = 0; i < block_count; ++i) {
    Block& b = blocks[i];
    b.index = static_cast<std::uint32_t>(i);
    b.stack_lo = memory->stack_lo(i);
    b.stack_hi = memory->stack_hi(i);
    b.stack_limit = b.stack_lo + headroom(memory->stack_size());
    b.spawn_span = static_cast<std::uint32_t>(b.stack_hi - b.stack_limit);
#if defined(TAKT_TSAN)
    b.context.fiber = __tsan_create_fiber(0);
#endif
    prime_block(&b);
  }

  std::vector<Block*> chain(depth);
  const std::vector<std::size_t> order = chain_order(depth);
  const std::size_t chain_blocks = workers_count * levels * depth;
  const ChainLayout layout = chain_layout_for_testing.load(std::memory_order_acquire);
  std::vector<bool> taken(layout != nullptr ? chain_blocks : 0);
  auto block_at = [&](std::size_t c, std::size_t d) -> Block* {
    if (layout == nullptr) return &blocks[c * depth + order[d]];
    const std::size_t i = layout(c, d, depth);
    if (i >= chain_blocks || taken[i]) {
      throw takt::Error(
          fmt::format("pool '{}': the chain layout gives block {} twice or out of range", config.name, i));
    }
    taken[i] = true;
    return &blocks[i];
  };
  std::size_t next_block = 0;
  for (std::size_t i = 0; i < workers_count; ++i) {
    auto w = std::make_unique<Worker>();
    w->pool = this;
    w->index = i;
    w->rng = 0x9E3779B97F4A7C15ULL * (i + 1) ^ reinterpret_cast<std::uintptr_t>(this);
    if (w->rng == 0) w->rng = 1;
    w->measuring = measuring;
    w->level_count = levels;
    w->levels = std::make_unique<Level[]>(levels);
    for (std::size_t l = 0; l < levels; ++l) {
      Level& level = w->levels[l];
      level.deque.reserve(depth + 2);
      for (std::size_t d = 0; d < depth; ++d) chain[d] = block_at(next_block / depth, d);
      next_block += depth;
      link_chain(chain.data(), depth);
      level.head = chain[0];
    }
    set_level(w.get(), &w->levels[0]);
    w->altstack = memory->altstack(i);
#if defined(TAKT_TSAN)
    if (large) w->large.fiber = __tsan_create_fiber(0);
#endif
    workers.push_back(std::move(w));
  }
  for (std::size_t i = next_block; i < block_count; ++i) {
    blocks[i].chain_next = reserve_head;
    reserve_head = &blocks[i];
  }
  reserve_free = reserve_total;

  const std::size_t page = StackMemory::page_size();
  footprint.workers = workers_count;
  footprint.depth = depth;
  footprint.chains_per_worker = levels;
  footprint.stack_size = memory->stack_size();
  footprint.block_bytes = memory->stack_size() + page + sizeof(Block);
  footprint.resources_per_chain = depth * footprint.block_bytes;
  footprint.reserve_blocks = reserve_total;
  footprint.bound_bytes = workers_count * levels * footprint.resources_per_chain + reserve_total * footprint.block_bytes;
  // The mapping (strands' stacks with guard pages, large stacks, signal stacks), the
  // task records, and per worker its record and its levels with their deques' slots.
  const std::size_t deque_bytes = workers[0]->levels[0].deque.capacity() * sizeof(std::uint64_t);
  footprint.total_bytes = memory->mapped_bytes() + block_count * sizeof(Block) +
                          workers_count * (sizeof(Worker) + levels * (sizeof(Level) + deque_bytes));

  start_threads();
}

void PoolState::start_threads() {
  for (auto& w : workers) {
    Worker* raw = w.get();
    if (config.caller_joins && raw->index == 0) {
      // Worker 0 has no thread: its large stack is primed here, its calling threads
      // set up the rest on entry (run_as_caller).
      if (memory->large_size() > 0) prime_large(raw);
      continue;
    }
    try {
      raw->thread = std::thread([raw] { worker_main(raw); });
    } catch (const std::system_error& e) {
      // The constructor fails: stop and join the workers already running (a joinable
      // std::thread destroyed with the pool would terminate the process).
      stopping.store(true, std::memory_order_seq_cst);
      idle_epoch.fetch_add(1, std::memory_order_release);
      os::futex_wake_all(idle_epoch);
      for (auto& other : workers) {
        if (other->thread.joinable()) other->thread.join();
      }
      throw Error("pool '" + config.name + "': " +
                  os::thread_start_error("worker thread " + std::to_string(raw->index) + " of " +
                                             std::to_string(workers.size()),
                                         e,
                                         "use fewer workers or raise the limit on threads (ulimit -u, the "
                                         "cgroup's pids.max)"));
    }
  }
  const auto count = static_cast<std::uint32_t>(threads_count);
  for (std::uint32_t seen = started.load(std::memory_order_acquire); seen < count;
       seen = started.load(std::memory_order_acquire)) {
    os::futex_wait_for(started, seen, std::chrono::milliseconds(10));
  }
}

void PoolState::stop() {
  closing.store(true, std::memory_order_seq_cst);
  // Wait on in_flight itself: the last leave_flight's decrement is the last touch of
  // the pool by a thread that stop() does not join (a caller_joins caller); its wake-up
  // is a system call on the word's address that reads nothing.
  in_flight.fetch_or(kDraining, std::memory_order_seq_cst);
  for (std::uint32_t seen = in_flight.load(std::memory_order_acquire); seen != kDraining;
       seen = in_flight.load(std::memory_order_acquire)) {
    os::futex_wait_for(in_flight, seen, std::chrono::milliseconds(10));
  }
  stopping.store(true, std::memory_order_seq_cst);
  idle_epoch.fetch_add(1, std::memory_order_release);
  os::futex_wake_all(idle_epoch);
  for (auto& w : workers) {
    if (w->thread.joinable()) w->thread.join();
  }
}

PoolState::~PoolState() {
  stop();
#if defined(TAKT_TSAN)
  for (std::size_t i = 0; i < block_count; ++i) __tsan_destroy_fiber(blocks[i].context.fiber);
  for (auto& w : workers) {
    if (w->large.fiber != nullptr) __tsan_destroy_fiber(w->large.fiber);
  }
#endif
}

void submit_job(PoolState& state, ext::Job& job) {
  if (state.closing.load(std::memory_order_acquire)) {
    throw takt::Error(fmt::format("pool '{}' is shutting down; submit work before destroying it", state.config.name));
  }
  if (JobAccess::in_flight(job).exchange(true, std::memory_order_acq_rel)) {
    throw takt::Error(fmt::format(
        "takt::ext::Job submitted to pool '{}' while it is {}; submit it again from its finished() on, "
        "or use another Job object",
        state.config.name, kJobInFlight));
  }
  state.in_flight.fetch_add(1, std::memory_order_seq_cst);
  JobAccess::next(job) = nullptr;
  state.inject_lock.lock();
  if (state.strategy == QueueStrategy::priority_aware) {
    // Ordered by key (earliest deadline first), FIFO among equal keys.
    ext::Job** link = &state.inject_head;
    while (*link != nullptr && (*link)->key() <= job.key()) link = &JobAccess::next(**link);
    JobAccess::next(job) = *link;
    *link = &job;
    if (JobAccess::next(job) == nullptr) state.inject_tail = &job;
  } else {
    if (state.inject_tail != nullptr) {
      JobAccess::next(*state.inject_tail) = &job;
    } else {
      state.inject_head = &job;
    }
    state.inject_tail = &job;
  }
  state.injected.fetch_add(1, std::memory_order_seq_cst);
  state.inject_lock.unlock();
  notify_one(state);
}

// `done`: 0 running, 1 done, 2 running and a thread sleeps on it (so that signal()
// makes the futex call only when someone waits).
void wait_for(std::atomic<std::uint32_t>& done) noexcept {
  std::uint32_t seen = 0;
  if (done.compare_exchange_strong(seen, 2, std::memory_order_acq_rel, std::memory_order_acquire)) seen = 2;
  while (seen != 1) {
    os::futex_wait(done, 2);
    seen = done.load(std::memory_order_acquire);
  }
}

void signal(std::atomic<std::uint32_t>& done) noexcept {
  // seq_cst: root_done then reads caller_sleeping, against caller_sleep's store of it
  // and its read of `done` (one of the two sees the other).
  if (done.exchange(1, std::memory_order_seq_cst) == 2) os::futex_wake_all(done);
}

PoolConfig measuring_config(const MeasureOptions& options) {
  PoolConfig config;
  config.workers = 1;
  config.pin = false;
  config.memory.depth = options.max_depth;
  config.memory.stack_size = options.stack_size;
  config.memory.large_stack_size = options.large_stack_size;  // reserved, not touched: measured
  config.prefault = false;
  config.measurement_mode = true;
  config.idle_spin = std::chrono::microseconds(1);
  config.name = kMeasurePoolName;
  return config;
}

Measurement measurement_of(Pool& pool) {
  PoolState& state = pool.state();
  Measurement m;
  WorkerStatistics total = pool.total_statistics();
  m.depth = total.max_depth;
  m.spawns = total.spawns;
  for (std::size_t i = 0; i < state.block_count; ++i) {
    m.peak_stack_bytes = std::max(m.peak_stack_bytes, state.memory->resident_use(i));
  }
  // A large stack's top page is resident from the start (its coroutine is primed there):
  // only one that call_on_large_stack ran on is measured.
  for (std::size_t i = 0; i < state.memory->large_count(); ++i) {
    if (!state.workers[i]->large_stack_used) continue;
    m.peak_large_stack_bytes = std::max(m.peak_large_stack_bytes, state.memory->large_resident_use(i));
  }
  return m;
}

}  // namespace detail

StaticMemory Measurement::recommended(std::size_t stack_margin) const {
  StaticMemory memory;
  const std::size_t page = detail::StackMemory::page_size();
  memory.depth = std::max<std::size_t>(depth, 1);
  auto size_for = [&](std::size_t peak) {
    return std::max<std::size_t>((peak + stack_margin + page - 1) / page * page, 16 * 1024);
  };
  memory.stack_size = size_for(peak_stack_bytes);
  if (peak_large_stack_bytes > 0) memory.large_stack_size = size_for(peak_large_stack_bytes);
  return memory;
}

Pool::Pool(PoolConfig config)
    : state_(std::make_unique<detail::PoolState>(std::move(config))), extension_(*state_) {}

Pool::~Pool() noexcept(false) {
  if (detail::current_pool() == state_.get()) {
    // The pool cannot stop from inside: stopping waits for every computation, this one
    // too. Its state is left running (leaked) before the throw, since a destructor that
    // throws still destroys the members, and state_'s destructor would wait for ever.
    const std::string name = state_->config.name;
    (void)state_.release();
    throw takt::Error(fmt::format(
        "pool '{}' destroyed from one of its own workers: a pool cannot stop from inside, since stopping waits "
        "for every computation, this one too; destroy it from a thread that is not its worker (its threads and "
        "memory are left as they are)",
        name));
  }
  state_.reset();
}

std::size_t Pool::workers() const noexcept { return state_->workers_count; }
const os::CpuSet& Pool::cpus() const noexcept { return state_->config.cpus; }
const StaticMemory& Pool::static_memory() const noexcept { return state_->config.memory; }
QueueStrategy Pool::strategy() const noexcept { return state_->config.strategy; }
MemoryFootprint Pool::memory() const noexcept { return state_->footprint; }

WorkerStatistics Pool::statistics(std::size_t worker) const noexcept {
  WorkerStatistics s;
  if (worker >= state_->workers_count) return s;
  const detail::Worker& w = *state_->workers[worker];
  // Saturating: a reset on another thread between the two loads leaves 0, not 2^64 - n.
  auto get = [](const std::atomic<std::uint64_t>& now, const std::atomic<std::uint64_t>& base,
                std::memory_order order = std::memory_order_relaxed) -> std::uint64_t {
    const std::uint64_t n = now.load(order);
    const std::uint64_t b = base.load(std::memory_order_relaxed);
    return n > b ? n - b : 0;
  };
  const detail::Counters& c = w.counters;
  const detail::Counters& b = w.baseline;
  s.spawns = get(c.spawns, b.spawns);
  s.steals = get(c.steals, b.steals);
  s.failed_steals = get(c.failed_steals, b.failed_steals);
  s.sleeps = get(c.sleeps, b.sleeps);
  s.jobs = get(c.jobs, b.jobs);
  s.parks = get(c.parks, b.parks);
  s.yields = get(c.yields, b.yields);
  s.refused_yields = get(c.refused_yields, b.refused_yields);
  s.max_depth = c.max_depth.load(std::memory_order_relaxed);
  // The total first (acquire: the owner clears idle_since before it adds an interval),
  // then the interval in progress, if any: an interval ending in between is left out,
  // never counted twice; detail::idle_reading caps the sum (a reset race).
  const std::uint64_t counted = get(c.idle_ns, b.idle_ns, std::memory_order_acquire);
  const std::int64_t since = w.idle_since.load(std::memory_order_relaxed);
  const std::int64_t reset_at = state_->statistics_reset_at.load(std::memory_order_relaxed);
  s.idle_ns = detail::idle_reading(counted, since, reset_at, os::monotonic_now().count());
  return s;
}

std::vector<WorkerStatistics> Pool::statistics() const {
  std::vector<WorkerStatistics> all;
  all.reserve(state_->workers_count);
  for (std::size_t i = 0; i < state_->workers_count; ++i) all.push_back(statistics(i));
  return all;
}

WorkerStatistics Pool::total_statistics() const noexcept {
  WorkerStatistics total;
  for (std::size_t i = 0; i < state_->workers_count; ++i) total += statistics(i);
  return total;
}

void Pool::reset_statistics() noexcept {
  state_->statistics_reset_at.store(os::monotonic_now().count(), std::memory_order_relaxed);
  for (auto& w : state_->workers) {
    detail::Counters& c = w->counters;
    detail::Counters& b = w->baseline;
    auto copy = [](const std::atomic<std::uint64_t>& from, std::atomic<std::uint64_t>& to) {
      to.store(from.load(std::memory_order_relaxed), std::memory_order_relaxed);
    };
    copy(c.spawns, b.spawns);
    copy(c.steals, b.steals);
    copy(c.failed_steals, b.failed_steals);
    copy(c.sleeps, b.sleeps);
    copy(c.jobs, b.jobs);
    copy(c.parks, b.parks);
    copy(c.yields, b.yields);
    copy(c.refused_yields, b.refused_yields);
    copy(c.idle_ns, b.idle_ns);
  }
}

bool in_pool() noexcept { return detail::tls_worker != nullptr; }
int current_worker() noexcept {
  return detail::tls_worker != nullptr ? static_cast<int>(detail::tls_worker->index) : -1;
}

namespace ext {

void Extension::submit(Job& job) { detail::submit_job(*state_, job); }

void Extension::set_work_source(WorkSource* source) noexcept {
  WorkSource* old = state_->source.exchange(source, std::memory_order_seq_cst);
  if (old != nullptr && old != source) detail::wait_for_extension_calls(*state_);
  notify_work();
}

void Extension::set_yield_policy(YieldPolicy* policy) noexcept {
  YieldPolicy* old = state_->policy.exchange(policy, std::memory_order_seq_cst);
  if (old != nullptr && old != policy) detail::wait_for_extension_calls(*state_);
}

void Extension::set_observer(StrandObserver* observer) noexcept {
  state_->observer.store(observer, std::memory_order_release);
  for (auto& w : state_->workers) {
    if (observer != nullptr) {
      w->hooks.fetch_or(detail::hook_observer, std::memory_order_release);
    } else {
      w->hooks.fetch_and(~detail::hook_observer, std::memory_order_release);
    }
  }
}

void Extension::notify_work() noexcept { detail::notify_one(*state_); }

void Extension::notify_work_all() noexcept { detail::notify_all(*state_); }

void Extension::request_yield(std::size_t worker) noexcept {
  if (worker < state_->workers_count) {
    state_->workers[worker]->hooks.fetch_or(detail::hook_yield, std::memory_order_release);
  }
}

bool Extension::running_key(std::size_t worker, std::chrono::nanoseconds& key) const noexcept {
  if (worker >= state_->workers_count) return false;
  const detail::Worker& w = *state_->workers[worker];
  if (!w.running.load(std::memory_order_relaxed)) return false;
  key = std::chrono::nanoseconds(w.running_key.load(std::memory_order_relaxed));
  return true;
}

std::size_t Extension::workers() const noexcept { return state_->workers_count; }

}  // namespace ext
}  // namespace takt
