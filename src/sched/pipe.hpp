// Pipe: an ordered runqueue of tasks with a change log for its consuming instance.
#pragma once

#include "os/futex_lock.hpp"
#include "sched/task.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace takt::sched {

class Instance;
class NonEmptySet;

/// A Pipe (dissertation §5.3) connects the instance that produces it to the one that
/// consumes it. It holds
///  - the queued tasks, ordered by the key their producer gave them (smaller first;
///    equal keys in order of arrival in this pipe), as an intrusive binary heap, so
///    the head is read in O(1) and a task is added or removed in O(log n);
///  - a change log: the tasks added, removed and moved (re-keyed) since the consumer
///    last looked, in the order the changes happened, so the consumer works on the
///    differences instead of the whole list. An add and a remove of the same task
///    before the consumer looks cancel out; a remove then an add is a move;
///  - a lock, held by whoever changes or reads the pipe (see Scheduler for the
///    locking discipline: the log is empty whenever the lock is free).
///
/// A terminal pipe (one that processing elements take tasks from) keeps no log: its
/// consumer is the termination component, which has nothing to do.
///
/// The memberships live in the tasks (PipeNode), so adding and removing never
/// allocates; only the heap's array grows when a pipe holds more tasks than ever
/// before.
class Pipe {
 public:
  explicit Pipe(std::string name, std::size_t node_hint = 0);
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  const std::string& name() const noexcept { return name_; }

  void lock() noexcept { lock_.lock(); }
  void unlock() noexcept { lock_.unlock(); }

  // --- producer side (pipe locked) ------------------------------------------------
  /// Queues `task` with ordering key `key` and logs it as added (or, if the task
  /// was removed since the consumer last looked, as moved). Precondition: the task
  /// is not queued here.
  void add(Task& task, std::int64_t key);
  /// Removes `task`; logs it as removed, or cancels a pending add. Returns false if
  /// the task was not in the pipe. Removing a task a processing element already took
  /// (claimed) only drops the membership.
  bool remove(Task& task);
  /// Gives a queued task a new key and logs it as moved (a pending add stays an
  /// add; an unchanged key changes nothing). Returns false if the task is not
  /// queued here.
  bool rekey(Task& task, std::int64_t key);
  bool contains(const Task& task) const noexcept;
  /// The key of a queued task. Precondition: contains(task).
  std::int64_t key_of(const Task& task) const noexcept;

  // --- consumer side (pipe locked) ------------------------------------------------
  bool has_changes() const noexcept { return log_head_ != nullptr; }
  /// Calls f(Task&, Change, std::int64_t key) for every pending change, oldest
  /// first. The key is the task's current key (meaningless for removals).
  template <class F>
  void for_each_change(F&& f) const {
    for (PipeNode* n = log_head_; n != nullptr; n = n->log_next) f(*n->task, n->change, n->key);
  }
  /// Forgets the pending changes (after the consumer processed them).
  void clear_changes() noexcept;
  /// Logs every queued task as added, in queue order (reconfiguration: a new
  /// consumer sees the pipe as if every task had just arrived).
  void mark_all_added();
  /// Sets aside the pending adds and moves, leaving the removals in the log
  /// (reconfiguration: an instance swap delivers every output's removals downstream
  /// before any output's arrivals, so a consumer of several of them never sees a task
  /// arrive before it left). release_arrivals() puts them back after the log.
  void hold_back_arrivals() noexcept;
  void release_arrivals() noexcept;
  std::size_t pending_changes() const noexcept;

  // --- queued tasks ---------------------------------------------------------------
  /// Number of queued tasks; may be read without the lock (then it is a snapshot).
  std::size_t size() const noexcept { return size_.load(std::memory_order_relaxed); }
  bool empty() const noexcept { return size() == 0; }
  /// The first task (smallest key), or nullptr. Pipe locked.
  Task* head() const noexcept { return heap_.empty() ? nullptr : heap_.front().node->task; }
  /// Takes the head out of the queue for a processing element: it is no longer
  /// queued, but stays a member until its producer removes it (which the removal
  /// that follows every dispatch does). Pipe locked. Returns nullptr when empty.
  Task* pop_head() noexcept;
  /// The queued tasks in order (a copy; for status, tests and reconfiguration).
  std::vector<Task*> ordered() const;
  /// Drops every membership without logging (the pipe's topology is being
  /// discarded; the caller holds the reconfiguration lock exclusively).
  void release_all() noexcept;

  // --- wiring (set while the topology is built) ------------------------------------
  bool logging() const noexcept { return logging_; }
  void set_logging(bool on) noexcept { logging_ = on; }
  Instance* consumer() const noexcept { return consumer_; }
  void set_consumer(Instance* consumer) noexcept { consumer_ = consumer; }
  Instance* producer() const noexcept { return producer_; }
  void set_producer(Instance* producer) noexcept { producer_ = producer; }
  /// Position in the topological order of the topology (locks are taken in rank order).
  int rank() const noexcept { return rank_; }
  void set_rank(int rank) noexcept { rank_ = rank; }
  /// Reports emptiness changes to `set` as bit `index` (steal families).
  void watch(NonEmptySet* set, std::size_t index) noexcept;

 private:
  PipeNode* find(const Task& task) const noexcept;
  PipeNode* acquire(Task& task) noexcept;
  void release(PipeNode* node) noexcept;
  void log_append(PipeNode* node) noexcept;
  void log_unlink(PipeNode* node) noexcept;
  // The heap holds each member's key and arrival next to its node, so that sifting
  // compares within one contiguous array and touches a node only to record its
  // new position.
  struct HeapSlot {
    std::int64_t key;
    std::uint64_t seq;
    PipeNode* node;
  };
  static bool less(const HeapSlot& a, const HeapSlot& b) noexcept {
    return a.key < b.key || (a.key == b.key && a.seq < b.seq);
  }
  void heap_push(PipeNode* node);
  void heap_erase(PipeNode* node) noexcept;
  void heap_fix(std::uint32_t index) noexcept;
  void sift_up(std::uint32_t index) noexcept;
  void sift_down(std::uint32_t index) noexcept;
  void size_changed(std::size_t before, std::size_t after) noexcept;

  std::string name_;
  std::size_t hint_;
  os::FutexLock lock_;
  std::vector<HeapSlot> heap_;
  std::atomic<std::size_t> size_{0};
  std::uint64_t next_seq_ = 0;
  PipeNode* log_head_ = nullptr;
  PipeNode* log_tail_ = nullptr;
  PipeNode* held_head_ = nullptr;  // hold_back_arrivals(): adds and moves set aside
  PipeNode* held_tail_ = nullptr;
  bool logging_ = true;
  Instance* consumer_ = nullptr;
  Instance* producer_ = nullptr;
  int rank_ = 0;
  NonEmptySet* watcher_ = nullptr;
  std::size_t watch_index_ = 0;
};

/// Locks a pipe for a scope.
class PipeGuard {
 public:
  explicit PipeGuard(Pipe& pipe) noexcept : pipe_(pipe) { pipe_.lock(); }
  ~PipeGuard() { pipe_.unlock(); }
  PipeGuard(const PipeGuard&) = delete;
  PipeGuard& operator=(const PipeGuard&) = delete;

 private:
  Pipe& pipe_;
};

}  // namespace takt::sched
