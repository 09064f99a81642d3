// A position in a task-set file (line and column, 1-based) for messages.
#pragma once

#include <string>

namespace takt::model {

/// Where something was written: 1-based line and column, and the byte offset into
/// the text; line 0 when unknown (a task built in code rather than read from a file).
struct SourceMark {
  int line = 0;
  int column = 0;
  long offset = -1;  ///< byte offset of the first character, -1 when unknown

  [[nodiscard]] bool known() const { return line > 0; }
  /// "file:line:column" (or just "file" when the position is unknown).
  [[nodiscard]] std::string where(const std::string& file) const {
    if (!known()) return file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
  }
};

}  // namespace takt::model
