// Warnings to the user: one line on stderr, optionally only once per key; stderr
// output that never throws.
#pragma once

#include <fmt/core.h>

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace takt::os {

/// fmt::print(out, ...) that never throws, for messages (stderr, or a stream a caller
/// gave for them): one that cannot be written (the stream closed, on a full device, a
/// pipe whose reader has gone) is lost, and the command goes on to write its results.
/// fmt::print throws std::system_error there, which ended takt with std::terminate
/// when it came from the error report itself.
template <class... T>
void print_message(std::FILE* out, fmt::format_string<T...> format, T&&... args) noexcept {
  try {
    const std::string text = fmt::format(format, std::forward<T>(args)...);
    (void)std::fwrite(text.data(), 1, text.size(), out);
  } catch (...) {  // out of memory formatting it: the message is lost too
  }
}

/// print_message(stderr, ...).
template <class... T>
void to_stderr(fmt::format_string<T...> format, T&&... args) noexcept {
  print_message(stderr, format, std::forward<T>(args)...);
}

/// Prints "takt: warning: <message>" on stderr (or to the sink installed by tests).
void warn(std::string_view message);

/// Like warn(), but only the first call with a given key prints.
void warn_once(std::string_view key, std::string_view message);

/// Replaces where warnings go (tests capture them); an empty function restores stderr.
/// Returns the previous sink.
using WarningSink = std::function<void(std::string_view)>;
WarningSink set_warning_sink(WarningSink sink);

/// Forgets which keys warn_once() has seen (tests only).
void reset_warnings_for_testing();

/// Standard descriptors (0, 1, 2) the process was started without (closed, as by >&-),
/// which now hold a read-only /dev/null in their place (cli::run_main puts it there and
/// says so here): a path naming one (/dev/stdin) is no file to write.
void note_started_without(int fd) noexcept;
[[nodiscard]] bool started_without(int fd) noexcept;

}  // namespace takt::os
