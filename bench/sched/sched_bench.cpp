// The scheduling framework's benchmark: cost per pipeline stage and admit / schedule cost against #PEs.
#include "bench/sched/sched_bench.hpp"

#include "platform/metrics_json.hpp"
#include "platform/percentile.hpp"
#include "policies/builtin_topologies.hpp"
#include "sched/scheduler.hpp"
#include "sched/topology_spec.hpp"

#include <omp.h>
#include <oneapi/tbb/concurrent_priority_queue.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <queue>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace takt::bench {
namespace {

using Clock = std::chrono::steady_clock;
using sched::ProcessingElements;
using sched::Scheduler;
using sched::Task;

/// Whether the caller asked the run to end before the next measurement.
bool stop_asked(const SchedBenchOptions& o) { return o.stop_requested && o.stop_requested(); }

/// `v` sorted, each value once.
std::vector<int> ascending_once(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

/// The nearest-rank median (the lower middle value of an even count), as every report.
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return platform::nearest_rank(std::span<const double>(v), 50);
}

double ns_since(Clock::time_point start) {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

/// What reading the clock around a timed region adds to it (median of many).
double timer_overhead_ns() {
  static const double overhead = [] {
    std::vector<double> samples;
    for (int i = 0; i < 20001; ++i) {
      const auto a = Clock::now();
      const auto b = Clock::now();
      samples.push_back(
          static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count()));
    }
    return median(samples);
  }();
  return overhead;
}

/// entry -> `depth` head-queue stages -> terminal, as YAML.
std::string chain(int depth) {
  std::string yaml = "topology:\n  name: chain\n  pipes: {";
  for (int i = 0; i <= depth; ++i) yaml += (i ? ", p" : "p") + std::to_string(i) + ": one";
  yaml += "}\n  entry: p0\n  instances:\n";
  for (int i = 0; i < depth; ++i) {
    yaml += "    s" + std::to_string(i) + ": {component: head-queue, input: p" + std::to_string(i) +
            ", output: p" + std::to_string(i + 1) + "}\n";
  }
  yaml += "  pes: {terminal: p" + std::to_string(depth) + "}\n";
  return yaml;
}

/// The CoBaS scalability layout with takt's components: one load balancer in
/// front of per-PE EDF instances, one terminal pipe per PE.
const char* const per_pe_balanced =
    "topology:\n"
    "  name: per-pe-balanced\n"
    "  pipes: {admitted: one, queued: per-pe, ready: per-pe}\n"
    "  entry: admitted\n"
    "  instances:\n"
    "    balance: {component: load-balancer, inputs: admitted, outputs: \"queued[*]\"}\n"
    "    order: {component: edf, per: pe, input: \"queued[#]\", output: \"ready[#]\"}\n"
    "  pes: {terminal: \"ready[pe]\"}\n";

struct Costs {
  double admit_ns = 0;
  double schedule_ns = 0;
  double exit_ns = 0;
};

/// Calls made by the measurements, for per-call instruction counts.
struct Calls {
  std::uint64_t admit = 0;
  std::uint64_t schedule = 0;
};

/// Admits the tasks, then asks `order` PEs for work until all are dispatched, then
/// exits them, `rounds` times; per-task costs, timed per phase (the clock's own
/// cost is taken out of every timed phase).
Costs measure(Scheduler& s, std::deque<Task>& tasks, const std::vector<int>& order, int rounds,
              Calls& calls) {
  double admit = 0, schedule = 0, exit = 0;
  std::vector<Task*> got;
  got.reserve(tasks.size());
  for (int r = 0; r < rounds; ++r) {
    auto t0 = Clock::now();
    for (Task& t : tasks) s.admit(t);
    admit += ns_since(t0);
    got.clear();
    t0 = Clock::now();
    for (std::size_t i = 0; got.size() < tasks.size(); i = (i + 1) % order.size()) {
      if (Task* t = s.schedule(order[i])) got.push_back(t);
      ++calls.schedule;
    }
    schedule += ns_since(t0);
    calls.admit += tasks.size();
    t0 = Clock::now();
    for (Task* t : got) s.exit(*t);
    exit += ns_since(t0);
  }
  const double ops = static_cast<double>(rounds) * static_cast<double>(tasks.size());
  const double clock = timer_overhead_ns() * rounds;
  return Costs{(admit - clock) / ops, (schedule - clock) / ops, (exit - clock) / ops};
}

struct Repeated {
  double admit_ns, schedule_ns, exit_ns;
};

Repeated repeat(int repeats, const std::function<Costs()>& run) {
  std::vector<double> a, s, e;
  (void)run();  // warm-up: caches, heap arrays grown to size
  for (int i = 0; i < repeats; ++i) {
    const Costs c = run();
    a.push_back(c.admit_ns);
    s.push_back(c.schedule_ns);
    e.push_back(c.exit_ns);
  }
  return Repeated{median(a), median(s), median(e)};
}

/// The per-stage part; null when a stop came before its first depth. A stop between
/// depths leaves the depths measured ("complete": false).
nlohmann::json per_stage(const SchedBenchOptions& o) {
  const int batch = 16;
  const int rounds = o.quick ? 200 : 4000;
  std::vector<double> depths, admit, schedule;
  std::vector<std::uint64_t> admit_calls, schedule_calls;
  const std::vector<int> chosen =
      ascending_once(o.depths.empty() ? std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8} : o.depths);
  for (int depth : chosen) {
    if (stop_asked(o)) break;
    Scheduler s(sched::parse_topology_text(chain(depth), "<bench>/chain.yaml"),
                ProcessingElements::uniform(1));
    std::deque<Task> tasks;
    for (int i = 0; i < batch; ++i) tasks.emplace_back(static_cast<std::uint64_t>(i));
    Calls calls;
    const Repeated r = repeat(o.repeats, [&] { return measure(s, tasks, {0}, rounds, calls); });
    depths.push_back(depth);
    admit.push_back(r.admit_ns);
    schedule.push_back(r.schedule_ns);
    admit_calls.push_back(calls.admit);
    schedule_calls.push_back(calls.schedule);
    if (o.progress) {
      o.progress("per-stage: depth " + std::to_string(depth) + ": admit " + std::to_string(r.admit_ns) +
                 " ns, schedule " + std::to_string(r.schedule_ns) + " ns");
    }
  }
  if (depths.empty()) return nullptr;
  // A slope needs two depths: with one (a stop after the first, or --depths 1) there is
  // no per-stage cost, written as null, not as a 0 that would read as measured.
  const bool sloped = depths.size() > 1;
  const double admit_slope = sloped ? theil_sen_slope(depths, admit) : 0.0;
  const double schedule_slope = sloped ? theil_sen_slope(depths, schedule) : 0.0;
  auto or_null = [sloped](double v) { return sloped ? nlohmann::json(v) : nlohmann::json(nullptr); };
  nlohmann::json out{{"depths", depths},
                        {"admit_calls", admit_calls},
                        {"schedule_calls", schedule_calls},
                        {"tasks_in_flight", batch},
                        {"admit_ns", admit},
                        {"schedule_ns", schedule},
                        {"per_stage_admit_ns", or_null(admit_slope)},
                        {"per_stage_schedule_ns", or_null(schedule_slope)},
                        {"per_stage_ns", or_null((admit_slope + schedule_slope) / 2)},
                        {"target_per_stage_ns", 50},
                        {"cobas_per_stage_ns", 210}};
  if (depths.size() < chosen.size()) out["complete"] = false;
  return out;
}

struct Shape {
  std::string name;
  std::function<sched::TopologySpec()> spec;
  std::function<ProcessingElements(int)> pes;
  std::function<void(Task&, int, int)> prepare;  // task, index, #PEs
  int fixed_tasks = 0;                           // tasks in flight whatever the PEs (0: per_pe per PE)
};

/// The scaling part, written into result["scaling"] after each step (one topology at one
/// PE count), and the checkpoint called then; result gets no "scaling" when a stop came
/// before the first step. A topology that a stop cut short has "complete": false and
/// "pes_measured"; the chosen topologies it left without any step are listed in
/// "not_measured". Returns false when a stop cut the part short.
bool scaling(const SchedBenchOptions& o, nlohmann::json& result) {
  const std::vector<int> counts = {2, 4, 8, 16, 32, 64, 128, 256};
  const std::vector<Shape> shapes = {
      {"per-pe-balanced",
       [] { return sched::parse_topology_text(per_pe_balanced, "<bench>/per-pe-balanced.yaml"); },
       [](int n) { return ProcessingElements::uniform(n); }, [](Task&, int, int) {}},
      {"gedf-paws", [] { return policies::builtin_topology("gedf-paws"); },
       [](int n) { return ProcessingElements::uniform(n); }, [](Task&, int, int) {}},
      // The same with the global queue's length held at 64 jobs: what the number
      // of PEs alone costs (every PE takes from the global queue, so all succeed).
      {"gedf-paws-64", [] { return policies::builtin_topology("gedf-paws"); },
       [](int n) { return ProcessingElements::uniform(n); }, [](Task&, int, int) {}, 64},
      {"partitioned-dm", [] { return policies::builtin_topology("partitioned-dm"); },
       [](int n) { return ProcessingElements::uniform(n); },
       [](Task& t, int i, int n) {
         t.pe = i % n;
         t.priority = i % 7;
       }},
      {"federated", [] { return policies::builtin_topology("federated"); },
       [](int n) {
         std::vector<int> clusters;
         for (int pe = 0; pe < n; ++pe) clusters.push_back(pe / 2);
         return ProcessingElements::with_clusters(clusters);
       },
       [](Task& t, int i, int n) { t.cluster = (i % n) / 2; }},
  };
  const int per_pe = 8;
  // Ascending and each once: growth is last over first, and the baselines use the first
  // (--pes 256,2 reported a growth of 0.5x where it was 2.01x).
  const std::vector<int> pes = ascending_once(o.pes.empty() ? counts : o.pes);
  nlohmann::json out{{"pes", pes},
                     {"tasks_in_flight_per_pe", per_pe},
                     {"target_growth_ratio", 2.0},
                     {"cobas_admit_us_at_254_pes", 24}};
  auto chosen = [&o](const Shape& shape) {
    return o.topologies.empty() ||
           std::find(o.topologies.begin(), o.topologies.end(), shape.name) != o.topologies.end();
  };
  // A stop: the chosen topologies with no PE count measured are named, as not measured.
  auto stopped_at = [&](std::size_t first_unbegun) {
    nlohmann::json names = nlohmann::json::array();
    for (std::size_t k = first_unbegun; k < shapes.size(); ++k) {
      if (chosen(shapes[k])) names.push_back(shapes[k].name);
    }
    if (result.contains("scaling")) {  // at least one step measured (else no part at all)
      out["not_measured"] = names;
      result["scaling"] = out;
    }
    return false;
  };
  for (std::size_t shape_index = 0; shape_index < shapes.size(); ++shape_index) {
    const Shape& shape = shapes[shape_index];
    if (!chosen(shape)) continue;
    std::vector<double> admit, schedule, exit, idle;
    std::vector<std::uint64_t> admit_calls, schedule_calls;
    std::vector<int> measured;
    for (int n : pes) {
      if (stop_asked(o)) return stopped_at(measured.empty() ? shape_index : shape_index + 1);
      Scheduler s(shape.spec(), shape.pes(n));
      std::deque<Task> tasks;
      const int in_flight = shape.fixed_tasks > 0 ? shape.fixed_tasks : per_pe * n;
      for (int i = 0; i < in_flight; ++i) {
        Task& t = tasks.emplace_back(static_cast<std::uint64_t>(i));
        t.deadline = std::chrono::microseconds(1000 + (i * 7919) % 1000);  // deadlines in shuffled order
        shape.prepare(t, i, n);
      }
      std::vector<int> order;
      for (int pe = 0; pe < n; ++pe) order.push_back(pe);
      const int rounds = std::max(1, (o.quick ? 40000 : 400000) / in_flight);
      Calls calls;
      const Repeated r = repeat(o.repeats, [&] { return measure(s, tasks, order, rounds, calls); });
      admit.push_back(r.admit_ns);
      schedule.push_back(r.schedule_ns);
      exit.push_back(r.exit_ns);
      admit_calls.push_back(calls.admit);
      schedule_calls.push_back(calls.schedule);
      // An idle PE asking for work when there is none (the pull path's full search).
      std::vector<double> idles;
      for (int k = 0; o.idle && k < o.repeats; ++k) {
        const int n_calls = o.quick ? 2000 : 50000;
        const auto t0 = Clock::now();
        for (int c = 0; c < n_calls; ++c) (void)s.schedule(c % n);
        idles.push_back((ns_since(t0) - timer_overhead_ns()) / n_calls);
      }
      if (o.idle) idle.push_back(median(idles));
      measured.push_back(n);
      auto grown = [&measured](double ratio) {
        return measured.size() > 1 ? nlohmann::json(ratio) : nlohmann::json(nullptr);
      };
      nlohmann::json& entry = out["topologies"][shape.name];
      entry = nlohmann::json{
          {"tasks_in_flight",
           shape.fixed_tasks > 0 ? nlohmann::json(shape.fixed_tasks) : nlohmann::json("8 per PE")},
          {"admit_ns", admit},
          {"schedule_ns", schedule},
          {"exit_ns", exit},
          // Not measured (--skip-idle): null, not zeros that read as measured.
          {"idle_schedule_ns", o.idle ? nlohmann::json(idle) : nlohmann::json(nullptr)},
          // A growth needs two PE counts (a stop may leave one): null, not 1.0.
          {"admit_growth_ratio", grown(admit.back() / admit.front())},
          {"schedule_growth_ratio", grown(schedule.back() / schedule.front())},
          {"idle_schedule_growth_ratio",
           o.idle ? grown(idle.back() / idle.front()) : nlohmann::json(nullptr)},
          {"admit_calls", admit_calls},
          {"schedule_calls", schedule_calls},
      };
      if (measured.size() < pes.size()) {
        entry["complete"] = false;
        entry["pes_measured"] = measured;
      }
      result["scaling"] = out;
      if (o.checkpoint) o.checkpoint(result);
      if (o.progress) {
        o.progress("scaling: " + shape.name + " " + std::to_string(n) + " PEs: admit " +
                   std::to_string(r.admit_ns) + " ns, schedule " + std::to_string(r.schedule_ns) + " ns");
      }
    }
  }
  return true;
}

nlohmann::json baselines(const SchedBenchOptions& o, double framework_ns, int framework_pes) {
  const int batch = 16;
  const int rounds = o.quick ? 2000 : 40000;
  using Entry = std::pair<std::int64_t, Task*>;
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const { return a.first > b.first; }
  };
  std::deque<Task> tasks;
  for (int i = 0; i < batch; ++i) tasks.emplace_back(static_cast<std::uint64_t>(i));
  std::vector<double> tbb_ns, omp_ns;
  for (int k = 0; k < o.repeats + 1; ++k) {
    tbb::concurrent_priority_queue<Entry, Later> cpq;
    auto t0 = Clock::now();
    for (int r = 0; r < rounds; ++r) {
      for (int i = 0; i < batch; ++i) cpq.push(Entry{(i * 7919) % 1000, &tasks[static_cast<std::size_t>(i)]});
      Entry e;
      while (cpq.try_pop(e)) {
      }
    }
    if (k > 0) tbb_ns.push_back(ns_since(t0) / (rounds * batch));

    std::priority_queue<Entry, std::vector<Entry>, Later> pq;
    omp_lock_t lock;
    omp_init_lock(&lock);
    t0 = Clock::now();
    for (int r = 0; r < rounds; ++r) {
      for (int i = 0; i < batch; ++i) {
        omp_set_lock(&lock);
        pq.push(Entry{(i * 7919) % 1000, &tasks[static_cast<std::size_t>(i)]});
        omp_unset_lock(&lock);
      }
      for (int i = 0; i < batch; ++i) {
        omp_set_lock(&lock);
        pq.pop();
        omp_unset_lock(&lock);
      }
    }
    if (k > 0) omp_ns.push_back(ns_since(t0) / (rounds * batch));
    omp_destroy_lock(&lock);
  }
  const double tbb = median(tbb_ns);
  const double omp = median(omp_ns);
  nlohmann::json out{{"tbb_concurrent_priority_queue_push_pop_ns", tbb},
                     {"openmp_locked_priority_queue_push_pop_ns", omp}};
  if (framework_ns > 0) {  // the scaling part ran gedf-paws
    out["framework_admit_schedule_ns"] = framework_ns;
    out["framework_topology"] = "gedf-paws, " + std::to_string(framework_pes) + " PEs";
    out["ratio_to_tbb"] = framework_ns / tbb;
    out["ratio_to_openmp"] = framework_ns / omp;
  }
  return out;
}

}  // namespace

double theil_sen_slope(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> slopes;
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = i + 1; j < x.size(); ++j) slopes.push_back((y[j] - y[i]) / (x[j] - x[i]));
  }
  return median(slopes);
}

nlohmann::json run_sched_bench(const SchedBenchOptions& options) {
  SchedBenchOptions o = options;
  o.repeats = std::max(1, o.repeats);
  // complete: set by the caller when the run ends (takt bench sched).
  nlohmann::json result = platform::benchmark_header("sched", platform::provenance(), false);
  result.update({{"units", "nanoseconds per operation (per task), median of the repeats"},
                 {"repeats", o.repeats},
                 {"quick", o.quick},
                 {"hardware_threads", std::thread::hardware_concurrency()},
                 {"threads_used", 1}});
  result["timer_overhead_ns"] = timer_overhead_ns();
  auto checkpoint = [&] {
    if (o.checkpoint) o.checkpoint(result);
  };
  // Set when a stop leaves a measurement asked for unmeasured (a stop after the last
  // measurement leaves the results complete).
  auto stopped = [&] {
    result["stopped"] = true;
    return result;
  };
  if (o.per_stage) {
    nlohmann::json part = per_stage(o);
    if (part.is_null()) return stopped();
    result["per_stage"] = std::move(part);
    checkpoint();
    if (result["per_stage"].contains("complete")) return stopped();
  }
  if (o.scaling && !scaling(o, result)) return stopped();  // a checkpoint after each step
  if (o.baselines && stop_asked(o)) return stopped();
  if (o.baselines) {
    double framework = 0;
    int framework_pes = 0;
    if (result.contains("scaling") && result["scaling"]["topologies"].contains("gedf-paws")) {
      // The first PE count of the scaling part (2 unless --pes says otherwise).
      const auto& gedf = result["scaling"]["topologies"]["gedf-paws"];
      framework = gedf["admit_ns"][0].get<double>() + gedf["schedule_ns"][0].get<double>();
      framework_pes = result["scaling"]["pes"][0].get<int>();
    }
    result["baselines"] = baselines(o, framework, framework_pes);
  }
  return result;
}

}  // namespace takt::bench
