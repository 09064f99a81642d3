// The `federated` policy (RTWS) and its RTCG baseline `federated-greedy`: dedicated cores per parallel task,
// shared cores for the others.
//
// A shared core runs its light tasks by preemptive EDF, as the analysis assumes (EDF
// density Σ C/D ≤ 1 per core): it has one executor thread per task placed on it, and
// every job handed to an executor gets a SCHED_FIFO level by its rank in deadline order
// among the jobs active on that core (earliest deadline, highest level). The lane makes
// the ranking once per pass that released jobs (ReleaseSink::pass_done), on the same
// CPU and above the executors, so a job with an earlier deadline preempts the running
// one at once, through the kernel. Without SCHED_FIFO the executors time-share the core
// (SCHED_OTHER).
#include "policies/federated.hpp"

#include "os/clock.hpp"
#include "os/futex.hpp"
#include "os/realtime.hpp"
#include "platform/pool_recording.hpp"
#include "platform/run_threads.hpp"
#include "platform/thread_recording.hpp"
#include "policies/builtin_topologies.hpp"
#include "policies/fork_join_events.hpp"
#include "policies/job_slot.hpp"
#include "policies/leaked_when_left_running.hpp"
#include "policies/statistics_json.hpp"
#include "sched/scheduler.hpp"
#include "takt/error.hpp"
#include "takt/runtime/pool.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>

namespace takt::policies {
namespace {

using namespace std::chrono_literals;
using platform::RunContext;

class Federated final : public platform::Policy {
 public:
  explicit Federated(QueueStrategy strategy) : strategy_(strategy) {}
  ~Federated() override;

  [[nodiscard]] std::string_view name() const override {
    return strategy_ == QueueStrategy::centralized_greedy ? "federated-greedy" : "federated";
  }
  [[nodiscard]] sched::TopologySpec default_topology() const override { return builtin_topology(name()); }
  platform::RecordingPlan plan(const RunContext& ctx) override;
  void prepare(RunContext& ctx) override;
  void run(RunContext& ctx) override;
  bool shutdown() override;
  [[nodiscard]] nlohmann::json details() const override;

 private:
  struct Cluster;

  /// A heavy cluster's pool asks the topology for work here (rule D's hook).
  struct Source final : ext::WorkSource {
    Federated* owner = nullptr;
    Cluster* cluster = nullptr;
    ext::Work take(std::size_t worker) noexcept override;
  };

  struct Cluster;

  /// A thread of a shared core that runs one job at a time. Fields under the
  /// cluster's lock, except `assigned` (the futex word: bumped for every job handed
  /// over) and `thread` (set before the executor counts as started).
  struct Executor {
    Federated* owner = nullptr;
    Cluster* cluster = nullptr;
    pthread_t thread{};
    std::atomic<std::uint32_t> assigned{0};
    JobSlot* job = nullptr;  ///< the job handed over last; null while idle
    int level = 0;           ///< the SCHED_FIFO level set last (0: none yet)
  };

  struct Cluster {
    int id = 0;
    bool heavy = false;
    os::CpuSet cpus;
    std::vector<std::uint32_t> tasks;
    int first_pe = 0;
    int pes = 0;
    std::string label;
    std::unique_ptr<platform::PoolRecording> recording;
    Source source;
    std::unique_ptr<Pool> pool;
    nlohmann::json statistics;  ///< the pool's, taken at shutdown
    // A shared core: its executors (as many as tasks placed on it, at least one) and
    // the lock under which jobs are taken from its pipe, handed over and ranked.
    os::PiMutex lock;
    std::vector<std::unique_ptr<Executor>> executors;
    /// rank()'s scratch list of the executors with a job (under `lock`), as large as
    /// `executors` from prepare() on: ranking allocates nothing.
    std::vector<Executor*> ranking;
    std::atomic<bool> done{false};
  };

  struct LaneSink final : platform::ReleaseSink {
    Federated* owner = nullptr;
    void release(const platform::Release& release) override { owner->admit(release); }
    void pass_done() override { owner->wake_clusters_with_work(); }
  };

  void build_clusters(const RunContext& ctx);
  void admit(const platform::Release& release);
  void stop_executors() noexcept;
  /// On a shared core: hands jobs from its pipe to idle executors and re-ranks.
  void dispatch(Cluster& cluster) noexcept;
  /// Under the cluster's lock: sets every active executor's level by deadline rank.
  void rank(Cluster& cluster) noexcept;
  /// On a lane, after its pass released jobs: wakes (dispatches to) every cluster with work.
  void wake_clusters_with_work();
  void execute(Executor& executor, platform::ThreadRecorder* recorder);
  /// An executor's job is done (before the engine hears of it): the executor is idle,
  /// or takes the next job waiting in its core's pipe.
  static void executor_free(void* executor) noexcept;
  static platform::JobRef resolve(void* context, std::size_t worker) noexcept;

  QueueStrategy strategy_;
  std::vector<std::unique_ptr<Cluster>> clusters_;
  std::vector<int> cluster_of_task_;
  std::vector<std::string> task_names_;
  /// Declared before scheduler_, so that the jobs outlive it: its destructor writes into
  /// tasks still attached.
  std::vector<std::unique_ptr<JobSlot>> slots_;
  std::unique_ptr<sched::Scheduler> scheduler_;
  platform::ReleaseEngine* engine_ = nullptr;
  PriorityKeys priority_keys_;  ///< the runtime keys of jobs (deadline, then task index)
  platform::RunThreads lanes_;
  platform::RunThreads executors_;
  std::atomic<std::uint32_t> executors_started_{0};
  bool fifo_ = false;
  /// SCHED_FIFO level changes of shared-core executors made by rank().
  std::atomic<std::uint64_t> level_changes_{0};
  bool left_running_ = false;
  bool shut_down_ = false;
};

// Never runs after a shutdown() that left a job running: make_federated's wrapper then
// leaks the whole object, which the executors (Executor::owner) and the pools' work
// sources (Source::owner) still use.
Federated::~Federated() {
  if (!shut_down_ && !left_running_) shutdown();
}

void Federated::build_clusters(const RunContext& ctx) {
  const analysis::FederatedResult* f = ctx.analysis.federated();
  if (f == nullptr) {
    throw Error(fmt::format("the {} policy needs the federated analysis of the task set (got the analysis for "
                            "{}); analyse with --policy {}",
                            name(), model::to_string(ctx.analysis.policy), name()));
  }
  clusters_.clear();
  cluster_of_task_.assign(ctx.set.tasks.size(), -1);
  task_names_.clear();
  for (const auto& t : ctx.set.tasks) task_names_.push_back(t.name);
  std::map<int, Cluster*> shared_by_cpu;
  // Shared cores with the least density first, for tasks the analysis could not place
  // (only under --force).
  std::vector<std::pair<double, int>> shared_load;
  for (const auto& s : f->shared) shared_load.emplace_back(s.density, ctx.cores.cpu(s.core_id));
  std::sort(shared_load.begin(), shared_load.end());

  auto shared_cluster = [&](int cpu) -> Cluster* {
    if (auto it = shared_by_cpu.find(cpu); it != shared_by_cpu.end()) return it->second;
    auto c = std::make_unique<Cluster>();
    c->heavy = false;
    c->cpus = os::CpuSet{cpu};
    c->label = fmt::format("core {}", cpu);
    shared_by_cpu[cpu] = c.get();
    clusters_.push_back(std::move(c));
    return clusters_.back().get();
  };

  for (std::size_t i = 0; i < f->grants.size() && i < ctx.set.tasks.size(); ++i) {
    const analysis::FederatedGrant& g = f->grants[i];
    const auto index = static_cast<std::uint32_t>(i);
    if (g.high) {
      auto c = std::make_unique<Cluster>();
      c->heavy = true;
      c->cpus = g.granted && !g.core_ids.empty() ? ctx.cores.cpus(g.core_ids) : ctx.cores.all();
      c->tasks.push_back(index);
      c->label = g.name;
      clusters_.push_back(std::move(c));
      continue;
    }
    int cpu;
    if (g.granted && !g.core_ids.empty()) {
      cpu = ctx.cores.cpu(g.core_ids.front());
    } else if (!shared_load.empty()) {
      cpu = shared_load.front().second;
    } else {
      cpu = ctx.cores.all().cpus().back();
    }
    shared_cluster(cpu)->tasks.push_back(index);
  }
  int pe = 0;
  for (std::size_t k = 0; k < clusters_.size(); ++k) {
    Cluster& c = *clusters_[k];
    c.id = static_cast<int>(k);
    c.first_pe = pe;
    c.pes = c.heavy ? static_cast<int>(c.cpus.size()) : 1;
    pe += c.pes;
    for (std::uint32_t t : c.tasks) cluster_of_task_[t] = c.id;
  }
}

platform::RecordingPlan Federated::plan(const RunContext& ctx) {
  build_clusters(ctx);
  platform::RecordingPlan plan;
  plan.threads = 0;
  plan.events_per_job.assign(ctx.set.tasks.size(), 3);
  plan.threads_per_task.assign(ctx.set.tasks.size(), 1);
  for (const auto& c : clusters_) {
    // Its lane, and its workers or executors.
    plan.threads += 1 + (c->heavy ? static_cast<std::size_t>(c->pes) : std::max<std::size_t>(c->tasks.size(), 1));
    for (std::uint32_t t : c->tasks) {
      if (c->heavy) {
        plan.events_per_job[t] = fork_join_events(ctx.set.tasks[t]);
        plan.threads_per_task[t] = static_cast<std::size_t>(c->pes);
      }
    }
  }
  return plan;
}

void Federated::prepare(RunContext& ctx) {
  engine_ = &ctx.engine;
  priority_keys_ = PriorityKeys(ctx.tasks.size());
  priority_keys_.check_range(ctx.engine, name());
  std::vector<int> cluster_of_pe;
  for (const auto& c : clusters_) {
    for (int k = 0; k < c->pes; ++k) cluster_of_pe.push_back(c->id);
  }
  sched::SchedulerOptions options;
  options.instrumentation.clock = [] { return os::monotonic_now(); };
  scheduler_ = std::make_unique<sched::Scheduler>(
      ctx.topology, sched::ProcessingElements::with_clusters(cluster_of_pe), std::move(options));
  for (std::size_t i = 0; i < ctx.tasks.size(); ++i) {
    slots_.push_back(std::make_unique<JobSlot>(static_cast<std::uint32_t>(i), *ctx.tasks[i], ctx.timing[i],
                                               ctx.engine, *scheduler_,
                                               ctx.set.tasks[i].priority.value_or(JobSlot::kNoPriority)));
    slots_.back()->check_entry(cluster_of_task_[i], name(), ctx.set.tasks[i].name);
  }
  platform::Recorder& recorder = *ctx.recorder;
  const platform::RealtimeSettings& realtime = ctx.realtime;
  fifo_ = realtime.fifo;
  std::uint32_t executors = 0;
  for (auto& cp : clusters_) {
    Cluster& c = *cp;
    if (c.heavy) continue;
    for (std::size_t k = 0; k < std::max<std::size_t>(c.tasks.size(), 1); ++k) {
      auto e = std::make_unique<Executor>();
      e->owner = this;
      e->cluster = &c;
      Executor* ep = e.get();
      c.executors.push_back(std::move(e));
      const std::string label = fmt::format("{} e{}", c.label, k);
      ++executors;
      executors_.start([this, ep, &recorder, &realtime, label] {
        // The lowest level until the first job's rank is set.
        platform::enter_realtime(realtime, ep->cluster->cpus, platform::fifo::rank_lowest);
        ep->thread = pthread_self();
        platform::ThreadRecorder* rec = platform::attach_current_thread(recorder, label);
        executors_started_.fetch_add(1, std::memory_order_release);
        os::futex_wake_all(executors_started_);
        execute(*ep, rec);
        platform::detach_current_recorder();
      });
    }
    c.ranking.reserve(c.executors.size());
  }
  // Every executor's thread handle must be known before the first release ranks it.
  for (std::uint32_t n; (n = executors_started_.load(std::memory_order_acquire)) < executors;) {
    os::futex_wait_for(executors_started_, n, 10ms);
  }
  for (auto& cp : clusters_) {
    Cluster& c = *cp;
    if (!c.heavy) continue;
    c.recording = std::make_unique<platform::PoolRecording>(c.cpus.size(), c.cpus, &Federated::resolve, &c);
    c.source.owner = this;
    c.source.cluster = &c;
    PoolConfig config;
    config.cpus = c.cpus;
    config.workers = c.cpus.size();
    config.pin = true;
    config.strategy = strategy_;
    config.name = c.label;
    platform::PoolRecording* recording = c.recording.get();
    const std::string label = c.label;
    config.on_worker_start = [recording, &recorder, &realtime, label](std::size_t worker) {
      platform::enter_realtime(realtime, {}, platform::fifo::worker);
      recording->worker_started(
          worker, platform::attach_current_thread(recorder, fmt::format("{} w{}", label, worker)));
    };
    c.pool = std::make_unique<Pool>(std::move(config));
    c.pool->extension().set_observer(c.recording.get());
    c.pool->extension().set_work_source(&c.source);
  }
}

platform::JobRef Federated::resolve(void* context, std::size_t) noexcept {
  const auto* cluster = static_cast<const Cluster*>(context);
  // A heavy cluster runs one task, and that task one job at a time.
  const JobSlot* slot = cluster->source.owner->slots_[cluster->tasks.front()].get();
  return platform::JobRef{true, slot->task(), slot->job()};
}

ext::Work Federated::Source::take(std::size_t worker) noexcept {
  ext::Work work;
  sched::Task* t = owner->scheduler_->schedule(cluster->first_pe + static_cast<int>(worker));
  if (t != nullptr) work.job = static_cast<JobSlot*>(t->payload);
  return work;
}

void Federated::admit(const platform::Release& release) {
  JobSlot& slot = *slots_[release.task];
  // The key orders the jobs of a shared core (rank()) and priority-aware pools.
  slot.fill(release, cluster_of_task_[release.task],
            priority_keys_.key(release.deadline, release.task, *engine_));
  slot.admit();
  // The lane's pass_done() hands the job on, with the others released in this pass.
}

void Federated::wake_clusters_with_work() {
  // Every cluster that has work now (a pass's own, in the built-in topology), once per
  // lane pass: a shared core whose tasks are all released at once is ranked once, not
  // once per job (each earlier deadline moved every later job down a level: n(n+1)/2
  // sched_setscheduler calls for n jobs released in decreasing deadline order).
  for (auto& c : clusters_) {
    if (c->heavy) {
      // Any of its cores may hold the work (a topology's per-PE pipes): wakes the one
      // that can take it.
      (void)wake_workers_for(c->pool->extension(), *scheduler_, c->first_pe, static_cast<std::size_t>(c->pes),
                             false);
    } else if (scheduler_->peek(c->first_pe) != nullptr) {
      dispatch(*c);
    }
  }
}

void Federated::dispatch(Cluster& c) noexcept {
  Executor* handed[64];
  std::size_t n = 0;
  {
    std::lock_guard<os::PiMutex> guard(c.lock);
    for (auto& e : c.executors) {
      if (e->job != nullptr) continue;
      sched::Task* t = scheduler_->schedule(c.first_pe);
      if (t == nullptr) break;
      e->job = static_cast<JobSlot*>(t->payload);
      e->assigned.fetch_add(1, std::memory_order_release);
      if (n < std::size(handed)) handed[n++] = e.get();
    }
    if (n == 0) return;
    rank(c);
  }
  for (std::size_t k = 0; k < n; ++k) os::futex_wake_all(handed[k]->assigned);
  // More than 64 executors handed jobs at once: wake them all.
  if (n == std::size(handed)) {
    for (auto& e : c.executors) os::futex_wake_all(e->assigned);
  }
}

void Federated::rank(Cluster& c) noexcept {
  if (!fifo_) return;
  // Every executor with a job (an array of 256 left the others unranked: with 300
  // light tasks on a core the 44 of earliest deadline ran below all the rest), by the
  // job's key: its absolute deadline, then the task index.
  std::vector<Executor*>& active = c.ranking;
  active.clear();
  for (auto& e : c.executors) {
    if (e->job != nullptr) active.push_back(e.get());
  }
  std::sort(active.begin(), active.end(),
            [](const Executor* a, const Executor* b) { return a->job->key() < b->job->key(); });
  const int ranks = static_cast<int>(c.executors.size());
  for (std::size_t r = 0; r < active.size(); ++r) {
    const int level = platform::fifo::rank_priority(static_cast<int>(r) + 1, ranks);
    if (active[r]->level != level) {
      active[r]->level = level;
      os::set_fifo(active[r]->thread, level);
      level_changes_.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

void Federated::execute(Executor& e, platform::ThreadRecorder* rec) {
  Cluster& c = *e.cluster;
  std::uint32_t seen = 0;
  for (;;) {
    const std::uint32_t assigned = e.assigned.load(std::memory_order_acquire);
    if (assigned == seen) {
      if (c.done.load(std::memory_order_acquire)) break;
      // The timeout only guards against a lost wake.
      os::futex_wait_for(e.assigned, seen, 50ms);
      continue;
    }
    JobSlot* job;
    {
      std::lock_guard<os::PiMutex> guard(c.lock);
      job = e.job;
    }
    seen = assigned;
    // The executor counts as idle again before the release engine hears of the finish:
    // otherwise the task's next job, released at once, could find every executor busy
    // and wait in the pipe behind a later deadline.
    job->run_inline(rec, &Federated::executor_free, &e);
  }
}

void Federated::executor_free(void* executor) noexcept {
  Executor& e = *static_cast<Executor*>(executor);
  Cluster& c = *e.cluster;
  std::lock_guard<os::PiMutex> guard(c.lock);
  e.job = nullptr;
  // A job a custom topology sent here while every executor was busy.
  if (sched::Task* t = e.owner->scheduler_->schedule(c.first_pe)) {
    e.job = static_cast<JobSlot*>(t->payload);
    e.assigned.fetch_add(1, std::memory_order_release);
    e.owner->rank(c);
  }
}

void Federated::run(RunContext& ctx) {
  for (auto& cp : clusters_) {
    Cluster* c = cp.get();
    if (c->tasks.empty()) continue;
    lanes_.start([this, c, &ctx] {
      platform::enter_realtime(ctx.realtime, os::CpuSet{c->cpus[0]}, platform::fifo::dispatch);
      platform::ThreadRecorder* rec = platform::attach_current_thread(*ctx.recorder, "lane " + c->label);
      LaneSink sink;
      sink.owner = this;
      ctx.engine.run_lane(c->tasks, sink, rec);
      platform::detach_current_recorder();
    });
  }
  lanes_.wait(ctx.overdue);
}

void Federated::stop_executors() noexcept {
  for (auto& c : clusters_) {
    c->done.store(true, std::memory_order_release);
    for (auto& e : c->executors) os::futex_wake_all(e->assigned);
  }
}

bool Federated::shutdown() {
  if (shut_down_) return true;
  // A job in flight, or a lane the run gave up on that does not come back from the
  // release engine (its lanes run no jobs): leave them running.
  if (!platform::lanes_returned(engine_, lanes_)) {
    left_running_ = true;
    stop_executors();
    return false;
  }
  stop_executors();
  executors_.wait(nullptr);
  for (auto& c : clusters_) {
    if (!c->pool) continue;
    c->pool->extension().set_work_source(nullptr);
    c->pool->extension().set_observer(nullptr);
    c->statistics = pool_statistics_json(*c->pool);
    c->pool.reset();  // joins the workers; each closes its recorder as it exits
  }
  shut_down_ = true;
  return true;
}

nlohmann::json Federated::details() const {
  nlohmann::json clusters = nlohmann::json::array();
  for (const auto& c : clusters_) {
    nlohmann::json tasks = nlohmann::json::array();
    for (std::uint32_t t : c->tasks) tasks.push_back(task_names_[t]);
    nlohmann::json one = {{"cluster", c->id},
                          {"kind", c->heavy ? "dedicated" : "shared"},
                          {"cpus", c->cpus.to_string()},
                          {"tasks", tasks}};
    if (c->heavy) {
      one["pool"] = c->statistics;
    } else {
      one["executors"] = c->executors.size();
    }
    clusters.push_back(std::move(one));
  }
  nlohmann::json out = {{"clusters", clusters}, {"shared_core_level_changes", level_changes_.load()}};
  if (scheduler_) out["scheduler"] = scheduler_statistics_json(*scheduler_);
  return out;
}

}  // namespace

std::unique_ptr<platform::Policy> make_federated(QueueStrategy strategy) {
  return std::make_unique<LeakedWhenLeftRunning>(std::make_unique<Federated>(strategy));
}

}  // namespace takt::policies
