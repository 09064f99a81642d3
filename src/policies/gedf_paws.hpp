// The `gedf-paws` policy (PAWS): global EDF over jobs with priority-aware work stealing inside them, rules A–F.
//
// What runs where (paws §4):
//  - one runtime pool over all m cores, strategy priority_aware: one worker per core
//    (SCHED_FIFO 80), each with a local priority queue of deques keyed by absolute
//    deadline;
//  - one release lane (SCHED_FIFO 90, free to run on any of the cores) admits every
//    released job to the gedf-paws topology, where jobs wait in one global EDF queue
//    (rule A);
//  - a job's strands stay in the deques of the core running them (rule B); an idle
//    worker takes the bottom of its highest-priority non-empty deque (rule C), then the
//    head of the global queue through the topology, schedule(pe), which the runtime
//    asks through its work source (rule D), then steals the top of the highest-priority
//    deque of a random busy worker (rule E);
//  - preemption: when a job is released, no worker is idle, and the latest absolute
//    deadline among the running computations is later than the new job's, that worker
//    is asked to yield. At its next spawn or sync it consults the policy, which gives it
//    the head of the global queue if that is still earlier. The preempted strand either
//    stays in the worker's deque for that deadline (a strand whose parent waits below it:
//    it resumes there by rule C) or, when it has no ancestor in that deque (a job's root
//    strand, or a stolen strand), is handed back and enters the global queue (rule F,
//    and PAWS's case (i) for a whole job), from where any idle worker resumes it.
// Preemption model and its bound: preemption is cooperative, at spawn and sync points
// only. A released job therefore waits at most for the running strand's next spawn or
// sync: the longest strand (code between two spawn/sync points) of the running jobs —
// for the `segments` program, the longest strand length e. Without SCHED_FIFO the
// workers run in SCHED_OTHER and the kernel may delay them further.
#pragma once

#include "platform/policy.hpp"

#include <memory>

namespace takt::policies {

std::unique_ptr<platform::Policy> make_gedf_paws();

}  // namespace takt::policies
