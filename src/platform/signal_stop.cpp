// SIGINT / SIGTERM handling: the first signal stops releasing, the second abandons running jobs.
#include "platform/signal_stop.hpp"

#include "takt/error.hpp"

#include <atomic>
#include <csignal>

namespace takt::platform {
namespace {

std::atomic<Stoppable*> g_target{nullptr};
std::atomic<int> g_count{0};
std::atomic<int> g_last{0};
struct sigaction g_old_int {};
struct sigaction g_old_term {};

static_assert(std::atomic<Stoppable*>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

void on_signal(int sig) {
  int n = g_count.fetch_add(1, std::memory_order_acq_rel) + 1;
  g_last.store(sig, std::memory_order_release);
  Stoppable* target = g_target.load(std::memory_order_acquire);
  if (target == nullptr) return;
  if (n == 1) {
    target->request_stop();
  } else if (n == 2) {
    target->abandon();
  } else {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    raise(sig);
  }
}

}  // namespace

SignalStop::SignalStop(Stoppable& target) {
  Stoppable* expected = nullptr;
  if (!g_target.compare_exchange_strong(expected, &target)) {
    throw Error(
        "cannot handle SIGINT/SIGTERM: another run (or another SignalStop) in this process handles "
        "them already, and only one can; run one run at a time in a process, or set "
        "RunOptions::handle_signals = false for the runs that need not stop on a signal");
  }
  g_count.store(0);
  g_last.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR and re-checks
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

SignalStop::~SignalStop() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  g_target.store(nullptr);
}

int SignalStop::signals_received() const noexcept { return g_count.load(std::memory_order_acquire); }
int SignalStop::last_signal() const noexcept { return g_last.load(std::memory_order_acquire); }

}  // namespace takt::platform
