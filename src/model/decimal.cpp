// An exact decimal number read from text: numerator over a power of ten.
#include "model/decimal.hpp"

#include "model/text.hpp"

#include "takt/error.hpp"

#include <cctype>

namespace takt::model {

Decimal Decimal::parse(std::string_view text) {
  if (text.empty()) throw Error("empty number; write a decimal number such as 1.5");
  std::int64_t numerator = 0;
  std::int64_t denominator = 1;
  bool seen_point = false;
  int digits = 0;
  int fraction_digits = 0;
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (c == '.') {
      if (seen_point) throw Error(shown(text) + " has two decimal points");
      seen_point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      if (digits > 0 && starts_exponent(text.substr(at)))
        throw Error(shown(text) +
                    " has an exponent, which this number does not take; write it out (1500, not 1.5e3)");
      throw Error(shown(text) + " is not a non-negative decimal number (such as 1.5)");
    }
    ++digits;
    if (seen_point) {
      if (++fraction_digits > 12) throw Error(shown(text) + " has more than 12 decimals");
      denominator *= 10;
    }
    if (numerator > (INT64_MAX - 9) / 10) throw Error(shown(text) + " is too large");
    numerator = numerator * 10 + (c - '0');
  }
  if (digits == 0) throw Error(shown(text) + " has no digits");
  // Drop trailing zeros of the fraction so that equal values have equal parts.
  while (denominator > 1 && numerator % 10 == 0) {
    numerator /= 10;
    denominator /= 10;
  }
  return Decimal{numerator, denominator};
}

std::string Decimal::to_string() const {
  std::string whole = std::to_string(numerator / denominator);
  if (denominator == 1) return whole;
  std::string fraction = std::to_string(numerator % denominator);
  std::size_t width = std::to_string(denominator).size() - 1;
  fraction.insert(0, width - fraction.size(), '0');
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  return fraction.empty() ? whole : whole + "." + fraction;
}

}  // namespace takt::model
