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

std::optional<Time> parse_duration(std::string_view text) {
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
  // Whole part and fraction separately in integers, so "1.5ms" is exactly 1500000.
  const std::size_t dot = number.find('.');
  const std::string whole(number.substr(0, dot));
  const std::string fraction =
      dot == std::string_view::npos ? std::string() : std::string(number.substr(dot + 1));
  if (whole.empty() || whole.size() > 12) return std::nullopt;
  const auto unit_ns = static_cast<std::int64_t>(scale);
  std::int64_t ns = std::stoll(whole) * unit_ns;
  std::int64_t divisor = 1;
  std::int64_t frac = 0;
  for (char c : fraction) {
    if (divisor > unit_ns) return std::nullopt;  // finer than a nanosecond
    frac = frac * 10 + (c - '0');
    divisor *= 10;
  }
  if (!fraction.empty()) {
    if ((frac * unit_ns) % divisor != 0) return std::nullopt;
    ns += frac * unit_ns / divisor;
  }
  return Time{ns};
}

}  // namespace takt::sched
