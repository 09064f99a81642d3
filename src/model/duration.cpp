// Durations as written in task-set files ("10ms", "1.5ms", "250us", "2s") and back.
#include "model/duration.hpp"

#include "model/text.hpp"

#include "takt/error.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <utility>

namespace takt::model {
namespace {

constexpr std::int64_t kMaxDecimalScale = 1'000'000'000'000'000'000;  // 18 decimals
constexpr const char* kLargest = " (at most 4611686018.427387904s = 2^62 ns, about 146 years)";

struct Unit {
  std::string_view name;
  std::int64_t nanoseconds;
};
// µs with the micro sign (U+00B5) or the Greek letter mu (U+03BC), which Greek and
// other keyboards type and which looks the same.
constexpr std::array<Unit, 6> kUnits{{{"ns", 1},
                                      {"us", 1'000},
                                      {"\u00b5s", 1'000},
                                      {"\u03bcs", 1'000},
                                      {"ms", 1'000'000},
                                      {"s", 1'000'000'000}}};

}  // namespace

std::chrono::nanoseconds parse_duration(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  std::string_view number = text.substr(0, i);
  std::string_view rest = text.substr(i);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  auto not_a_duration = [&] {
    return Error(shown(text) +
                 " is not a duration; write a non-negative number with a unit, e.g. 10ms, 1.5ms, "
                 "250us, 2s");
  };
  if (number.empty()) throw not_a_duration();
  if (rest.empty()) {
    // Zero needs no unit, but it must be a number: a digit, at most one decimal point
    // ("0", "0.0"; not ".", "..", "0.0.0").
    const bool is_number =
        number.find_first_of("0123456789") != std::string_view::npos && number.find('.') == number.rfind('.');
    if (!is_number) throw not_a_duration();
    if (number.find_first_not_of("0.") == std::string_view::npos) return std::chrono::nanoseconds{0};
    throw Error(shown(text) + " has no unit; add one of ns, us, ms, s (e.g. " + std::string(number) + "ms)");
  }
  const Unit* unit = nullptr;
  for (const Unit& u : kUnits) {
    if (rest == u.name) unit = &u;
  }
  if (unit == nullptr) {
    // No digit before it (".nan"), or no letter after the number ("0-65535"): not a
    // duration, rather than a duration of an unknown unit.
    if (number.find_first_of("0123456789") == std::string_view::npos ||
        (!std::isalpha(static_cast<unsigned char>(rest.front())) &&
         static_cast<unsigned char>(rest.front()) < 0x80))
      throw not_a_duration();
    // 1e3ms: an exponent reads as the start of a unit.
    if (starts_exponent(rest)) {
      throw Error(shown(text) +
                  " has an exponent, which durations do not take; write the number out (1000ms, "
                  "not 1e3ms)");
    }
    throw Error(shown(text) + " has unknown unit " + shown(rest) + "; use ns, us, ms or s");
  }
  // Digits are gathered in 128 bits: the whole part stops at kMaxDuration units (so
  // the products below cannot overflow), the fraction at 18 decimals.
  using i128 = __int128;
  const i128 max_ns = kMaxDuration.count();
  i128 whole = 0;
  i128 fraction = 0;
  i128 fraction_scale = 1;
  bool seen_point = false;
  int digits = 0;
  for (char c : number) {
    if (c == '.') {
      if (seen_point) throw Error(shown(text) + " has two decimal points");
      seen_point = true;
      continue;
    }
    ++digits;
    if (seen_point) {
      if (fraction_scale >= kMaxDecimalScale)
        throw Error(shown(text) + " has more than 18 decimals; write it with at most 18");
      fraction = fraction * 10 + (c - '0');
      fraction_scale *= 10;
    } else {
      whole = whole * 10 + (c - '0');
      if (whole > max_ns) throw Error(shown(text) + " is too large" + kLargest);
    }
  }
  if (digits == 0) throw Error(shown(text) + " has no digits");
  // fraction / fraction_scale of a unit must be a whole number of nanoseconds.
  const i128 scaled = fraction * unit->nanoseconds;
  if (scaled % fraction_scale != 0) {
    throw Error(shown(text) + " is not a whole number of nanoseconds; " +
                (unit->nanoseconds == 1 ? std::string("give whole nanoseconds (ns is the smallest unit)")
                                        : std::string("use fewer decimals or a smaller unit")));
  }
  const i128 total = whole * unit->nanoseconds + scaled / fraction_scale;
  if (total > max_ns) throw Error(shown(text) + " is too large" + kLargest);
  const auto value = static_cast<std::int64_t>(total);
  return std::chrono::nanoseconds{value};
}

std::string format_duration(std::chrono::nanoseconds d) {
  std::int64_t ns = d.count();
  if (ns == 0) return "0";
  std::string sign;
  if (ns < 0) {
    sign = "-";
    ns = -ns;
  }
  // The largest unit not above the value, with as many decimals as the value needs.
  static constexpr std::array<std::pair<std::int64_t, std::string_view>, 4> units{
      {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}, {1, "ns"}}};
  for (const auto& [scale, name] : units) {
    if (ns < scale && scale > 1) continue;
    std::string text = std::to_string(ns / scale);
    if (std::int64_t rest = ns % scale; rest != 0) {
      std::string fraction = std::to_string(rest);
      fraction.insert(0, std::to_string(scale).size() - 1 - fraction.size(), '0');
      while (fraction.back() == '0') fraction.pop_back();
      text += "." + fraction;
    }
    return sign + text + std::string(name);
  }
  return sign + std::to_string(ns) + "ns";
}

std::string display_duration(std::chrono::nanoseconds d, int decimals) {
  if (d.count() == 0) return "0";
  double ns = static_cast<double>(d.count());
  double magnitude = std::fabs(ns);
  const char* unit = "ns";
  double scale = 1;
  if (magnitude >= 1e9) {
    unit = "s";
    scale = 1e9;
  } else if (magnitude >= 1e6) {
    unit = "ms";
    scale = 1e6;
  } else if (magnitude >= 1e3) {
    unit = "us";
    scale = 1e3;
  }
  if (scale == 1) return std::to_string(d.count()) + "ns";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, ns / scale);
  std::string text = buffer;
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text + unit;
}

}  // namespace takt::model
