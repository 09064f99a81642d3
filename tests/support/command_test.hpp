// A fixture for tests that run the takt program: a scratch directory per test, the
// program run through the shell with its exit status, stdout and stderr, and files
// written into the scratch directory. The including target defines TAKT_BINARY (the
// program's path) and TAKT_SOURCE_DIR.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace takt::testing {

struct Outcome {
  int status = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

/// An interrupted run: its outcome (status as a shell gives it: 128 + the signal that
/// ended it), whether the signal was sent (false: takt had ended first, or `ready` never
/// held within the limit and takt was killed), and how long takt took to end after it.
struct Interrupted {
  Outcome outcome;
  bool signalled = false;
  std::chrono::steady_clock::duration after_signal{};
};

/// std::system's status decoded: the command's exit code, 128 + N where signal N ended
/// it, -1 where it could not be run.
inline int exit_status(int raw) {
  if (raw == -1) return -1;
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : WIFSIGNALED(raw) ? 128 + WTERMSIG(raw) : -1;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class CommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("takt-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Runs `takt ARGS` (a shell-quoted string) with `env` prepended (e.g. "TAKT_NO_RT=1").
  Outcome takt(const std::string& args, const std::string& env = "") {
    const std::filesystem::path out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string command =
        env + " " + std::string(TAKT_BINARY) + " " + args + " >" + out.string() + " 2>" + err.string();
    Outcome r;
    const int raw = std::system(command.c_str());
    r.status = exit_status(raw);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
  /// Runs `takt ARGS` with TAKT_NO_RT=1, stdout and stderr into files of the scratch
  /// directory, and sends it `sig` as soon as `ready(stdout so far, time since the start)`
  /// holds (asked every 10 ms); a takt still running after `limit` is killed (SIGKILL).
  using Ready = std::function<bool(const std::string& out, std::chrono::steady_clock::duration elapsed)>;
  Interrupted signal_takt_when(const std::vector<std::string>& args, const Ready& ready, int sig = SIGINT,
                               std::chrono::seconds limit = std::chrono::seconds(60)) {
    using Clock = std::chrono::steady_clock;
    const std::filesystem::path out = dir_ / "stdout", err = dir_ / "stderr";
    Interrupted r;
    const Clock::time_point start = Clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (o < 0 || e < 0 || ::dup2(o, STDOUT_FILENO) < 0 || ::dup2(e, STDERR_FILENO) < 0) ::_exit(126);
      ::setenv("TAKT_NO_RT", "1", 1);
      // takt keeps a signal ignored that was ignored when it started (a shell starts a
      // script's background jobs with SIGINT ignored): the test's signal must reach it.
      ::signal(sig, SIG_DFL);
      std::vector<char*> argv{const_cast<char*>(TAKT_BINARY)};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(TAKT_BINARY, argv.data());
      ::_exit(127);
    }
    if (pid < 0) return r;
    int raw = 0;
    Clock::time_point signalled_at{};
    bool ended = false;
    while (!ended) {
      ended = ::waitpid(pid, &raw, WNOHANG) == pid;
      if (ended) break;
      const Clock::duration elapsed = Clock::now() - start;
      if (!r.signalled && ready(slurp(out), elapsed)) {
        signalled_at = Clock::now();
        ::kill(pid, sig);
        r.signalled = true;
      } else if (elapsed > limit) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &raw, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (r.signalled) r.after_signal = Clock::now() - signalled_at;
    r.outcome.status = exit_status(raw);
    r.outcome.out = slurp(out);
    r.outcome.err = slurp(err);
    return r;
  }
  /// signal_takt_when(), with the signal sent `wait` after the start.
  Interrupted signal_takt_after(const std::vector<std::string>& args, std::chrono::milliseconds wait,
                                int sig = SIGINT) {
    return signal_takt_when(
        args, [wait](const std::string&, std::chrono::steady_clock::duration elapsed) { return elapsed >= wait; },
        sig);
  }
  std::filesystem::path write(const std::string& name, const std::string& text) {
    std::filesystem::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  static std::string example(const std::string& name) { return std::string(TAKT_SOURCE_DIR) + "/examples/" + name; }

  std::filesystem::path dir_;
};

}  // namespace takt::testing
