// Recording a runtime pool's strands: the strand observer that turns the runtime's strand events into recorder events.
#include "platform/pool_recording.hpp"

namespace takt::platform {

using Kind = ext::StrandEvent::Kind;

PoolRecording::PoolRecording(std::size_t workers, const os::CpuSet& worker_cpus, Resolver resolver,
                             void* context)
    : workers_(workers),
      recorders_(new std::atomic<ThreadRecorder*>[workers]),
      resolver_(resolver),
      context_(context),
      table_(new LastWorker[kTableSize]) {
  for (std::size_t i = 0; i < workers; ++i) {
    recorders_[i].store(nullptr, std::memory_order_relaxed);
    cpus_.push_back(worker_cpus.empty() ? -1 : worker_cpus[i % worker_cpus.size()]);
  }
}

void PoolRecording::worker_started(std::size_t worker, ThreadRecorder* recorder) noexcept {
  if (worker < workers_) recorders_[worker].store(recorder, std::memory_order_release);
}

ThreadRecorder* PoolRecording::recorder(std::size_t worker) const noexcept {
  return worker < workers_ ? recorders_[worker].load(std::memory_order_acquire) : nullptr;
}

int PoolRecording::cpu_of(std::size_t worker) const noexcept {
  return worker < cpus_.size() ? cpus_[worker] : -1;
}

void PoolRecording::remember(std::uint64_t task, std::uint32_t worker) noexcept {
  LastWorker& slot = table_[(task * 0x9E3779B97F4A7C15ULL >> 52) % kTableSize];
  slot.worker.store(worker, std::memory_order_relaxed);
  slot.task.store(task, std::memory_order_release);
}

int PoolRecording::last_cpu(std::uint64_t task) const noexcept {
  const LastWorker& slot = table_[(task * 0x9E3779B97F4A7C15ULL >> 52) % kTableSize];
  if (slot.task.load(std::memory_order_acquire) != task) return -1;
  return cpu_of(slot.worker.load(std::memory_order_relaxed));
}

void PoolRecording::on_event(const ext::StrandEvent& e) noexcept {
  ThreadRecorder* rec = recorder(e.worker);
  if (rec == nullptr) return;
  const JobRef job = resolver_(context_, e.worker);
  if (!job.valid) return;
  const std::uint64_t id = strand_id(e.task, e.strand);
  switch (e.kind) {
    case Kind::task_begin:
      rec->strand_begin(job.task, job.job, id, e.time);
      break;
    case Kind::resume:
      if (e.stolen) {
        const int from = last_cpu(e.task);
        rec->steal(job.task, job.job, from, e.time);
        if (from >= 0 && from != cpu_of(e.worker)) rec->migration(job.task, job.job, from, e.time);
      }
      rec->strand_begin(job.task, job.job, id, e.time);
      break;
    case Kind::joined: {
      const int from = last_cpu(e.task);
      if (from >= 0 && from != cpu_of(e.worker)) rec->migration(job.task, job.job, from, e.time);
      rec->strand_begin(job.task, job.job, id, e.time);
      break;
    }
    case Kind::spawn:
    case Kind::sync:
      remember(e.task, e.worker);
      rec->strand_end(job.task, job.job, id, e.time);
      break;
    case Kind::task_end:
      rec->strand_end(job.task, job.job, id, e.time);
      break;
  }
}

}  // namespace takt::platform
