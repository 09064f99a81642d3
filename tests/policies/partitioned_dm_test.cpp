// partitioned-dm: a topology that withholds strands is refused without leaving freed strands in the scheduler.
//
// Run twice by CTest, like takt_policies_tests: as the process finds the machine and with
// TAKT_NO_RT=1.
#include "run_support.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace takt::testing {
namespace {

analysis::AnalysisResult analyse_partitioned_dm(const model::TaskSet& set) {
  register_test_programs();
  analysis::AnalysisOptions options;
  options.policy = model::Policy::partitioned_dm;
  return analysis::analyse(set, options);
}

TEST(PartitionedDm, ATopologyThatWithholdsStrandsIsRefusedAndThePolicyIsDestroyedSafely) {
  // The distributor sorts by cluster and has no `unassigned:` output; strands carry no
  // cluster, so it withholds them all. prepare() threw with the strands still in the
  // scheduler and freed them; destroying the policy then wrote into the freed strands
  // (heap-use-after-free under AddressSanitizer).
  const model::TaskSet set = model::parse_task_set(R"(
global: {cores: 2, policy: partitioned-dm}
tasks:
  - {name: a, period: 10ms, program: segments, segments: [{length: 1ms, strands: 2}]}
topology:
  pipes: {admitted: one, local: per-pe}
  entry: admitted
  instances:
    place: {component: distributor, input: admitted, outputs: "local[*]", params: {by: cluster}}
  pes: {terminal: "local[pe]"}
)");
  const analysis::AnalysisResult verdict = analyse_partitioned_dm(set);
  ASSERT_TRUE(verdict.schedulable);
  auto policy = policies::make_policy(model::Policy::partitioned_dm);
  platform::RunOptions run;
  run.table = nullptr;
  run.messages = nullptr;
  run.progress = false;
  run.handle_signals = false;
  run.duration = 100ms;
  try {
    platform::run_task_set(set, verdict, *policy, run);
    ADD_FAILURE() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("the topology gave 0 of the 2 strands to a core"), std::string::npos)
        << e.what();
  }
  (void)policy->details();
  policy.reset();  // destroys the scheduler, which still holds the withheld strands
}

}  // namespace
}  // namespace takt::testing
