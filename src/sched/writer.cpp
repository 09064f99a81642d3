// Writer: how an instance changes its output pipes (locking, then running their consumers).
#include "sched/writer.hpp"

#include "sched/component.hpp"
#include "sched/pipe.hpp"

#include <algorithm>

namespace takt::sched {

void flush(Pipe& pipe) noexcept {
  if (!pipe.has_changes()) return;
  if (Instance* consumer = pipe.consumer()) consumer->run_update(pipe, false);
  pipe.clear_changes();
}

void Writer::focus(Pipe& out) {
  if (current_ == &out) return;
  if (exclusive_) {
    if (std::find(touched_.begin(), touched_.end(), &out) == touched_.end()) touched_.push_back(&out);
  } else {
    if (current_ != nullptr) {
      flush(*current_);
      current_->unlock();
    }
    out.lock();
  }
  current_ = &out;
}

void Writer::add(Pipe& out, Task& task, std::int64_t key) {
  focus(out);
  out.add(task, key);
}

bool Writer::remove(Pipe& out, Task& task) {
  focus(out);
  return out.remove(task);
}

bool Writer::rekey(Pipe& out, Task& task, std::int64_t key) {
  focus(out);
  return out.rekey(task, key);
}

bool Writer::contains(Pipe& out, const Task& task) {
  focus(out);
  return out.contains(task);
}

std::int64_t Writer::key_of(Pipe& out, const Task& task) {
  focus(out);
  return out.key_of(task);
}

void Writer::finish() noexcept {
  if (exclusive_) {
    std::sort(touched_.begin(), touched_.end(), [](const Pipe* a, const Pipe* b) { return a->rank() < b->rank(); });
    for (Pipe* pipe : touched_) flush(*pipe);
    touched_.clear();
    current_ = nullptr;
    return;
  }
  if (current_ != nullptr) {
    flush(*current_);
    current_->unlock();
    current_ = nullptr;
  }
}

}  // namespace takt::sched
