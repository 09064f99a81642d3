// Warnings to the user: one line on stderr, optionally only once per key.
#pragma once

#include <functional>
#include <string_view>

namespace takt::os {

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

}  // namespace takt::os
