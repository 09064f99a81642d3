// Durations as written in task-set files ("10ms", "1.5ms", "250us", "2s") and back.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace takt::model {

/// The largest duration takt accepts, written or derived (a task's work Σ m·e, its
/// span, a run length): 2^62 ns, about 146 years. The sum of two such values is at
/// most 2^63 ns, one past INT64_MAX: a task's offset + period is checked against this
/// limit when it is read, and sums of times elsewhere saturate or stay below it.
inline constexpr std::chrono::nanoseconds kMaxDuration{std::int64_t{1} << 62};

/// Parses a duration: a non-negative decimal number, optional spaces, and a unit
/// (`ns`, `us` or `µs`, `ms`, `s`). Decimals are accepted as long as the value is a
/// whole number of nanoseconds ("1.5ms" yes, "1.5ns" no); no sign, no exponent.
/// Zero is accepted without a unit (`0`, `0.0`; not `.`). Values up to kMaxDuration are accepted,
/// that one included. Throws takt::Error with a message that says what is wrong
/// (without a file position; the caller adds it).
std::chrono::nanoseconds parse_duration(std::string_view text);

/// An exact spelling of `d` in the largest unit not above it, with as many decimals
/// as needed, that parse_duration reads back to the same value: "10ms", "1.5ms",
/// "761.905us", "3.333333ms", "3ns", "0".
std::string format_duration(std::chrono::nanoseconds d);

/// A rounded spelling for people (tables, messages): at most `decimals` decimals in
/// the largest unit not above the value, e.g. "3.333ms". Not exact.
std::string display_duration(std::chrono::nanoseconds d, int decimals = 3);

}  // namespace takt::model
