// Policy details for the run's JSON: a pool's runtime statistics and the scheduler's per-instance statistics.
#pragma once

#include "sched/scheduler.hpp"
#include "takt/runtime/pool.hpp"

#include <nlohmann/json.hpp>

namespace takt::policies {

/// {"workers", "cpus", "strategy" (the pool's own, Pool::strategy()), "totals": {...},
/// "per_worker": [...]} with spawns, steals, failed steals, sleeps, jobs, parks, yields,
/// refused yields, deepest strand.
nlohmann::json pool_statistics_json(const Pool& pool);

/// One object per component instance: name, component, updates, total and largest
/// update time in µs, component counters.
nlohmann::json scheduler_statistics_json(sched::Scheduler& scheduler);

}  // namespace takt::policies
