// The `gedf-paws` policy (PAWS): global EDF over jobs with priority-aware work stealing inside them, rules A–F.
#include "policies/gedf_paws.hpp"

#include "os/clock.hpp"
#include "platform/pool_recording.hpp"
#include "platform/run_threads.hpp"
#include "platform/thread_recording.hpp"
#include "policies/builtin_topologies.hpp"
#include "policies/edf_preemption.hpp"
#include "policies/fork_join_events.hpp"
#include "policies/job_slot.hpp"
#include "policies/leaked_when_left_running.hpp"
#include "policies/statistics_json.hpp"
#include "sched/scheduler.hpp"
#include "takt/error.hpp"
#include "takt/runtime/pool.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace takt::policies {
namespace {

using platform::RunContext;
using std::chrono::nanoseconds;

/// Levels of each worker's local priority queue: one running computation and up to
/// three preempted ones kept locally (a yield that finds none free is refused).
constexpr std::size_t kPriorityLevels = 4;
/// Spawn depth of the pool's static memory (the `segments` program needs about
/// log2(strands) + 2).
constexpr std::size_t kDepth = 40;
/// Strands that may be handed back at once (rule F), at most.
constexpr std::size_t kMaxSuspended = 16;

class GedfPaws final : public platform::Policy, ext::WorkSource, ext::YieldPolicy {
 public:
  GedfPaws() = default;
  ~GedfPaws() override;

  [[nodiscard]] std::string_view name() const override { return "gedf-paws"; }
  [[nodiscard]] sched::TopologySpec default_topology() const override { return builtin_topology(name()); }
  platform::RecordingPlan plan(const RunContext& ctx) override;
  void prepare(RunContext& ctx) override;
  void run(RunContext& ctx) override;
  bool shutdown() override;
  [[nodiscard]] nlohmann::json details() const override;

  // ext::WorkSource (rule D) and ext::YieldPolicy (preemption, rule F).
  ext::Work take(std::size_t worker) noexcept override;
  ext::Work preempt(const ext::YieldPoint& point) noexcept override;
  void suspended(ext::SuspendedStrand strand) noexcept override;
  void refused(std::size_t worker) noexcept override;

 private:
  /// A strand handed back at a yield point, waiting in the global queue (rule F).
  struct StrandEntry {
    sched::Task entry;
    ext::SuspendedStrand strand;
    platform::OpenStrand open;  ///< what the recorder knows of it
    std::size_t from_worker = 0;
    std::atomic<bool> used{false};
    std::atomic<std::int64_t> waiting_key{-1};  ///< its key while in the global queue, else -1
  };
  struct LaneSink final : platform::ReleaseSink {
    GedfPaws* owner = nullptr;
    void release(const platform::Release& release) override { owner->admit(release); }
  };

  void admit(const platform::Release& release);
  [[nodiscard]] nanoseconds key_of(const sched::Task& t) const noexcept;
  [[nodiscard]] StrandEntry* as_strand(const sched::Task& t) const noexcept;
  /// Turns a task the topology handed to `worker` into work for the pool.
  ext::Work work_for(sched::Task& t, std::size_t worker) noexcept;
  static platform::JobRef resolve(void* context, std::size_t worker) noexcept;
  platform::JobRef job_of_key(nanoseconds key) const noexcept;

  std::size_t workers_ = 0;
  /// The jobs and handed-back strands the scheduler holds (slots_, entries_) are declared
  /// before it, so that they outlive it: its destructor writes into tasks still attached.
  std::vector<std::unique_ptr<JobSlot>> slots_;
  std::unique_ptr<std::atomic<std::int64_t>[]> keys_;  ///< each slot's current key, for resolve()
  /// Each slot's key while its job is admitted and not yet taken by a worker, else -1.
  std::unique_ptr<std::atomic<std::int64_t>[]> waiting_keys_;
  // The lane's scratch space for admit() (one lane; no allocation at a release).
  std::vector<WorkerView> worker_views_;
  std::vector<nanoseconds> waiting_scratch_;
  std::unique_ptr<StrandEntry[]> entries_;
  std::size_t entry_count_ = 0;
  std::unique_ptr<sched::Scheduler> scheduler_;
  /// Per worker, the running key a yield request targeted (-1: none pending). A request
  /// is consumed only at a yield point (spawn or sync); a computation that ends without
  /// one leaves it set, so it counts only while the worker still runs that key.
  std::unique_ptr<std::atomic<std::int64_t>[]> yield_key_;
  /// The strand a worker's preempt() just ended, for the suspended() that follows on
  /// the same thread when the strand is handed back.
  std::unique_ptr<platform::OpenStrand[]> pending_open_;
  std::unique_ptr<platform::PoolRecording> recording_;
  std::unique_ptr<Pool> pool_;
  nlohmann::json pool_statistics_;
  platform::ReleaseEngine* engine_ = nullptr;
  PriorityKeys priority_keys_;  ///< the runtime keys of jobs (deadline, then task index)
  platform::RunThreads lanes_;
  std::atomic<std::uint64_t> preemptions_requested_{0};
  std::atomic<std::uint64_t> preemptions_{0};
  std::atomic<std::uint64_t> handed_back_{0};
  bool left_running_ = false;
  bool shut_down_ = false;
};

// Never runs after a shutdown() that left a job running: make_gedf_paws's wrapper then
// leaks the whole object, which the pool's workers still use (it is their work source,
// yield policy and recording context).
GedfPaws::~GedfPaws() {
  if (!shut_down_ && !left_running_) shutdown();
}

platform::RecordingPlan GedfPaws::plan(const RunContext& ctx) {
  if (ctx.analysis.global_edf() == nullptr) {
    throw Error(fmt::format("the gedf-paws policy needs the global-EDF analysis of the task set (got the "
                            "analysis for {}); analyse with --policy gedf-paws",
                            model::to_string(ctx.analysis.policy)));
  }
  workers_ = static_cast<std::size_t>(ctx.cores.count());
  platform::RecordingPlan plan;
  plan.threads = 1 + workers_;
  for (const auto& t : ctx.set.tasks) {
    plan.events_per_job.push_back(fork_join_events(t) + 8);  // plus preemptions and resumptions
    plan.threads_per_task.push_back(workers_);
  }
  return plan;
}

void GedfPaws::prepare(RunContext& ctx) {
  engine_ = &ctx.engine;
  priority_keys_ = PriorityKeys(ctx.tasks.size());
  priority_keys_.check_range(ctx.engine, name());
  sched::SchedulerOptions options;
  options.instrumentation.clock = [] { return os::monotonic_now(); };
  scheduler_ = std::make_unique<sched::Scheduler>(
      ctx.topology, sched::ProcessingElements::uniform(static_cast<int>(workers_)), std::move(options));
  keys_.reset(new std::atomic<std::int64_t>[ctx.tasks.size()]);
  waiting_keys_.reset(new std::atomic<std::int64_t>[ctx.tasks.size()]);
  for (std::size_t i = 0; i < ctx.tasks.size(); ++i) {
    slots_.push_back(std::make_unique<JobSlot>(static_cast<std::uint32_t>(i), *ctx.tasks[i], ctx.timing[i],
                                               ctx.engine, *scheduler_,
                                               ctx.set.tasks[i].priority.value_or(JobSlot::kNoPriority)));
    keys_[i].store(-1, std::memory_order_relaxed);
    waiting_keys_[i].store(-1, std::memory_order_relaxed);
    slots_.back()->check_entry(0, name(), ctx.set.tasks[i].name);
  }
  entry_count_ = std::min(kMaxSuspended, ctx.tasks.size() + workers_);
  entries_.reset(new StrandEntry[entry_count_]);
  for (std::size_t i = 0; i < entry_count_; ++i) entries_[i].entry.payload = &entries_[i];
  worker_views_.resize(workers_);
  waiting_scratch_.resize(ctx.tasks.size() + entry_count_);
  yield_key_.reset(new std::atomic<std::int64_t>[workers_]);
  for (std::size_t i = 0; i < workers_; ++i) yield_key_[i].store(-1, std::memory_order_relaxed);
  pending_open_.reset(new platform::OpenStrand[workers_]);

  recording_ = std::make_unique<platform::PoolRecording>(workers_, ctx.cores.all(), &GedfPaws::resolve, this);
  PoolConfig config;
  config.cpus = ctx.cores.all();
  config.workers = workers_;
  config.pin = true;
  config.strategy = QueueStrategy::priority_aware;
  config.priority_levels = kPriorityLevels;
  config.suspended_strands = entry_count_;
  config.memory.depth = kDepth;
  config.name = "gedf-paws";
  platform::Recorder& recorder = *ctx.recorder;
  const platform::RealtimeSettings& realtime = ctx.realtime;
  platform::PoolRecording* recording = recording_.get();
  config.on_worker_start = [recording, &recorder, &realtime](std::size_t worker) {
    platform::enter_realtime(realtime, {}, platform::fifo::worker);
    recording->worker_started(worker, platform::attach_current_thread(recorder, fmt::format("worker {}", worker)));
  };
  pool_ = std::make_unique<Pool>(std::move(config));
  pool_->extension().set_observer(recording_.get());
  pool_->extension().set_yield_policy(this);
  pool_->extension().set_work_source(this);
}

nanoseconds GedfPaws::key_of(const sched::Task& t) const noexcept {
  if (const StrandEntry* s = as_strand(t)) {
    // The atomic copy of the strand's key: a task seen by peek() may be taken, resumed
    // and its entry refilled by suspended() meanwhile (a stale key only costs a
    // schedule() that finds nothing earlier). Taken: no key, never earlier.
    const std::int64_t k = s->waiting_key.load(std::memory_order_acquire);
    return k >= 0 ? nanoseconds(k) : nanoseconds::max();
  }
  return nanoseconds(keys_[static_cast<const JobSlot*>(t.payload)->task()].load(std::memory_order_acquire));
}

GedfPaws::StrandEntry* GedfPaws::as_strand(const sched::Task& t) const noexcept {
  auto* p = static_cast<StrandEntry*>(t.payload);
  if (p >= entries_.get() && p < entries_.get() + entry_count_) return p;
  return nullptr;
}

platform::JobRef GedfPaws::job_of_key(nanoseconds key) const noexcept {
  const std::uint32_t i = priority_keys_.task_of(key);
  if (i < slots_.size() && keys_[i].load(std::memory_order_acquire) == key.count()) {
    return platform::JobRef{true, i, slots_[i]->job()};
  }
  return {};
}

platform::JobRef GedfPaws::resolve(void* context, std::size_t worker) noexcept {
  const auto* self = static_cast<const GedfPaws*>(context);
  nanoseconds key{};
  if (!self->pool_->extension().running_key(worker, key)) return {};
  return self->job_of_key(key);
}

ext::Work GedfPaws::work_for(sched::Task& t, std::size_t worker) noexcept {
  ext::Work work;
  if (StrandEntry* s = as_strand(t)) {
    work.strand = s->strand;
    const platform::OpenStrand open = s->open;
    const std::size_t from = s->from_worker;
    scheduler_->exit(t);
    s->waiting_key.store(-1, std::memory_order_release);
    s->used.store(false, std::memory_order_release);
    recording_->resumed(worker, open, os::monotonic_now());
    if (from != worker && open.valid) {
      if (platform::ThreadRecorder* rec = recording_->recorder(worker)) {
        const os::CpuSet& cpus = pool_->cpus();
        rec->migration(open.job.task, open.job.job, cpus[from % cpus.size()], os::monotonic_now());
      }
    }
    return work;
  }
  JobSlot* slot = static_cast<JobSlot*>(t.payload);
  waiting_keys_[slot->task()].store(-1, std::memory_order_release);
  work.job = slot;
  return work;
}

ext::Work GedfPaws::take(std::size_t worker) noexcept {
  sched::Task* t = scheduler_->schedule(static_cast<int>(worker));
  if (t == nullptr) return {};
  return work_for(*t, worker);
}

ext::Work GedfPaws::preempt(const ext::YieldPoint& point) noexcept {
  yield_key_[point.worker].store(-1, std::memory_order_release);
  const int pe = static_cast<int>(point.worker);
  sched::Task* head = scheduler_->peek(pe);
  if (head == nullptr || key_of(*head) >= point.key) return {};
  sched::Task* t = scheduler_->schedule(pe);
  if (t == nullptr) return {};
  if (key_of(*t) >= point.key) {
    // Another core took the earlier one meanwhile: put this one back and go on. While
    // it was out of the queue an idle worker may have found the queue empty and gone to
    // sleep: wake one (else it sleeps until its timeout, up to 1 s, beside queued work).
    scheduler_->relinquish(*t);
    (void)wake_workers_for(pool_->extension(), *scheduler_, 0, workers_, true);
    return {};
  }
  preemptions_.fetch_add(1, std::memory_order_relaxed);
  const nanoseconds now = os::monotonic_now();
  const platform::OpenStrand open = recording_->preempted(point.worker, now);
  if (point.hand_back) {
    // suspended() follows on this thread; it needs the strand's identity.
    pending_open_[point.worker] = open;
  }
  return work_for(*t, point.worker);
}

void GedfPaws::refused(std::size_t worker) noexcept {
  // The runtime could not suspend the strand: the request is over, so the worker may
  // be chosen again by the next release.
  yield_key_[worker].store(-1, std::memory_order_release);
}

void GedfPaws::suspended(ext::SuspendedStrand strand) noexcept {
  handed_back_.fetch_add(1, std::memory_order_relaxed);
  const int worker = current_worker();
  StrandEntry* entry = nullptr;
  for (std::size_t i = 0; i < entry_count_; ++i) {
    bool expected = false;
    if (entries_[i].used.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
      entry = &entries_[i];
      break;
    }
  }
  // The pool hands back at most suspended_strands (= entry_count_) strands at a time,
  // and an entry is freed before its strand is given back: one is always free.
  entry->strand = strand;
  entry->from_worker = worker >= 0 ? static_cast<std::size_t>(worker) : 0;
  entry->open = worker >= 0 ? pending_open_[static_cast<std::size_t>(worker)] : platform::OpenStrand{};
  const platform::JobRef job = job_of_key(strand.key());
  sched::Task& t = entry->entry;
  t.id = (std::uint64_t{1} << 63) | (entry - entries_.get());
  t.pe = sched::kAny;  // rule F: back to the global queue
  t.cluster = 0;       // the one cluster, as the jobs' (JobSlot::check_entry checked the entry takes it)
  // Its job's priority (the task's `priority:`), so that a topology ordering or
  // filtering by priority treats the strand as its job (with 0, a filter such as
  // priority_at_least: 1 dropped it, and the job never finished).
  t.priority = job.valid ? slots_[job.task]->entry().priority : JobSlot::kNoPriority;
  t.deadline =
      job.valid ? slots_[job.task]->release().deadline : priority_keys_.deadline_of(strand.key(), *engine_);
  t.release = job.valid ? slots_[job.task]->release().release : nanoseconds::zero();
  entry->waiting_key.store(strand.key().count(), std::memory_order_release);
  scheduler_->admit(t);
  (void)wake_workers_for(pool_->extension(), *scheduler_, 0, workers_, true);
}

void GedfPaws::admit(const platform::Release& release) {
  JobSlot& slot = *slots_[release.task];
  // The runtime key: the absolute deadline with the task's index in its low bits, unique
  // per in-flight job (jobs are told apart by key; EDF ties go to the lower index).
  const nanoseconds key = priority_keys_.key(release.deadline, release.task, *engine_);
  slot.fill(release, 0, key);
  keys_[release.task].store(key.count(), std::memory_order_release);
  waiting_keys_[release.task].store(key.count(), std::memory_order_release);
  slot.admit();
  // Idle workers take the earliest waiting work (rule D), as do workers already asked to
  // yield. Work waiting beyond them (an idle worker that has not yet taken the job of a
  // previous release counts for that job only) preempts the latest running key if later.
  ext::Extension& ext = pool_->extension();
  bool idle = false;
  for (std::size_t w = 0; w < workers_; ++w) {
    nanoseconds key{};
    const bool running = ext.running_key(w, key);
    WorkerView& view = worker_views_[w];
    view = worker_view(running, key, yield_key_[w].load(std::memory_order_acquire));
    idle = idle || !view.running;
  }
  if (idle) (void)wake_workers_for(ext, *scheduler_, 0, workers_, true);
  std::size_t waiting = 0;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const std::int64_t k = waiting_keys_[i].load(std::memory_order_acquire);
    if (k >= 0) waiting_scratch_[waiting++] = nanoseconds(k);
  }
  for (std::size_t i = 0; i < entry_count_; ++i) {
    const std::int64_t k = entries_[i].waiting_key.load(std::memory_order_acquire);
    if (k >= 0) waiting_scratch_[waiting++] = nanoseconds(k);
  }
  const std::optional<std::size_t> victim =
      edf_preemption_victim(worker_views_, std::span<nanoseconds>(waiting_scratch_.data(), waiting));
  if (victim) {
    yield_key_[*victim].store(worker_views_[*victim].key.count(), std::memory_order_release);
    preemptions_requested_.fetch_add(1, std::memory_order_relaxed);
    ext.request_yield(*victim);
  }
}

void GedfPaws::run(RunContext& ctx) {
  lanes_.start([this, &ctx] {
    platform::enter_realtime(ctx.realtime, os::CpuSet{ctx.cores.all()[0]}, platform::fifo::dispatch);
    platform::ThreadRecorder* rec = platform::attach_current_thread(*ctx.recorder, "lane");
    LaneSink sink;
    sink.owner = this;
    ctx.engine.run(sink, rec);
    platform::detach_current_recorder();
  });
  lanes_.wait(ctx.overdue);
}

bool GedfPaws::shutdown() {
  if (shut_down_) return true;
  // A job in flight, or a lane the run gave up on (it runs no jobs) that does not come
  // back from the release engine: leave them running.
  if (!platform::lanes_returned(engine_, lanes_)) {
    left_running_ = true;
    return false;
  }
  if (pool_) {
    pool_->extension().set_work_source(nullptr);
    pool_->extension().set_yield_policy(nullptr);
    pool_->extension().set_observer(nullptr);
    pool_statistics_ = pool_statistics_json(*pool_);
    pool_.reset();
  }
  shut_down_ = true;
  return true;
}

nlohmann::json GedfPaws::details() const {
  nlohmann::json out = {{"pool", pool_statistics_},
                        {"preemptions_requested", preemptions_requested_.load()},
                        {"preemptions", preemptions_.load()},
                        {"strands_handed_back", handed_back_.load()},
                        {"priority_levels", kPriorityLevels},
                        {"suspended_strands", entry_count_}};
  if (scheduler_) out["scheduler"] = scheduler_statistics_json(*scheduler_);
  return out;
}

}  // namespace

std::unique_ptr<platform::Policy> make_gedf_paws() {
  return std::make_unique<LeakedWhenLeftRunning>(std::make_unique<GedfPaws>());
}

}  // namespace takt::policies
