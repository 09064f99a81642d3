// Tests of the topology description: parsing, parameters, and every validation error.
#include "sched/topology_spec.hpp"
#include "sched/component_registry.hpp"
#include "sched/params.hpp"
#include "sched/scheduler.hpp"
#include "sched_test_util.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>

using namespace takt::sched;
using takt::sched::test::topology;

namespace {

// The message of the takt::Error the text raises (empty if none).
std::string error_of(const std::string& yaml) {
  try {
    (void)topology(yaml);
  } catch (const takt::Error& e) {
    return e.what();
  }
  return "";
}

// Expects an error at `line` (1-based) whose message contains every fragment.
void expect_error(const std::string& yaml, int line, std::initializer_list<std::string> fragments) {
  const std::string message = error_of(yaml);
  ASSERT_FALSE(message.empty()) << "no error for:\n" << yaml;
  EXPECT_EQ(message.rfind("test.yaml:" + std::to_string(line) + ":", 0), 0u) << message;
  for (const std::string& f : fragments)
    EXPECT_NE(message.find(f), std::string::npos) << "'" << f << "' not in: " << message;
}

const std::string head =
    "topology:\n"   // 1
    "  name: t\n";  // 2

// The message of the takt::Error building a scheduler of `spec` for `pes` raises (empty if none).
std::string build_error(const TopologySpec& spec, const ProcessingElements& pes) {
  try {
    Scheduler s(spec, pes);
  } catch (const takt::Error& e) {
    return e.what();
  }
  return "";
}

TEST(TopologySpec, TooMuchPerTaskDataNamesEachInstanceAndItsElements) {
  // A load-balancer and two release-gate families per pe: on 4 PEs, 1 + 4 + 4 = 9 words
  // of per-task data, one more than a task has (kMaxTaskData = 8). The message said only
  // "the topology has 9 instances", where the file declares 3: it names them now, with
  // what a per: family counts.
  const TopologySpec spec =
      topology(head +
               "  pipes: {a: one, q0: per-pe, q1: per-pe, q2: per-pe}\n"
               "  entry: a\n"
               "  instances:\n"
               "    lb: {component: load-balancer, inputs: a, outputs: \"q0[*]\"}\n"
               "    g1: {component: release-gate, per: pe, input: \"q0[#]\", output: \"q1[#]\"}\n"
               "    g2: {component: release-gate, per: pe, input: \"q1[#]\", output: \"q2[#]\"}\n"
               "  pes: {terminal: \"q2[pe]\"}\n");
  EXPECT_NO_THROW(Scheduler(spec, ProcessingElements::uniform(3)));  // 1 + 3 + 3 = 7
  const std::string message = build_error(spec, ProcessingElements::uniform(4));
  EXPECT_NE(
      message.find("the topology has 9 instances that keep per-task data, each element of a per: family "
                   "counted: 'lb' (load-balancer), 'g1' (release-gate, per: pe, 4 elements), 'g2' "
                   "(release-gate, per: pe, 4 elements); at most 8 fit in a task"),
      std::string::npos)
      << message;
}

}  // namespace

TEST(TopologySpec, ParsesInstancesPortsAndDefaultParameters) {
  const TopologySpec spec = topology(head +
                                     "  pipes: {in: one, mid: one, out: per-pe}\n"  // 3
                                     "  entry: in\n"                                // 4
                                     "  instances:\n"                               // 5
                                     "    order: {component: fixed-priority, input: in, output: mid}\n"
                                     "    place:\n"
                                     "      component: distributor\n"
                                     "      input: mid\n"
                                     "      outputs: \"out[*]\"\n"
                                     "      params: {by: pe}\n"
                                     "  pes: {terminal: \"out[pe]\"}\n");
  EXPECT_EQ(spec.name, "t");
  ASSERT_EQ(spec.instances.size(), 2u);
  EXPECT_EQ(spec.instances[0].component, "fixed-priority");
  EXPECT_EQ(spec.instances[0].params.text("higher_is"), "smaller");  // the default
  EXPECT_EQ(spec.instances[1].params.text("by"), "pe");
  ASSERT_EQ(spec.instances[1].ports.size(), 2u);
  EXPECT_EQ(spec.instances[1].ports[1].first, "outputs");
  EXPECT_EQ(spec.instances[1].ports[1].second[0].text(), "out[*]");
  EXPECT_EQ(spec.terminal.text(), "out[pe]");
  EXPECT_EQ(spec.instances[1].mark.line, 6);  // 0-based: line 7
}

TEST(TopologySpec, TypedParameterValues) {
  const TopologySpec spec =
      topology(head +
               "  pipes: {in: one, out: one}\n"
               "  entry: in\n"
               "  instances:\n"
               "    keep:\n"
               "      component: filter\n"
               "      input: in\n"
               "      output: out\n"
               "      params: {clusters: [0, 2], priority_at_most: 010, priority_at_least: -3, "
               "relative_deadline_at_most: 1.5ms}\n"
               "  pes: {terminal: out}\n");
  const Params& p = spec.instances[0].params;
  EXPECT_EQ(p.integers("clusters"), (std::vector<std::int64_t>{0, 2}));
  EXPECT_EQ(p.integer("priority_at_most"), 10);  // decimal, not octal
  EXPECT_EQ(p.integer("priority_at_least"), -3);
  EXPECT_EQ(p.duration("relative_deadline_at_most"), std::chrono::microseconds(1500));
  EXPECT_FALSE(p.has("pes"));
}

TEST(TopologySpec, DurationsAreWrittenAsInTaskSets) {
  // One parser for both files (model::parse_duration): a space before the unit, µs,
  // and a zero without a unit are read as in a task set.
  for (const auto& [text, ns] :
       std::vector<std::pair<std::string, std::int64_t>>{{"250 us", 250'000},
                                                         {"250µs", 250'000},
                                                         {"0.0", 0},
                                                         {"4611686018.427387904s", std::int64_t{1} << 62}}) {
    const TopologySpec spec = topology(head +
                                       "  pipes: {in: one, out: one}\n"
                                       "  entry: in\n"
                                       "  instances:\n"
                                       "    keep: {component: filter, input: in, output: out, params: "
                                       "{relative_deadline_at_most: '" +
                                       text + "'}}\n  pes: {terminal: out}\n");
    EXPECT_EQ(spec.instances[0].params.duration("relative_deadline_at_most"), Time{ns}) << text;
  }
}

const std::string chain_pipes =
    "  pipes: {in: one, mid: one, out: one}\n"                                           // 3
    "  entry: in\n"                                                                      // 4
    "  instances:\n";                                                                    // 5
const std::string chain_a = "    a: {component: head-queue, input: in, output: mid}\n";  // 6
const std::string chain_pes = "  pes: {terminal: out}\n";                                // 8

TEST(TopologySpec, UnknownComponent) {
  expect_error(
      head + chain_pipes + chain_a + "    b: {component: edff, input: mid, output: out}\n" + chain_pes, 7,
      {"unknown component 'edff'", "known components:", "edf"});
  // termination cannot be declared: not offered.
  EXPECT_EQ(error_of(head + chain_pipes + chain_a + "    b: {component: edff, input: mid, output: out}\n" +
                     chain_pes)
                .find("termination"),
            std::string::npos);
}

TEST(TopologySpec, UnknownParameter) {
  expect_error(head + chain_pipes + chain_a +
                   "    b: {component: edf, input: mid, output: out, params: {x: 1}}\n" + chain_pes,
               7, {"unknown parameter 'x' for component 'edf'", "it takes no parameters"});
  expect_error(head + chain_pipes + chain_a +
                   "    b: {component: fixed-priority, input: mid, output: out, params: {higher: larger}}\n" +
                   chain_pes,
               7, {"unknown parameter 'higher'", "its parameters: higher_is"});
}

TEST(TopologySpec, BadParameterValue) {
  expect_error(
      head + chain_pipes + chain_a +
          "    b: {component: fixed-priority, input: mid, output: out, params: {higher_is: middle}}\n" +
          chain_pes,
      7, {"parameter 'higher_is' must be one of smaller, larger", "middle"});
  expect_error(head + chain_pipes + chain_a +
                   "    b: {component: release-gate, input: mid, output: out, params: {now: 5 minutes}}\n" +
                   chain_pes,
               7, {"parameter 'now': '5 minutes' has unknown unit 'minutes'; use ns, us, ms or s"});
  expect_error(head + chain_pipes + chain_a +
                   "    b: {component: release-gate, input: mid, output: out, params: {now: 1.5ns}}\n" +
                   chain_pes,
               7, {"parameter 'now': '1.5ns'"});
  expect_error(head + chain_pipes + chain_a +
                   "    b: {component: release-gate, input: mid, output: out, params: {now: [1ms]}}\n" +
                   chain_pes,
               7, {"parameter 'now' must be a duration such as 250us"});
  // Integers are decimal (yaml-cpp read 010 as 8 and 0x10 as 16), and a list names at
  // least one value (`pes: []` kept every task).
  expect_error(head + chain_pipes + chain_a +
                   "    b: {component: filter, input: mid, output: out, params: {priority_at_most: 0x10}}\n" +
                   chain_pes,
               7, {"parameter 'priority_at_most' must be a decimal integer, got '0x10'"});
  // Not a value at all: said "got '?'".
  expect_error(
      head + chain_pipes + chain_a +
          "    b: {component: filter, input: mid, output: out, params: {priority_at_most: {x: 1}}}\n" +
          chain_pes,
      7, {"parameter 'priority_at_most' must be a decimal integer, got a map"});
  expect_error(head + chain_pipes + chain_a +
                   "    b: {component: filter, input: mid, output: out, params: {pes: []}}\n" + chain_pes,
               7, {"parameter 'pes' lists nothing"});
  // Too large for nanoseconds in 64 bits: "10000000000s" (10^19 ns) used to wrap to a
  // negative value, and the filter then dropped a task of 10 ms.
  expect_error(head + chain_pipes + chain_a +
                   "    b: {component: filter, input: mid, output: out, params: "
                   "{relative_deadline_at_most: 10000000000s}}\n" +
                   chain_pes,
               7,
               {"test.yaml:7:89: parameter 'relative_deadline_at_most': '10000000000s' is too large (at most "
                "4611686018.427387904s = 2^62 ns, about 146 years)"});
}

TEST(TopologySpec, UnknownOrMissingPort) {
  expect_error(
      head + chain_pipes + chain_a + "    b: {component: edf, inputs: mid, output: out}\n" + chain_pes, 7,
      {"unknown key 'inputs' in instance 'b'", "ports: input, output"});
  expect_error(head + chain_pipes + chain_a + "    b: {component: edf, input: mid}\n" + chain_pes, 7,
               {"instance 'b' (edf) needs port 'output'"});
  expect_error(
      head + chain_pipes + chain_a + "    b: {component: edf, input: [mid, in], output: out}\n" + chain_pes,
      7, {"takes one pipe, not a list"});
}

TEST(TopologySpec, UndeclaredPipe) {
  expect_error(
      head + chain_pipes + chain_a + "    b: {component: edf, input: mid, output: outt}\n" + chain_pes, 7,
      {"unknown pipe 'outt'", "declared pipes: in, mid, out"});
}

TEST(TopologySpec, DanglingPipes) {
  // Declared, never used.
  expect_error(head + "  pipes: {in: one, mid: one, out: one, extra: one}\n" + "  entry: in\n  instances:\n" +
                   chain_a + "    b: {component: edf, input: mid, output: out}\n" + chain_pes,
               3, {"pipe 'extra' is dangling: declared but neither produced nor consumed"});
  // Produced, never consumed: a writes mid, b reads in... and in is then consumed twice,
  // so use a separate instance: b reads `extra`, which nothing produces.
  expect_error(head + "  pipes: {in: one, mid: one, out: one, extra: one}\n" + "  entry: in\n  instances:\n" +
                   chain_a + "    b: {component: edf, input: extra, output: out}\n" + chain_pes,
               6, {"pipe 'mid' is dangling", "nothing consumes it"});
  expect_error(head + "  pipes: {in: one, out: one, extra: one}\n" + "  entry: in\n  instances:\n" +
                   "    a: {component: mux, inputs: [in, extra], output: out}\n" + "  pes: {terminal: out}\n",
               6, {"pipe 'extra' is dangling", "nothing produces it"});
  expect_error(
      head + "  pipes: {in: one, out: one, extra: one}\n" + "  entry: in\n  instances:\n" +
          "    a: {component: edf, input: in, output: out}\n" + "  pes: {terminal: out, pull: [extra]}\n",
      7, {"pipe 'extra' is dangling: the processing elements (pes:) consume it, but nothing produces it"});
  // [*] in the entry, which is one pipe or indexed by the task.
  expect_error(
      head + "  pipes: {in: per-pe, out: one}\n" + "  entry: \"in[*]\"\n  instances:\n" +
          "    a: {component: mux, inputs: \"in[*]\", output: out}\n" + "  pes: {terminal: out}\n",
      4, {"needs a port that takes several pipes; the entry is one pipe, or a family indexed by the task"});
}

TEST(TopologySpec, DoublyConsumedPipe) {
  expect_error(head + chain_pipes + "    a: {component: head-queue, input: in, output: mid}\n" +
                   "    b: {component: edf, input: in, output: out}\n" + chain_pes,
               7, {"pipe 'in' is consumed twice", "instance 'a'", "instance 'b'"});
  // A terminal pipe is consumed by the processing elements: an instance may not read it too.
  expect_error(head + "  pipes: {in: one, mid: one, out: one, extra: one}\n  entry: in\n  instances:\n" +
                   chain_a + "    b: {component: edf, input: mid, output: out}\n" +
                   "    c: {component: head-queue, input: out, output: extra}\n" + "  pes: {terminal: out}\n",
               9, {"pipe 'out' is consumed twice", "instance 'c'", "the processing elements"});
}

TEST(TopologySpec, DoublyProducedPipe) {
  expect_error(head + "  pipes: {in: one, x: one, y: one, out: one}\n  entry: in\n  instances:\n" +
                   "    a: {component: distributor, input: in, outputs: [x, y]}\n" +
                   "    b: {component: head-queue, input: x, output: out}\n" +
                   "    c: {component: head-queue, input: y, output: out}\n" + "  pes: {terminal: out}\n",
               8, {"pipe 'out' is produced twice", "instance 'b'", "instance 'c'"});
}

TEST(TopologySpec, Cycle) {
  expect_error(head + "  pipes: {in: one, x: one, y: one, out: one}\n  entry: in\n  instances:\n" +
                   "    a: {component: mux, inputs: [in, y], output: x}\n" +
                   "    b: {component: distributor, input: x, outputs: [out, y]}\n" +
                   "  pes: {terminal: out}\n",
               7, {"cycle", "a -> x -> b -> y -> a"});
}

TEST(TopologySpec, ProcessingElementsWithoutTerminalPipe) {
  // Reported where the topology section begins (line 2: its first key).
  expect_error(head + chain_pipes + chain_a + "    b: {component: edf, input: mid, output: out}\n", 2,
               {"no terminal pipe", "pes: {terminal: PIPE}"});
  expect_error(head + chain_pipes + chain_a + "    b: {component: edf, input: mid, output: out}\n" +
                   "  pes: {pull: [out]}\n",
               8, {"no terminal pipe"});
}

TEST(TopologySpec, ResponderRules) {
  expect_error(
      head + chain_pipes + chain_a + "    b: {component: fcfs, input: mid, output: out}\n" + chain_pes, 7,
      {"instance 'b' (fcfs) needs a responder for topic LAMPORT", "component 'lamport'"});
  expect_error(head + chain_pipes + chain_a + "    b: {component: edf, input: mid, output: out}\n" +
                   "    c: {component: affinity}\n    d: {component: affinity}\n" + chain_pes,
               9, {"topic AFFINITY would have two responders: 'c' and 'd'"});
}

TEST(TopologySpec, IndexRules) {
  const std::string fam = head + "  pipes: {in: one, ready: per-pe}\n  entry: in\n  instances:\n";
  expect_error(fam + "    a: {component: distributor, input: in, outputs: \"ready[*]\", params: {by: pe}}\n" +
                   "  pes: {terminal: ready}\n",
               7, {"pipe 'ready' is per-pe: say which"});
  expect_error(fam + "    a: {component: head-queue, input: in, output: \"ready[#]\"}\n" +
                   "  pes: {terminal: \"ready[pe]\"}\n",
               6, {"[#] needs an instance with per: pe or per: cluster"});
  expect_error(fam + "    a: {component: head-queue, input: in, output: \"ready[pe]\"}\n" +
                   "  pes: {terminal: \"ready[pe]\"}\n",
               6, {"only meaningful in entry: and pes:"});
  expect_error(fam + "    a: {component: distributor, input: in, outputs: \"ready[*]\"}\n" +
                   "  pes: {terminal: \"ready[cluster]\"}\n",
               7, {"needs a per-cluster pipe"});
  expect_error(fam + "    a: {component: distributor, input: in, outputs: \"ready[x]\"}\n" +
                   "  pes: {terminal: \"ready[pe]\"}\n",
               6, {"bad index 'x'"});
  // A number past the largest family said "bad index ... use # ... or a number"; 65535
  // is the last member a family of 65,536 PEs has.
  expect_error(
      fam + "    a: {component: head-queue, input: in, output: \"ready[1000000]\"}\n" +
          "  pes: {terminal: \"ready[pe]\"}\n",
      6,
      {"index 1000000 in 'ready[1000000]' is too large: a family has at most 65536 members (one per PE "
       "or cluster), numbered from 0 to 65535"});
  expect_error(fam + "    a: {component: head-queue, input: in, output: \"ready[65536]\"}\n" +
                   "  pes: {terminal: \"ready[pe]\"}\n",
               6, {"index 65536 in 'ready[65536]' is too large"});
  // Leading zeros do not count: ready[0000001] is member 1 (it was read so before).
  const std::string leading =
      error_of(fam + "    a: {component: head-queue, input: in, output: \"ready[0000001]\"}\n" +
               "  pes: {terminal: \"ready[pe]\"}\n");
  EXPECT_EQ(leading.find("too large"), std::string::npos) << leading;
  EXPECT_EQ(leading.find("bad index"), std::string::npos) << leading;
}

TEST(TopologySpec, TooDeep) {
  std::string yaml = head + "  pipes: {";
  for (int i = 0; i <= 10; ++i) yaml += (i ? ", " : "") + std::string("p") + std::to_string(i) + ": one";
  yaml += "}\n  entry: p0\n  instances:\n";
  for (int i = 0; i < 10; ++i) {
    yaml += "    s" + std::to_string(i) + ": {component: head-queue, input: p" + std::to_string(i) +
            ", output: p" + std::to_string(i + 1) + "}\n";
  }
  yaml += "  pes: {terminal: p10}\n";
  const std::string message = error_of(yaml);
  EXPECT_NE(message.find("too deep"), std::string::npos) << message;
  EXPECT_NE(message.find("at most 10"), std::string::npos) << message;
}

TEST(TopologySpec, UnknownKeysAndSyntaxErrors) {
  expect_error(head + "  pipez: {in: one}\n", 3, {"unknown key 'pipez' in the topology"});
  expect_error(head + "  pipes: {in: many}\n", 3, {"must be one, per-pe or per-cluster"});
  expect_error(head + chain_pipes + "    a: {component: termination, input: in}\n" + chain_pes, 6,
               {"termination is added automatically"});
  const std::string message = error_of("topology:\n  pipes: {in: one\n  entry: in\n");
  EXPECT_EQ(message.rfind("test.yaml:", 0), 0u) << message;
}

TEST(TopologySpec, RepeatedKeysAreErrors) {
  // yaml-cpp keeps both pairs of a repeated key and a lookup finds the first: this
  // built an edf instance, silently.
  expect_error(head + chain_pipes + chain_a +
                   "    b: {component: edf, input: mid, output: out, component: lcfs}\n" + chain_pes,
               7, {"test.yaml:7:50: key 'component' appears twice in instance 'b'; keep one"});
  expect_error(head + chain_pipes + chain_a +
                   "    b: {component: edf, input: mid, input: in, output: out}\n" + chain_pes,
               7, {"key 'input' appears twice in instance 'b'"});
  expect_error(head + chain_pipes + chain_a +
                   "    b: {component: fixed-priority, input: mid, output: out,\n"
                   "        params: {higher_is: larger, higher_is: smaller}}\n" +
                   chain_pes,
               8,
               {"test.yaml:8:37: key 'higher_is' appears twice in the params of a fixed-priority instance"});
  expect_error(head + chain_pipes + chain_a + "    b: {component: edf, input: mid, output: out}\n" +
                   "  pes: {terminal: out, terminal: mid}\n",
               8, {"test.yaml:8:24: key 'terminal' appears twice in pes"});
  expect_error(head + chain_pipes + chain_a + "    b: {component: edf, input: mid, output: out}\n" +
                   chain_pes + "  name: u\n",
               9, {"test.yaml:9:3: key 'name' appears twice in the topology"});
  expect_error(head + "  pipes: {in: one, out: one, in: per-pe}\n", 3, {"pipe 'in' is declared twice"});
  // Around the section: a second topology was ignored (the first one was built).
  const std::string body =
      chain_pipes + chain_a + "    b: {component: edf, input: mid, output: out}\n" + chain_pes;
  expect_error(head + body + "topology:\n  name: u\n" + body, 9,
               {"test.yaml:9:1: key 'topology' appears twice in the file; keep one"});
  // The parameters of an instance swap.
  const TopologySpec spec = topology(test::single_stage("fixed-priority"));
  try {
    (void)replace_component(spec, spec.instances[0], "fixed-priority",
                            YAML::Load("{higher_is: larger, higher_is: smaller}"),
                            ComponentRegistry::builtin());
    FAIL() << "expected an error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("key 'higher_is' appears twice"), std::string::npos) << e.what();
  }
}

TEST(TopologySpec, IndexOutOfRangeForTheRealProcessingElements) {
  // The topology names PE 1's pipe explicitly ("ready[1]"): it builds for a machine of
  // 4 PEs and fails, naming the pipe and the line, for a machine of 1 PE.
  const TopologySpec spec =
      topology(head +
               "  pipes: {in: one, ready: per-pe}\n"
               "  entry: in\n"
               "  instances:\n"
               "    a: {component: distributor, input: in, outputs: \"ready[*]\", params: {by: pe}}\n"
               "  pes: {terminal: \"ready[pe]\", pull: [\"ready[1]\"]}\n");
  EXPECT_NO_THROW(Scheduler(spec, ProcessingElements::uniform(4)));
  {
    const std::string message = build_error(spec, ProcessingElements::uniform(1));
    ASSERT_FALSE(message.empty()) << "expected an error";
    EXPECT_NE(message.find("'ready[1]' is out of range"), std::string::npos) << message;
    EXPECT_EQ(message.rfind("test.yaml:7:", 0), 0u) << message;
  }
}

TEST(TopologySpec, AFixedIndexBeyondTheProbeIsCheckedForTheRealProcessingElements) {
  // parse_topology checks the graph on a probe of 2 PEs: "ready[3]" was rejected there
  // ("'ready' has 2 pipes (per-pe) here") although 4 PEs have it.
  const TopologySpec pulls = topology(head +
                                      "  pipes: {in: one, ready: per-pe}\n"
                                      "  entry: in\n"
                                      "  instances:\n"
                                      "    a: {component: distributor, input: in, outputs: \"ready[*]\", "
                                      "params: {by: pe}}\n"
                                      "  pes: {terminal: \"ready[pe]\", pull: [\"ready[3]\"]}\n");
  EXPECT_NO_THROW(Scheduler(pulls, ProcessingElements::uniform(4)));
  {
    const std::string message = build_error(pulls, ProcessingElements::uniform(3));
    ASSERT_FALSE(message.empty()) << "expected an error";
    EXPECT_EQ(message,
              "test.yaml:7:39: 'ready[3]' is out of range: 'ready' is per-pe, one pipe per processing "
              "element id, and there are 3 here (ready[0] to ready[2]); index 3 needs at least 4 "
              "processing elements");
  }
  // An instance port: a family enumerated for 4 clusters.
  const TopologySpec enumerated = topology(
      head +
      "  pipes: {in: one, q: per-cluster, out: one}\n"
      "  entry: in\n"
      "  instances:\n"
      "    a: {component: distributor, input: in, outputs: [\"q[0]\", \"q[1]\", \"q[2]\", \"q[3]\"]}\n"
      "    b: {component: mux, inputs: \"q[*]\", output: out}\n"
      "  pes: {terminal: out}\n");
  EXPECT_NO_THROW(Scheduler(enumerated, ProcessingElements::with_clusters({0, 1, 2, 3})));
  {
    const std::string message = build_error(enumerated, ProcessingElements::with_clusters({0, 1, 1}));
    ASSERT_FALSE(message.empty()) << "expected an error";
    EXPECT_EQ(message,
              "test.yaml:6:70: 'q[2]' is out of range: 'q' is per-cluster, one pipe per cluster, and "
              "there are 2 here (q[0] to q[1]); index 2 needs at least 3 clusters");
  }
  // The terminal pipe: parsed on the probe of 2 PEs, checked for the real ones.
  const TopologySpec terminal = topology(head +
                                         "  pipes: {in: one, ready: per-pe}\n"
                                         "  entry: in\n"
                                         "  instances:\n"
                                         "    a: {component: distributor, input: in, outputs: \"ready[*]\"}\n"
                                         "  pes: {terminal: \"ready[2]\", steal: ready}\n");
  EXPECT_NO_THROW(Scheduler(terminal, ProcessingElements::uniform(3)));
  {
    const std::string message = build_error(terminal, ProcessingElements::uniform(2));
    ASSERT_FALSE(message.empty()) << "expected an error";
    EXPECT_NE(message.find("'ready[2]' is out of range: 'ready' is per-pe"), std::string::npos) << message;
    EXPECT_NE(message.find("index 2 needs at least 3 processing elements"), std::string::npos) << message;
  }
}

TEST(TopologySpec, AClusterWithoutAProcessingElementIsNamed) {
  // Families are sized by the largest cluster: with clusters 0 and 2, ready[1] has no
  // consumer. The error said only that it was dangling; it now names the empty cluster.
  const TopologySpec spec = topology(head +
                                     "  pipes: {in: one, ready: per-cluster}\n"
                                     "  entry: in\n"
                                     "  instances:\n"
                                     "    a: {component: distributor, input: in, outputs: \"ready[*]\"}\n"
                                     "  pes: {terminal: \"ready[cluster]\"}\n");
  EXPECT_NO_THROW(Scheduler(spec, ProcessingElements::with_clusters({0, 1})));
  {
    const std::string message = build_error(spec, ProcessingElements::with_clusters({0, 2}));
    ASSERT_FALSE(message.empty()) << "expected an error";
    EXPECT_NE(message.find("pipe 'ready[1]' is dangling"), std::string::npos) << message;
    EXPECT_NE(message.find("; cluster 1 has no processing element ("), std::string::npos) << message;
    EXPECT_NE(message.find("number the clusters 0, 1, 2, ... without gaps"), std::string::npos) << message;
  }
}

TEST(TopologySpec, ReplacementChecksPortsAndParameters) {
  const TopologySpec spec = topology(test::single_stage("edf"));
  const InstanceSpec& old = spec.instances[0];
  const InstanceSpec fp = replace_component(spec, old, "fixed-priority", YAML::Load("{higher_is: larger}"),
                                            ComponentRegistry::builtin());
  EXPECT_EQ(fp.component, "fixed-priority");
  EXPECT_EQ(fp.params.text("higher_is"), "larger");
  EXPECT_THROW(replace_component(spec, old, "mux", YAML::Node(), ComponentRegistry::builtin()), takt::Error);
  EXPECT_THROW(replace_component(spec, old, "nope", YAML::Node(), ComponentRegistry::builtin()), takt::Error);
  EXPECT_THROW(replace_component(spec, old, "edf", YAML::Load("{x: 1}"), ComponentRegistry::builtin()),
               takt::Error);
}
