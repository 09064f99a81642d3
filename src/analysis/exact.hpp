// Exact integer arithmetic for the analyses: 128-bit ceilings and exact fraction sums.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

namespace takt::analysis {

using i128 = __int128;

/// ⌈a / b⌉ for b > 0 and any a.
constexpr i128 ceil_div(i128 a, i128 b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
/// ⌊a / b⌋ for b > 0 and any a.
constexpr i128 floor_div(i128 a, i128 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

constexpr i128 wide(std::chrono::nanoseconds d) { return static_cast<i128>(d.count()); }

/// A sum of ratios a/b (utilizations C/T, densities C/D) kept exactly as a reduced
/// fraction for as long as it fits in 128 bits, and always also as a long double
/// (for display); once the fraction overflows, also as a long double rounded up after
/// every operation (an upper bound of the exact sum; while the fraction is exact the
/// bound is derived from it when asked: rounding up after every add, two calls of
/// libm's nextafterl, made partitioned-dm's exact RBF* terms 4 times slower). Admission
/// tests use at_most(): exact while the fraction is exact; after an overflow (many
/// unrelated denominators, e.g. random generated periods) it compares the upper bound
/// with the bound rounded down, so a sum within rounding of the bound is reported as
/// above it: never admitted by mistake.
class RatioSum {
 public:
  RatioSum() = default;
  RatioSum(std::int64_t a, std::int64_t b) { add(a, b); }

  void add(std::int64_t a, std::int64_t b) {
    const long double term = static_cast<long double>(a) / static_cast<long double>(b);
    approx_ += term;
    if (exact_) {
      add_fraction(a, b);
      if (exact_) return;
      // The fraction of the terms before this one (kept by add_fraction when it overflows)
      // becomes the running upper bound.
      upper_ = fraction_upper_bound();
    }
    upper_ = up(upper_ + up(term));
  }
  void add(const RatioSum& other) {
    approx_ += other.approx_;
    if (exact_ && other.exact_) {
      add_fraction(other.num_, other.den_);
      if (exact_) return;
      upper_ = fraction_upper_bound();
    } else if (exact_) {
      exact_ = false;
      upper_ = fraction_upper_bound();
    }
    upper_ = up(upper_ + other.upper_bound());
  }

  [[nodiscard]] bool exact() const { return exact_; }
  [[nodiscard]] long double value() const { return approx_; }
  /// At least the exact sum (equal to it, up to rounding, while it is small).
  [[nodiscard]] long double upper_bound() const { return exact_ ? fraction_upper_bound() : upper_; }
  [[nodiscard]] i128 numerator() const { return num_; }
  [[nodiscard]] i128 denominator() const { return den_; }

  /// Compares the sum with p/q (q > 0): negative, zero or positive; exact while the
  /// fraction is, else on the rounded value (may be wrong within rounding of p/q).
  [[nodiscard]] int compare(i128 p, i128 q) const {
    if (exact_) {
      i128 l, r;
      if (!__builtin_mul_overflow(num_, q, &l) && !__builtin_mul_overflow(p, den_, &r))
        return l < r ? -1 : (l > r ? 1 : 0);
    }
    long double rhs = static_cast<long double>(p) / static_cast<long double>(q);
    return approx_ < rhs ? -1 : (approx_ > rhs ? 1 : 0);
  }

  /// Whether the sum is certainly ≤ p/q (q > 0, p ≥ 0), rounding towards "no" (see
  /// the class comment).
  [[nodiscard]] bool at_most(i128 p, i128 q) const {
    if (exact_) {
      i128 l, r;
      if (!__builtin_mul_overflow(num_, q, &l) && !__builtin_mul_overflow(p, den_, &r)) return l <= r;
    }
    // p and q convert with a relative error below 2^-64 each (up to an ulp of the
    // quotient each, near the top of its binade), the quotient adds half an ulp: three
    // ulps down cover all three.
    const long double rhs = down(down(down(static_cast<long double>(p) / static_cast<long double>(q))));
    return upper_bound() <= rhs;
  }

 private:
  static i128 gcd128(i128 a, i128 b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b != 0) {
      i128 t = a % b;
      a = b;
      b = t;
    }
    return a == 0 ? 1 : a;
  }
  void add_fraction(i128 a, i128 b) {
    i128 den_gcd = gcd128(den_, b);
    i128 scale_self = b / den_gcd, scale_other = den_ / den_gcd;
    i128 new_den, left, right, sum;
    if (__builtin_mul_overflow(den_, scale_self, &new_den) ||
        __builtin_mul_overflow(num_, scale_self, &left) || __builtin_mul_overflow(a, scale_other, &right) ||
        __builtin_add_overflow(left, right, &sum) || new_den > (i128{1} << 120)) {
      exact_ = false;
      return;
    }
    i128 g2 = gcd128(sum, new_den);
    num_ = sum / g2;
    den_ = new_den / g2;
  }

  /// num_/den_ rounded up: the two conversions (relative error at most 2^-64 each) and
  /// the quotient (half an ulp) stay below 2.5 ulps of the result, so three ulps up.
  [[nodiscard]] long double fraction_upper_bound() const {
    return up(up(up(static_cast<long double>(num_) / static_cast<long double>(den_))));
  }
  static long double up(long double x) {
    return std::nextafter(x, std::numeric_limits<long double>::infinity());
  }
  static long double down(long double x) {
    return std::nextafter(x, -std::numeric_limits<long double>::infinity());
  }

  i128 num_ = 0;
  i128 den_ = 1;
  long double approx_ = 0;
  long double upper_ = 0;
  bool exact_ = true;
};

}  // namespace takt::analysis
