// The `partitioned-dm` policy (RT-OpenMP): the analysis' strand table run by one team of threads per task, Algorithm 1 exactly.
#include "policies/partitioned_dm.hpp"

#include "model/duration.hpp"
#include "os/clock.hpp"
#include "os/diagnostics.hpp"
#include "os/futex.hpp"
#include "os/realtime.hpp"
#include "platform/futex_barrier.hpp"
#include "platform/run_threads.hpp"
#include "platform/thread_recording.hpp"
#include "policies/builtin_topologies.hpp"
#include "policies/job_slot.hpp"
#include "policies/leaked_when_left_running.hpp"
#include "policies/statistics_json.hpp"
#include "sched/scheduler.hpp"
#include "sched/topics.hpp"
#include "takt/error.hpp"
#include "takt/synchronous_task.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>

namespace takt::policies {
namespace {

using namespace std::chrono_literals;
using platform::RunContext;
using std::chrono::nanoseconds;

class PartitionedDm final : public platform::Policy {
 public:
  PartitionedDm() = default;
  ~PartitionedDm() override;

  [[nodiscard]] std::string_view name() const override { return "partitioned-dm"; }
  [[nodiscard]] sched::TopologySpec default_topology() const override { return builtin_topology(name()); }
  platform::RecordingPlan plan(const RunContext& ctx) override;
  void prepare(RunContext& ctx) override;
  void run(RunContext& ctx) override;
  bool shutdown() override;
  [[nodiscard]] nlohmann::json details() const override;

 private:
  struct Member {
    int pe = 0;   ///< logical core
    int cpu = 0;  ///< its CPU
    /// Per segment: the strands (0-based within the segment) this thread runs, in the
    /// order the topology gave them, with their strand-table number s_i^k.
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> strands;
    /// Per segment: the SCHED_FIFO level of its strands on this thread's core (0: the
    /// thread runs none of that segment).
    std::vector<int> fifo;
  };
  struct Team {
    std::uint32_t task = 0;
    std::string name;
    Task* object = nullptr;
    SynchronousTask* synchronous = nullptr;  ///< null: the task is one strand, run()
    std::vector<Member> members;             ///< members[0] is the release lane
    std::vector<nanoseconds> offsets;        ///< per segment: release offset r_{i,j}
    std::vector<int> ranks;                  ///< per segment: priority rank (1 highest)
    std::unique_ptr<platform::FutexBarrier> barrier;
    // The job the team runs now: written by the lane before `generation` is bumped.
    platform::Release current;
    std::atomic<std::uint32_t> generation{0};
    std::atomic<bool> done{false};
    std::atomic<bool> started{false};
    std::atomic<bool> failed{false};
  };
  struct LaneSink final : platform::ReleaseSink {
    PartitionedDm* owner = nullptr;
    Team* team = nullptr;
    platform::ThreadRecorder* recorder = nullptr;
    void release(const platform::Release& release) override;
  };

  /// The strand → thread assignment, made once for plan() and prepare(): every strand
  /// of the table is admitted to scheduler_ and each core takes its strands with
  /// schedule(pe); fills by_thread_ and ranks_. Throws when the topology does not
  /// deliver every strand.
  void assign(const RunContext& ctx);
  void member_loop(Team& team, std::size_t index, const RunContext& ctx);
  void dispatch(Team& team, const Member& member, const platform::Release& job, platform::ThreadRecorder* rec,
                const RunContext& ctx) noexcept;

  std::vector<std::unique_ptr<Team>> teams_;
  /// Per (task, core): the task's strands schedule(core) gave that core, in the order
  /// it gave them. One thread per key: plan() counts them, prepare() creates them.
  std::map<std::pair<std::size_t, int>, std::vector<const analysis::StrandAssignment*>> by_thread_;
  bool assigned_ = false;
  /// The strands admitted to scheduler_. Declared before it, so that they outlive it:
  /// strands a topology withheld (assign() then throws) stay in the scheduler until
  /// its destructor detaches them. Freed once every strand has left the scheduler.
  std::vector<std::unique_ptr<sched::Task>> entries_;
  std::unique_ptr<sched::Scheduler> scheduler_;
  nlohmann::json assignment_;
  platform::ReleaseEngine* engine_ = nullptr;
  const platform::RealtimeSettings* realtime_ = nullptr;
  platform::RunThreads lanes_;
  platform::RunThreads members_;
  int ranks_ = 1;
  /// The most distinct ranks on one core (each needs its own SCHED_FIFO level).
  std::size_t max_core_ranks_ = 0;
  bool left_running_ = false;
  bool shut_down_ = false;
};

// Never runs after a shutdown() that left a job running: make_partitioned_dm's wrapper
// then leaks the whole object, whose teams the team threads still use.
PartitionedDm::~PartitionedDm() {
  if (!shut_down_ && !left_running_) shutdown();
}

platform::RecordingPlan PartitionedDm::plan(const RunContext& ctx) {
  const analysis::PartitionedDmResult* p = ctx.analysis.partitioned_dm();
  if (p == nullptr) {
    throw Error(fmt::format("the partitioned-dm policy needs the partitioned-dm analysis of the task set (got "
                            "the analysis for {}); analyse with --policy partitioned-dm",
                            model::to_string(ctx.analysis.policy)));
  }
  platform::RecordingPlan plan;
  plan.threads = 0;
  std::vector<std::size_t> strands(ctx.set.tasks.size(), 0);
  for (const auto& s : p->strands) {
    if (s.task < strands.size()) ++strands[s.task];
  }
  for (std::size_t i = 0; i < ctx.set.tasks.size(); ++i) {
    const model::Task& t = ctx.set.tasks[i];
    if (strands[i] > 1) {
      auto* sync = dynamic_cast<SynchronousTask*>(ctx.tasks[i]);
      if (sync == nullptr) {
        throw Error(fmt::format(
            "task '{}': partitioned-dm runs a task strand by strand, but program '{}' cannot run a single "
            "strand (it does not implement takt::SynchronousTask, see include/takt/synchronous_task.hpp); "
            "run this set with --policy federated, federated-greedy or gedf-paws, or use program: segments",
            t.name, t.program));
      }
      std::vector<SegmentShape> have = sync->segments();
      std::vector<SegmentShape> want;
      for (const auto& s : t.segments) want.push_back(SegmentShape{s.length, static_cast<std::uint32_t>(s.strands)});
      if (have.size() != want.size() ||
          !std::equal(have.begin(), have.end(), want.begin(),
                      [](const SegmentShape& a, const SegmentShape& b) { return a.strands == b.strands; })) {
        throw Error(fmt::format(
            "task '{}': the program's segments ({} segment(s)) do not match the task's `segments:` ({} "
            "segment(s)) with the same strand counts, which partitioned-dm decomposed; make its args agree "
            "with `segments:` or leave args out",
            t.name, have.size(), want.size()));
      }
    }
  }
  // The threads are the ones prepare() creates: one per (task, core) the topology gave
  // strands of the task to, so the recorder has a slot for every one of them.
  assign(ctx);
  std::vector<std::size_t> threads(ctx.set.tasks.size(), 0);
  for (const auto& [key, list] : by_thread_) {
    if (key.first < threads.size()) ++threads[key.first];
  }
  for (std::size_t i = 0; i < ctx.set.tasks.size(); ++i) {
    if (threads[i] == 0) {
      throw Error(fmt::format("task '{}' has no strand in the strand table; partitioned-dm cannot run it",
                              ctx.set.tasks[i].name));
    }
    plan.threads += threads[i];
    plan.events_per_job.push_back(3 + 2 * strands[i]);
    plan.threads_per_task.push_back(threads[i]);
  }
  return plan;
}

void PartitionedDm::assign(const RunContext& ctx) {
  const analysis::PartitionedDmResult& p = *ctx.analysis.partitioned_dm();
  const int m = ctx.cores.count();
  assigned_ = false;
  by_thread_.clear();
  scheduler_.reset();  // before the strands it may still hold
  entries_.clear();
  scheduler_ = std::make_unique<sched::Scheduler>(ctx.topology, sched::ProcessingElements::uniform(m));

  // The placement is made once, before the run, for every job alike; a strand's release
  // is its offset within the job. A time-driven component (release-gate) is told the
  // latest of them, so that it holds none back.
  sched::Time latest{0};
  for (const analysis::StrandAssignment& s : p.strands) latest = std::max(latest, s.release);
  scheduler_->notify(sched::topics::time, sched::TimeMessage{latest});
  // Every strand of the table enters the topology bound to its core with its priority.
  // Each is kept in entries_ before it is admitted: an admit() that throws midway may
  // have left it in the scheduler.
  entries_.reserve(p.strands.size());
  for (std::size_t k = 0; k < p.strands.size(); ++k) {
    const analysis::StrandAssignment& s = p.strands[k];
    ranks_ = std::max(ranks_, s.priority);
    sched::Task& t = *entries_.emplace_back(std::make_unique<sched::Task>(k));
    // A strand the analysis could not place (only under --force) goes to a core by its number.
    t.pe = s.core >= 0 ? s.core : (s.strand_in_segment - 1) % m;
    t.priority = s.priority;
    t.release = s.release;
    t.deadline = s.release + s.deadline;
    t.payload = const_cast<analysis::StrandAssignment*>(&s);
    if (k == 0) {
      try {
        scheduler_->check_entry(t);
      } catch (const takt::Error&) {
        const sched::TopologySpec spec = scheduler_->spec();
        throw Error(
            fmt::format("the entry of topology '{}' ({}) cannot take the strands of partitioned-dm, which "
                        "admits each strand bound to its core (pe) and to no cluster; write the entry as "
                        "one pipe (entry: NAME) or as a family indexed by pe (entry: \"NAME[pe]\")",
                        spec.name, spec.entry.text()));
      }
    }
    scheduler_->admit(t);
  }
  // Each core takes its strands, the cores in turn, until none gets any more.
  std::size_t assigned = 0;
  for (bool any = true; any;) {
    any = false;
    for (int pe = 0; pe < m; ++pe) {
      sched::Task* t = scheduler_->schedule(pe);
      if (t == nullptr) continue;
      any = true;
      const auto* s = static_cast<const analysis::StrandAssignment*>(t->payload);
      by_thread_[{s->task, pe}].push_back(s);
      scheduler_->exit(*t);
      ++assigned;
    }
  }
  if (assigned != p.strands.size()) {
    // The withheld strands stay in scheduler_, and entries_ with it (see entries_).
    throw Error(fmt::format("the topology gave {} of the {} strands to a core; a partitioned-dm topology must "
                            "deliver every strand to some processing element",
                            assigned, p.strands.size()));
  }
  if (scheduler_->attached_tasks() == 0) std::vector<std::unique_ptr<sched::Task>>().swap(entries_);
  assigned_ = true;
}

void PartitionedDm::prepare(RunContext& ctx) {
  engine_ = &ctx.engine;
  realtime_ = &ctx.realtime;
  const analysis::PartitionedDmResult& p = *ctx.analysis.partitioned_dm();
  const int m = ctx.cores.count();
  // The assignment plan() made (and counted the threads of); made here when plan() was
  // not called.
  if (!assigned_) assign(ctx);

  // The strands' SCHED_FIFO levels, per core: a core's threads are pinned and compete
  // only with each other, so each core numbers the distinct ranks of the strands placed
  // on it (1 = its highest) and maps them with fifo::rank_priority. The analysis assumes
  // a strand is never delayed by one of a lower rank on its core, i.e. distinct levels;
  // numbered across all cores, R > 79 ranks shared levels even where a core held few.
  std::vector<std::vector<int>> core_ranks(static_cast<std::size_t>(m));
  for (const auto& [thread, strands] : by_thread_) {
    std::vector<int>& ranks = core_ranks[static_cast<std::size_t>(thread.second)];
    for (const analysis::StrandAssignment* s : strands) ranks.push_back(s->priority);
  }
  max_core_ranks_ = 0;
  for (std::vector<int>& ranks : core_ranks) {
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    max_core_ranks_ = std::max(max_core_ranks_, ranks.size());
  }
  const int levels = platform::fifo::rank_highest - platform::fifo::rank_lowest + 1;
  if (ctx.realtime.fifo && max_core_ranks_ > static_cast<std::size_t>(levels)) {
    os::warn(fmt::format(
        "partitioned-dm: a core runs strands of {} priority ranks, more than the {} SCHED_FIFO levels takt gives "
        "them; some share a level there, so a strand may wait for one of a lower rank, which the analysis does "
        "not count: give the set more cores or fewer segments",
        max_core_ranks_, levels));
  }
  auto level_on = [&core_ranks](int pe, int rank) {
    const std::vector<int>& ranks = core_ranks[static_cast<std::size_t>(pe)];
    const auto it = std::lower_bound(ranks.begin(), ranks.end(), rank);
    if (it == ranks.end() || *it != rank) return 0;
    return platform::fifo::rank_priority(static_cast<int>(it - ranks.begin()) + 1, static_cast<int>(ranks.size()));
  };

  assignment_ = nlohmann::json::array();
  for (std::size_t i = 0; i < ctx.set.tasks.size(); ++i) {
    const model::Task& t = ctx.set.tasks[i];
    auto team = std::make_unique<Team>();
    team->task = static_cast<std::uint32_t>(i);
    team->name = t.name;
    team->object = ctx.tasks[i];
    team->synchronous = dynamic_cast<SynchronousTask*>(ctx.tasks[i]);
    const std::size_t segments = std::max<std::size_t>(1, t.segments.size());
    team->offsets.assign(segments, nanoseconds::zero());
    team->ranks.assign(segments, ranks_);
    for (const auto& s : p.strands) {
      if (s.task != i) continue;
      const auto j = static_cast<std::size_t>(s.segment - 1);
      if (j >= segments) continue;
      team->offsets[j] = s.release;
      team->ranks[j] = s.priority;
    }
    nlohmann::json members = nlohmann::json::array();
    for (int pe = 0; pe < m; ++pe) {
      auto it = by_thread_.find({i, pe});
      if (it == by_thread_.end()) continue;
      Member member;
      member.pe = pe;
      member.cpu = ctx.cores.cpu(ctx.analysis.cores.id(pe));
      member.strands.resize(segments);
      for (const auto* s : it->second) {
        const auto j = static_cast<std::size_t>(std::max(1, s->segment) - 1);
        member.strands[std::min(j, segments - 1)].emplace_back(static_cast<std::uint32_t>(s->strand_in_segment - 1),
                                                              static_cast<std::uint32_t>(s->strand));
      }
      nlohmann::json levels = nlohmann::json::array();
      for (std::size_t j = 0; j < segments; ++j) {
        member.fifo.push_back(member.strands[j].empty() ? 0 : level_on(pe, team->ranks[j]));
        levels.push_back(member.fifo.back() > 0 ? nlohmann::json(member.fifo.back()) : nlohmann::json());
      }
      members.push_back({{"cpu", member.cpu}, {"strands", it->second.size()}, {"sched_fifo", levels}});
      team->members.push_back(std::move(member));
    }
    if (team->members.empty()) {
      throw Error(fmt::format("task '{}' has no strand in the strand table; partitioned-dm cannot run it", t.name));
    }
    // Threads with a core of their own may spin briefly at the barrier; threads that
    // share cores with other teams sleep at once (RT-OpenMP's futex barrier).
    const nanoseconds spin = ctx.set.tasks.size() == 1 ? nanoseconds(100us) : nanoseconds::zero();
    team->barrier = std::make_unique<platform::FutexBarrier>(static_cast<std::uint32_t>(team->members.size()), spin);
    nlohmann::json priorities = nlohmann::json::array();
    for (std::size_t j = 0; j < segments; ++j) {
      priorities.push_back({{"segment", j + 1},
                            {"offset", model::format_duration(team->offsets[j])},
                            {"rank", team->ranks[j]}});
    }
    assignment_.push_back({{"task", t.name}, {"threads", members}, {"segments", priorities}});
    teams_.push_back(std::move(team));
  }
}

void PartitionedDm::dispatch(Team& team, const Member& member, const platform::Release& job,
                             platform::ThreadRecorder* rec, const RunContext& ctx) noexcept {
  const bool fifo = ctx.realtime.fifo;
  const takt::Job view = platform::make_job(ctx.timing[team.task], job);
  const std::size_t segments = member.strands.size();
  for (std::size_t j = 0; j < segments; ++j) {
    // Algorithm 1, line 4: wait until the segment's relative release.
    const nanoseconds release = job.release + team.offsets[j];
    if (os::monotonic_now() < release) os::sleep_until(release);
    // Lines 5–10: this thread's strands of the segment, each at the segment's priority.
    for (const auto& [strand, number] : member.strands[j]) {
      if (team.failed.load(std::memory_order_acquire)) break;
      if (fifo) os::set_fifo(member.fifo[j]);
      const nanoseconds begin = os::monotonic_now();
      if (rec != nullptr) {
        if (!team.started.exchange(true, std::memory_order_acq_rel)) {
          rec->job_start(team.task, job.job, job.release, begin);
        }
        rec->strand_begin(team.task, job.job, number, begin);
      }
      // The segment's CPU time: its wall-clock time counts the time threads of higher
      // priority (other tasks' segments on this core) preempted it.
      const nanoseconds cpu_begin = rec != nullptr ? os::thread_cpu_time() : nanoseconds::zero();
      try {
        if (team.synchronous != nullptr) {
          team.synchronous->run_strand(view, j, strand);
        } else {
          team.object->run(view);
        }
      } catch (...) {
        char message[platform::ThreadRecorder::error_length];
        describe_exception(std::current_exception(), message, sizeof message);
        if (!team.failed.exchange(true, std::memory_order_acq_rel) && rec != nullptr) {
          rec->job_error(team.task, job.job, message);
        }
      }
      if (rec != nullptr) {
        const nanoseconds cpu = os::thread_cpu_time() - cpu_begin;
        rec->strand_end(team.task, job.job, number, os::monotonic_now(), false, cpu);
      }
      if (fifo) os::set_fifo(platform::fifo::dispatch);
    }
    // Line 11: the team barrier; the last thread through the last one finishes the job.
    const bool last = team.barrier->arrive_and_wait();
    if (last && j + 1 == segments) {
      const nanoseconds at = os::monotonic_now();
      const bool failed = team.failed.load(std::memory_order_acquire);
      if (rec != nullptr) {
        if (!team.started.exchange(true, std::memory_order_acq_rel)) {
          rec->job_start(team.task, job.job, job.release, at);
        }
        rec->job_finish(team.task, job.job, job.release, job.deadline, at, failed);
      }
      ctx.engine.finished(team.task, job.job, at);
    }
  }
}

void PartitionedDm::LaneSink::release(const platform::Release& release) {
  Team& t = *team;
  t.current = release;
  t.started.store(false, std::memory_order_relaxed);
  t.failed.store(false, std::memory_order_relaxed);
  t.generation.fetch_add(1, std::memory_order_acq_rel);
  if (t.members.size() > 1) os::futex_wake_all(t.generation);
}

void PartitionedDm::member_loop(Team& team, std::size_t index, const RunContext& ctx) {
  const Member& member = team.members[index];
  // Algorithm 1, line 1: raise priority to the system maximum (takt's, 90).
  platform::enter_realtime(ctx.realtime, os::CpuSet{member.cpu}, platform::fifo::dispatch);
  platform::ThreadRecorder* rec =
      platform::attach_current_thread(*ctx.recorder, fmt::format("{} cpu {}", team.name, member.cpu));
  if (index == 0) {
    // The lane: releases the task's jobs and takes part in each one it releases.
    struct Sink final : platform::ReleaseSink {
      PartitionedDm* owner;
      Team* team;
      const Member* member;
      platform::ThreadRecorder* rec;
      const RunContext* ctx;
      void release(const platform::Release& r) override {
        LaneSink publish;
        publish.owner = owner;
        publish.team = team;
        publish.release(r);
        owner->dispatch(*team, *member, r, rec, *ctx);
      }
    } sink;
    sink.owner = this;
    sink.team = &team;
    sink.member = &member;
    sink.rec = rec;
    sink.ctx = &ctx;
    const std::uint32_t mine[] = {team.task};
    ctx.engine.run_lane(mine, sink, rec);
    team.done.store(true, std::memory_order_release);
    team.generation.fetch_add(1, std::memory_order_acq_rel);
    os::futex_wake_all(team.generation);
  } else {
    // Line 13: sleep until the next task iteration.
    std::uint32_t seen = 0;
    for (;;) {
      std::uint32_t now = team.generation.load(std::memory_order_acquire);
      while (now == seen) {
        os::futex_wait(team.generation, seen);
        now = team.generation.load(std::memory_order_acquire);
      }
      seen = now;
      if (team.done.load(std::memory_order_acquire)) break;
      const platform::Release job = team.current;
      dispatch(team, member, job, rec, ctx);
    }
  }
  platform::detach_current_recorder();
}

void PartitionedDm::run(RunContext& ctx) {
  for (auto& tp : teams_) {
    Team* team = tp.get();
    for (std::size_t k = 1; k < team->members.size(); ++k) {
      members_.start([this, team, k, &ctx] { member_loop(*team, k, ctx); });
    }
    lanes_.start([this, team, &ctx] { member_loop(*team, 0, ctx); });
  }
  lanes_.wait(ctx.overdue);
}

bool PartitionedDm::shutdown() {
  if (shut_down_) return true;
  // A lane still inside its job is left running. One the run gave up on inside its job,
  // whose job has finished since, is back in the release engine (the engine has
  // stopped: it skips the releases due meanwhile and returns) or on its way out: it is
  // joined before the engine and the recorder go, or left running if it does not
  // return in time.
  if (!platform::lanes_returned(engine_, lanes_)) {
    left_running_ = true;
    return false;
  }
  for (auto& t : teams_) {
    t->done.store(true, std::memory_order_release);
    t->generation.fetch_add(1, std::memory_order_acq_rel);
    os::futex_wake_all(t->generation);
  }
  members_.wait(nullptr);
  shut_down_ = true;
  return true;
}

nlohmann::json PartitionedDm::details() const {
  nlohmann::json out = {{"teams", assignment_}, {"priority_ranks", ranks_}, {"max_ranks_per_core", max_core_ranks_},
                        {"dispatch_priority", platform::fifo::dispatch}};
  if (scheduler_) out["scheduler"] = scheduler_statistics_json(*scheduler_);
  return out;
}

}  // namespace

std::unique_ptr<platform::Policy> make_partitioned_dm() {
  return std::make_unique<LeakedWhenLeftRunning>(std::make_unique<PartitionedDm>());
}

}  // namespace takt::policies
