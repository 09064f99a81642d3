// SpanObserver: Cilkview's online span computation over the strand events of a serial run.
#include "profiler/span_observer.hpp"

#include "takt/error.hpp"

#include <algorithm>

namespace takt::profiler {

using Kind = ext::StrandEvent::Kind;

SpanObserver::SpanObserver(Capacity capacity, Burden burden)
    : capacity_(capacity), burden_(burden), frames_(capacity.depth + 1), scopes_(capacity.scopes + 1) {}

void SpanObserver::reset() noexcept {
  frame_count_ = 0;
  scope_count_ = 0;
  started_ = false;
  finished_ = false;
  fault_ = Fault::none;
  measure_ = DagMeasure{};
}

void SpanObserver::end_strand(Frame& f, std::int64_t now) noexcept {
  const std::int64_t length = std::max<std::int64_t>(0, now - f.start);
  f.path += length;
  f.burdened += length;
  measure_.strand_work += std::chrono::nanoseconds(length);
  measure_.longest_strand = std::max(measure_.longest_strand, std::chrono::nanoseconds(length));
  ++measure_.strands;
}

SpanObserver::ScopeEntry* SpanObserver::find_open(const Frame& f, std::uint64_t scope,
                                                  ScopeEntry** closed) noexcept {
  for (std::size_t i = scope_count_; i > f.scope_base; --i) {
    ScopeEntry& e = scopes_[i - 1];
    if (e.open && e.scope == scope) return &e;
    if (!e.open && closed != nullptr && *closed == nullptr) *closed = &e;
  }
  return nullptr;
}

void SpanObserver::on_event(const ext::StrandEvent& e) noexcept {
  if (fault_ != Fault::none) return;
  const std::int64_t now = e.time.count();
  if (!started_) {
    started_ = true;
    worker_ = e.worker;
  } else if (e.worker != worker_) {
    fail(Fault::not_serial);
    return;
  }
  if (finished_) {
    fail(Fault::inconsistent);  // an event after the root ended: another job
    return;
  }
  switch (e.kind) {
    case Kind::task_begin: {
      if (frame_count_ == frames_.size()) return fail(Fault::depth);
      Frame& f = frames_[frame_count_];
      f.task = e.task;
      f.start = now;
      f.scope_base = scope_count_;
      if (frame_count_ == 0) {
        f.path = 0;
        f.burdened = 0;
        f.parent_entry = 0;
      } else {
        // Spawn edge: the child starts where its parent's strand ended.
        const Frame& parent = frames_[frame_count_ - 1];
        f.path = parent.path;
        f.burdened = parent.burdened;
        // The entry of the scope the parent's spawn named (that spawn came just before).
        if (parent.spawn_entry >= scope_count_ || !scopes_[parent.spawn_entry].open) {
          return fail(Fault::inconsistent);
        }
        f.parent_entry = parent.spawn_entry;
      }
      ++frame_count_;
      return;
    }
    case Kind::spawn: {
      if (frame_count_ == 0) return fail(Fault::inconsistent);
      Frame& f = frames_[frame_count_ - 1];
      if (f.task != e.task) return fail(Fault::inconsistent);
      end_strand(f, now);
      ++measure_.spawns;
      // The child's result goes to the entry of this scope, wherever it is among the
      // task's entries (spawns may alternate between open scopes); the first spawn into
      // a scope opens an entry, in the place of one the task has synced if there is
      // one, so a task holds no more entries than it has scopes open at once.
      ScopeEntry* closed = nullptr;
      ScopeEntry* entry = find_open(f, e.scope, &closed);
      if (entry == nullptr) {
        if (closed == nullptr) {
          if (scope_count_ == scopes_.size()) return fail(Fault::scopes);
          closed = &scopes_[scope_count_++];
        }
        entry = closed;
        *entry = ScopeEntry{e.scope, 0, 0, true};
      }
      f.spawn_entry = static_cast<std::size_t>(entry - scopes_.data());
      return;
    }
    case Kind::task_end: {
      if (frame_count_ == 0) return fail(Fault::inconsistent);
      Frame& f = frames_[frame_count_ - 1];
      if (f.task != e.task) return fail(Fault::inconsistent);
      end_strand(f, now);
      scope_count_ = f.scope_base;  // its scopes all synced (a scope syncs when destroyed)
      --frame_count_;
      if (frame_count_ == 0) {
        measure_.span = std::chrono::nanoseconds(f.path);
        measure_.burdened_span = std::chrono::nanoseconds(f.burdened);
        finished_ = true;
        return;
      }
      // Return edge into the sync of the scope the task was spawned in.
      ScopeEntry& entry = scopes_[f.parent_entry];
      entry.path = std::max(entry.path, f.path);
      entry.burdened = std::max(entry.burdened, f.burdened + burden_.sync.count());
      return;
    }
    case Kind::resume: {
      if (frame_count_ == 0) return fail(Fault::inconsistent);
      if (e.stolen) return fail(Fault::not_serial);
      Frame& f = frames_[frame_count_ - 1];
      if (f.task != e.task) return fail(Fault::inconsistent);
      f.start = now;
      f.burdened += burden_.spawn.count();  // continuation edge
      return;
    }
    case Kind::sync: {
      if (frame_count_ == 0) return fail(Fault::inconsistent);
      Frame& f = frames_[frame_count_ - 1];
      if (f.task != e.task) return fail(Fault::inconsistent);
      end_strand(f, now);
      ++measure_.syncs;
      return;
    }
    case Kind::joined: {
      if (frame_count_ == 0) return fail(Fault::inconsistent);
      Frame& f = frames_[frame_count_ - 1];
      if (f.task != e.task) return fail(Fault::inconsistent);
      f.start = now;
      ScopeEntry* entry = find_open(f, e.scope);
      // A scope none of whose children was recorded (its spawns ran inline, inside
      // call_on_large_stack) joins nothing: the strand goes on.
      if (entry == nullptr) return;
      f.path = std::max(f.path, entry->path);
      f.burdened = std::max(f.burdened, entry->burdened);
      entry->open = false;
      while (scope_count_ > f.scope_base && !scopes_[scope_count_ - 1].open) --scope_count_;
      return;
    }
  }
}

DagMeasure SpanObserver::result() const {
  switch (fault_) {
    case Fault::none:
      break;
    case Fault::depth:
      throw Error("profiler: the job nests deeper than the " + std::to_string(capacity_.depth) +
                  " tasks the span observer was sized for (the depth takt::measure reported); the job's "
                  "structure changed between runs");
    case Fault::scopes:
      throw Error("profiler: the job keeps more than " + std::to_string(capacity_.scopes) +
                  " scopes with children open at once; raise SpanObserver::Capacity::scopes");
    case Fault::not_serial:
      throw Error(
          "profiler: the span observer needs a pool of one worker (events came from a second worker or a "
          "stolen continuation)");
    case Fault::inconsistent:
      throw Error(
          "profiler: the strand events were not those of one fork-join job (was the observer reset "
          "between jobs?)");
  }
  if (!finished_) throw Error("profiler: no complete job was observed since reset()");
  return measure_;
}

}  // namespace takt::profiler
