// Tests of `takt analyze`, `takt generate`, `takt convert` and `takt bench analyze`, run as programs.
#include "model/task_set_parser.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

struct Outcome {
  int status = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class Commands : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("takt-cli-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome takt(const std::string& args) {
    const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string command =
        std::string(TAKT_BINARY) + " " + args + " >" + out.string() + " 2>" + err.string();
    Outcome r;
    const int raw = std::system(command.c_str());
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
  fs::path write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }
  static std::string example(const std::string& name) {
    return std::string(TAKT_SOURCE_DIR) + "/examples/" + name;
  }

  fs::path dir_;
};

}  // namespace

TEST_F(Commands, AnalyzeExitCodes) {
  EXPECT_EQ(takt("analyze " + example("01-one-task.yaml")).status, 0);
  Outcome no = takt("analyze " + example("07-unschedulable.yaml"));
  EXPECT_EQ(no.status, 2);
  EXPECT_NE(no.out.find("NOT SCHEDULABLE"), std::string::npos);
  EXPECT_NE(no.out.find("task 'wide'"), std::string::npos) << no.out;
  EXPECT_NE(no.out.find("short by 3"), std::string::npos) << no.out;
  Outcome bad = takt("analyze " + write("bad.yaml", "tasks:\n  - name: a\n    period: 10\n").string());
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("bad.yaml:3:13:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("no unit"), std::string::npos) << bad.err;
  EXPECT_EQ(takt("analyze /nonexistent/file.yaml").status, 1);
  EXPECT_EQ(takt("analyze " + example("01-one-task.yaml") + " --policy edf").status, 1);
}

TEST_F(Commands, AnalyzeJsonGivesEveryTaskItsGrant) {
  Outcome r = takt("analyze " + example("04-work-stealing-overhead.yaml") + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["policy"], "federated");
  EXPECT_TRUE(j["schedulable"].get<bool>());
  ASSERT_EQ(j["tasks"].size(), 3u);
  EXPECT_EQ(j["tasks"][0]["name"], "cholesky");
  EXPECT_EQ(j["tasks"][0]["cores"], 3);
  EXPECT_EQ(j["tasks"][0]["core_ids"], nlohmann::json::array({0, 1, 2}));
  EXPECT_EQ(j["tasks"][1]["cores"], 4);
  EXPECT_EQ(j["tasks"][1]["core_ids"], nlohmann::json::array({3, 4, 5, 6}));
  EXPECT_TRUE(j["tasks"][0].contains("expected_response_bound_ns"));
  EXPECT_EQ(j["tasks"][2]["kind"], "shared");

  Outcome dm = takt("analyze " + example("rt-openmp-fig2.yaml") + " --json");
  ASSERT_EQ(dm.status, 0);
  auto d = nlohmann::json::parse(dm.out);
  ASSERT_EQ(d["partitioned_dm"]["strands"].size(), 7u);
  EXPECT_EQ(d["partitioned_dm"]["strands"][6]["task"], "task2");
  EXPECT_EQ(d["partitioned_dm"]["strands"][6]["core"], 1);
  EXPECT_EQ(d["partitioned_dm"]["strands"][6]["priority"], 4);
  EXPECT_EQ(d["tasks"][0]["name"], "task1");

  Outcome no = takt("analyze " + example("07-unschedulable.yaml") + " --json");
  EXPECT_EQ(no.status, 2);
  auto n = nlohmann::json::parse(no.out);
  EXPECT_FALSE(n["schedulable"].get<bool>());
  ASSERT_FALSE(n["reasons"].empty());
  EXPECT_EQ(n["reasons"][0]["task"], "wide");
  EXPECT_EQ(n["reasons"][0]["margin"], -3);
}

TEST_F(Commands, AnalyzeOverridesPolicyAndCores) {
  Outcome r = takt("analyze " + example("rt-openmp-fig2.yaml") + " --policy gedf-paws --cores 1 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["policy"], "gedf-paws");
  EXPECT_EQ(j["cores"]["count"], 1);
  Outcome ff = takt("analyze " + example("rt-openmp-fig2.yaml") + " --fit first-fit");
  EXPECT_NE(ff.out.find("first-fit"), std::string::npos);
}

TEST_F(Commands, CoreCountsBeyondTheLimitAreBadInput) {
  // Exit 1 with a message, not an internal error (exit 3) or a position in generated text.
  Outcome a = takt("analyze " + example("01-one-task.yaml") + " --cores 2000000000");
  EXPECT_EQ(a.status, 1) << a.err;
  EXPECT_NE(a.err.find("at most 65536"), std::string::npos) << a.err;
  Outcome g = takt("generate --method paws --cores 2000000000 --utilization 1");
  EXPECT_EQ(g.status, 1) << g.err;
  EXPECT_NE(g.err.find("--cores 2000000000 is more cores than takt supports"), std::string::npos) << g.err;
  EXPECT_EQ(g.err.find("<generated>"), std::string::npos) << g.err;
}

TEST_F(Commands, GenerateIsReproducibleAndValid) {
  for (const char* method : {"paws", "rt-openmp", "rtws", "synthetic"}) {
    SCOPED_TRACE(method);
    const std::string args =
        std::string("generate --method ") + method + " --cores 4 --utilization 50% --seed 9";
    Outcome a = takt(args + " -o " + (dir_ / "a.yaml").string());
    ASSERT_EQ(a.status, 0) << a.err;
    Outcome b = takt(args + " -o " + (dir_ / "b.yaml").string());
    ASSERT_EQ(b.status, 0);
    EXPECT_EQ(slurp(dir_ / "a.yaml"), slurp(dir_ / "b.yaml"));
    EXPECT_NE(slurp(dir_ / "a.yaml").find("# generated by takt generate --method"), std::string::npos);
    auto set = takt::model::parse_task_set_file((dir_ / "a.yaml").string());
    EXPECT_EQ(set.global.cores->count, 4);
    // 50 % of 4 cores.
    EXPECT_LE(set.total_utilization(), 2.0 + 1e-3);
    EXPECT_GE(set.total_utilization(), 1.9);
    // The generated file is accepted by analyze (exit 0 or 2, not 1).
    Outcome an = takt("analyze " + (dir_ / "a.yaml").string());
    EXPECT_TRUE(an.status == 0 || an.status == 2) << an.err;
    // JSON output parses as a task set too.
    Outcome js = takt(args + " --json -o " + (dir_ / "c.json").string());
    ASSERT_EQ(js.status, 0) << js.err;
    EXPECT_EQ(takt::model::parse_task_set_file((dir_ / "c.json").string()).tasks.size(), set.tasks.size());
  }
  EXPECT_EQ(takt("generate --method nosuch --cores 2 --utilization 1").status, 1);
  EXPECT_EQ(takt("generate --method paws --cores 2 --utilization abc").status, 1);
}

TEST_F(Commands, GenerateRtwsFromAProfileFile) {
  fs::path profiles = write("p.yaml",
                            "programs:\n  - {name: fib-30, program: fib, args: [30], work: 20ms, span: 1ms, "
                            "burdened_span: 1.2ms}\n");
  Outcome r =
      takt("generate --method rtws --cores 8 --utilization 4 --seed 2 --programs " + profiles.string());
  ASSERT_EQ(r.status, 0) << r.err;
  auto set = takt::model::parse_task_set(r.out, "out.yaml");
  ASSERT_TRUE(set.global.delta.has_value());  // burdened spans given: δ = 1.5
  EXPECT_EQ(set.global.delta->to_string(), "1.5");
  for (const auto& t : set.tasks) {
    EXPECT_EQ(t.program, "fib");
    EXPECT_EQ(t.args, std::vector<std::string>{"30"});
  }
}

TEST_F(Commands, ConvertRtpt) {
  fs::path rtpt = write("set.rtpt",
                        "0 3\n"
                        "synthetic_task 2 1 0 600000 4 0 200000\n"
                        "0 1400000 0 800000 0 10000000 0 10000000 0 0 100\n"
                        "./heat 1024\n"
                        "0 20000000 0 2000000 0 10000000 0 10000000 0 0 100\n");
  Outcome r = takt("convert " + rtpt.string() + " -o " + (dir_ / "set.yaml").string());
  ASSERT_EQ(r.status, 0) << r.err;
  auto set = takt::model::parse_task_set_file((dir_ / "set.yaml").string());
  ASSERT_EQ(set.tasks.size(), 2u);
  EXPECT_EQ(set.tasks[0].segments.size(), 2u);
  EXPECT_EQ(set.tasks[1].program, "./heat");
  EXPECT_EQ(set.global.cores->cpus, (std::vector<int>{0, 1, 2, 3}));
  Outcome analyzed = takt("analyze " + (dir_ / "set.yaml").string() + " --json");
  EXPECT_EQ(analyzed.status, 0) << analyzed.out;
  Outcome bad = takt("convert " + write("bad.rtpt", "0 3\nprog\n1 2\n").string());
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("bad.rtpt:3:1:"), std::string::npos) << bad.err;
}

TEST_F(Commands, ConvertReportsErrorsAtTheRtptLine) {
  // Segments whose critical path (0.8 ms) exceeds the deadline (0.7 ms) of the timing line:
  // the error names the .rtpt file and line 2, not the converted text.
  fs::path rtpt = write("long.rtpt",
                        "0 3\n"
                        "synthetic_task 2 1 0 600000 4 0 200000\n"
                        "0 1400000 0 500000 0 700000 0 700000 0 0 1\n");
  Outcome r = takt("convert " + rtpt.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("long.rtpt:2:1: task 'synthetic_task-1': the critical path of its segments"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("<converted>"), std::string::npos) << r.err;
}

TEST_F(Commands, LargeStrandTablesStayWithinMemory) {
  // 400,000 strands on 16 cores. Built as one JSON tree the strand table took about 2 KB a
  // row and the old `analyze --json` died with std::bad_alloc under this 400 MB limit; the
  // rows now go out one at a time, and the text table has one row per task, segment and core.
  std::string text = "global: {cores: 16, policy: partitioned-dm}\ntasks:\n";
  for (int i = 0; i < 4; ++i) {
    text +=
        "  - {name: t" + std::to_string(i) + ", period: 10s, segments: [{length: 1us, strands: 100000}]}\n";
  }
  const fs::path set = write("large.yaml", text);
  const fs::path json_out = dir_ / "large.json", text_out = dir_ / "large.txt";
  auto limited = [&](const std::string& args, const fs::path& out) {
    const std::string command = "ulimit -v 400000; " + std::string(TAKT_BINARY) + " " + args + " >" +
                                out.string() + " 2>" + (dir_ / "stderr").string();
    const int raw = std::system(command.c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  };
  ASSERT_EQ(limited("analyze " + set.string() + " --json", json_out), 0) << slurp(dir_ / "stderr");
  auto j = nlohmann::json::parse(std::ifstream(json_out));
  ASSERT_EQ(j["partitioned_dm"]["strands"].size(), 400000u);
  EXPECT_EQ(j["partitioned_dm"]["strands"][399999]["strand"], 100000);
  ASSERT_EQ(limited("analyze " + set.string(), text_out), 0) << slurp(dir_ / "stderr");
  // 4 tasks × 16 cores rows, each listing the count: "6250 strands: 1, 17, 33, ...".
  const std::string table = slurp(text_out);
  EXPECT_NE(table.find("6250 strands: 1, 17, 33, ..."), std::string::npos);
  EXPECT_LT(table.size(), 20000u);
}

TEST_F(Commands, BenchAnalyzeWritesJson) {
  // A small run: the benchmark itself (1,000 tasks, 64 cores) is `takt bench analyze`.
  Outcome r = takt("bench analyze --tasks 30 --cores 8 --repetitions 1 --json " + (dir_ / "b.json").string());
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(dir_ / "b.json"));
  EXPECT_EQ(j["benchmark"], "analyze");
  ASSERT_EQ(j["results"].size(), 8u);
  for (const auto& row : j["results"]) {
    EXPECT_EQ(row["tasks"], 30);
    EXPECT_GT(row["total_s"].get<double>(), 0);
  }
}
