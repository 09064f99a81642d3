// One checked condition of an analysis: which task, which test, passed or not, by how much.
#pragma once

#include <string>
#include <vector>

namespace takt::analysis {

/// The outcome of one test on one task (or on the whole set when `task` is empty).
/// `margin` is how much room is left (≥ 0 when the test passed) or how far it is
/// missed (< 0), in `unit`; a test that fails exactly at its boundary (D = L, D = δ·L̂:
/// no number of cores) has margin 0 and passed = false. `detail` is the sentence a
/// person reads.
struct Finding {
  std::string task;  ///< task name, "" for a test of the whole set
  std::string test;  ///< e.g. "federated core count", "EDF density on core 2"
  bool passed = true;
  double margin = 0;
  std::string unit;  ///< "cores", "ns", "" for utilizations
  std::string detail;
};

/// The findings that failed, in order.
std::vector<Finding> failures(const std::vector<Finding>& findings);

}  // namespace takt::analysis
