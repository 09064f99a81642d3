// Pipe: an ordered runqueue of tasks with a change log for its consuming instance.
#include "sched/pipe.hpp"

#include "sched/nonempty_set.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace takt::sched {
namespace {

[[noreturn]] void broken_invariant(const char* what, const std::string& pipe) {
  std::fprintf(stderr, "takt: internal error in the scheduling framework: %s (pipe '%s')\n", what,
               pipe.c_str());
  std::abort();
}

}  // namespace

const char* to_string(TaskState state) noexcept {
  switch (state) {
    case TaskState::unconsidered:
      return "unconsidered";
    case TaskState::schedulable:
      return "schedulable";
    case TaskState::running:
      return "running";
    case TaskState::dispatching:
      return "dispatching";
  }
  return "?";
}

const char* to_string(Change change) noexcept {
  switch (change) {
    case Change::none:
      return "none";
    case Change::added:
      return "added";
    case Change::removed:
      return "removed";
    case Change::moved:
      return "moved";
  }
  return "?";
}

Pipe::Pipe(std::string name, std::size_t node_hint)
    : name_(std::move(name)), hint_(node_hint % kMaxPipeNodes) {
  heap_.reserve(16);
}

PipeNode* Pipe::find(const Task& task) const noexcept {
  auto& nodes = const_cast<Task&>(task).nodes_;
  if (nodes[hint_].owner.load(std::memory_order_acquire) == this) return &nodes[hint_];
  for (std::size_t i = 0; i < kMaxPipeNodes; ++i) {
    if (nodes[i].owner.load(std::memory_order_acquire) == this) return &nodes[i];
  }
  return nullptr;
}

PipeNode* Pipe::acquire(Task& task) noexcept {
  auto& nodes = task.nodes_;
  // Usually the slot of this pipe's depth is free (a task is in one pipe per depth).
  PipeNode& preferred = nodes[hint_];
  Pipe* none = nullptr;
  if (preferred.owner.load(std::memory_order_relaxed) == nullptr &&
      preferred.owner.compare_exchange_strong(none, this, std::memory_order_acq_rel)) {
    preferred.task = &task;
    return &preferred;  // released nodes are already reset (see release)
  }
  std::size_t i = hint_;
  for (std::size_t k = 0; k < kMaxPipeNodes; ++k, i = (i + 1 == kMaxPipeNodes ? 0 : i + 1)) {
    PipeNode& node = nodes[i];
    Pipe* expected = nullptr;
    if (node.owner.load(std::memory_order_relaxed) == nullptr &&
        node.owner.compare_exchange_strong(expected, this, std::memory_order_acq_rel)) {
      node.task = &task;
      node.heap_index = PipeNode::npos;
      node.change = Change::none;
      node.claimed = false;
      node.log_prev = node.log_next = nullptr;
      return &node;
    }
  }
  broken_invariant("a task is in more pipes at once than kMaxPipeNodes allows", name_);
}

void Pipe::release(PipeNode* node) noexcept {
  node->task = nullptr;
  node->heap_index = PipeNode::npos;
  node->change = Change::none;
  node->claimed = false;
  node->log_prev = node->log_next = nullptr;
  node->owner.store(nullptr, std::memory_order_release);
}

namespace {

/// Appends the chain first..last (linked through log_next, last->log_next null) to the
/// list (head, tail) linked through log_prev / log_next.
void splice_to(PipeNode*& head, PipeNode*& tail, PipeNode* first, PipeNode* last) noexcept {
  first->log_prev = tail;
  if (tail != nullptr) {
    tail->log_next = first;
  } else {
    head = first;
  }
  tail = last;
}

void append_to(PipeNode*& head, PipeNode*& tail, PipeNode* node) noexcept {
  node->log_next = nullptr;
  splice_to(head, tail, node, node);
}

}  // namespace

void Pipe::log_append(PipeNode* node) noexcept { append_to(log_head_, log_tail_, node); }

void Pipe::log_unlink(PipeNode* node) noexcept {
  if (node->log_prev != nullptr) {
    node->log_prev->log_next = node->log_next;
  } else {
    log_head_ = node->log_next;
  }
  if (node->log_next != nullptr) {
    node->log_next->log_prev = node->log_prev;
  } else {
    log_tail_ = node->log_prev;
  }
  node->log_prev = node->log_next = nullptr;
}

void Pipe::size_changed(std::size_t before, std::size_t after) noexcept {
  size_.store(after, std::memory_order_relaxed);
  if (watcher_ == nullptr) return;
  if (before == 0 && after != 0) watcher_->set(watch_index_);
  if (before != 0 && after == 0) watcher_->clear(watch_index_);
}

void Pipe::watch(NonEmptySet* set, std::size_t index) noexcept {
  watcher_ = set;
  watch_index_ = index;
  if (watcher_ != nullptr && !heap_.empty()) watcher_->set(index);
}

void Pipe::sift_up(std::uint32_t index) noexcept {
  const HeapSlot slot = heap_[index];
  while (index > 0) {
    const std::uint32_t parent = (index - 1) / 2;
    if (!less(slot, heap_[parent])) break;
    heap_[index] = heap_[parent];
    heap_[index].node->heap_index = index;
    index = parent;
  }
  heap_[index] = slot;
  slot.node->heap_index = index;
}

void Pipe::sift_down(std::uint32_t index) noexcept {
  const auto n = static_cast<std::uint32_t>(heap_.size());
  const HeapSlot slot = heap_[index];
  for (;;) {
    std::uint32_t child = 2 * index + 1;
    if (child >= n) break;
    if (child + 1 < n && less(heap_[child + 1], heap_[child])) ++child;
    if (!less(heap_[child], slot)) break;
    heap_[index] = heap_[child];
    heap_[index].node->heap_index = index;
    index = child;
  }
  heap_[index] = slot;
  slot.node->heap_index = index;
}

void Pipe::heap_fix(std::uint32_t index) noexcept {
  if (index > 0 && less(heap_[index], heap_[(index - 1) / 2])) {
    sift_up(index);
  } else {
    sift_down(index);
  }
}

void Pipe::heap_push(PipeNode* node) {
  const std::size_t before = heap_.size();
  const HeapSlot slot{node->key, node->seq, node};
  heap_.push_back(slot);
  const auto index = static_cast<std::uint32_t>(before);
  if (index > 0 && less(slot, heap_[(index - 1) / 2])) {
    sift_up(index);
  } else {
    node->heap_index = index;  // in order already (first come, first served keys)
  }
  size_changed(before, before + 1);
}

void Pipe::heap_erase(PipeNode* node) noexcept {
  const std::size_t before = heap_.size();
  const std::uint32_t index = node->heap_index;
  const HeapSlot last = heap_.back();
  heap_.pop_back();
  node->heap_index = PipeNode::npos;
  if (last.node != node) {
    heap_[index] = last;
    last.node->heap_index = index;
    heap_fix(index);
  }
  size_changed(before, before - 1);
}

void Pipe::add(Task& task, std::int64_t key) {
  // Only a task whose removal the consumer has not seen yet can still be a member:
  // it is in the log, which is usually empty (no search at all then).
  for (PipeNode* node = log_head_; node != nullptr; node = node->log_next) {
    if (node->task != &task) continue;
    if (node->change != Change::removed) broken_invariant("a task was added twice", name_);
    // Removed since the consumer last looked, now back: for the consumer it moved.
    node->key = key;
    node->seq = next_seq_++;
    heap_push(node);
    node->change = Change::moved;
    return;
  }
  PipeNode* node = acquire(task);
  node->key = key;
  node->seq = next_seq_++;
  heap_push(node);
  if (logging_) {
    node->change = Change::added;
    log_append(node);
  }
}

bool Pipe::remove(Task& task) {
  PipeNode* node = find(task);
  if (node == nullptr) return false;
  if (node->claimed) {
    // Taken by a processing element; the producer's removal ends the membership.
    release(node);
    return true;
  }
  if (node->heap_index == PipeNode::npos) return false;  // removal already pending
  heap_erase(node);
  if (!logging_) {
    release(node);
    return true;
  }
  switch (node->change) {
    case Change::added:  // never seen by the consumer: cancel out
      log_unlink(node);
      release(node);
      break;
    case Change::none:
      node->change = Change::removed;
      log_append(node);
      break;
    case Change::moved:  // already in the log
      node->change = Change::removed;
      break;
    case Change::removed:
      break;
  }
  return true;
}

bool Pipe::rekey(Task& task, std::int64_t key) {
  PipeNode* node = find(task);
  if (node == nullptr || node->heap_index == PipeNode::npos) return false;
  if (node->key == key) return true;  // same place in the order: nothing to tell
  node->key = key;
  heap_[node->heap_index].key = key;
  heap_fix(node->heap_index);
  if (logging_ && node->change == Change::none) {
    node->change = Change::moved;
    log_append(node);
  }
  return true;
}

bool Pipe::contains(const Task& task) const noexcept {
  const PipeNode* node = find(task);
  return node != nullptr && node->heap_index != PipeNode::npos;
}

std::int64_t Pipe::key_of(const Task& task) const noexcept {
  const PipeNode* node = find(task);
  return node != nullptr ? node->key : 0;
}

void Pipe::clear_changes() noexcept {
  PipeNode* node = log_head_;
  log_head_ = log_tail_ = nullptr;
  while (node != nullptr) {
    PipeNode* next = node->log_next;
    node->log_prev = node->log_next = nullptr;
    if (node->change == Change::removed) {
      release(node);
    } else {
      node->change = Change::none;
    }
    node = next;
  }
}

std::size_t Pipe::pending_changes() const noexcept {
  std::size_t n = 0;
  for (PipeNode* node = log_head_; node != nullptr; node = node->log_next) ++n;
  return n;
}

void Pipe::mark_all_added() {
  if (!logging_) return;
  std::vector<HeapSlot> slots(heap_.begin(), heap_.end());
  std::sort(slots.begin(), slots.end(), less);
  for (const HeapSlot& slot : slots) {
    PipeNode* node = slot.node;
    if (node->change != Change::none) continue;
    node->change = Change::added;
    log_append(node);
  }
}

void Pipe::hold_back_arrivals() noexcept {
  PipeNode* node = log_head_;
  while (node != nullptr) {
    PipeNode* next = node->log_next;
    if (node->change != Change::removed) {
      log_unlink(node);
      append_to(held_head_, held_tail_, node);
    }
    node = next;
  }
}

void Pipe::release_arrivals() noexcept {
  if (held_head_ == nullptr) return;
  splice_to(log_head_, log_tail_, held_head_, held_tail_);
  held_head_ = held_tail_ = nullptr;
}

Task* Pipe::pop_head() noexcept {
  if (heap_.empty()) return nullptr;
  PipeNode* node = heap_.front().node;
  heap_erase(node);
  if (logging_ && node->change != Change::none) {
    // A consumer instance would still see the pending change; pipes that processing
    // elements take from have no consumer instance, so this does not happen.
    log_unlink(node);
  }
  node->change = Change::none;
  node->claimed = true;
  return node->task;
}

std::vector<Task*> Pipe::ordered() const {
  std::vector<HeapSlot> slots(heap_.begin(), heap_.end());
  std::sort(slots.begin(), slots.end(), less);
  std::vector<Task*> tasks;
  tasks.reserve(slots.size());
  for (const HeapSlot& slot : slots) tasks.push_back(slot.node->task);
  return tasks;
}

void Pipe::release_all() noexcept {
  // Pending removals are in the log only; queued tasks are in the heap (and maybe
  // the log). Claimed memberships exist only inside an operation, never while the
  // reconfiguration lock is held exclusively, so there are none here.
  PipeNode* node = log_head_;
  log_head_ = log_tail_ = nullptr;
  while (node != nullptr) {
    PipeNode* next = node->log_next;
    node->log_prev = node->log_next = nullptr;
    if (node->change == Change::removed) release(node);
    node = next;
  }
  for (const HeapSlot& queued : heap_) release(queued.node);
  const std::size_t before = heap_.size();
  heap_.clear();
  size_changed(before, 0);
}

}  // namespace takt::sched
