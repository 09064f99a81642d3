// Policy details for the run's JSON: a pool's runtime statistics and the scheduler's per-instance statistics.
#include "policies/statistics_json.hpp"

namespace takt::policies {
namespace {

nlohmann::json worker_json(const WorkerStatistics& s) {
  return {{"spawns", s.spawns},   {"steals", s.steals}, {"failed_steals", s.failed_steals},
          {"sleeps", s.sleeps},   {"jobs", s.jobs},     {"parks", s.parks},
          {"yields", s.yields},   {"refused_yields", s.refused_yields},
          {"max_depth", s.max_depth}, {"idle_ns", s.idle_ns}};
}

std::string_view strategy_name(QueueStrategy strategy) {
  switch (strategy) {
    case QueueStrategy::work_stealing:
      return "work_stealing";
    case QueueStrategy::priority_aware:
      return "priority_aware";
    case QueueStrategy::centralized_greedy:
      return "centralized_greedy";
  }
  return "unknown";
}

}  // namespace

nlohmann::json pool_statistics_json(const Pool& pool) {
  const std::string_view strategy = strategy_name(pool.strategy());
  // The totals are the sum of the rows printed (idle time grows while it is read).
  nlohmann::json per_worker = nlohmann::json::array();
  WorkerStatistics totals;
  for (const WorkerStatistics& s : pool.statistics()) {
    per_worker.push_back(worker_json(s));
    totals += s;
  }
  return {{"workers", pool.workers()},
          {"cpus", pool.cpus().to_string()},
          {"strategy", strategy},
          {"totals", worker_json(totals)},
          {"per_worker", per_worker}};
}

nlohmann::json scheduler_statistics_json(sched::Scheduler& scheduler) {
  nlohmann::json out = nlohmann::json::array();
  for (const sched::InstanceStats& s : scheduler.instance_stats()) {
    nlohmann::json counters = nlohmann::json::object();
    for (const auto& [name, value] : s.counters) counters[name] = value;
    out.push_back({{"instance", s.name},
                   {"component", s.component},
                   {"updates", s.updates},
                   {"total_us", static_cast<double>(s.total.count()) / 1e3},
                   {"max_us", static_cast<double>(s.max.count()) / 1e3},
                   {"counters", counters}});
  }
  return out;
}

}  // namespace takt::policies
