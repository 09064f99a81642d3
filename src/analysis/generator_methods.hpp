// The four generation methods behind generate() (internal to analysis/).
#pragma once

#include "analysis/generator.hpp"
#include "analysis/random.hpp"

#include <string>

namespace takt::analysis {

GeneratedSet generate_paws(const GeneratorOptions& options, Random& random);
GeneratedSet generate_rt_openmp(const GeneratorOptions& options, Random& random);
GeneratedSet generate_rtws(const GeneratorOptions& options, Random& random);
GeneratedSet generate_synthetic(const GeneratorOptions& options, Random& random);

/// rtws §VII.A: the utilization of the next task, given what is left to reach the
/// target: mean = the largest of {1, 3, 6, 12, 15} not above `remaining` (or
/// `remaining` itself when below 1, which then is the last task), u uniform in
/// [mean/2, 3·mean/2], never above `remaining`.
double rtws_task_utilization(double remaining, Random& random);

/// "%.<decimals>f".
std::string format_number(double value, int decimals);

}  // namespace takt::analysis
