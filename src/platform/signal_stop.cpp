// SIGINT / SIGTERM / SIGHUP handling: the first signal stops releasing, the second abandons running jobs.
#include "platform/signal_stop.hpp"

#include "takt/error.hpp"

#include <pthread.h>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace takt::platform {
namespace {

std::atomic<bool> g_installed{false};
std::atomic<Stoppable*> g_target{nullptr};
std::atomic<int> g_in_handler{0};  ///< handlers between loading the target and using it
std::atomic<int> g_count{0};
std::atomic<int> g_last{0};
std::atomic<int> g_count_at_detach{-1};  ///< g_count when the target was last detached; -1: attached or never
std::atomic<bool> g_restored{false};      ///< the handlers of before are back
std::atomic<int> g_first_ever{0};  ///< the first signal any SignalStop of this process handled; never reset
struct sigaction g_old_int {};
struct sigaction g_old_term {};
struct sigaction g_old_hup {};  ///< SIGHUP: the terminal closed, or the ssh connection dropped

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
  // The targets write to stderr (write(2) may fail: EBADF, EPIPE): the interrupted code
  // may be between a failing call and its read of errno (an EINTR check).
  const int saved_errno = errno;
  struct RestoreErrno {
    int value;
    ~RestoreErrno() { errno = value; }
  } restore{saved_errno};
  // seq_cst, as attach()'s load of the count: with the target's store and load below
  // (and attach()'s), a signal either finds the target or is seen by attach().
  const int n = g_count.fetch_add(1, std::memory_order_seq_cst) + 1;
  g_last.store(sig, std::memory_order_release);
  int none = 0;
  g_first_ever.compare_exchange_strong(none, sig, std::memory_order_acq_rel);
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
  g_count_at_detach.store(-1);
  g_restored.store(false);
  sigaction(SIGINT, nullptr, &g_old_int);
  sigaction(SIGTERM, nullptr, &g_old_term);
  sigaction(SIGHUP, nullptr, &g_old_hup);
  install(false);
}

void SignalStop::install(bool restart) {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  // Without SA_RESTART while a target listens: a blocking call returns EINTR and
  // re-checks. With it once detached: a write of the results to a full pipe goes on
  // instead of failing with EINTR.
  sa.sa_flags = restart ? SA_RESTART : 0;
  // A signal ignored when the handlers came stays ignored: a shell starts a script's
  // background jobs with SIGINT ignored (and nohup, SIGHUP), so that Ctrl-C meant for
  // the foreground does not reach them.
  if (g_old_int.sa_handler != SIG_IGN) sigaction(SIGINT, &sa, nullptr);
  if (g_old_term.sa_handler != SIG_IGN) sigaction(SIGTERM, &sa, nullptr);
  if (g_old_hup.sa_handler != SIG_IGN) sigaction(SIGHUP, &sa, nullptr);
}

SignalStop::SignalStop(Stoppable& target) : SignalStop() { attach(target); }

SignalStop::~SignalStop() {
  // What the command printed goes out before the handlers do: a signal after that takes
  // its default action and would take buffered output with the process.
  std::fflush(stdout);
  restore_handlers();
  detach();
  g_installed.store(false);
}

void SignalStop::restore_handlers() noexcept {
  if (g_restored.exchange(true)) return;
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGHUP, &g_old_hup, nullptr);
}

void SignalStop::attach(Stoppable& target) {
  if (!g_restored.load()) install(false);
  g_count_at_detach.store(-1);
  g_target.store(&target, std::memory_order_seq_cst);
  // Signals that came before: the handler saw no target then.
  const int before = g_count.load(std::memory_order_seq_cst);
  if (before >= 1) target.request_stop();
  if (before >= 2) target.abandon();
}

void SignalStop::detach() noexcept {
  g_target.store(nullptr, std::memory_order_seq_cst);
  // A handler that loaded the old target may still be using it (on another thread).
  while (g_in_handler.load(std::memory_order_seq_cst) != 0) {
  }
  if (g_count_at_detach.load() < 0) g_count_at_detach.store(g_count.load(std::memory_order_seq_cst));
  if (!g_restored.load()) install(true);
}

int SignalStop::signal_since_detach() const noexcept {
  const int at = g_count_at_detach.load(std::memory_order_seq_cst);
  if (at < 0 || g_count.load(std::memory_order_seq_cst) <= at) return 0;
  return g_last.load(std::memory_order_acquire);
}

std::string signal_name(int sig) {
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  if (sig == SIGHUP) return "SIGHUP";
  return "signal " + std::to_string(sig);
}

std::string SignalStop::stopping_signal_name() const {
  const int first = first_handled_signal();
  return signal_name(first != 0 ? first : last_signal());
}

int first_handled_signal() noexcept { return g_first_ever.load(std::memory_order_acquire); }

std::string first_handled_signal_name() {
  const int sig = first_handled_signal();
  return sig == 0 ? std::string() : signal_name(sig);
}

[[noreturn]] void end_by_signal(int sig) noexcept {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  raise(sig);
  std::_Exit(128 + sig);  // not reached: the default action of SIGINT/SIGTERM/SIGHUP ends the process
}

int SignalStop::signals_received() const noexcept { return g_count.load(std::memory_order_acquire); }
int SignalStop::last_signal() const noexcept { return g_last.load(std::memory_order_acquire); }

}  // namespace takt::platform
