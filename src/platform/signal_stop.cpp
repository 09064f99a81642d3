// SIGINT / SIGTERM handling: the first signal stops releasing, the second abandons running jobs.
#include "platform/signal_stop.hpp"

#include "takt/error.hpp"

#include <atomic>
#include <csignal>

namespace takt::platform {
namespace {

std::atomic<bool> g_installed{false};
std::atomic<Stoppable*> g_target{nullptr};
std::atomic<int> g_in_handler{0};  ///< handlers between loading the target and using it
std::atomic<int> g_count{0};
std::atomic<int> g_last{0};
struct sigaction g_old_int {};
struct sigaction g_old_term {};

static_assert(std::atomic<Stoppable*>::is_always_lock_free && std::atomic<int>::is_always_lock_free &&
                  std::atomic<bool>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

void give_up(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);
}

void on_signal(int sig) {
  const int n = g_count.fetch_add(1, std::memory_order_acq_rel) + 1;
  g_last.store(sig, std::memory_order_release);
  if (n >= 3) {
    give_up(sig);
    return;
  }
  g_in_handler.fetch_add(1, std::memory_order_seq_cst);
  Stoppable* target = g_target.load(std::memory_order_seq_cst);
  if (target != nullptr) {
    if (n == 1) {
      target->request_stop();
    } else {
      target->abandon();
    }
  }
  g_in_handler.fetch_sub(1, std::memory_order_seq_cst);
}

}  // namespace

SignalStop::SignalStop() {
  bool expected = false;
  if (!g_installed.compare_exchange_strong(expected, true)) {
    throw Error(
        "cannot handle SIGINT/SIGTERM: another run (or another SignalStop) in this process handles "
        "them already, and only one can; run one run at a time in a process, or set "
        "RunOptions::handle_signals = false for the runs that need not stop on a signal");
  }
  g_target.store(nullptr);
  g_count.store(0);
  g_last.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR and re-checks
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

SignalStop::SignalStop(Stoppable& target) : SignalStop() { attach(target); }

SignalStop::~SignalStop() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  detach();
  g_installed.store(false);
}

void SignalStop::attach(Stoppable& target) {
  g_target.store(&target, std::memory_order_seq_cst);
  // Signals that came before: the handler saw no target then.
  const int before = g_count.load(std::memory_order_acquire);
  if (before >= 1) target.request_stop();
  if (before >= 2) target.abandon();
}

void SignalStop::detach() noexcept {
  g_target.store(nullptr, std::memory_order_seq_cst);
  // A handler that loaded the old target may still be using it (on another thread).
  while (g_in_handler.load(std::memory_order_seq_cst) != 0) {
  }
}

int SignalStop::signals_received() const noexcept { return g_count.load(std::memory_order_acquire); }
int SignalStop::last_signal() const noexcept { return g_last.load(std::memory_order_acquire); }

}  // namespace takt::platform
