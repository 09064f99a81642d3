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
