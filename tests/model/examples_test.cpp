// Every shipped example task set (examples/*.yaml, *.json) parses.
#include "model/program_profile.hpp"
#include "model/task_set_parser.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace fs = std::filesystem;

TEST(Examples, EveryTaskSetFileParses) {
  const fs::path dir = fs::path(TAKT_SOURCE_DIR) / "examples";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto ext = entry.path().extension();
    if (!entry.is_regular_file() || (ext != ".yaml" && ext != ".json")) continue;
    SCOPED_TRACE(entry.path().string());
    auto set = takt::model::parse_task_set_file(entry.path().string());
    EXPECT_FALSE(set.tasks.empty());
    ++count;
  }
  EXPECT_GE(count, 6);
}

TEST(Examples, ProfileFilesParse) {
  const fs::path dir = fs::path(TAKT_SOURCE_DIR) / "examples" / "profiles";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    EXPECT_FALSE(takt::model::parse_program_profiles_file(entry.path().string()).empty());
    ++count;
  }
  EXPECT_GE(count, 1);
}
