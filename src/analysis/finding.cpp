// One checked condition of an analysis: which task, which test, passed or not, by how much.
#include "analysis/finding.hpp"

namespace takt::analysis {

std::vector<Finding> failures(const std::vector<Finding>& findings) {
  std::vector<Finding> out;
  for (const Finding& f : findings) {
    if (!f.passed) out.push_back(f);
  }
  return out;
}

}  // namespace takt::analysis
