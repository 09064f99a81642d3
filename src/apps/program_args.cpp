// Positional arguments of the built-in programs.
#include "apps/program_args.hpp"

#include "takt/error.hpp"

#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace takt::apps {

ProgramArgs::ProgramArgs(std::string program, std::vector<std::string> args, std::string usage)
    : program_(std::move(program)), args_(std::move(args)), usage_(std::move(usage)) {}

const std::string* ProgramArgs::next() {
  if (position_ >= args_.size()) return nullptr;
  return &args_[position_++];
}

void ProgramArgs::fail(std::string_view name, const std::string& what) const {
  throw Error(
      fmt::format("program '{}': argument {} ({}) {}; usage: {}", program_, position_, name, what, usage_));
}

std::uint64_t ProgramArgs::whole(std::string_view name, std::uint64_t fallback, std::uint64_t min,
                                 std::uint64_t max) {
  const std::string* text = next();
  if (text == nullptr) return fallback;
  std::uint64_t value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (text->empty() || ec != std::errc() || ptr != end || value < min || value > max) {
    fail(name, fmt::format("must be a whole number from {} to {}, got '{}'", min, max, *text));
  }
  return value;
}

double ProgramArgs::number(std::string_view name, double fallback, double min, double max) {
  const std::string* text = next();
  if (text == nullptr) return fallback;
  // std::from_chars, as for whole numbers: no leading spaces, no hexadecimal, and not
  // the locale's decimal point (strtod took " 1e-3" and "0x1p-3", which whole() refuses).
  double value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value, std::chars_format::general);
  if (text->empty() || ec != std::errc() || ptr != end || !std::isfinite(value) || value < min ||
      value > max) {
    fail(name, fmt::format("must be a number from {} to {}, got '{}'", min, max, *text));
  }
  return value;
}

std::string ProgramArgs::choice(std::string_view name, std::string_view fallback,
                                std::initializer_list<std::string_view> choices) {
  const std::string* text = next();
  if (text == nullptr) return std::string(fallback);
  for (std::string_view c : choices) {
    if (*text == c) return *text;
  }
  std::string list;
  for (std::string_view c : choices) list += (list.empty() ? "" : ", ") + std::string(c);
  fail(name, fmt::format("must be one of {}, got '{}'", list, *text));
}

void ProgramArgs::finish() const {
  if (position_ < args_.size()) {
    throw Error(fmt::format("program '{}': {} argument(s) too many (the first extra one is '{}'); usage: {}",
                            program_, args_.size() - position_, args_[position_], usage_));
  }
}

}  // namespace takt::apps
