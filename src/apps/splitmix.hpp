// SplitMix64's output function (Steele, Lea and Flood, OOPSLA 2014): a 64-bit mix whose
// outputs for consecutive inputs look independent; the apps derive reproducible inputs
// (matrix entries, synthetic node times) from a seed and a position with it.
#pragma once

#include <cstdint>

namespace takt::apps {

inline std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace takt::apps
