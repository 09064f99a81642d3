// Waiting for a child process in tests, with a limit after which it is killed.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace takt::testing {

/// The child's exit code; kChildTimedOut when it had not ended
/// within `limit` (it is then killed with SIGKILL and reaped); kChildSignalled when a signal ended it.
inline constexpr int kChildTimedOut = -1;
inline constexpr int kChildSignalled = -2;

/// `signal`, if given, gets the number of the signal that ended the child (0 if none).
inline int wait_exit(pid_t pid, std::chrono::milliseconds limit, int* signal = nullptr) {
  const auto until = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return kChildTimedOut;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (signal != nullptr) *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : kChildSignalled;
}

}  // namespace takt::testing
