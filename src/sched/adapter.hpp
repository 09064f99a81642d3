// RuntimeSystemAdapter: the calls a runtime system makes into the scheduling framework.
#pragma once

#include "sched/task.hpp"

namespace takt::sched {

/// The runtime-system adapter interface of CoBaS (dissertation §5.5, §7.2): the
/// runtime system (takt's platform, or a simulator) tells the framework what
/// happens to its tasks and asks it for work; everything else goes through the
/// broker. Scheduler implements it; all calls are thread-safe.
///
/// Task life cycle (CoBaS task model, §5.1.1):
///
///   admit ──> schedulable ──dispatch / schedule(pe)──> running ──relinquish──> schedulable
///                  │  ^                                  │
///             block│  │unblock                     block │
///                  v  │                                  v
///               unconsidered <───────────────────────────┘          exit: from any state
class RuntimeSystemAdapter {
 public:
  virtual ~RuntimeSystemAdapter() = default;

  /// A new task enters the framework (schedulable): per-task data is constructed
  /// and the task is put in the entry pipe.
  virtual void admit(Task& task) = 0;
  /// A blocked (unconsidered) task is schedulable again.
  virtual void unblock(Task& task) = 0;
  /// The runtime system runs `task` on processing element `pe`: it leaves every
  /// pipe. Returns false, changing nothing, if the task was not schedulable (another
  /// PE took it) or `pe` is offline; throws std::out_of_range for an unknown `pe`.
  virtual bool dispatch(Task& task, int pe) = 0;
  /// Work for processing element `pe`: the head of its terminal pipe, else of its
  /// pull pipes in order, else stolen from a random non-empty pipe of its steal
  /// family; the task is dispatched to `pe` (running) before it is returned.
  /// nullptr when there is nothing, and for an offline processing element.
  virtual Task* schedule(int pe) = 0;
  /// A running task gives its processing element back (preempted, yielded): it is
  /// schedulable again and re-enters through the entry pipe.
  virtual void relinquish(Task& task) = 0;
  /// The task stops being considered (it blocks). Returns false if a schedulable
  /// task was dispatched by another PE in the meantime (it is running now); throws
  /// std::logic_error for a task that is blocked already.
  virtual bool block(Task& task) = 0;
  /// The task leaves the framework from any state; per-task data is destroyed.
  /// Returns false if a schedulable task was dispatched by another PE in the
  /// meantime (it is running now; call exit again when it is done).
  virtual bool exit(Task& task) = 0;
  /// A processing element comes online (dynamic topology: rebuilt, tasks kept).
  virtual void add_pe(int pe, int cluster) = 0;
  /// A processing element goes offline; tasks running on it keep running, and
  /// schedule(pe) gives it no more work.
  virtual void remove_pe(int pe) = 0;
};

}  // namespace takt::sched
