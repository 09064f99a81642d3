// Tests of the task-set writer: what it writes reads back to the same task set.
#include "model/task_set_writer.hpp"
#include "model/task_set_parser.hpp"

#include <gtest/gtest.h>

using namespace std::chrono_literals;
using takt::model::parse_task_set;
using takt::model::write_task_set;

namespace {

// Field-by-field equality of what the format carries.
void expect_same(const takt::model::TaskSet& a, const takt::model::TaskSet& b) {
  ASSERT_EQ(a.global.cores.has_value(), b.global.cores.has_value());
  if (a.global.cores) {
    EXPECT_EQ(a.global.cores->count, b.global.cores->count);
    EXPECT_EQ(a.global.cores->cpus, b.global.cores->cpus);
  }
  EXPECT_EQ(a.global.policy, b.global.policy);
  EXPECT_EQ(a.global.delta.has_value(), b.global.delta.has_value());
  if (a.global.delta) {
    EXPECT_EQ(*a.global.delta, *b.global.delta);
  }
  EXPECT_EQ(a.global.fit, b.global.fit);
  EXPECT_EQ(a.global.duration, b.global.duration);
  EXPECT_EQ(a.global.jobs, b.global.jobs);
  EXPECT_EQ(a.global.overrun, b.global.overrun);
  ASSERT_EQ(a.tasks.size(), b.tasks.size());
  for (std::size_t i = 0; i < a.tasks.size(); ++i) {
    const auto& x = a.tasks[i];
    const auto& y = b.tasks[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.period, y.period);
    EXPECT_EQ(x.deadline, y.deadline);
    EXPECT_EQ(x.offset, y.offset);
    EXPECT_EQ(x.priority, y.priority);
    EXPECT_EQ(x.program, y.program);
    EXPECT_EQ(x.args, y.args);
    ASSERT_EQ(x.segments.size(), y.segments.size());
    for (std::size_t j = 0; j < x.segments.size(); ++j) {
      EXPECT_EQ(x.segments[j].length, y.segments[j].length);
      EXPECT_EQ(x.segments[j].strands, y.segments[j].strands);
    }
    ASSERT_EQ(x.dag.has_value(), y.dag.has_value());
    if (x.dag) {
      ASSERT_EQ(x.dag->nodes.size(), y.dag->nodes.size());
      for (std::size_t j = 0; j < x.dag->nodes.size(); ++j) {
        EXPECT_EQ(x.dag->nodes[j].name, y.dag->nodes[j].name);
        EXPECT_EQ(x.dag->nodes[j].length, y.dag->nodes[j].length);
        EXPECT_EQ(x.dag->nodes[j].predecessors, y.dag->nodes[j].predecessors);
      }
    }
    EXPECT_EQ(x.measured_work, y.measured_work);
    EXPECT_EQ(x.measured_span, y.measured_span);
    EXPECT_EQ(x.burdened_span, y.burdened_span);
  }
}

}  // namespace

TEST(TaskSetWriter, RoundTripsEveryField) {
  const char* text = R"(global:
  cores: 0-3,6
  policy: federated
  delta: 3.65
  fit: first-fit
  jobs: 100
  overrun: wait
tasks:
  - name: "odd: name"
    period: 20ms
    deadline: 15.5ms
    offset: 1ns
    priority: 3
    program: ./lib task.so
    args: ["a,b", "{x}", plain, "", "#hash"]
    work: 30ms
    span: 2ms
    burdened_span: 2.000001ms
  - name: s
    period: 10ms
    segments: [{length: 761.905us, strands: 1}, {length: 1us, strands: 100000}]
  - name: d
    period: 1s
    dag: [{name: a, length: 0}, {name: "b c", length: 2ms, after: [a]}]
    work: 3ms
    span: 2ms
topology:
  components: [edf, {name: x}]
)";
  auto first = parse_task_set(text, "a.yaml");
  const std::string written = write_task_set(first, "made by a test\n\nsecond line");
  EXPECT_EQ(written.rfind("# made by a test\n#\n# second line\n", 0), 0u) << written;
  auto second = parse_task_set(written, "b.yaml");
  expect_same(first, second);
  ASSERT_TRUE(second.topology.has_value());
  EXPECT_EQ((*second.topology)["components"][1]["name"].as<std::string>(), "x");
  // Writing again gives the same text.
  EXPECT_EQ(write_task_set(second, "made by a test\n\nsecond line"), written);
}

TEST(TaskSetWriter, SingleCpuListStaysAList) {
  auto set =
      parse_task_set("global: {cores: [7]}\ntasks: [{name: a, period: 1ms, work: 1us, span: 1us}]", "x");
  auto again = parse_task_set(write_task_set(set), "y");
  EXPECT_EQ(again.global.cores->cpus, (std::vector<int>{7}));
  EXPECT_EQ(again.global.cores->count, 1);
}

TEST(TaskSetWriter, ScalarsTheReaderRefusesPlainAreQuoted) {
  // yaml-cpp's emitter wrote `file?.dat` plain, and yaml-cpp's reader refuses a '?' in a
  // plain scalar of a flow list ("unknown token"): takt convert and takt generate wrote
  // files that takt could not read. Every scalar now reads back as itself.
  for (const std::string odd : {"file?.dat", "?x", "x?y", "a?", "-?", "? x", "a: b", "x #y", "-", "[a]", "*x",
                                "&x", "!x", "%x", "@x", "`x", "|x", ">x", "'x", "\"x", " x", "x ", "~", "null",
                                "true", "0x1F", "1e3", ""}) {
    SCOPED_TRACE(odd);
    const std::string scalar = takt::model::yaml_scalar(odd);
    takt::model::TaskSet set;
    takt::model::Task t;
    t.name = odd.empty() ? std::string("t") : odd;
    t.period = 10ms;
    t.deadline = 10ms;
    t.program = "fib" + odd;
    t.args = {odd, "plain"};
    t.measured_work = 1ms;
    t.measured_span = 1ms;
    set.tasks.push_back(t);
    takt::model::TaskSet back;
    ASSERT_NO_THROW(back = parse_task_set(write_task_set(set, ""), "w.yaml")) << write_task_set(set, "");
    ASSERT_EQ(back.tasks.size(), 1u);
    EXPECT_EQ(back.tasks[0].name, t.name);
    EXPECT_EQ(back.tasks[0].program, t.program);
    EXPECT_EQ(back.tasks[0].args, t.args);
  }
  // Control characters and Unicode line breaks in an argument are written escaped in
  // double quotes: yaml-cpp read a bare carriage return back, other YAML readers fold it.
  for (const std::string& odd : {std::string("a\rb"), std::string("a\x01b"),
                                 std::string("a\xC2\x85"
                                             "b"),
                                 std::string("a\xE2\x80\xA8"
                                             "b"),
                                 std::string("a\xE2\x80\xA9"
                                             "b"),
                                 std::string("a\x7F"
                                             "b")}) {
    const std::string scalar = takt::model::yaml_scalar(odd);
    EXPECT_EQ(scalar.front(), '"') << scalar;
    // No raw control character or line break is left in the written text.
    for (std::string_view raw : {"\r", "\x01", "\x7F", "\xC2\x85", "\xE2\x80\xA8", "\xE2\x80\xA9"}) {
      EXPECT_EQ(scalar.find(raw), std::string::npos) << scalar;
    }
    takt::model::TaskSet set;
    takt::model::Task t;
    t.name = "t";
    t.period = 10ms;
    t.deadline = 10ms;
    t.program = "fib";
    t.args = {odd};
    t.measured_work = 1ms;
    t.measured_span = 1ms;
    set.tasks.push_back(t);
    EXPECT_EQ(parse_task_set(write_task_set(set, ""), "w.yaml").tasks[0].args, t.args);
  }
  // Plain stays plain where the reader takes it back.
  EXPECT_EQ(takt::model::yaml_scalar("plain"), "plain");
  EXPECT_EQ(takt::model::yaml_scalar("file?.dat"), "\"file?.dat\"");
}
