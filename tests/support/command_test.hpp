// A fixture for tests that run the takt program: a scratch directory per test, the
// program run through the shell with its exit status, stdout and stderr, and files
// written into the scratch directory. The including target defines TAKT_BINARY (the
// program's path) and TAKT_SOURCE_DIR.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace takt::testing {

struct Outcome {
  int status = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

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
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
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
