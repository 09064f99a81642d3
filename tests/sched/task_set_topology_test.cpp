// The `topology:` section of a task-set file, handed over by the model layer: parsed with file positions.
#include "model/task_set_parser.hpp"
#include "sched/scheduler.hpp"
#include "sched/topology_spec.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace takt;

namespace {

const std::string head =
    "global:\n"                       // 1
    "  cores: 2\n"                    // 2
    "tasks:\n"                        // 3
    "  - name: fib\n"                 // 4
    "    period: 10ms\n"              // 5
    "    program: fib\n"              // 6
    "    work: 2ms\n"                 // 7
    "    span: 1ms\n"                 // 8
    "topology:\n"                     // 9
    "  name: mine\n"                  // 10
    "  pipes: {in: one, out: one}\n"  // 11
    "  entry: in\n"                   // 12
    "  instances:\n";                 // 13

}  // namespace

TEST(TaskSetTopology, ParsedFromTheModelsNodeWithPositionsInTheFile) {
  const model::TaskSet set =
      model::parse_task_set(head +
                                "    order: {component: edf, input: in, output: out}\n"  // 14
                                "  pes: {terminal: out}\n",
                            "tasks.yaml");
  ASSERT_TRUE(set.topology.has_value());
  const sched::TopologySpec spec = sched::parse_topology(*set.topology, set.source);
  EXPECT_EQ(spec.name, "mine");
  EXPECT_EQ(spec.instances.at(0).mark.line, 13);  // 0-based: line 14 of the file
  sched::Task t(1);                               // outlives the scheduler, whose destructor detaches it
  sched::Scheduler s(spec, sched::ProcessingElements::uniform(2));
  s.admit(t);
  EXPECT_EQ(s.schedule(1), &t);
}

TEST(TaskSetTopology, ErrorsNameTheTaskSetFileLineAndColumn) {
  const model::TaskSet set =
      model::parse_task_set(head +
                                "    order: {component: edf, input: in, output: out, params: {x: 1}}\n"  // 14
                                "  pes: {terminal: out}\n",
                            "tasks.yaml");
  try {
    (void)sched::parse_topology(*set.topology, set.source);
    FAIL() << "expected takt::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("tasks.yaml:14:", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown parameter 'x'"), std::string::npos) << e.what();
  }
}
