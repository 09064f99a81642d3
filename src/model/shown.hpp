// A value as error messages show it.
#pragma once

#include <string>
#include <string_view>

namespace takt::model {

/// `text` in single quotes, with what would not show in a one-line message written as
/// an escape: a line break as \n, a tab as \t, other control characters (C0, DEL, C1),
/// invisible and non-breaking spaces and the line separators as \u followed by four hex
/// digits, a byte that is not UTF-8 as \x and two hex digits ('10us\u00A0').
std::string shown(std::string_view text);

}  // namespace takt::model
