// Strict reading of YAML nodes with file:line:column errors (shared by the file parsers).
#pragma once

#include "model/source_mark.hpp"

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace takt::model {

/// The position of a yaml-cpp mark (1-based line and column, byte offset).
SourceMark mark_of(const YAML::Mark& mark);

/// Loads YAML (or JSON) text; a syntax error becomes a takt::Error at its position.
YAML::Node load_yaml(std::string_view text, const std::string& source);

/// Throws takt::Error at the first zero byte, or the first byte that is not part of
/// well-formed UTF-8, as "source:line:column: ..." with what to do about it.
void check_utf8_text(std::string_view text, const std::string& source);
/// 3 when `text` starts with a UTF-8 byte-order mark (yaml-cpp's offsets leave it out),
/// else 0.
std::size_t utf8_bom_size(std::string_view text);
/// Where the node property (an anchor `&a` or a tag `!t`) that starts at byte `pos` of
/// `text` ends: the first blank, line end, ',', ']' or '}' after it. yaml-cpp marks a
/// node where its properties start, before its value.
std::size_t property_end(std::string_view text, std::size_t pos);

/// Edit (Levenshtein) distance between `a` and `b`, for "did you mean" hints on misspelt
/// keys and options.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The largest text file takt reads (task sets, profiles, .rtpt files): 256 MiB, far
/// beyond any task set (examples/ are a few KiB; 10,000 generated tasks about 2 MiB) and
/// a bound for a path that never ends (/dev/zero, a pipe that keeps writing).
inline constexpr std::size_t kMaxTextFileBytes = std::size_t{256} << 20;

/// Reads a whole file; throws takt::Error naming the path when it cannot, or when it
/// holds more than `limit` bytes.
std::string read_text_file(const std::string& path, const std::string& what,
                           std::size_t limit = kMaxTextFileBytes);

/// What is wrong with `text` as a name of a task, DAG node or program, or "" when nothing
/// is: it must be UTF-8 text, not empty, not blank (spaces of any kind) and hold no
/// control character or line break (C0, DEL, C1, U+2028, U+2029), which broke the tables.
std::string name_problem(std::string_view text);

/// Helpers that check a node's shape and turn every problem into a takt::Error
/// "source:line:column: message".
class YamlReader {
 public:
  /// `text`: the file's text (it must outlive the reader), which places a null value's
  /// errors at its key; without it they are placed where yaml-cpp puts a null node, at
  /// the next token (the next line, or past the end of the file).
  explicit YamlReader(std::string source, std::string_view text = {})
      : source_(std::move(source)), text_(text) {}

  [[nodiscard]] const std::string& source() const { return source_; }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const;
  [[noreturn]] void fail_at(SourceMark mark, const std::string& message) const;

  /// Requires a mapping.
  void expect_map(const YAML::Node& node, const std::string& what) const;
  /// Rejects keys not in `allowed` (with a "did you mean" hint) and repeated keys.
  void check_keys(const YAML::Node& map, const std::vector<std::string_view>& allowed,
                  const std::string& context) const;
  /// The text of a scalar node.
  [[nodiscard]] std::string scalar(const YAML::Node& node, const std::string& what) const;
  /// A name (of a task, a DAG node, a program): a scalar that is not empty or blank and
  /// holds no control character (a line break or tab in a name broke every table row).
  [[nodiscard]] std::string name(const YAML::Node& node, const std::string& what) const;
  /// A duration with unit (see duration.hpp).
  [[nodiscard]] std::chrono::nanoseconds duration(const YAML::Node& node, const std::string& what) const;
  /// The largest whole number integer() reads where its caller gives no limit: 18 digits.
  static constexpr std::int64_t kMaxInteger = 999'999'999'999'999'999;
  /// A whole number from min to max (max ≤ kMaxInteger). Above max (also where it has
  /// too many digits for 64 bits), the error is `too_large(text)` when given: a caller names its own limit
  /// ("cores: 1000000000000 is more cores than takt supports (at most 65536)"), not the
  /// reader's 18 digits.
  [[nodiscard]] std::int64_t integer(
      const YAML::Node& node, const std::string& what, std::int64_t min, std::int64_t max = kMaxInteger,
      const std::function<std::string(const std::string&)>& too_large = {}) const;

 private:
  /// Where an error about `node` is reported: its mark, or for a null value the key (or
  /// list dash) it belongs to.
  [[nodiscard]] SourceMark position_of(const YAML::Node& node) const;

  std::string source_;
  std::string_view text_;
};

}  // namespace takt::model
