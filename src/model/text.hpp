// Text as takt reads and shows it: UTF-8 checks, and values as error messages show them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace takt::model {

/// The length of the well-formed UTF-8 sequence that starts at text[i] (no overlong
/// form, no surrogate, nothing above U+10FFFF), or 0 where none does.
std::size_t utf8_length_at(std::string_view text, std::size_t i);

/// The code point of the `length` bytes at text[i], a sequence utf8_length_at found.
char32_t code_point_at(std::string_view text, std::size_t i, std::size_t length);

/// C0, DEL, C1 (NEL among them) and the Unicode line and paragraph separators: what a
/// name may not hold.
bool control_or_line_break(char32_t cp);

/// A space of any kind, visible or not (U+0020, no-break, ideographic, zero-width, ...):
/// a name of these only is blank.
bool space(char32_t cp);

/// Whether `text` starts as a number's exponent does: e or E, then a digit or a sign.
bool starts_exponent(std::string_view text);

/// The offset of the first byte that is not part of well-formed UTF-8, or npos.
std::size_t first_bad_utf8(std::string_view text);

/// `text` in single quotes, with what would not show in a one-line message written as
/// an escape: a line break as \n, a tab as \t, other control characters (C0, DEL, C1),
/// invisible and non-breaking spaces and the line separators as \u followed by four hex
/// digits, a byte that is not part of well-formed UTF-8 as \x and two hex digits
/// ('10us\u00A0').
std::string shown(std::string_view text);

}  // namespace takt::model
