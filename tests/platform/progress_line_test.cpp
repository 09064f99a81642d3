// Tests of the progress line: its text, and that it prints only when enabled (a terminal by default).
#include "platform/progress_line.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

using namespace std::chrono_literals;
using takt::platform::ProgressLine;

namespace {
std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[256];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return out;
}
}  // namespace

TEST(ProgressLine, FormatsJobsAndMisses) {
  EXPECT_EQ(ProgressLine::format({120, 2, 400}, 3500ms),
            "takt: 3.5 s, 120 of 400 jobs done, 2 missed (1.67 %)");
  EXPECT_EQ(ProgressLine::format({0, 0, std::nullopt}, 0ms), "takt: 0.0 s, 0 jobs done, 0 missed (0.00 %)");
  // Skipped releases are never done: without them the count stopped short of the planned
  // jobs (370 of 400 at the end of a run that skipped 30).
  EXPECT_EQ(ProgressLine::format({370, 2, 400, 30}, 4000ms),
            "takt: 4.0 s, 370 of 400 jobs done, 30 skipped, 2 missed (0.54 %)");
}

TEST(ProgressLine, PrintsWhileRunningWhenEnabled) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  std::atomic<std::uint64_t> done{0};
  std::atomic<bool> sampled{false};
  {
    ProgressLine line(
        [&] {
          sampled = true;
          return ProgressLine::Counts{done.load(), 1, std::nullopt};
        },
        f, true, 5ms);
    EXPECT_TRUE(line.enabled());
    // Until the line's thread has sampled the counts (it prints each sample), at most
    // 10 s: a thread slow to start on a loaded machine sampled nothing in a fixed 40 ms.
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    while (!sampled.load() && std::chrono::steady_clock::now() < give_up) {
      done.fetch_add(1);
      std::this_thread::sleep_for(2ms);
    }
  }
  std::string text = contents(f);
  EXPECT_NE(text.find("\rtakt: "), std::string::npos) << text;
  EXPECT_NE(text.find("jobs done, 1 missed"), std::string::npos) << text;
  ASSERT_GE(text.size(), 4u);
  EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K") << "the line is cleared at the end";
  std::fclose(f);
}

TEST(ProgressLine, SilentWhenNotATerminal) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    ProgressLine line([] { return ProgressLine::Counts{}; }, f, std::nullopt, 1ms);
    EXPECT_FALSE(line.enabled()) << "a temporary file is not a terminal";
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(ProgressLine, ANullStreamPrintsNothingEvenWhenAskedTo) {
  // RunOptions::progress = true with progress_out = nullptr wrote to a null FILE*
  // (the neighbouring table and messages options read null as "none").
  ProgressLine line([] { return ProgressLine::Counts{}; }, nullptr, true, 1ms);
  EXPECT_FALSE(line.enabled());
  std::this_thread::sleep_for(5ms);
}
