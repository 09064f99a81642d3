// The `federated` policy (RTWS) and its RTCG baseline `federated-greedy`: dedicated cores per parallel task, shared cores for the others.
//
// What runs where (rtws §V–§VI):
//  - every high-utilization task (C > D) gets the n_i cores the analysis granted it, a
//    cluster of the topology, and its own runtime pool with one worker pinned to each of
//    those cores; its jobs run there by work stealing (`federated`) or by the
//    centralized greedy executor, one locked queue per task as GNU OpenMP's team
//    (`federated-greedy`, QueueStrategy::centralized_greedy);
//  - every other task runs sequentially on the shared core the analysis packed it on
//    (first-fit or worst-fit by density, Σ C/D ≤ 1 per core). Each shared core is a
//    cluster with one executor thread per light task placed there, pinned to it. A
//    released job goes to an idle executor in deadline order, and the core is re-ranked:
//    every executor holding a job gets the SCHED_FIFO level of its job's deadline rank
//    among the core's jobs (79, 78, ...; fifo::rank_priority), so the kernel runs the
//    earliest deadline and preempts a later one at a release: preemptive EDF, as the
//    analysis' density test assumes (docs/policies.md). Without SCHED_FIFO the kernel
//    time-shares the core among the active jobs, whatever their deadlines.
//    SCHED_DEADLINE is not used for them: the kernel refuses it for threads pinned to
//    a subset of the root domain's CPUs without exclusive cpusets.
//  - One release lane per cluster (SCHED_FIFO 90) releases the cluster's tasks and
//    admits each job to the topology with its task's cluster; the cluster's workers
//    (SCHED_FIFO 80) get it through schedule(pe): a pool's idle worker asks the
//    topology through the runtime's work source (PAWS rule D's hook); the lane hands a
//    shared core's jobs to its executors and wakes them.
// Without SCHED_FIFO every thread runs in SCHED_OTHER, pinned the same way.
#pragma once

#include "platform/policy.hpp"
#include "takt/runtime/config.hpp"

#include <memory>

namespace takt::policies {

/// `federated` (QueueStrategy::work_stealing) or `federated-greedy`
/// (QueueStrategy::centralized_greedy).
std::unique_ptr<platform::Policy> make_federated(QueueStrategy strategy = QueueStrategy::work_stealing);

}  // namespace takt::policies
