// A seeded random source whose draws are the same on every platform and standard library.
#include "analysis/random.hpp"

#include <cmath>

namespace takt::analysis {

double Random::normal() {
  // 1 − U in (0, 1] keeps the logarithm finite.
  const double u1 = 1.0 - uniform01();
  const double u2 = uniform01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

double Random::lognormal_with_mean(double mean, double sigma) {
  const double mu = std::log(mean) - sigma * sigma / 2.0;
  return std::exp(mu + sigma * normal());
}

}  // namespace takt::analysis
