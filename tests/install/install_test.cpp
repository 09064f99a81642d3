// The runtime as a library: `cmake --install` puts the public headers, takt::runtime and
// takt::os and a CMake package under a prefix, and a program of one's own (the example
// of docs/runtime.md, examples/runtime-app) builds against that prefix alone and runs.
#include "../support/command_test.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using takt::testing::slurp;

class InstallTest : public takt::testing::CommandTest {
 protected:
  /// Runs `command` through the shell, stdout and stderr together into a file.
  takt::testing::Outcome sh(const std::string& command) {
    const fs::path log = dir_ / "log";
    takt::testing::Outcome r;
    const int raw = std::system((command + " >" + log.string() + " 2>&1").c_str());
    r.status = takt::testing::exit_status(raw);
    r.out = slurp(log);
    return r;
  }
  static std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }
};

/// The first ```cpp block of a Markdown file.
std::string first_cpp_block(const std::string& markdown) {
  const std::string open = "```cpp\n";
  const auto begin = markdown.find(open);
  if (begin == std::string::npos) return {};
  const auto end = markdown.find("```", begin + open.size());
  return markdown.substr(begin + open.size(), end - begin - open.size());
}

// docs/runtime.md opens with the example program; the file that this test builds is the
// same text, so the page shows a program that compiles and runs as shown.
TEST(RuntimeDocs, TheFirstExampleIsTheExampleProgram) {
  const std::string doc = slurp(fs::path(TAKT_SOURCE_DIR) / "docs/runtime.md");
  const std::string program = slurp(fs::path(TAKT_SOURCE_DIR) / "examples/runtime-app/fib.cpp");
  ASSERT_FALSE(program.empty());
  EXPECT_EQ(first_cpp_block(doc), program);
}

TEST_F(InstallTest, AProgramBuildsAgainstTheInstalledRuntimeAndRuns) {
  const fs::path prefix = dir_ / "prefix", app = dir_ / "app";
  auto install = sh(std::string(TAKT_CMAKE) + " --install " + quoted(TAKT_BUILD_DIR) + " --prefix " + quoted(prefix));
  ASSERT_EQ(install.status, 0) << install.out;

  // What was installed: the program, the two libraries, the headers, the package.
  // (Folders as GNUInstallDirs names them here: lib, or lib64 or lib/<triplet> elsewhere.)
  const fs::path bin = TAKT_INSTALL_BINDIR, lib = TAKT_INSTALL_LIBDIR, include = TAKT_INSTALL_INCLUDEDIR;
  for (const fs::path& file : {bin / "takt", lib / "libtakt_runtime.a", lib / "libtakt_os.a",
                               include / "takt/runtime.hpp", include / "takt/cpu_set.hpp",
                               include / "takt/version.hpp", lib / "cmake/takt/taktConfig.cmake",
                               lib / "cmake/takt/taktTargets.cmake", lib / "pkgconfig/takt.pc"}) {
    EXPECT_TRUE(fs::exists(prefix / file)) << file;
  }
  EXPECT_FALSE(fs::exists(prefix / include / "takt/version.hpp.in"));
  // The installed targets point into the prefix, never into this source tree or build.
  const std::string targets = slurp(prefix / lib / "cmake/takt/taktTargets.cmake");
  EXPECT_EQ(targets.find(TAKT_SOURCE_DIR), std::string::npos) << targets;
  EXPECT_EQ(targets.find(TAKT_BUILD_DIR), std::string::npos) << targets;

  // The example program, configured with find_package(takt) against the prefix alone.
  auto configure = sh(std::string(TAKT_CMAKE) + " -S " + quoted(fs::path(TAKT_SOURCE_DIR) / "examples/runtime-app") +
                      " -B " + quoted(app) + " -G '" + TAKT_CMAKE_GENERATOR + "' -DCMAKE_CXX_COMPILER=" +
                      quoted(TAKT_CXX) + " -DCMAKE_PREFIX_PATH=" + quoted(prefix));
  ASSERT_EQ(configure.status, 0) << configure.out;
  auto build = sh(std::string(TAKT_CMAKE) + " --build " + quoted(app));
  ASSERT_EQ(build.status, 0) << build.out;
  auto run = sh(quoted(app / "fib"));
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("fib(30) = 832040\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(" spawns, "), std::string::npos) << run.out;

  // Without CMake: pkg-config --cflags --libs takt, from the installed takt.pc alone.
  const fs::path pc = prefix / lib / "pkgconfig";
  EXPECT_TRUE(fs::exists(pc / "takt.pc"));
  auto flags = sh("PKG_CONFIG_PATH=" + quoted(pc) + " pkg-config --cflags --libs takt");
  ASSERT_EQ(flags.status, 0) << flags.out;
  EXPECT_NE(flags.out.find("-fstack-clash-protection"), std::string::npos) << flags.out;
  auto by_hand = sh(quoted(TAKT_CXX) + " -std=c++20 -O2 " + quoted(fs::path(TAKT_SOURCE_DIR) / "examples/runtime-app/fib.cpp") +
                    " -o " + quoted(dir_ / "fib-by-hand") + " $(PKG_CONFIG_PATH=" + quoted(pc) +
                    " pkg-config --cflags --libs takt)");
  ASSERT_EQ(by_hand.status, 0) << by_hand.out;
  run = sh(quoted(dir_ / "fib-by-hand"));
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("fib(30) = 832040\n"), std::string::npos) << run.out;
}

// A task built as a shared object against the installed package (find_package(takt),
// takt::task: headers and flags, no library) is loaded and run by the installed takt,
// its fork-join on the runtime inside that program (63 spawns per job for these
// arguments: the interval split in halves until a piece is at most 2048 long).
TEST_F(InstallTest, ATaskSharedObjectBuildsAgainstTheInstalledPackageAndTheInstalledTaktRunsIt) {
  const fs::path prefix = dir_ / "prefix", task = dir_ / "task";
  auto install = sh(std::string(TAKT_CMAKE) + " --install " + quoted(TAKT_BUILD_DIR) + " --prefix " + quoted(prefix));
  ASSERT_EQ(install.status, 0) << install.out;
  auto configure = sh(std::string(TAKT_CMAKE) + " -S " + quoted(fs::path(TAKT_SOURCE_DIR) / "examples/task-so") +
                      " -B " + quoted(task) + " -G '" + TAKT_CMAKE_GENERATOR + "' -DCMAKE_CXX_COMPILER=" +
                      quoted(TAKT_CXX) + " -DCMAKE_PREFIX_PATH=" + quoted(prefix));
  ASSERT_EQ(configure.status, 0) << configure.out;
  auto build = sh(std::string(TAKT_CMAKE) + " --build " + quoted(task) + " --verbose");
  ASSERT_EQ(build.status, 0) << build.out;
  EXPECT_NE(build.out.find("-fstack-clash-protection"), std::string::npos) << build.out;
  auto run = sh("TAKT_NO_RT=1 " + quoted(prefix / TAKT_INSTALL_BINDIR / "takt") + " profile " +
                quoted(task / "libtakt_pi_task.so") +
                " --jobs 1 --burden-spawn 2us --burden-sync 1us -- --intervals 100000 --grain 2048");
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find(" 63 spawns, 63 syncs"), std::string::npos) << run.out;
}

// Every installed public header compiles on its own with only the prefix's include
// folder (and the system's, for Boost): none reaches into takt's src/.
TEST_F(InstallTest, EveryInstalledHeaderCompilesOnItsOwn) {
  const fs::path prefix = dir_ / "prefix";
  auto install = sh(std::string(TAKT_CMAKE) + " --install " + quoted(TAKT_BUILD_DIR) + " --prefix " + quoted(prefix));
  ASSERT_EQ(install.status, 0) << install.out;
  std::vector<fs::path> headers;
  for (const auto& entry : fs::recursive_directory_iterator(prefix / TAKT_INSTALL_INCLUDEDIR / "takt")) {
    const auto ext = entry.path().extension();
    if (ext == ".hpp" || ext == ".h") headers.push_back(entry.path());
  }
  EXPECT_GE(headers.size(), 10u);
  for (const fs::path& header : headers) {
    const fs::path unit = dir_ / "unit.cpp";
    std::ofstream(unit) << "#include \"" << header.string() << "\"\n";
    auto compile = sh(quoted(TAKT_CXX) + " -std=c++20 -fsyntax-only -Wall -Wextra -Werror -I" +
                      quoted(prefix / TAKT_INSTALL_INCLUDEDIR) + " " + quoted(unit));
    EXPECT_EQ(compile.status, 0) << header << "\n" << compile.out;
  }
}

}  // namespace
