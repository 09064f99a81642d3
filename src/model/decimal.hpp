// An exact decimal number read from text ("1.5", "3.65"): numerator over a power of ten.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace takt::model {

/// A non-negative decimal number kept exactly as numerator / denominator, where the
/// denominator is a power of ten. Used for coefficients such as the work-stealing
/// δ of rtws eq. 3 so that ceilings computed from it are exact.
struct Decimal {
  std::int64_t numerator = 0;
  std::int64_t denominator = 1;

  /// Parses digits with an optional fraction ("3.65", "2", "0.5"); at most 12
  /// fractional digits. Throws takt::Error saying what is wrong.
  static Decimal parse(std::string_view text);
  /// n / 1.
  static Decimal integer(std::int64_t n) { return Decimal{n, 1}; }

  [[nodiscard]] double value() const {
    return static_cast<double>(numerator) / static_cast<double>(denominator);
  }
  /// The shortest decimal spelling ("1.5", "3.65", "2").
  [[nodiscard]] std::string to_string() const;

  friend bool operator==(const Decimal& a, const Decimal& b) {
    return static_cast<__int128>(a.numerator) * b.denominator ==
           static_cast<__int128>(b.numerator) * a.denominator;
  }
};

}  // namespace takt::model
