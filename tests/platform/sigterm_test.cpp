// Test: SIGTERM during a run stops it and the metrics JSON (and trace) are still written, consistent.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "../support/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

extern char** environ;

using namespace std::chrono_literals;

#ifdef TAKT_SIGTERM_HELPER

namespace {

using takt::testing::wait_exit;

/// Reads the child's stdout until `marker` appears or `limit` passes.
bool wait_for_line(int fd, const std::string& marker, std::chrono::milliseconds limit, std::string& seen) {
  const auto until = std::chrono::steady_clock::now() + limit;
  char buf[256];
  while (seen.find(marker) == std::string::npos) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return false;
    seen.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

TEST(SignalStop, SigtermDuringARunStillWritesTheResults) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto json_path = dir / ("takt_sigterm_" + std::to_string(getpid()) + ".json");
  const auto trace_path = dir / ("takt_sigterm_trace_" + std::to_string(getpid()) + ".json");
  std::filesystem::remove(json_path);
  std::filesystem::remove(trace_path);

  int out[2];
  ASSERT_EQ(pipe(out), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  std::string helper = TAKT_SIGTERM_HELPER, j = json_path.string(), t = trace_path.string();
  char* argv[] = {helper.data(), j.data(), t.data(), nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, helper.c_str(), &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);

  std::string seen;
  ASSERT_TRUE(wait_for_line(out[0], "ready", 10s, seen)) << "helper output: " << seen;
  std::this_thread::sleep_for(150ms);  // let some jobs run
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  const int code = wait_exit(pid, 20s);
  close(out[0]);
  ASSERT_EQ(code, 0) << "the helper exits normally after SIGTERM";

  ASSERT_TRUE(std::filesystem::exists(json_path));
  std::ifstream in(json_path);
  nlohmann::json m = nlohmann::json::parse(in);
  EXPECT_TRUE(m["run"]["stopped"].get<bool>());
  EXPECT_EQ(m["run"]["signal"], SIGTERM);
  EXPECT_LT(m["run"]["duration_s"].get<double>(), 30.0) << "stopped long before its 60 s";
  EXPECT_GT(m["totals"]["jobs"].get<int>(), 0);
  for (const auto& task : m["tasks"]) {
    EXPECT_EQ(task["jobs"].get<int>(), task["released"].get<int>() + task["skipped"].get<int>()) << task;
    EXPECT_EQ(task["abandoned"].get<int>(), 0) << "running jobs finished within the drain time";
  }
  EXPECT_EQ(m["jobs"].size(), m["totals"]["jobs"].get<std::size_t>());
  std::ifstream trace_in(trace_path);
  nlohmann::json trace = nlohmann::json::parse(trace_in);
  EXPECT_TRUE(trace["traceEvents"].is_array());
  std::filesystem::remove(json_path);
  std::filesystem::remove(trace_path);
}

#endif
