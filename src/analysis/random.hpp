// A seeded random source whose draws are the same on every platform and standard library.
#pragma once

#include <cstdint>
#include <random>

namespace takt::analysis {

/// Draws built only on std::mt19937_64, whose output sequence the C++ standard
/// fixes (the std:: distributions are implementation-defined and are not used), so
/// the random bits are the same everywhere. The values built from them also go
/// through floating point: std::log, std::exp, std::cos and std::sqrt, which the C
/// library implements (glibc's are not guaranteed correctly rounded, and another
/// library or version may differ in the last bit), and arithmetic that takt builds
/// without fused multiply-add (-ffp-contract=off). So `takt generate` gives the same
/// file for the same seed with the same C library; elsewhere a last-bit difference
/// can, rarely, move a rounded length by a nanosecond or tip a choice.
class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  /// Uniform in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Uniform in [a, b).
  double uniform(double a, double b) { return a + (b - a) * uniform01(); }
  /// Uniform integer in [a, b], unbiased (rejection).
  std::int64_t uniform_int(std::int64_t a, std::int64_t b) {
    const std::uint64_t range = static_cast<std::uint64_t>(b - a) + 1;
    if (range == 0) return static_cast<std::int64_t>(engine_());
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % range;
    std::uint64_t x;
    do {
      x = engine_();
    } while (x >= limit);
    return a + static_cast<std::int64_t>(x % range);
  }
  /// Standard normal (Box–Muller, one value per call).
  double normal();
  /// Log-normal with the given mean and σ of the underlying normal:
  /// exp(μ + σ·N(0,1)) with μ = ln(mean) − σ²/2.
  double lognormal_with_mean(double mean, double sigma);

 private:
  std::mt19937_64 engine_;
};

}  // namespace takt::analysis
