// The reconfiguration lock under SCHED_FIFO: a reader of higher priority than the writer, on the writer's CPU.
#include "sched/swap_lock.hpp"
#include "../support/child_process.hpp"
#include "os/cpu.hpp"
#include "os/futex.hpp"
#include "os/realtime.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace std::chrono_literals;
using takt::sched::SwapLock;

namespace {

/// In the child process: a writer at SCHED_FIFO 10 holds the lock and needs 20 ms of
/// CPU; a reader at SCHED_FIFO 20 on the same CPU then asks for it shared. A reader
/// that waits by spinning with yield keeps the CPU (yield lets only threads of its own
/// priority run), so the writer never gets to unlock: both spin forever. Exits 0 when
/// the reader got the lock after the writer's unlock, 2 without the privilege.
[[noreturn]] void reader_above_writer_on_one_cpu() {
  const int cpu = takt::os::allowed_cpus()[0];
  SwapLock lock;
  std::atomic<std::uint32_t> reader_ready{0}, held{0};
  std::atomic<bool> writer_done{false}, order_ok{false}, fifo{true};
  // Each thread takes its priority before it moves to the CPU: a SCHED_OTHER thread
  // would not run there beside a spinning SCHED_FIFO one.
  std::thread reader([&] {
    if (!takt::os::set_fifo(20)) fifo = false;
    takt::os::pin_current_thread(takt::os::CpuSet{cpu});
    reader_ready.store(1);
    takt::os::futex_wake_all(reader_ready);
    while (held.load() == 0) takt::os::futex_wait(held, 0);
    lock.lock_shared(SwapLock::current_lane());
    order_ok.store(writer_done.load());
    lock.unlock_shared(SwapLock::current_lane());
  });
  std::thread writer([&] {
    if (!takt::os::set_fifo(10)) fifo = false;
    takt::os::pin_current_thread(takt::os::CpuSet{cpu});
    while (reader_ready.load() == 0) takt::os::futex_wait(reader_ready, 0);
    lock.lock();
    held.store(1);
    takt::os::futex_wake_all(held);  // the reader, asleep on this CPU, preempts this thread here
    const auto until = std::chrono::steady_clock::now() + 20ms;
    while (std::chrono::steady_clock::now() < until) {
    }
    writer_done.store(true);
    lock.unlock();
  });
  writer.join();
  reader.join();
  _exit(!fifo ? 2 : order_ok ? 0 : 1);
}

}  // namespace

TEST(SwapLock, AReaderOfHigherPriorityOnTheWritersCpuSleepsSoTheWriterCanUnlock) {
  if (!takt::os::privileges().fifo) GTEST_SKIP() << "needs SCHED_FIFO (the livelock exists only there)";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) reader_above_writer_on_one_cpu();
  const int code = takt::testing::wait_exit(child, 10s);
  if (code == takt::testing::kChildTimedOut)
    FAIL() << "the reader and the writer were still spinning after 10 s (livelock)";
  ASSERT_NE(code, takt::testing::kChildSignalled);
  if (code == 2) GTEST_SKIP() << "SCHED_FIFO refused in the child";
  EXPECT_EQ(code, 0) << "the reader entered before the writer unlocked";
}

namespace {
/// Waits (up to 10 s) until `done()`; false if it never became true.
template <typename F>
bool eventually(F done) {
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(100us);
  }
  return true;
}
}  // namespace

TEST(SwapLock, AReaderThatComesWhileAWriterWaitsEntersAfterTheWriter) {
  // Writer preference: once a writer waits for the readers inside to leave, a new
  // reader waits too, so a stream of operations cannot starve a reconfiguration.
  SwapLock lock;
  const std::size_t lane = SwapLock::current_lane();
  lock.lock_shared(lane);  // reader A, this thread
  std::atomic<int> order{0}, writer_at{0}, reader_at{0};
  std::thread writer([&] {
    lock.lock();
    writer_at = ++order;
    lock.unlock();
  });
  // EXPECT, not ASSERT, from here on: the threads must be let go and joined either way.
  EXPECT_TRUE(eventually([&] { return lock.writer_present(); }));
  std::thread reader([&] {  // reader B
    const std::size_t mine = SwapLock::current_lane();
    lock.lock_shared(mine);
    reader_at = ++order;
    lock.unlock_shared(mine);
  });
  EXPECT_TRUE(eventually([&] { return lock.readers_waiting() == 1; })) << "B did not wait for the writer";
  EXPECT_EQ(order.load(), 0) << "nobody may enter while A holds the lock";
  lock.unlock_shared(lane);
  writer.join();
  reader.join();
  EXPECT_EQ(writer_at.load(), 1);
  EXPECT_EQ(reader_at.load(), 2);
}

TEST(SwapLock, ReadersThatWaitedForAWriterEnterBeforeTheNextWriter) {
  // Back-to-back reconfigurations cannot starve operations: the readers that waited
  // for one writer enter before the next writer locks, however fast that one is.
  SwapLock lock;
  lock.lock();  // writer 1, this thread
  std::atomic<int> order{0}, reader_at{0}, writer2_at{0};
  std::thread reader([&] {
    const std::size_t mine = SwapLock::current_lane();
    lock.lock_shared(mine);
    reader_at = ++order;
    std::this_thread::sleep_for(2ms);
    lock.unlock_shared(mine);
  });
  EXPECT_TRUE(eventually([&] { return lock.readers_waiting() == 1; }));  // not ASSERT: join the threads
  std::thread writer2([&] {
    lock.lock();  // waits for writer 1 (one writer at a time), then for the waiting reader
    writer2_at = ++order;
    lock.unlock();
  });
  std::this_thread::sleep_for(20ms);  // writer 2 is (most likely) blocked in lock() by now
  lock.unlock();
  reader.join();
  writer2.join();
  EXPECT_EQ(reader_at.load(), 1) << "the waiting reader entered after the next writer";
  EXPECT_EQ(writer2_at.load(), 2);
}
