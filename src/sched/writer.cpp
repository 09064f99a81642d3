// Writer: how an instance changes its output pipes (locking, then running their consumers).
#include "sched/writer.hpp"

#include "sched/component.hpp"
#include "sched/pipe.hpp"

namespace takt::sched {

void flush(Pipe& pipe) noexcept {
  if (!pipe.has_changes()) return;
  if (Instance* consumer = pipe.consumer()) consumer->run_update(pipe);
  pipe.clear_changes();
}

void Writer::refocus(Pipe& out) {
  if (!exclusive_) {
    if (current_ != nullptr) release_current();
    out.lock();
  }
  current_ = &out;
}

void Writer::release_current() noexcept {
  flush(*current_);
  current_->unlock();
  current_ = nullptr;
}

}  // namespace takt::sched
