// The runtime priority keys of federated and gedf-paws jobs: EDF order, unique per task, range checked.
#include "policies/job_slot.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <limits>

using namespace std::chrono_literals;
using std::chrono::nanoseconds;
using takt::platform::PeriodicTask;
using takt::platform::ReleaseConfig;
using takt::platform::ReleaseEngine;
using takt::policies::PriorityKeys;

namespace {
std::vector<PeriodicTask> tasks(std::size_t n) {
  std::vector<PeriodicTask> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(PeriodicTask{"t" + std::to_string(i), 10ms, 10ms, 0ns, 1});
  return out;
}
}  // namespace

TEST(PriorityKeys, DeadlineInTheHighBitsTaskIndexInTheLowBits) {
  ReleaseConfig config;
  config.duration = 1s;
  ReleaseEngine engine(tasks(3), config);
  engine.start(5000ns);
  const PriorityKeys keys(3);  // 3 tasks: 2 bits for the index
  // Deadline 10 ns after the origin, task 1: (10 << 2) | 1 = 41.
  EXPECT_EQ(keys.key(5010ns, 1, engine), 41ns);
  EXPECT_EQ(keys.task_of(41ns), 1u);
  EXPECT_EQ(keys.deadline_of(41ns, engine), 5010ns);
}

TEST(PriorityKeys, JobsWhoseDeadlinesDifferByTheirIndexDifferenceKeepDistinctKeysInEdfOrder) {
  // The earlier keys, deadline + index in ns, gave task 0 due 1001 ns after the origin
  // and task 1 due at 1000 ns the same key, 1001 (+ origin): gedf-paws then credited one
  // task's strands to the other. Now (1001 << 1) | 0 = 2002 and (1000 << 1) | 1 = 2001:
  // distinct, and the earlier deadline first; equal deadlines order by index.
  ReleaseConfig config;
  config.duration = 1s;
  ReleaseEngine engine(tasks(2), config);
  engine.start(0ns);
  const PriorityKeys keys(2);
  EXPECT_EQ(keys.key(1001ns, 0, engine), 2002ns);
  EXPECT_EQ(keys.key(1000ns, 1, engine), 2001ns);
  EXPECT_LT(keys.key(1000ns, 1, engine), keys.key(1001ns, 0, engine));
  EXPECT_LT(keys.key(1000ns, 0, engine), keys.key(1000ns, 1, engine));
  EXPECT_EQ(keys.task_of(2001ns), 1u);
  EXPECT_EQ(keys.task_of(2002ns), 0u);
}

TEST(PriorityKeys, ARunWhoseDeadlinesOutrunTheKeysIsRefusedNamingTheFix) {
  // 5 tasks: 3 bits, keys hold deadlines up to (2^63 - 1) >> 3 ns = 2^60 - 1 ns =
  // 320,256.0 h after the origin (36.5 years; with 2^20 tasks 2^43 ns = 2.4 h). A
  // 300,000 h run (deadline 10 ms after the last release) fits, a 330,000 h run not.
  const PriorityKeys keys(5);
  ReleaseConfig fits;
  fits.duration = std::chrono::hours(300000);
  EXPECT_NO_THROW(keys.check_range(ReleaseEngine(tasks(5), fits), "gedf-paws"));
  ReleaseConfig too_long;
  too_long.duration = std::chrono::hours(330000);
  try {
    keys.check_range(ReleaseEngine(tasks(5), too_long), "gedf-paws");
    FAIL() << "no error";
  } catch (const takt::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gedf-paws: with 5 task(s)"), std::string::npos) << what;
    EXPECT_NE(what.find("orders jobs by deadline for deadlines up to 320256.0 h after the start"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("330000.0 h after it"), std::string::npos) << what;
    EXPECT_NE(what.find("shorten the run so that its last deadline comes before 320256.0 h"),
              std::string::npos)
        << what;
    // Not the key's encoding, which a user cannot act on.
    EXPECT_EQ(what.find("bits"), std::string::npos) << what;
  }
  // A run without limits cannot be checked; its keys saturate instead of wrapping.
  ReleaseEngine unlimited(tasks(5), ReleaseConfig{});
  EXPECT_NO_THROW(keys.check_range(unlimited, "gedf-paws"));
  unlimited.start(0ns);
  const nanoseconds far = keys.key(std::chrono::hours(400000), 4, unlimited);
  EXPECT_GT(far, keys.key(std::chrono::hours(300000), 4, unlimited));
  EXPECT_EQ(far, nanoseconds(((std::numeric_limits<std::int64_t>::max() >> 3) << 3) | 4));
  EXPECT_EQ(keys.task_of(far), 4u);
}
