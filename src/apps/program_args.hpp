// Reads a built-in program's positional arguments (sizes, counts, choices) with messages that name the fix.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace takt::apps {

/// Reads the `args:` of a built-in program in order. Every argument is optional from
/// the first one left out: a missing one takes its default. A bad one throws
/// takt::Error naming the program, the argument's position and name, the accepted
/// range and the usage line, e.g.
///   program 'heat': argument 2 (COLUMNS) must be a whole number from 3 to 1000000, got 'wide';
///   usage: heat [ROWS=512] [COLUMNS=512] [STEPS=50] [LEAF_ROWS=10]
class ProgramArgs {
 public:
  ProgramArgs(std::string program, std::vector<std::string> args, std::string usage);

  /// The next argument as a whole number in [min, max], or `fallback` when there is none.
  std::uint64_t whole(std::string_view name, std::uint64_t fallback, std::uint64_t min, std::uint64_t max);
  /// The next argument as a decimal number in [min, max], or `fallback`.
  double number(std::string_view name, double fallback, double min, double max);
  /// The next argument, which must be one of `choices`, or `fallback`.
  std::string choice(std::string_view name, std::string_view fallback,
                     std::initializer_list<std::string_view> choices);
  /// Throws when arguments are left over.
  void finish() const;

 private:
  [[noreturn]] void fail(std::string_view name, const std::string& what) const;
  const std::string* next();

  std::string program_;
  std::vector<std::string> args_;
  std::string usage_;
  std::size_t position_ = 0;
};

}  // namespace takt::apps
