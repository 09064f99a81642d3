// Tests of the Scheduler's runtime-system adapter calls: task states, pull path, errors, events.
#include "sched/scheduler.hpp"
#include "sched_test_util.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace takt::sched;
using namespace takt::sched::test;
using V = std::vector<std::uint64_t>;

namespace {

const std::string paws_like =
    "topology:\n"
    "  name: pull\n"
    "  pipes: {in: one, sorted: one, global: one, local: per-pe}\n"
    "  entry: in\n"
    "  instances:\n"
    "    order: {component: edf, input: in, output: sorted}\n"
    "    place: {component: distributor, input: sorted, outputs: \"local[*]\", unassigned: global, params: "
    "{by: pe}}\n"
    "  pes: {terminal: \"local[pe]\", pull: [global], steal: local}\n";

}  // namespace

TEST(Scheduler, TaskStatesFollowTheCoBaSModel) {
  TaskPool pool;
  Scheduler s(topology(single_stage("edf")), ProcessingElements::uniform(1));
  Task& t = pool.make(1, 5ms);
  EXPECT_EQ(t.state(), TaskState::unconsidered);
  EXPECT_FALSE(t.attached());
  s.admit(t);
  EXPECT_TRUE(t.attached());
  EXPECT_EQ(t.state(), TaskState::schedulable);
  EXPECT_EQ(s.attached_tasks(), 1u);
  EXPECT_EQ(s.schedule(0), &t);
  EXPECT_EQ(t.state(), TaskState::running);
  EXPECT_EQ(t.last_pe(), 0);
  EXPECT_TRUE(s.queued("out").empty());  // running tasks sit in no pipe
  EXPECT_TRUE(s.queued("in").empty());
  s.relinquish(t);
  EXPECT_EQ(t.state(), TaskState::schedulable);
  EXPECT_EQ(queued_ids(s, "out"), (V{1}));
  EXPECT_TRUE(s.block(t));  // schedulable -> unconsidered
  EXPECT_EQ(t.state(), TaskState::unconsidered);
  EXPECT_TRUE(s.queued("out").empty());
  EXPECT_EQ(s.schedule(0), nullptr);
  s.unblock(t);
  EXPECT_EQ(queued_ids(s, "out"), (V{1}));
  EXPECT_TRUE(s.dispatch(t, 0));
  EXPECT_FALSE(s.dispatch(t, 0));  // already running
  EXPECT_TRUE(s.block(t));         // running -> unconsidered
  EXPECT_TRUE(s.exit(t));
  EXPECT_FALSE(t.attached());
  EXPECT_EQ(s.attached_tasks(), 0u);
  EXPECT_EQ(s.verify(), "");
}

TEST(Scheduler, ExitFromEveryState) {
  TaskPool pool;
  Scheduler s(topology(single_stage("edf")), ProcessingElements::uniform(1));
  Task& queued = pool.make(1, 1ms);
  Task& running = pool.make(2, 2ms);
  Task& blocked = pool.make(3, 3ms);
  for (Task* t : {&queued, &running, &blocked}) s.admit(*t);
  ASSERT_TRUE(s.dispatch(running, 0));
  ASSERT_TRUE(s.block(blocked));
  for (Task* t : {&queued, &running, &blocked}) EXPECT_TRUE(s.exit(*t));
  EXPECT_EQ(s.attached_tasks(), 0u);
  EXPECT_TRUE(s.queued("out").empty());
  // A task can be admitted again after it exited.
  s.admit(queued);
  EXPECT_EQ(queued_ids(s, "out"), (V{1}));
}

TEST(Scheduler, MisuseIsReportedNotIgnored) {
  TaskPool pool;
  Scheduler s(topology(single_stage("edf")), ProcessingElements::uniform(2));
  Task& t = pool.make(1);
  EXPECT_THROW(s.exit(t), std::logic_error);  // never admitted
  s.admit(t);
  EXPECT_THROW(s.admit(t), std::logic_error);
  EXPECT_THROW(s.relinquish(t), std::logic_error);  // not running
  EXPECT_THROW(s.unblock(t), std::logic_error);     // not blocked
  // Blocked twice: the second used to return true and publish a second BLOCK.
  int me = 0;
  int blocks = 0;
  s.subscribe(topics::block, &me, [&](const TaskEvent&) { ++blocks; });
  EXPECT_TRUE(s.block(t));
  EXPECT_THROW(s.block(t), std::logic_error);
  EXPECT_EQ(blocks, 1);
  s.withdraw(&me);
  EXPECT_THROW(s.schedule(2), std::out_of_range);
  EXPECT_THROW(s.schedule(-1), std::out_of_range);
  EXPECT_THROW(s.queued("nope"), takt::Error);
  // PE 5 added: 2 to 4 are ids inside the range that no PE has. They were taken for
  // offline PEs (schedule() gave nullptr, dispatch() false) instead of unknown ones.
  s.add_pe(5, 0);
  EXPECT_THROW(s.schedule(3), std::out_of_range);
  EXPECT_THROW(s.peek(4), std::out_of_range);
  s.unblock(t);
  EXPECT_THROW(s.dispatch(t, 2), std::out_of_range);
  EXPECT_TRUE(s.dispatch(t, 5));
  // A PE taken offline is still known: no work, no error.
  s.relinquish(t);
  s.remove_pe(5);
  EXPECT_EQ(s.schedule(5), nullptr);
  EXPECT_FALSE(s.dispatch(t, 5));
}

TEST(Scheduler, PullPathTriesTerminalThenPullThenSteal) {
  TaskPool pool;
  Scheduler s(topology(paws_like), ProcessingElements::uniform(3));
  s.admit(pool.make(1, 40ms, 0, kAny, 0));  // local[0]
  s.admit(pool.make(2, 30ms, 0, kAny, 0));  // local[0]
  s.admit(pool.make(3, 20ms));              // global
  s.admit(pool.make(4, 10ms, 0, kAny, 2));  // local[2]
  EXPECT_EQ(queued_ids(s, "local[0]"), (V{2, 1}));
  EXPECT_EQ(queued_ids(s, "global"), (V{3}));
  // PE 0: its own local pipe first, even before an earlier deadline elsewhere.
  EXPECT_EQ(s.peek(0)->id, 2u);
  EXPECT_EQ(s.schedule(0)->id, 2u);
  // PE 1: nothing local, so the global queue.
  EXPECT_EQ(s.peek(1)->id, 3u);
  EXPECT_EQ(s.schedule(1)->id, 3u);
  // PE 1 again: nothing local, global empty: steal from a non-empty local pipe.
  EXPECT_EQ(s.peek(1), nullptr);
  Task* stolen = s.schedule(1);
  ASSERT_NE(stolen, nullptr);
  EXPECT_TRUE(stolen->id == 1u || stolen->id == 4u);
  Task* last = s.schedule(1);
  ASSERT_NE(last, nullptr);
  EXPECT_NE(last, stolen);
  EXPECT_EQ(s.schedule(1), nullptr);  // everything dispatched
  EXPECT_EQ(s.schedule(0), nullptr);
  EXPECT_EQ(s.verify(), "");
}

TEST(Scheduler, AnIdlePeStealsFromAnotherPesLocalPipe) {
  // The only task waits in PE 0's local pipe; PE 1, whose own pipe is empty, steals it.
  // (That a thief skips its own pipe among the victims is tested on NonEmptySet.)
  TaskPool pool;
  Scheduler s(topology(paws_like), ProcessingElements::uniform(2));
  s.admit(pool.make(1, 1ms, 0, kAny, 0));
  EXPECT_EQ(s.schedule(1)->id, 1u);
  EXPECT_EQ(pool[0].last_pe(), 1);
}

TEST(Scheduler, AnOfflinePeGetsNoWork) {
  // remove_pe(1) kept PE 1's slot with its pull and steal paths, and schedule(1) took a
  // queued job for it.
  TaskPool pool;
  Scheduler s(topology(paws_like), ProcessingElements::uniform(3));
  s.remove_pe(1);
  s.admit(pool.make(1, 10ms));              // global
  s.admit(pool.make(2, 20ms, 0, kAny, 1));  // local[1]: bound to the offline PE
  s.admit(pool.make(3, 30ms, 0, kAny, 2));  // local[2]
  EXPECT_EQ(s.peek(1), nullptr);
  EXPECT_EQ(s.schedule(1), nullptr);
  EXPECT_EQ(queued_ids(s, "global"), (V{1}));
  EXPECT_EQ(queued_ids(s, "local[1]"), (V{2}));
  EXPECT_EQ(queued_ids(s, "local[2]"), (V{3}));
  // The online PEs still take everything, the offline PE's bound job by stealing.
  EXPECT_EQ(s.schedule(0)->id, 1u);
  EXPECT_EQ(s.schedule(2)->id, 3u);
  EXPECT_EQ(s.schedule(0)->id, 2u);
  // Nor can the runtime dispatch a task to it: the task stays queued.
  s.admit(pool.make(5, 50ms));
  EXPECT_FALSE(s.dispatch(pool[3], 1));
  EXPECT_EQ(pool[3].state(), TaskState::schedulable);
  EXPECT_EQ(queued_ids(s, "global"), (V{5}));
  EXPECT_THROW(s.dispatch(pool[3], 3), std::out_of_range);  // no PE 3
  EXPECT_TRUE(s.dispatch(pool[3], 2));
  // Back online, it gets work again.
  s.add_pe(1, 0);
  s.admit(pool.make(4, 10ms));
  EXPECT_EQ(s.schedule(1)->id, 4u);
  EXPECT_EQ(s.verify(), "");
}

TEST(Scheduler, EntryByClusterRoutesWithoutSharedPipes) {
  TaskPool pool;
  Scheduler s(topology("topology:\n"
                       "  name: clusters\n"
                       "  pipes: {in: per-cluster, ready: per-cluster}\n"
                       "  entry: \"in[cluster]\"\n"
                       "  instances:\n"
                       "    order: {component: edf, per: cluster, input: \"in[#]\", output: \"ready[#]\"}\n"
                       "  pes: {terminal: \"ready[cluster]\"}\n"),
              ProcessingElements::with_clusters({0, 1, 1}));
  s.admit(pool.make(1, 20ms, 0, 1));
  s.admit(pool.make(2, 10ms, 0, 1));
  s.admit(pool.make(3, 30ms, 0, 0));
  EXPECT_EQ(queued_ids(s, "ready[1]"), (V{2, 1}));
  EXPECT_EQ(queued_ids(s, "ready[0]"), (V{3}));
  Task& lost = pool.make(4, 0ms, 0, 5);
  try {
    s.admit(lost);
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("task 4 has cluster 5"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(lost.attached());  // nothing changed
  EXPECT_EQ(s.schedule(2)->id, 2u);
  EXPECT_EQ(s.schedule(1)->id, 1u);
}

TEST(Scheduler, PublishesTaskEvents) {
  TaskPool pool;
  Scheduler s(topology(single_stage("edf")), ProcessingElements::uniform(1));
  std::vector<std::string> events;
  int me = 0;
  auto record = [&](const char* what) {
    return [&events, what](const TaskEvent& e) {
      events.push_back(std::string(what) + std::to_string(e.task->id) + "@" + std::to_string(e.pe));
    };
  };
  s.subscribe(topics::admit, &me, record("admit"));
  s.subscribe(topics::dispatch, &me, record("dispatch"));
  s.subscribe(topics::relinquish, &me, record("relinquish"));
  s.subscribe(topics::exit, &me, record("exit"));
  Task& t = pool.make(7);
  s.admit(t);
  s.schedule(0);
  s.relinquish(t);
  s.schedule(0);
  s.exit(t);
  EXPECT_EQ(events, (std::vector<std::string>{"admit7@-1", "dispatch7@0", "relinquish7@0", "dispatch7@0",
                                              "exit7@0"}));
  s.withdraw(&me);
  s.admit(t);
  EXPECT_EQ(events.size(), 5u);
}

TEST(Scheduler, ExitAndBlockDuringADispatchSayTheTaskWasJustDispatched) {
  // exit() and block() may overlap another PE's schedule() of the same task. Between
  // the claim (state running) and the end of schedule() the task is being dispatched:
  // both must return false, as for a task dispatched just before them. The DISPATCH
  // notification runs inside that window, so calling them from it hits it every time.
  // Before the fix exit() took it for a running task that had finished: it returned
  // true and detached the task that schedule() was handing to the PE.
  TaskPool pool;
  Scheduler s(topology(single_stage("edf")), ProcessingElements::uniform(1));
  int me = 0;
  std::vector<bool> answers;
  std::string relinquish_error;
  s.subscribe(topics::dispatch, &me, [&](const TaskEvent& e) {
    answers.push_back(s.block(*e.task));
    answers.push_back(s.exit(*e.task));
    try {
      s.relinquish(*e.task);
    } catch (const std::logic_error& error) {
      relinquish_error = error.what();
    }
  });
  Task& t = pool.make(3);
  s.admit(t);
  ASSERT_EQ(s.schedule(0), &t);
  EXPECT_EQ(answers, (std::vector<bool>{false, false}));
  // relinquish() in that window is refused, and says why (it said "is running, not running").
  EXPECT_NE(relinquish_error.find("task 3 is being dispatched"), std::string::npos) << relinquish_error;
  EXPECT_TRUE(t.attached());
  EXPECT_EQ(t.state(), TaskState::running);
  s.withdraw(&me);
  // Once dispatched, the running task exits as usual.
  EXPECT_TRUE(s.exit(t));
  EXPECT_FALSE(t.attached());
  EXPECT_EQ(s.verify(), "");
}

TEST(Scheduler, ADispatchSubscriberThatThrowsLeavesADispatchedTaskRunningAndQueuesAScheduledOne) {
  TaskPool pool;
  Scheduler s(topology(single_stage("edf")), ProcessingElements::uniform(1));
  int me = 0;
  s.subscribe(topics::dispatch, &me, [](const TaskEvent&) { throw std::runtime_error("subscriber failed"); });
  // dispatch(): the task was left `dispatching`, so exit() and block() returned false
  // for ever and relinquish() threw. Now the exception reaches the caller, who knows the
  // task, with the task running on that PE; it exits as usual.
  Task& t = pool.make(1);
  s.admit(t);
  EXPECT_THROW(s.dispatch(t, 0), std::runtime_error);
  EXPECT_EQ(t.state(), TaskState::running);
  EXPECT_TRUE(s.exit(t));
  EXPECT_EQ(s.verify(), "");
  // schedule(): the caller got the exception instead of the task, which stayed running
  // with nobody to run or relinquish it (verify() saw nothing wrong). Now it is
  // schedulable again and the next schedule() returns it.
  Task& u = pool.make(2);
  s.admit(u);
  EXPECT_THROW((void)s.schedule(0), std::runtime_error);
  EXPECT_EQ(u.state(), TaskState::schedulable);
  EXPECT_EQ(s.verify(), "");
  s.withdraw(&me);
  EXPECT_EQ(s.schedule(0), &u);
  EXPECT_EQ(u.state(), TaskState::running);
  EXPECT_TRUE(s.exit(u));
  EXPECT_EQ(s.verify(), "");
}

TEST(Scheduler, UserTopicsThroughTheScheduler) {
  struct Load {
    int percent = 0;
  };
  Scheduler s(topology(single_stage("edf")), ProcessingElements::uniform(1));
  const Topic<Load> load = s.add_topic<Load>("LOAD", "platform load", 0x1234);
  int seen = 0, me = 0;
  s.subscribe(load, &me, [&](const Load& l) { seen = l.percent; });
  s.notify(load, Load{80});
  EXPECT_EQ(seen, 80);
  bool listed = false;
  for (const TopicInfo& info : s.topics()) listed = listed || info.name == "LOAD";
  EXPECT_TRUE(listed);
  EXPECT_TRUE(s.remove_topic("LOAD"));
  EXPECT_THROW(s.remove_topic("DISPATCH"), takt::Error);  // built in: the scheduler needs it
  s.add_topic<TaskEvent>("DISPATCH", "", topics::dispatch.uuid);
  EXPECT_FALSE(s.remove_topic("DISPATCH"));  // a reference of our own may go again
}

TEST(Scheduler, DescribesItsTopology) {
  Scheduler s(topology(paws_like), ProcessingElements::uniform(2));
  const std::string text = s.describe();
  EXPECT_NE(text.find("pipe local[1]"), std::string::npos) << text;
  EXPECT_NE(text.find("pe 1: terminal local[1], pull global, steal local[*]"), std::string::npos) << text;
}
