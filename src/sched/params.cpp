// Params: the typed parameters of one component instance, as declared by its component.
#include "sched/params.hpp"

#include <stdexcept>

namespace takt::sched {

const char* to_string(ParamType type) noexcept {
  switch (type) {
    case ParamType::integer:
      return "integer";
    case ParamType::duration:
      return "duration";
    case ParamType::text:
      return "text";
    case ParamType::boolean:
      return "boolean";
    case ParamType::integer_list:
      return "list of integers";
  }
  return "?";
}

const ParamValue& Params::at(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::out_of_range("parameter '" + std::string(name) + "' has no value");
  return it->second;
}

std::optional<Time> parse_duration(std::string_view text, bool* too_large) {
  if (too_large != nullptr) *too_large = false;
  if (text == "0") return Time{0};
  std::size_t digits = 0;
  while (digits < text.size() && ((text[digits] >= '0' && text[digits] <= '9') || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0 || digits == text.size()) return std::nullopt;
  const std::string_view number = text.substr(0, digits);
  const std::string_view unit = text.substr(digits);
  if (number.find('.') != number.rfind('.') || number.front() == '.' || number.back() == '.') {
    return std::nullopt;
  }
  double scale = 0;
  if (unit == "ns") {
    scale = 1;
  } else if (unit == "us") {
    scale = 1e3;
  } else if (unit == "ms") {
    scale = 1e6;
  } else if (unit == "s") {
    scale = 1e9;
  } else {
    return std::nullopt;
  }
  // Whole part and fraction separately in integers, so "1.5ms" is exactly 1500000;
  // nothing is computed that could exceed kMaxParamDuration.
  const std::size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
  if (whole.empty()) return std::nullopt;
  const auto unit_ns = static_cast<std::int64_t>(scale);
  constexpr std::int64_t max_ns = kMaxParamDuration.count();
  auto fail_too_large = [&]() -> std::optional<Time> {
    if (too_large != nullptr) *too_large = true;
    return std::nullopt;
  };
  std::int64_t units = 0;
  for (char c : whole) {
    const int digit = c - '0';
    if (units > (max_ns - digit) / 10) return fail_too_large();
    units = units * 10 + digit;
  }
  // Digit k of the fraction is worth unit_ns / 10^k nanoseconds (unit_ns is a power of
  // ten); a nonzero digit worth less than a nanosecond is refused.
  std::int64_t frac_ns = 0;
  std::int64_t weight = unit_ns;
  for (char c : fraction) {
    weight /= 10;
    if (weight == 0) {
      if (c != '0') return std::nullopt;  // finer than a nanosecond
      continue;
    }
    frac_ns += (c - '0') * weight;
  }
  if (units > (max_ns - frac_ns) / unit_ns) return fail_too_large();
  return Time{units * unit_ns + frac_ns};
}

}  // namespace takt::sched
