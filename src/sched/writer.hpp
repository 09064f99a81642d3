// Writer: how an instance changes its output pipes (locking, then running their consumers).
#pragma once

#include "sched/pipe.hpp"
#include "sched/task.hpp"

#include <cstdint>

namespace takt::sched {

class Pipe;

/// Runs the consumer of a locked pipe if the pipe has pending changes, then clears
/// its log: this is the synchronous pipe update of CoBaS (dissertation §5.3), which
/// carries a change down the chain in the calling thread.
void flush(Pipe& pipe) noexcept;

/// The outputs an instance writes during one update. A Writer locks an output when
/// the instance first writes to it and keeps it locked while the instance writes
/// to it again; when the instance turns to another output (or finishes), the
/// previous one is flushed (its consumer runs, down the chain) and unlocked. So an
/// instance never holds two outputs at once, and every pipe's log is empty again
/// when its lock is released.
///
/// For an instance swapped in by a reconfiguration (`exclusive`: the
/// reconfiguration lock is held exclusively, nothing else runs, the swap has
/// emptied the instance's outputs without flushing them) the Writer takes no locks
/// and flushes nothing: the swap flushes every output afterwards (all outputs'
/// removals first, then their arrivals, in rank order), so that the swap's removal
/// and the new instance's add of a task meet in one log and become a move; one such
/// Writer serves all the instance's inputs (Instance::offer_inputs_as_new). Further
/// down the chain updates run as usual.
class Writer {
 public:
  explicit Writer(bool exclusive) noexcept : exclusive_(exclusive) {}
  ~Writer() { finish(); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void add(Pipe& out, Task& task, std::int64_t key) {
    focus(out);
    out.add(task, key);
  }
  bool remove(Pipe& out, Task& task) {
    focus(out);
    return out.remove(task);
  }
  bool rekey(Pipe& out, Task& task, std::int64_t key) {
    focus(out);
    return out.rekey(task, key);
  }
  /// Whether `task` is queued in `out` (locks `out` like a write).
  bool contains(Pipe& out, const Task& task) {
    focus(out);
    return out.contains(task);
  }
  /// The key of `task` in `out` (locks `out` like a write). Precondition: queued.
  std::int64_t key_of(Pipe& out, const Task& task) {
    focus(out);
    return out.key_of(task);
  }
  /// Flushes and unlocks what is still held. Idempotent.
  void finish() noexcept {
    if (!exclusive_ && current_ != nullptr) release_current();
    current_ = nullptr;  // exclusive: the swap flushes every output itself, removals first
  }

 private:
  void focus(Pipe& out) {
    if (current_ != &out) refocus(out);
  }
  void refocus(Pipe& out);
  void release_current() noexcept;
  bool exclusive_;
  Pipe* current_ = nullptr;
};

}  // namespace takt::sched
