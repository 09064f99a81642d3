// Recording a runtime pool's strands: the strand observer that turns the runtime's strand events into recorder events.
#include "platform/pool_recording.hpp"

#include <algorithm>

namespace takt::platform {

using Kind = ext::StrandEvent::Kind;

PoolRecording::PoolRecording(std::size_t workers, const os::CpuSet& worker_cpus, Resolver resolver,
                             void* context)
    : workers_(workers),
      state_(new WorkerState[workers]),
      resolver_(resolver),
      context_(context),
      table_(new LastWorker[kTableSize]) {
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

void PoolRecording::remember(std::uint64_t task, std::uint32_t worker, const JobRef& job) noexcept {
  LastWorker& slot = table_[(task * 0x9E3779B97F4A7C15ULL >> 52) % kTableSize];
  slot.task.store(0, std::memory_order_relaxed);
  slot.worker.store(worker, std::memory_order_relaxed);
  slot.job_task.store(job.task, std::memory_order_relaxed);
  slot.job.store(job.job, std::memory_order_relaxed);
  slot.task.store(task, std::memory_order_release);
}

JobRef PoolRecording::last_job(std::uint64_t task) const noexcept {
  const LastWorker& slot = table_[(task * 0x9E3779B97F4A7C15ULL >> 52) % kTableSize];
  if (slot.task.load(std::memory_order_acquire) != task) return {};
  JobRef job{true, slot.job_task.load(std::memory_order_relaxed), slot.job.load(std::memory_order_relaxed)};
  if (slot.task.load(std::memory_order_acquire) != task) return {};
  return job;
}

int PoolRecording::last_cpu(std::uint64_t task) const noexcept {
  const LastWorker& slot = table_[(task * 0x9E3779B97F4A7C15ULL >> 52) % kTableSize];
  if (slot.task.load(std::memory_order_acquire) != task) return -1;
  return cpu_of(slot.worker.load(std::memory_order_relaxed));
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
      remember(e.task, e.worker, job);
      end(w, rec, job, id, e.time, false);
      break;
    case Kind::task_end:
      end(w, rec, job, id, e.time, false);
      break;
  }
}

}  // namespace takt::platform
