// The `partitioned-dm` policy (RT-OpenMP): the analysis' strand table run by one team of threads per task, Algorithm 1 exactly.
//
// What runs where (rt-openmp §IV.B):
//  - the analysis decomposes every task into segments of strands, gives each segment a
//    deadline-monotonic priority and places every strand on a core (FBB-FFD). The
//    strand → thread assignment is taken from the topology, once, in plan() (which
//    counts its threads for the recorder; prepare() creates them): every strand of the
//    table is admitted with `pe` = its core and `priority` = its priority, and each core's
//    strands are what schedule(pe) gives that core, in the order it gives them (the
//    built-in topology: per-core pipes ordered by priority, no stealing);
//  - one team of threads per task, one thread pinned to each core that has strands of
//    the task (a thread with none would only meet the barriers); the thread on core q
//    runs exactly the task's strands assigned to q;
//  - every thread runs Algorithm 1: it raises itself to the maximum priority (SCHED_FIFO
//    90) while dispatching; per segment it waits until the segment's release (the job's
//    release plus the segment's offset from the decomposition), then for each of its
//    strands lowers itself to the segment's priority on its core (each core numbers the
//    ranks of its strands: SCHED_FIFO 79 for the core's highest, 78, ... see
//    fifo::rank_priority), runs the strand, raises itself again; then it
//    waits at the team's futex barrier (sleeping, or spinning up to 100 µs first when
//    the set has one task and every thread has its core to itself); it sleeps until
//    the next job when the last segment is done;
//  - preemption is the kernel's: a strand's thread runs at its segment's priority, so
//    a higher-priority strand released on the same core preempts it at once;
//  - the team's thread on its first core is the task's release lane: it wakes at the
//    release (absolute time), publishes the job to the team (futex wake) and
//    dispatches its own share; the last thread through the last barrier records the
//    finish.
// A task must be synchronous: its program implements takt::SynchronousTask (the
// built-in `segments` does), or the task is one sequential strand, run by its run().
// Without SCHED_FIFO all threads run in SCHED_OTHER and priorities have no effect.
#pragma once

#include "platform/policy.hpp"

#include <memory>

namespace takt::policies {

std::unique_ptr<platform::Policy> make_partitioned_dm();

}  // namespace takt::policies
