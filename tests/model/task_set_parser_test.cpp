// Tests of the task-set parser: every field, JSON input, and each validation error at file:line:column.
#include "model/task_set_parser.hpp"
#include "model/duration.hpp"
#include "model/yaml_reader.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace std::chrono_literals;
using takt::model::parse_task_set;
using takt::model::Policy;
using takt::model::Structure;

namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_task_set(text, "ts.yaml");
  } catch (const takt::Error& e) {
    return e.what();
  }
  return "no error";
}

// Checks that parsing fails at `where` ("ts.yaml:L:C") with a message containing `what`.
void expect_error(const std::string& text, const std::string& where, const std::string& what) {
  const std::string message = error_of(text);
  EXPECT_EQ(message.rfind(where + ": ", 0), 0u) << "expected at " << where << ", got: " << message;
  EXPECT_NE(message.find(what), std::string::npos) << "expected '" << what << "' in: " << message;
}

const char* kComplete = R"(# a complete task set
global:
  cores: 0-3,6
  policy: partitioned-dm
  delta: 1.5
  fit: first-fit
  duration: 10s
  overrun: wait
tasks:
  - name: heat
    period: 20ms
    deadline: 15ms
    offset: 1ms
    priority: 2
    program: heat
    args: [--rows, 1024, "a b"]
    work: 30ms
    span: 2ms
    burdened_span: 2.5ms
  - name: sync
    period: 10ms
    program: ./libsync.so
    segments:
      - {length: 0.6ms, strands: 1}
      - {length: 200us, strands: 4}
      - length: 0.4ms
  - name: graph
    period: 1s
    dag:
      - {name: a, length: 1ms}
      - {name: b, length: 4ms, after: [a]}
      - {name: c, length: 1ms, after: [a]}
      - {name: d, length: 3ms, after: [b, c]}
topology:
  components: [edf]
  wiring: {a: b}
)";

}  // namespace

TEST(TaskSetParser, ReadsEveryField) {
  auto set = parse_task_set(kComplete, "ts.yaml");
  EXPECT_EQ(set.source, "ts.yaml");
  ASSERT_TRUE(set.global.cores.has_value());
  EXPECT_EQ(set.global.cores->count, 5);
  EXPECT_EQ(set.global.cores->cpus, (std::vector<int>{0, 1, 2, 3, 6}));
  EXPECT_EQ(set.global.cores->id(4), 6);
  EXPECT_EQ(set.global.policy, Policy::partitioned_dm);
  EXPECT_TRUE(set.global.policy_given);
  ASSERT_TRUE(set.global.delta.has_value());
  EXPECT_EQ(set.global.delta->to_string(), "1.5");
  EXPECT_EQ(set.global.fit, takt::model::Fit::first_fit);
  EXPECT_EQ(set.global.duration, 10s);
  EXPECT_FALSE(set.global.jobs.has_value());
  EXPECT_EQ(set.global.overrun, takt::model::Overrun::wait);

  ASSERT_EQ(set.tasks.size(), 3u);
  const auto& heat = set.tasks[0];
  EXPECT_EQ(heat.name, "heat");
  EXPECT_EQ(heat.period, 20ms);
  EXPECT_EQ(heat.deadline, 15ms);
  EXPECT_EQ(heat.offset, 1ms);
  EXPECT_EQ(heat.priority, 2);
  EXPECT_EQ(heat.program, "heat");
  EXPECT_EQ(heat.args, (std::vector<std::string>{"--rows", "1024", "a b"}));
  EXPECT_EQ(heat.structure(), Structure::measured);
  EXPECT_EQ(heat.work(), 30ms);
  EXPECT_EQ(heat.span(), 2ms);
  EXPECT_EQ(heat.burdened_span_or_span(), 2500us);
  EXPECT_DOUBLE_EQ(heat.utilization(), 1.5);
  EXPECT_DOUBLE_EQ(heat.density(), 2.0);
  EXPECT_EQ(heat.marks.period.line, 11);
  EXPECT_EQ(heat.marks.period.column, 13);
  EXPECT_EQ(heat.marks.keys.at("work").line, 17);

  const auto& sync = set.tasks[1];
  EXPECT_EQ(sync.deadline, 10ms);  // D defaults to T
  EXPECT_EQ(sync.program, "./libsync.so");
  ASSERT_EQ(sync.segments.size(), 3u);
  EXPECT_EQ(sync.segments[1].length, 200us);
  EXPECT_EQ(sync.segments[1].strands, 4);
  EXPECT_EQ(sync.segments[2].strands, 1);  // default
  // Where each strands value was written (the segment's own position when left out).
  ASSERT_EQ(sync.marks.strands.size(), 3u);
  EXPECT_EQ(sync.marks.strands[1].line, 25);
  EXPECT_EQ(sync.marks.strands[1].column, 34);
  EXPECT_EQ(sync.marks.strands[2].line, 26);
  EXPECT_EQ(sync.marks.strands[2].column, 9);
  EXPECT_EQ(sync.structure(), Structure::segments);
  // C = 0.6 + 4·0.2 + 0.4 = 1.8 ms, P = 0.6 + 0.2 + 0.4 = 1.2 ms (rt-openmp Fig. 2, task 1).
  EXPECT_EQ(sync.work(), 1800us);
  EXPECT_EQ(sync.span(), 1200us);

  const auto& graph = set.tasks[2];
  EXPECT_EQ(graph.structure(), Structure::dag);
  // C = 1+4+1+3 = 9 ms; L = a-b-d = 8 ms.
  EXPECT_EQ(graph.work(), 9ms);
  EXPECT_EQ(graph.span(), 8ms);

  ASSERT_TRUE(set.topology.has_value());
  EXPECT_EQ((*set.topology)["components"][0].as<std::string>(), "edf");
  EXPECT_EQ((*set.topology)["wiring"].Mark().line + 1, 36);  // marks kept for the framework's messages
}

TEST(TaskSetParser, ReadsJson) {
  auto set = parse_task_set(R"({"global": {"cores": 2, "policy": "gedf-paws"},
 "tasks": [{"name": "a", "period": "10ms", "work": "4ms", "span": "1ms"},
           {"name": "b", "period": "20ms", "segments": [{"length": "1ms", "strands": 3}]}]})",
                            "ts.json");
  EXPECT_EQ(set.global.cores->count, 2);
  EXPECT_TRUE(set.global.cores->cpus.empty());
  EXPECT_EQ(set.global.policy, Policy::gedf_paws);
  ASSERT_EQ(set.tasks.size(), 2u);
  EXPECT_EQ(set.tasks[0].work(), 4ms);
  EXPECT_EQ(set.tasks[1].work(), 3ms);
  // JSON errors carry positions too.
  try {
    (void)parse_task_set(R"({"tasks": [{"name": "a", "period": 10}]})", "ts.json");
    FAIL();
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("ts.json:1:36: task 'a': period: '10' has no unit"),
              std::string::npos)
        << e.what();
  }
}

TEST(TaskSetParser, DefaultsWithoutGlobal) {
  auto set = parse_task_set("tasks:\n  - {name: a, period: 10ms, work: 1ms, span: 1ms}\n", "ts.yaml");
  EXPECT_FALSE(set.global.cores.has_value());
  EXPECT_EQ(set.global.policy, Policy::federated);
  EXPECT_FALSE(set.global.policy_given);
  EXPECT_EQ(set.global.fit, takt::model::Fit::worst_fit);
  EXPECT_EQ(set.global.overrun, takt::model::Overrun::skip);
}

TEST(TaskSetParser, CoresAsCountListOrSequence) {
  auto count =
      parse_task_set("global: {cores: 4}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "x");
  EXPECT_EQ(count.global.cores->count, 4);
  EXPECT_EQ(count.global.cores->id(3), 3);
  auto list =
      parse_task_set("global: {cores: [5, 1]}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "x");
  EXPECT_EQ(list.global.cores->cpus, (std::vector<int>{1, 5}));
  expect_error("global: {cores: 3-1}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:17",
               "runs backwards");
  expect_error("global: {cores: 0}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:17",
               "at least 1");
  expect_error("global: {cores: [1, 1]}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]",
               "ts.yaml:1:17", "twice");
  // Quoted, a number is a CPU list ("5" is CPU 5, as the Linux cpulist "5" is), also in
  // JSON; it used to be read as 5 logical cores ("0" as "at least 1").
  auto quoted =
      parse_task_set("global: {cores: \"5\"}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "x");
  EXPECT_EQ(quoted.global.cores->cpus, (std::vector<int>{5}));
  EXPECT_EQ(quoted.global.cores->count, 1);
  auto zero =
      parse_task_set("global: {cores: '0'}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "x");
  EXPECT_EQ(zero.global.cores->cpus, (std::vector<int>{0}));
  auto json = parse_task_set(
      R"({"global": {"cores": "2"}, "tasks": [{"name": "a", "period": "1ms", "work": "1us", "span": "1us"}]})",
      "x.json");
  EXPECT_EQ(json.global.cores->cpus, (std::vector<int>{2}));
  auto json_count = parse_task_set(
      R"({"global": {"cores": 2}, "tasks": [{"name": "a", "period": "1ms", "work": "1us", "span": "1us"}]})",
      "x.json");
  EXPECT_TRUE(json_count.global.cores->cpus.empty());
  EXPECT_EQ(json_count.global.cores->count, 2);
}

TEST(TaskSetParser, CoresStayWithin65536) {
  const std::string task = "\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]";
  // A count above 65536, and CPU lists with ids above 65535: "0-999999" used to expand to a
  // million CPUs, past the limit a count has.
  expect_error("global: {cores: 65537}" + task, "ts.yaml:1:17",
               "more cores than takt supports (at most 65536)");
  expect_error("global: {cores: \"0-999999\"}" + task, "ts.yaml:1:17",
               "cores: CPU id 999999 is above 65535, the largest takt supports");
  expect_error("global: {cores: \"2,65536\"}" + task, "ts.yaml:1:17", "CPU id 65536 is above 65535");
  // Seven digits and more: the size, not "has the bad part '9999999'".
  expect_error("global: {cores: \"0-9999999\"}" + task, "ts.yaml:1:17", "CPU id 9999999 is above 65535");
  expect_error("global: {cores: [3, 70000]}" + task, "ts.yaml:1:21", "CPU id 70000 is above 65535");
  // The limits themselves are accepted.
  EXPECT_EQ(parse_task_set("global: {cores: 65536}" + task, "x").global.cores->count, 65536);
  EXPECT_EQ(parse_task_set("global: {cores: \"0-65535\"}" + task, "x").global.cores->count, 65536);
}

TEST(TaskSetParser, UnknownKeysThatCommonSpellingsMakeSayWhatToWrite) {
  // An unquoted CPU list in a flow mapping: the ',' ends the value, '6' becomes a key.
  expect_error("global: {cores: 0-3,6}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:21",
               "unknown key '6' in 'global'; a ',' inside a {...} mapping ends the value before it: quote a "
               "CPU list there (\"0-3,6\")");
  // A YAML merge key is an ordinary (unknown) key to the reader.
  expect_error("tasks:\n  - {<<: {period: 1ms}, name: a, work: 1us, span: 1us}\n", "ts.yaml:2:6",
               "unknown key '<<' in task 'a'; YAML merge keys ('<<: *anchor') are not supported: write the "
               "keys out in each mapping");
}

TEST(TaskSetParser, UnknownKeysWithSuggestion) {
  expect_error("tasks:\n  - name: a\n    perod: 10ms\n    work: 1ms\n    span: 1ms\n", "ts.yaml:3:5",
               "unknown key 'perod' in task 'a'; did you mean 'period'?");
  expect_error(
      "global:\n  policy: federated\n  cpus: 4\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]",
      "ts.yaml:3:3", "unknown key 'cpus' in 'global'");
  expect_error("tasks: [{name: a, period: 1ms, work: 1us, span: 1us}]\nextra: 1\n", "ts.yaml:2:1",
               "unknown key 'extra'");
  expect_error("tasks:\n  - name: a\n    period: 1ms\n    segments: [{length: 1us, strand: 2}]\n",
               "ts.yaml:4:30", "did you mean 'strands'?");
  expect_error("tasks:\n  - name: a\n    period: 1ms\n    period: 2ms\n    work: 1us\n    span: 1us\n",
               "ts.yaml:4:5", "appears twice");
}

TEST(TaskSetParser, MissingKeys) {
  expect_error("global: {cores: 2}\n", "ts.yaml:1:1", "missing key 'tasks'");
  expect_error("tasks:\n  - name: a\n    work: 1ms\n    span: 1ms\n", "ts.yaml:2:5", "needs a 'period'");
  expect_error("tasks:\n  - period: 10ms\n", "ts.yaml:2:5", "needs a 'name'");
  expect_error("tasks:\n  - name: a\n    period: 10ms\n", "ts.yaml:2:5", "needs a structure");
  expect_error("tasks:\n  - name: a\n    period: 10ms\n    work: 2ms\n", "ts.yaml:4:11", "needs a 'span'");
  expect_error("tasks: []\n", "ts.yaml:1:8", "non-empty list");
  expect_error("", "ts.yaml:1:1", "the file is empty");
}

TEST(TaskSetParser, BadUnits) {
  expect_error("tasks:\n  - name: a\n    period: 10 parsecs\n    work: 1ms\n    span: 1ms\n", "ts.yaml:3:13",
               "unknown unit 'parsecs'");
  expect_error("tasks:\n  - name: a\n    period: 10ms\n    work: 1.5ns\n    span: 1ns\n", "ts.yaml:4:11",
               "whole number of nanoseconds");
  expect_error("tasks:\n  - name: a\n    period: [10ms]\n    work: 1ms\n    span: 1ms\n", "ts.yaml:3:13",
               "single value");
  // Not a number at all: said so, not read as 0 ("the period must be positive").
  expect_error("tasks:\n  - name: a\n    period: .\n    work: 1ms\n    span: 1ms\n", "ts.yaml:3:13",
               "'.' is not a duration");
}

TEST(TaskSetParser, TimingRules) {
  // Non-positive period.
  expect_error("tasks:\n  - name: a\n    period: 0ms\n    work: 1ms\n    span: 1ms\n", "ts.yaml:3:13",
               "period must be positive");
  // D > T.
  expect_error("tasks:\n  - name: a\n    period: 10ms\n    deadline: 12ms\n    work: 1ms\n    span: 1ms\n",
               "ts.yaml:4:15", "deadline 12ms exceeds the period 10ms");
  // Measured span > deadline.
  expect_error("tasks:\n  - name: a\n    period: 10ms\n    deadline: 5ms\n    work: 20ms\n    span: 6ms\n",
               "ts.yaml:6:11", "span 6ms exceeds the deadline 5ms");
  // Work < span.
  expect_error("tasks:\n  - name: a\n    period: 10ms\n    work: 2ms\n    span: 3ms\n", "ts.yaml:5:11",
               "span 3ms exceeds work 2ms");
  // Burdened span below span.
  expect_error(
      "tasks:\n  - name: a\n    period: 10ms\n    work: 4ms\n    span: 3ms\n    burdened_span: 2ms\n",
      "ts.yaml:6:20", "below span");
  // The structure's critical path longer than the deadline.
  expect_error(
      "tasks:\n  - name: a\n    period: 1ms\n    segments:\n      - {length: 0.6ms}\n      - {length: "
      "0.6ms}\n",
      "ts.yaml:5:7", "critical path of its segments (1.2ms) exceeds the deadline 1ms");
  // Non-positive segment length, zero strands.
  expect_error("tasks:\n  - name: a\n    period: 1ms\n    segments: [{length: 0ms}]\n", "ts.yaml:4:25",
               "length must be positive");
  expect_error("tasks:\n  - name: a\n    period: 1ms\n    segments: [{length: 1us, strands: 0}]\n",
               "ts.yaml:4:39", "at least 1");
  // Both structures.
  expect_error(
      "tasks:\n  - name: a\n    period: 1ms\n    segments: [{length: 1us}]\n    dag: [{name: x, length: "
      "1us}]\n",
      "ts.yaml:5:10", "either 'segments' or 'dag'");
  // Both run lengths.
  expect_error("global:\n  duration: 1s\n  jobs: 10\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]\n",
               "ts.yaml:3:9", "either 'duration' or 'jobs'");
}

TEST(TaskSetParser, WorkBeyond64BitsIsRejected) {
  // 10^8 strands × 100 s = 10^19 ns > 2^62 ns ≈ 4.61·10^18 ns: in 64 bits the product wraps
  // to a negative work (−8446744073.71 s) that was admitted as schedulable.
  expect_error(
      "tasks:\n  - name: a\n    period: 1000000000s\n    segments: [{length: 100s, strands: 100000000}]\n",
      "ts.yaml:4:16", "the work of its segments (Σ m·e) exceeds 2^62 ns");
  // The strands of one segment are limited on their own.
  expect_error(
      "tasks:\n  - name: a\n    period: 4000000000s\n    segments:\n      - {length: 1s, strands: "
      "2000000000}\n"
      "      - {length: 1s, strands: 100000000}\n",
      "ts.yaml:5:31", "2000000000 strands is more than takt supports (at most 100000000)");
  // Each segment fits (2·10^18 and 3·10^18 ns) but their sum does not: the error is at the
  // second.
  expect_error(
      "tasks:\n  - name: a\n    period: 4000000000s\n    segments:\n      - {length: 20s, strands: "
      "100000000}\n"
      "      - {length: 30s, strands: 100000000}\n",
      "ts.yaml:6:9", "with this segment (100000000 × 30s) the work of its segments (Σ m·e) exceeds 2^62 ns");
  // The largest work that fits is accepted: 2^62 ns = 4611686018.427387904 s in one strand.
  auto set = parse_task_set(
      "tasks: [{name: a, period: 4611686018.427387904s, segments: [{length: 4611686018.427387904s}]}]",
      "ts.yaml");
  EXPECT_EQ(set.tasks[0].work(), takt::model::kMaxDuration);
  // offset + period at 2^62 each is 2^63 ns, past 64 bits (the release engine adds them):
  // refused at the offset; at exactly 2^62 together, accepted.
  expect_error("tasks: [{name: a, period: 4611686018.427387904s, offset: 1ns, work: 1ms, span: 1ms}]",
               "ts.yaml:1:58",
               "task 'a': offset 1ns plus the period 4611686018.427387904s is more than the largest duration, "
               "4611686018.427387904s; lower the offset or the period");
  EXPECT_EQ(parse_task_set("tasks: [{name: a, period: 4611686018.427387903s, offset: 1ns, work: 1ms, span: 1ms}]",
                           "ts.yaml")
                .tasks[0]
                .offset,
            std::chrono::nanoseconds(1));
  // A DAG of three 4·10^9 s nodes: 1.2·10^19 ns wrapped to a negative work, reported as
  // "the DAG's nodes have no work". Now: exceeded at the second node.
  expect_error(
      "tasks:\n  - name: g\n    period: 4611686018s\n    dag:\n      - {name: a, length: 4000000000s}\n"
      "      - {name: b, length: 4000000000s}\n      - {name: c, length: 4000000000s}\n",
      "ts.yaml:6:9", "with node 'b' the work of its DAG (the sum of its node lengths) exceeds 2^62 ns");
}

TEST(TaskSetParser, CyclicDag) {
  expect_error(R"(tasks:
  - name: g
    period: 10ms
    dag:
      - {name: a, length: 1ms, after: [c]}
      - {name: b, length: 1ms, after: [a]}
      - {name: c, length: 1ms, after: [b]}
)",
               "ts.yaml:5:9", "the DAG has a cycle a → b → c → a");
  expect_error("tasks:\n  - name: g\n    period: 10ms\n    dag: [{name: a, length: 1ms, after: [z]}]\n",
               "ts.yaml:4:42", "'z', which is not a node");
  expect_error(
      "tasks:\n  - name: g\n    period: 10ms\n    dag: [{name: a, length: 1ms}, {name: a, length: 1ms}]\n",
      "ts.yaml:4:42", "used twice");
}

TEST(TaskSetParser, DuplicateTaskNames) {
  expect_error(
      "tasks:\n  - {name: a, period: 1ms, work: 1us, span: 1us}\n  - {name: a, period: 2ms, work: 1us, span: "
      "1us}\n",
      "ts.yaml:3:12", "duplicate task name 'a' (first used at line 2)");
  // The same task repeated through a YAML alias was reported at line 3 as "first used at
  // line 3": it is one node, so the message names the list items instead.
  expect_error(
      "tasks:\n  - {name: x, period: 1ms, work: 1us, span: 1us}\n  - &t {name: a, period: 1ms, work: 1us, "
      "span: 1us}\n  - *t\n",
      "ts.yaml:3:15", "task 'a' is listed twice: item 3 of 'tasks' repeats item 2 through a YAML alias");
}

TEST(TaskSetParser, SyntaxErrorsHavePositions) {
  const std::string message = error_of("tasks:\n  - name: a\n    period: [10ms\n");
  EXPECT_EQ(message.rfind("ts.yaml:", 0), 0u) << message;
  EXPECT_NE(message.find(":4:"), std::string::npos) << message;
}

TEST(TaskSetParser, GlobalValues) {
  expect_error("global: {policy: edf}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:18",
               "unknown policy 'edf'; use one of federated, federated-greedy, partitioned-dm, gedf-paws");
  expect_error("global: {fit: best-fit}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]",
               "ts.yaml:1:15", "use first-fit or worst-fit");
  expect_error("global: {overrun: drop}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]",
               "ts.yaml:1:19", "use skip or wait");
  // δ below 1 would let eq. 3 promise completion before the span: rejected, 0 among them.
  expect_error("global: {delta: 0}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:17",
               "delta 0 is below 1: δ must be at least 1");
  expect_error("global: {delta: 0.5}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:17",
               "delta 0.5 is below 1: δ must be at least 1, because the span is a lower bound on any "
               "completion time");
  expect_error("global: {delta: 0.999999999999}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]",
               "ts.yaml:1:17", "delta 0.999999999999 is below 1");
  EXPECT_EQ(parse_task_set("global: {delta: 1}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]")
                .global.delta->to_string(),
            "1");
  expect_error("global: {delta: abc}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:17",
               "3.65 (theory), 1.7 (Cilkview), 1.5 (Cilkprof)");
  expect_error("global: {jobs: -3}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:16",
               "jobs must be at least 1, not -3");
  expect_error("global: {jobs: 1.5}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:16",
               "'1.5' is not a whole number");
  expect_error("global: {jobs: 99999999999999999999}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]",
               "ts.yaml:1:16", "jobs: '99999999999999999999' is too large (at most 999999999999999999)");
  // A number too long for 64 bits gets its field's own limit (it said "at most 18 digits").
  expect_error(
      "global: {cores: 1000000000000000000000}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]",
      "ts.yaml:1:17", "cores: 1000000000000000000000 is more cores than takt supports (at most 65536)");
  expect_error(
      "global: {cores: [0, 99999999999999999999]}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]",
      "ts.yaml:1:21", "cores: CPU id 99999999999999999999 is above 65535, the largest takt supports");
  expect_error(
      "tasks: [{name: a, period: 1ms, work: 1us, span: 1us, priority: 0000000000000000000002000000}]",
      "ts.yaml:1:64", "task 'a': priority 0000000000000000000002000000 is too large: at most 1000000");
  EXPECT_EQ(
      parse_task_set(
          "global: {jobs: 00000000000000000000007}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]")
          .global.jobs,
      7);
  expect_error("global: {cores: -1}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:17",
               "cores must be at least 1, not -1");
  // The limit is named (it said only "is too large").
  expect_error("tasks: [{name: a, period: 1ms, work: 1us, span: 1us, priority: 1000001}]", "ts.yaml:1:64",
               "task 'a': priority 1000001 is too large: at most 1000000 (1 is the highest)");
  EXPECT_EQ(parse_task_set("tasks: [{name: a, period: 1ms, work: 1us, span: 1us, priority: 1000000}]")
                .tasks[0]
                .priority,
            1000000);
  expect_error("global: {cores: '0-'}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:17",
               "has an empty part (a CPU id is missing");
  expect_error("tasks: [{name: ~, period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:16",
               "name is empty (null); give it a value");
}

TEST(TaskSetParser, AFileBeyondTheLimitOrWithoutEndIsRefusedWithItsPath) {
  // /dev/zero never ends: takt analyze /dev/zero grew to 3.7 GB in 5 s before this limit.
  try {
    (void)takt::model::parse_task_set_file("/dev/zero");
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "cannot read task-set file '/dev/zero': it holds more than 256 MiB, more than any task-set file takt "
        "reads; check the path (a device such as /dev/zero, or a pipe that keeps writing, never ends)");
  }
  // At the limit a file is read whole; one byte more is refused (a 10-byte limit here).
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("takt-limit-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << "0123456789";
  EXPECT_EQ(takt::model::read_text_file(file.string(), "profile file", 10), "0123456789");
  try {
    (void)takt::model::read_text_file(file.string(), "profile file", 9);
    ADD_FAILURE() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("it holds more than 9 bytes, more than any profile file"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove(file);
}

TEST(TaskSetParser, ASocketIsRefusedAsNoFile) {
  // open() of a socket fails with ENXIO, "No such device or address", which sent the
  // user looking for a missing file.
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("takt-socket-" + std::to_string(::getpid()));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.string().size() >= sizeof address.sun_path)
    GTEST_SKIP() << "the temporary folder's path is too long";
  std::strcpy(address.sun_path, path.c_str());
  std::filesystem::remove(path);  // one left by an earlier run of the same pid
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    FAIL() << "bind " << path << ": " << std::strerror(errno);
  }
  try {
    (void)takt::model::parse_task_set_file(path.string());
    ADD_FAILURE() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read task-set file '" + path.string() + "': it is a socket; give the path of a file");
  }
  ::close(fd);
  std::filesystem::remove(path);
}

TEST(TaskSetParser, AFileNestedBeyondTheParsersDepthSaysSo) {
  // yaml-cpp gives up at a nesting depth of 500 with the message "bad file".
  const std::string deep = "tasks: " + std::string(3000, '[') + std::string(3000, ']') + "\n";
  const std::string message = error_of(deep);
  EXPECT_EQ(message.rfind("ts.yaml:1:", 0), 0u) << message;
  EXPECT_NE(message.find("nested too deeply for the YAML parser (it stops at a depth of 500)"),
            std::string::npos)
      << message;
}

TEST(TaskSetParser, AnAliasBombIsReadOnceAndRefusedForItsUnknownKey) {
  // Nine levels of ten aliases each: a billion paths to ten scalars in 600 bytes. The
  // check for scalars that are not UTF-8 walked every path (more than 20 s at nine levels,
  // ten times longer for each more) before the unknown key was reported; it now enters
  // each list once.
  std::string bomb = "global:\n  x:\n    l0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int level = 1; level < 9; ++level) {
    const std::string prev = "*a" + std::to_string(level - 1);
    bomb += "    l" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) bomb += (i == 0 ? "" : ", ") + prev;
    bomb += "]\n";
  }
  bomb += "tasks:\n  - {name: a, period: 10ms, work: 2ms, span: 1ms}\n";
  const std::string message = error_of(bomb);
  EXPECT_NE(message.find("unknown key 'x'"), std::string::npos) << message;
  // A scalar that is not UTF-8 behind an alias is still found, where it first stands.
  const std::string behind_alias =
      "tasks:\n  - {name: a, period: 10ms, work: 2ms, span: 1ms, program: fib, args: &x [\"a\\Nb\"]}\n"
      "  - {name: b, period: 10ms, work: 2ms, span: 1ms, program: fib, args: *x}\n";
  expect_error(behind_alias, "ts.yaml:2:75", "not valid Unicode");
}

TEST(TaskSetParser, AYamlTagIsRefusedWhereItStands) {
  // A tag was ignored silently, and `cores: !!str 5` read as the count 5 where the
  // quoted "5" is CPU 5 (the parser tells them apart by quoting alone).
  expect_error("global: {cores: !!str 5}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]\n",
               "ts.yaml:1:17",
               "the YAML tag '!!str' is not used by takt (each value is read by its key); remove it (to make "
               "a value text, quote it)");
  // A local tag, on a mapping and on a key; on an anchored node (marked where its anchor
  // stands) that an alias repeats.
  expect_error("tasks: [!task {name: a, period: 1ms, work: 1us, span: 1us}]\n", "ts.yaml:1:9",
               "the YAML tag '!task'");
  expect_error("tasks: [{!k name: a, period: 1ms, work: 1us, span: 1us}]\n", "ts.yaml:1:10", "'!k'");
  expect_error(
      "tasks:\n  - {name: a, period: &p !ms 1, work: 1us, span: 1us}\n"
      "  - {name: b, period: *p, work: 1us, span: 1us}\n",
      "ts.yaml:2:23", "'!ms'");
  // The non-specific tag '!' (yaml-cpp gives it the tag of a quoted value), before a
  // value, a mapping or an anchor, or after one.
  expect_error("global: {cores: ! 5}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]\n",
               "ts.yaml:1:17", "the YAML tag '!'");
  expect_error("tasks:\n  - ! {name: a, period: 1ms, work: 1us, span: 1us}\n", "ts.yaml:2:5",
               "the YAML tag '!'");
  expect_error("tasks:\n  - {name: a, period: 1ms, work: ! &w 4ms, span: 1ms}\n", "ts.yaml:2:34", "'!'");
  expect_error("tasks:\n  - {name: a, period: 1ms, work: &w ! 4ms, span: 1ms}\n", "ts.yaml:2:34", "'!'");
  // A '!' in a value, quoted or plain, is no tag; nor is a quoted or block value, anchored
  // or not.
  const auto set = parse_task_set(
      "# hi!\ntasks:\n  - {name: &n \"x\", period: 1ms, work: 1us, span: 1us, program: fib, args: [\"!\"]}\n"
      "  - name: |-\n      y\n    period: 1ms\n    work: 1us\n    span: 1us\n"
      "  - {name: \"a!\", period: 1ms, work: 1us, span: 1us}\n  - {name: b!c, period: 1ms, work: 1us, span: "
      "1us}\n",
      "ts.yaml");
  std::vector<std::string> names;
  for (const auto& t : set.tasks) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "y", "a!", "b!c"}));
}

TEST(TaskSetParser, ANulCharacterInAValueIsNamedAsSuch) {
  // "\0" in quotes was reported as "not valid Unicode (an unpaired UTF-16 surrogate...)".
  expect_error(
      "tasks: [{name: \"a\\0b\", period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:16",
      "this value holds a NUL character (an escape \\0 or \\u0000 in quotes), which no name, program "
      "or argument can hold; remove it");
  expect_error(
      "{\"tasks\": [{\"name\": \"a\\u0000b\", \"period\": \"1ms\", \"work\": \"1us\", \"span\": \"1us\"}]}",
      "ts.yaml:1:21", "NUL character");
}

TEST(TaskSetParser, LinesEndingInACarriageReturnAloneAreNamedAsTheCause) {
  // yaml-cpp reads such a file as one line and said only "1:28: illegal map value".
  const std::string message = error_of("tasks:\r  - {name: a, period: 10ms, work: 1ms, span: 1ms}\r");
  EXPECT_NE(
      message.find("the lines of this file end in a carriage return alone (CR, byte 0x0D, first at byte 7)"),
      std::string::npos)
      << message;
  // CR LF line ends are read as they are.
  EXPECT_EQ(error_of("tasks:\r\n  - {name: a, period: 10ms, work: 1ms, span: 1ms}\r\n"), "no error");
  // Not for a stray CR in a file of LF lines, nor for a UTF-16 file's CR LF (0D 00 0A 00):
  // their errors (a missing ',') are explained as such.
  const std::string missing_comma = "  - {name: a, period: 10ms work: 1ms, span: 1ms}\n";
  const std::string stray = error_of("# a note\rmore\ntasks:\n" + missing_comma);
  EXPECT_EQ(stray.find("carriage return"), std::string::npos) << stray;
  EXPECT_NE(stray.find("add the missing ','"), std::string::npos) << stray;
  std::string utf16 = "\xFF\xFE";
  for (char c : "tasks:\r\n" + missing_comma) utf16 += std::string{c, '\0'};
  const std::string wide = error_of(utf16);
  EXPECT_EQ(wide.find("carriage return"), std::string::npos) << wide;
}

TEST(TaskSetParser, AWholeNumberWithALineBreakIsShownOnOneLine) {
  // The value was printed as it is, over two lines of the message.
  expect_error("tasks:\n  - {name: a, period: 10ms, segments: [{length: 1ms, strands: \"a\\nb\"}]}\n",
               "ts.yaml:2:63", "strands: 'a\\nb' is not a whole number");
}

TEST(TaskSetParser, NamesAreVisibleTextAndPredecessorsAreListedOnce) {
  // A line break in a name split the table's row; a blank name showed an empty column; a
  // DAG node could be named "" although a task could not; `after: [y, y]` was kept twice.
  expect_error(
      "{\"tasks\": [{\"name\": \"a\\nb\", \"period\": \"1ms\", \"work\": \"1us\", \"span\": \"1us\"}]}",
      "ts.yaml:1:21", "a task's name holds a control character or line break (U+000A at byte 2)");
  // Also C1 controls (NEL), the Unicode line separator, and names of no-break spaces only.
  expect_error("tasks: [{name: \"a\\Nb\", period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:16",
               "not valid Unicode");  // yaml-cpp makes "\N" the lone byte 0x85
  expect_error(
      "tasks: [{name: \"a\xC2\x85"
      "b\", period: 1ms, work: 1us, span: 1us}]",
      "ts.yaml:1:16", "a task's name holds a control character or line break (U+0085 at byte 2)");
  expect_error(
      "tasks: [{name: \"a\xE2\x80\xA8"
      "b\", period: 1ms, work: 1us, span: 1us}]",
      "ts.yaml:1:16", "(U+2028 at byte 2)");
  expect_error("tasks: [{name: \"\xC2\xA0\xE3\x80\x80\", period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:16",
               "a task's name is blank");
  expect_error("tasks: [{name: ' ', period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:16",
               "a task's name is blank");
  expect_error("tasks: [{name: '', period: 1ms, work: 1us, span: 1us}]", "ts.yaml:1:16",
               "a task's name must not be empty");
  expect_error("tasks:\n  - name: a\n    period: 10ms\n    dag: [{name: '', length: 1ms}]\n", "ts.yaml:4:18",
               "task 'a': a DAG node's name must not be empty");
  expect_error(
      "tasks:\n  - name: a\n    period: 10ms\n    dag: [{name: x, length: 1ms}, "
      "{name: y, length: 1ms, after: [x, x]}]\n",
      "ts.yaml:4:69", "task 'a': node 'y' lists 'x' twice in 'after'; list it once");
}

TEST(TaskSetParser, AnEmptyValueIsReportedAtItsKey) {
  // yaml-cpp marks an empty value at the next token: the next line, or past the end of
  // the file (6:1 of a 5-line file), and a comment after the key moved it further.
  expect_error("tasks:\n  - name: a\n    period: 10ms\n    work: 1ms\n    deadline:\n", "ts.yaml:5:5",
               "task 'a': deadline is empty (null)");
  expect_error("tasks:\n  - name:\n    period: 10ms\n", "ts.yaml:2:5", "a task's name is empty (null)");
  expect_error("global:\n  policy:   # later\n\ntasks:\n  - name: a\n    period: 10ms\n", "ts.yaml:2:3",
               "policy is empty (null)");
  expect_error("tasks:\n  - name: a\n    period: 10ms\n    program: fib\n    args:\n      -\n", "ts.yaml:6:7",
               "each argument is empty (null)");
  expect_error("tasks: [{name: a, period: , work: 1us, span: 1us}]", "ts.yaml:1:19",
               "period is empty (null)");
  // With a byte-order mark (yaml-cpp's offsets leave it out): the same places.
  expect_error("\xEF\xBB\xBFtasks:\n  - name: a\n    period: 10ms\n    work: 1ms\n    deadline:\n",
               "ts.yaml:5:5", "task 'a': deadline is empty (null)");
  expect_error("\xEF\xBB\xBFglobal: {policy: }\ntasks: [{name: a, period: 10ms}]\n", "ts.yaml:1:10",
               "policy is empty (null)");
}

TEST(TaskSetParser, AnUnclosedQuoteIsNamedWhereItWasOpened) {
  // yaml-cpp lets a quoted value run to the end of the file: the last task was named
  // "a " (the rest of the line), or a whole task became a name that then "needs a period".
  expect_error("tasks:\n  - period: 10ms\n    work: 1ms\n    span: 1ms\n    name: \"a\n", "ts.yaml:5:11",
               "this quote (\") is never closed, so the value runs to the end of the file; close it with a "
               "matching \"");
  expect_error("tasks:\n  - name: 'a\n    period: 10ms\n    work: 1ms\n    span: 1ms\n", "ts.yaml:2:11",
               "this quote (') is never closed");
  // Inside brackets the parser stops first; the quote is named, not the bracket.
  expect_error("tasks:\n  - name: a\n    period: 10ms\n    program: fib\n    args: [\"x]\n", "ts.yaml:6:1",
               "the quote (\") opened at 5:12 is never closed");
  // Quotes that close (also across lines, with escapes and doubled quotes) and quotes in
  // plain text, comments and block scalars are fine.
  const takt::model::TaskSet ok = parse_task_set(
      "tasks:\n  - name: \"a \\\" b\"  # it's\n    period: 10ms\n    work: 1ms\n    span: 1ms\n"
      "    program: fib\n    args:\n      - |\n        it's \"\n      - 'it''s'\n      - \"two\n        "
      "lines\"\n      - don't\n");
  EXPECT_EQ(ok.tasks[0].name, "a \" b");
  // A quote inside a plain value is no quote: these are valid YAML (a review found them
  // refused, also takt convert's own output `args: [a:'b, c]`).
  for (const std::string& value :
       {std::string("a, 'b"), std::string("a,'b"), std::string("rock - 'n roll")}) {
    const takt::model::TaskSet set = parse_task_set(
        "tasks:\n  - name: " + value + "\n    period: 10ms\n    work: 1ms\n    span: 1ms\n", "ts.yaml");
    EXPECT_EQ(set.tasks[0].name, value);
  }
  const takt::model::TaskSet flow = parse_task_set(
      "tasks:\n  - {name: a, period: 10ms, work: 1ms, span: 1ms, program: fib, args: [a:'b, c]}\n",
      "ts.yaml");
  EXPECT_EQ(flow.tasks[0].args, (std::vector<std::string>{"a:'b", "c"}));
  // With a byte-order mark, the unclosed quote is still found and placed.
  expect_error("\xEF\xBB\xBFtasks:\n  - period: 10ms\n    work: 1ms\n    span: 1ms\n    name: \"a\n",
               "ts.yaml:5:11", "this quote (\") is never closed");
}

TEST(TaskSetParser, AnUnclosedBracketIsNamedWhereItWasOpened) {
  // yaml-cpp says "end of sequence flow not found" where it gave up, often the end of the file.
  expect_error("tasks:\n  - name: a\n    period: [10ms, 2\n", "ts.yaml:4:1",
               "the '[' opened at 3:13 is never closed with ']'; add it after the last item of that list");
  expect_error(
      "global: {cores: 2}\ntasks:\n  - name: a\n    period: 10ms\n    program: segments\n  - name: b\n"
      "    segments: [{length: 1ms}\n    period: 20ms\n",
      "ts.yaml:8:5", "the '[' opened at 7:15 is never closed with ']'");
  expect_error("global: {cores: 2\ntasks:\n  - name: a\n    period: 10ms\n", "ts.yaml:2:6",
               "the '{' opened at 1:9 is never closed with '}'; add it after the last item of that mapping");
  // Brackets in comments, quoted strings, block scalars and plain text do not count.
  expect_error("tasks:\n  - name: a # [ {\n    period: [1, \"]\", '}'\n", "ts.yaml:4:1",
               "the '[' opened at 3:13 is never closed");
  expect_error("tasks:\n  - name: a[1]\n    period: [10ms\n", "ts.yaml:4:1", "the '[' opened at 3:13");
  expect_error("notes: |\n  a ] and a [\n  and it's\ntasks: [a\n", "ts.yaml:5:1", "the '[' opened at 4:8");
  // A closer of the other kind, and one with nothing to close.
  expect_error("tasks:\n  - name: a\n    segments: [{length: 1ms]\n", "ts.yaml:3:28",
               "this ']' comes before the '{' opened at 3:16 is closed; close that mapping with '}' first");
  expect_error("tasks: [a, b]]\n", "ts.yaml:1:14", "this ']' closes nothing: no '[' is open here; remove it");
}

TEST(TaskSetParser, AMissingCommaInAFlowMappingIsNamed) {
  expect_error("tasks:\n  - {name: a period: 10ms}\n", "ts.yaml:2:20",
               "in the mapping '{' opened at 2:5, items are separated by ', ': add the missing ','");
  // JSON indented with tabs: the tabs are fine inside brackets, the comma is what is missing.
  expect_error("{\n\t\"tasks\": [\n\t\t{\"name\": \"a\" \"period\": \"10ms\"}\n\t]\n}\n", "ts.yaml:3:16",
               "in the mapping '{' opened at 3:3, items are separated by ', '");
}

TEST(TaskSetParser, ATabInTheIndentationIsNamed) {
  const std::string spaces_only =
      "YAML indents with spaces only: replace the tabs in its indentation with spaces";
  expect_error("tasks:\n  - name: a\n\tperiod: 10ms\n", "ts.yaml:3:1",
               "line 3 is indented with a tab (at column 1); " + spaces_only);
  expect_error("tasks:\n  - name: a\n   \tperiod: 10ms\n", "ts.yaml:3:4",
               "line 3 is indented with a tab (at column 4)");
  expect_error("tasks:\n\t- name: a\n\t  period: 10ms\n", "ts.yaml:2:2", "line 2 is indented with a tab");
  expect_error("global:\n\tcores: 2\ntasks: []\n", "ts.yaml:2:7", "line 2 is indented with a tab");
}

TEST(TaskSetParser, OtherSyntaxErrorsKeepTheParsersWordsAndSayWhatToCheck) {
  expect_error("tasks:\n  - name: a\n   period: 1\n", "ts.yaml:3:4",
               "end of sequence not found; a YAML syntax error at or just before this point: check the "
               "indentation");
  expect_error("a: b: c\n", "ts.yaml:1:5", "illegal map value; a YAML syntax error");
}

TEST(TaskSetParser, ASecondYamlDocumentAndAZeroByteAreErrors) {
  // yaml-cpp's Load read the first document and dropped the rest silently; a zero byte
  // gave "unknown escape character" with a raw line break in the message.
  const std::string task = "tasks:\n  - {name: a, period: 10ms, work: 1ms, span: 1ms}\n";
  expect_error(task + "---\ntasks: []\n", "ts.yaml:4:1", "a second YAML document (after a '---' line)");
  expect_error("tasks:\n  - {name: \"a" + std::string(1, '\0') + "b\", period: 10ms, work: 1ms, span: 1ms}\n",
               "ts.yaml:2:14", "a zero byte (0x00)");
  EXPECT_EQ(error_of("---\n" + task), "no error");  // one document with its start marker
  EXPECT_EQ(error_of(task + "...\n"), "no error");  // and with its end marker
  expect_error("---\n" + task + "---\ntasks: []\n", "ts.yaml:5:1", "a second YAML document (after a '---' line)");
  // JSON with text after its closing brace has no '---' line to remove: the message said
  // there was one.
  const std::string json = R"({"tasks": [{"name": "a", "period": "10ms", "work": "1ms", "span": "1ms"}]})";
  expect_error(json + "\n{\"x\": 1}\n", "ts.yaml:2:1",
               "more text after the end of the task set (a second document starts here); a file holds one task "
               "set: remove what follows the first one's end (in JSON, the closing '}')");
  expect_error(task + "...\ntasks: []\n", "ts.yaml:4:1", "more text after the end of the task set");
  // The '---' that opens the first document is not the one to remove, also after a
  // comment or a %YAML directive (only a '---' at the file's first byte was recognised).
  expect_error("# a set\n---\n" + task + "...\ntasks: []\n", "ts.yaml:6:1",
               "more text after the end of the task set");
  expect_error("%YAML 1.2\n---\n" + task + "...\ntasks: []\n", "ts.yaml:6:1",
               "more text after the end of the task set");
  expect_error("--- " + json + "\n--- {\"x\": 1}\n", "ts.yaml:2:5", "a second YAML document (after a '---' line)");
  expect_error("# a set\n---\n" + task + "---\ntasks: []\n", "ts.yaml:6:1",
               "a second YAML document (after a '---' line)");
  // An empty first document (nothing or a comment after the first '---'): the set is
  // the second document, after a '---' line.
  expect_error("---\n---\n" + task, "ts.yaml:3:1", "a second YAML document (after a '---' line)");
  expect_error("---\n# empty\n---\n" + task, "ts.yaml:4:1", "a second YAML document (after a '---' line)");
  // An empty first document after a comment, ended by '...': what follows is text after
  // its end, not a document after a '---' line.
  expect_error("# c\n---\n...\n" + task, "ts.yaml:4:1", "more text after the end of the task set");
}

TEST(TaskSetParser, AZeroByteAtTheStartIsAnErrorUnlessTheFileIsUtf16Or32) {
  // A zero as the first or second byte made the file count as UTF-16/32, whatever came
  // next: "#\0\n..." was read as UTF-16 and reported "the file is empty". YAML 1.2 §5.2
  // detects UTF-16/32 by a byte-order mark or by the zero pattern of ASCII characters.
  const std::string task = "tasks:\n  - {name: a, period: 10ms, work: 1ms, span: 1ms}\n";
  expect_error("#" + std::string(1, '\0') + "\n" + task, "ts.yaml:1:2", "a zero byte (0x00)");
  expect_error("t" + std::string(1, '\0') + task.substr(1), "ts.yaml:1:2", "a zero byte (0x00)");
  expect_error(std::string(1, '\0') + task, "ts.yaml:1:1", "a zero byte (0x00)");
  // The same set in UTF-16LE, with and without its byte-order mark, and in UTF-16BE.
  std::string le, be;
  for (char c : task) {
    le += c;
    le += '\0';
    be += '\0';
    be += c;
  }
  EXPECT_EQ(error_of(le), "no error");
  EXPECT_EQ(error_of("\xFF\xFE" + le), "no error");
  EXPECT_EQ(error_of(be), "no error");
  // An unpaired surrogate (D800) in a UTF-16LE name: yaml-cpp passed it through as bytes
  // that are not UTF-8, and takt analyze --json stopped with an internal error.
  std::string bad = "\xFF\xFE";
  for (char c : std::string("tasks:\n  - {name: a")) bad += std::string{c, '\0'};
  bad += std::string("\x00\xD8", 2);
  for (char c : std::string("b, period: 10ms, work: 1ms, span: 1ms}\n")) bad += std::string{c, '\0'};
  const std::string message = error_of(bad);
  EXPECT_NE(message.find("not valid Unicode (an unpaired UTF-16 surrogate"), std::string::npos) << message;
}

TEST(TaskSetParser, AnEmptyDocumentAfterTheSetIsNotASecondSet) {
  // A '---' at the end (with nothing or only a comment after it) was reported as a
  // second document one line past the end of the file.
  const std::string task = "tasks:\n  - {name: a, period: 10ms, work: 1ms, span: 1ms}\n";
  EXPECT_EQ(error_of(task + "---\n"), "no error");
  EXPECT_EQ(error_of(task + "---\n# nothing more\n"), "no error");
  expect_error(task + "---\n# a second set\ntasks: []\n", "ts.yaml:5:1", "a second YAML document");
}

TEST(TaskSetParser, TextThatIsNotUtf8IsBadInputAtItsPosition) {
  // A name in an 8-bit encoding used to pass, and then cost the run its JSON outputs.
  const std::string task = ", period: 10ms, work: 1ms, span: 1ms}\n";
  expect_error(
      "tasks:\n  - {name: \"ab\xff\xfe"
      "cd\"" +
          task,
      "ts.yaml:2:15", "byte 0xFF is not UTF-8 text");
  expect_error("tasks:\n  - {name: \"a\xc0\x80\"" + task, "ts.yaml:2:14", "byte 0xC0");      // overlong NUL
  expect_error("tasks:\n  - {name: \"a\xed\xa0\x80\"" + task, "ts.yaml:2:14", "byte 0xED");  // a surrogate
  expect_error("tasks:\n  - {name: \"a\xe2\x82\"" + task, "ts.yaml:2:14", "byte 0xE2");      // cut short
  EXPECT_EQ(error_of("tasks:\n  - {name: \"caf\xc3\xa9 \xf0\x9f\x9a\x80\"" + task), "no error");
}
