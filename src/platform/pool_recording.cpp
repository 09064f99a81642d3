// Recording a runtime pool's strands: the strand observer that turns the runtime's strand events into recorder events.
#include "platform/pool_recording.hpp"

#include <algorithm>
#include <atomic>

namespace takt::platform {

using Kind = ext::StrandEvent::Kind;

PoolRecording::PoolRecording(std::size_t workers, const os::CpuSet& worker_cpus, Resolver resolver,
                             void* context)
    : workers_(workers), state_(new WorkerState[workers]), resolver_(resolver), context_(context) {
  for (std::size_t i = 0; i < workers; ++i) {
    cpus_.push_back(worker_cpus.empty() ? -1 : worker_cpus[i % worker_cpus.size()]);
  }
}

void PoolRecording::worker_started(std::size_t worker, ThreadRecorder* recorder) noexcept {
  if (worker < workers_) state_[worker].recorder.store(recorder, std::memory_order_release);
}

ThreadRecorder* PoolRecording::recorder(std::size_t worker) const noexcept {
  return worker < workers_ ? state_[worker].recorder.load(std::memory_order_acquire) : nullptr;
}

int PoolRecording::cpu_of(std::size_t worker) const noexcept {
  return worker < cpus_.size() ? cpus_[worker] : -1;
}

void LastWorkerTable::remember(std::uint64_t task, std::uint32_t worker, const JobRef& job) noexcept {
  Slot& slot = slots_[slot_of(task)];
  std::uint32_t sequence = slot.sequence.load(std::memory_order_relaxed);
  // Another worker writes this slot now (a collision): this information is lost.
  if ((sequence & 1U) != 0 ||
      !slot.sequence.compare_exchange_strong(sequence, sequence + 1, std::memory_order_relaxed)) {
    return;
  }
  // Each field's store is a release: a reader that sees one of them sees the odd
  // sequence too (no fences: ThreadSanitizer does not model them).
  slot.task.store(task, std::memory_order_release);
  slot.worker.store(worker, std::memory_order_release);
  slot.job_task.store(job.task, std::memory_order_release);
  slot.job.store(job.job, std::memory_order_release);
  slot.sequence.store(sequence + 2, std::memory_order_release);
}

bool LastWorkerTable::read(std::uint64_t task, std::uint32_t& worker, JobRef& job) const noexcept {
  const Slot& slot = slots_[slot_of(task)];
  const std::uint32_t before = slot.sequence.load(std::memory_order_acquire);
  if ((before & 1U) != 0) return false;
  // Acquire loads: the second read of the sequence stays after them, and reads at least
  // the odd value of a write whose field one of them saw.
  const std::uint64_t held = slot.task.load(std::memory_order_acquire);
  worker = slot.worker.load(std::memory_order_acquire);
  job = JobRef{true, slot.job_task.load(std::memory_order_acquire), slot.job.load(std::memory_order_acquire)};
  return slot.sequence.load(std::memory_order_relaxed) == before && held == task;
}

JobRef PoolRecording::last_job(std::uint64_t task) const noexcept {
  std::uint32_t worker = 0;
  JobRef job;
  return table_.read(task, worker, job) ? job : JobRef{};
}

int PoolRecording::last_cpu(std::uint64_t task) const noexcept {
  std::uint32_t worker = 0;
  JobRef job;
  return table_.read(task, worker, job) ? cpu_of(worker) : -1;
}

void PoolRecording::begin(WorkerState& w, ThreadRecorder* rec, const JobRef& job, std::uint64_t id,
                          std::chrono::nanoseconds at) noexcept {
  rec->strand_begin(job.task, job.job, id, at);
  w.open = OpenStrand{true, job, id};
}

void PoolRecording::end(WorkerState& w, ThreadRecorder* rec, const JobRef& job, std::uint64_t id,
                        std::chrono::nanoseconds at, bool preempted) noexcept {
  if (!w.open.valid || w.open.id != id) {
    // Resumed without an event (a frozen level): it began again at the previous boundary.
    rec->strand_begin(job.task, job.job, id, std::min(at, w.last_end.count() > 0 ? w.last_end : at));
  }
  rec->strand_end(job.task, job.job, id, at, preempted);
  w.open = OpenStrand{};
  w.last_end = at;
}

OpenStrand PoolRecording::preempted(std::size_t worker, std::chrono::nanoseconds at) noexcept {
  if (worker >= workers_) return {};
  WorkerState& w = state_[worker];
  ThreadRecorder* rec = w.recorder.load(std::memory_order_acquire);
  const OpenStrand open = w.open;
  if (rec == nullptr || !open.valid) return open;
  rec->preemption(open.job.task, open.job.job, open.id, at);
  end(w, rec, open.job, open.id, at, true);
  return open;
}

void PoolRecording::resumed(std::size_t worker, const OpenStrand& strand, std::chrono::nanoseconds at) noexcept {
  if (worker >= workers_ || !strand.valid) return;
  WorkerState& w = state_[worker];
  ThreadRecorder* rec = w.recorder.load(std::memory_order_acquire);
  if (rec == nullptr) return;
  begin(w, rec, strand.job, strand.id, at);
}

void PoolRecording::on_event(const ext::StrandEvent& e) noexcept {
  if (e.worker >= workers_) return;
  WorkerState& w = state_[e.worker];
  ThreadRecorder* rec = w.recorder.load(std::memory_order_acquire);
  if (rec == nullptr) return;
  JobRef job = resolver_(context_, e.worker);
  if (!job.valid && e.kind == Kind::resume && e.stolen) job = last_job(e.task);
  if (!job.valid) return;
  const std::uint64_t id = strand_id(e.task, e.strand);
  switch (e.kind) {
    case Kind::task_begin:
      begin(w, rec, job, id, e.time);
      break;
    case Kind::resume:
      if (e.stolen) {
        const int from = last_cpu(e.task);
        rec->steal(job.task, job.job, from, e.time);
        if (from >= 0 && from != cpu_of(e.worker)) rec->migration(job.task, job.job, from, e.time);
      }
      begin(w, rec, job, id, e.time);
      break;
    case Kind::joined: {
      const int from = last_cpu(e.task);
      if (from >= 0 && from != cpu_of(e.worker)) rec->migration(job.task, job.job, from, e.time);
      begin(w, rec, job, id, e.time);
      break;
    }
    case Kind::spawn:
    case Kind::sync:
      table_.remember(e.task, e.worker, job);
      end(w, rec, job, id, e.time, false);
      break;
    case Kind::task_end:
      end(w, rec, job, id, e.time, false);
      break;
  }
}

}  // namespace takt::platform
