// Strict reading of YAML nodes with file:line:column errors (shared by the file parsers).
#include "model/yaml_reader.hpp"

#include "model/duration.hpp"
#include "model/text.hpp"
#include "takt/error.hpp"

#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace takt::model {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

SourceMark mark_of(const YAML::Mark& m) {
  if (m.is_null() || m.line < 0) return {};
  return SourceMark{m.line + 1, m.column + 1, m.pos};
}

namespace {

/// The 1-based line and column (in bytes) of byte `offset` of `text`.
SourceMark mark_at(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::size_t newline = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
  const std::size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
  const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n') + 1;
  return SourceMark{static_cast<int>(line), static_cast<int>(offset - line_start + 1),
                    static_cast<long>(offset)};
}

/// "line:column" of byte `offset` of `text`.
std::string line_column(std::string_view text, std::size_t offset) {
  const SourceMark m = mark_at(text, offset);
  return std::to_string(m.line) + ":" + std::to_string(m.column);
}

/// What a syntax error needs to know of the text, from one pass that follows YAML's
/// lexical rules roughly: quoted strings, comments and block scalars (`|`, `>`) are
/// skipped, and `[`, `{`, quotes and `|`/`>` count only where a value can start (so
/// `name: a[1]` and `it's` are plain text).
struct SyntaxScan {
  struct Bracket {
    char open;                                       ///< '[' or '{'
    std::size_t at;                                  ///< its offset
    std::size_t closed_at = std::string_view::npos;  ///< offset of its closer; npos: never closed
  };
  std::vector<Bracket> brackets;                   ///< in the order they were opened
  std::size_t first_tab = std::string_view::npos;  ///< a tab in the indentation of a block-context line
  /// The opening quote of a quoted value that is never closed (it runs to the end of
  /// the text, which yaml-cpp accepts as a value); npos: none.
  std::size_t unclosed_quote = std::string_view::npos;

  explicit SyntaxScan(std::string_view text) {
    std::vector<std::size_t> open;  // indices into `brackets`
    const std::size_t n = text.size();
    std::size_t i = 0;
    while (i < n) {
      // A line: its indentation first.
      const std::size_t line_start = i;
      while (i < n && (text[i] == ' ' || text[i] == '\t')) ++i;
      const std::size_t indent = i - line_start;
      const bool content = i < n && text[i] != '\n' && text[i] != '\r' && text[i] != '#';
      if (content && open.empty() && first_tab == std::string_view::npos) {
        const std::size_t tab = text.substr(line_start, indent).find('\t');
        if (tab != std::string_view::npos) first_tab = line_start + tab;
      }
      char before = '\0';  // the last character outside spaces on this line; '\0' at its start
      bool spaced = true;  // whitespace since `before`
      bool block_scalar = false;
      while (i < n && text[i] != '\n') {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\r') {
          spaced = true;
          ++i;
          continue;
        }
        if (c == '#' && spaced) {  // a comment, to the end of the line
          while (i < n && text[i] != '\n') ++i;
          break;
        }
        // Where a value can start: at the line's start, after "- ", ": ", "? ", and in
        // a flow collection after '[', '{', ',' (and ':' right after a JSON key).
        const bool value_start = before == '\0' || before == '[' || before == '{' || before == ',' ||
                                 ((before == '-' || before == ':' || before == '?') && spaced) ||
                                 (before == ':' && !open.empty());
        // `|` or `>` (with `-`, `+` or an indentation digit after it) ending a line starts
        // a block scalar.
        block_scalar = (value_start && open.empty() && (c == '|' || c == '>')) ||
                       (block_scalar && !spaced && (c == '-' || c == '+' || (c >= '0' && c <= '9')));
        if (value_start && (c == '"' || c == '\'')) {
          const std::size_t opened = i;
          bool closed = false;
          i = skip_quoted(text, i, closed);
          if (!closed && unclosed_quote == std::string_view::npos) unclosed_quote = opened;
        } else if (value_start && (c == '[' || c == '{')) {
          open.push_back(brackets.size());
          brackets.push_back({c, i});
          ++i;
        } else if (!open.empty() && (c == ']' || c == '}')) {
          const char opener = c == ']' ? '[' : '{';
          // Close the innermost bracket of this kind; those opened inside it stay unclosed.
          for (std::size_t k = open.size(); k-- > 0;) {
            if (brackets[open[k]].open == opener) {
              brackets[open[k]].closed_at = i;
              open.resize(k);
              break;
            }
          }
          ++i;
        } else {
          ++i;
        }
        before = c;
        spaced = false;
      }
      if (i < n) ++i;  // the '\n'
      if (block_scalar) i = skip_block_scalar(text, i, indent);
    }
  }

  /// The innermost bracket still open at `offset` (opened before it, closed at or after
  /// it, or never), or null.
  [[nodiscard]] const Bracket* open_at(std::size_t offset) const {
    const Bracket* found = nullptr;
    for (const Bracket& b : brackets) {
      if (b.at < offset && (b.closed_at == std::string_view::npos || b.closed_at >= offset)) found = &b;
    }
    return found;
  }

 private:
  /// The offset after the quoted string that starts at `i` (the end of the text if it
  /// does not end, `closed` false): "..." with backslash escapes, '...' with '' for a quote.
  static std::size_t skip_quoted(std::string_view text, std::size_t i, bool& closed) {
    const char quote = text[i++];
    closed = false;
    while (i < text.size()) {
      if (quote == '"' && text[i] == '\\') {
        i += 2;
      } else if (text[i] == quote) {
        if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          i += 2;
        } else {
          closed = true;
          return i + 1;
        }
      } else {
        ++i;
      }
    }
    return text.size();
  }

  /// The start of the first line from `i` on that is neither blank nor indented more
  /// than `indent`: the end of a block scalar's content.
  static std::size_t skip_block_scalar(std::string_view text, std::size_t i, std::size_t indent) {
    while (i < text.size()) {
      std::size_t j = i;
      while (j < text.size() && text[j] == ' ') ++j;
      const bool blank = j == text.size() || text[j] == '\n' || text[j] == '\r';
      if (!blank && j - i <= indent) return i;
      const std::size_t end = text.find('\n', j);
      i = end == std::string_view::npos ? text.size() : end + 1;
    }
    return i;
  }
};

/// yaml-cpp's message `message` for a syntax error at `mark`, with what to change: a tab
/// in the indentation, a '[' or '{' never closed, a closer that does not match, a
/// missing ',' in a flow collection; otherwise a general hint.
std::string explain_syntax_error(std::string_view text, const YAML::Mark& mark, const std::string& message) {
  const std::string parser = " (the YAML parser: " + message + ")";
  const std::size_t at =
      mark.pos >= 0 ? std::min(static_cast<std::size_t>(mark.pos), text.size()) : text.size();
  // A carriage return alone as the line end (classic Mac OS): yaml-cpp reads the file as
  // one line, and the error's place and message say nothing of why. Only for an error on
  // that one line of a UTF-8 file (a NUL byte: UTF-16 or UTF-32, where the byte after a
  // CR is 0; a stray CR in a file of LF lines is not its line end).
  const bool one_line = mark.line == 0 && text.substr(0, at).find('\n') == std::string_view::npos;
  const bool utf8 = text.find('\0') == std::string_view::npos;
  for (std::size_t cr = text.find('\r'); one_line && utf8 && cr != std::string_view::npos && cr < at;
       cr = text.find('\r', cr + 1)) {
    if (cr + 1 == text.size() || text[cr + 1] != '\n') {
      return "the lines of this file end in a carriage return alone (CR, byte 0x0D, first at byte " +
             std::to_string(cr + 1) +
             "), which the YAML parser does not read as a line end, so it reads one long line; save the file "
             "with LF (or CR LF) line ends, e.g. with tr '\\r' '\\n'" +
             parser;
    }
  }
  const SyntaxScan scan(text);
  // A tab where the parser already was: YAML never indents with tabs.
  if (scan.first_tab != std::string_view::npos && scan.first_tab <= at) {
    const SourceMark tab = mark_at(text, scan.first_tab);
    return "line " + std::to_string(tab.line) + " is indented with a tab (at column " +
           std::to_string(tab.column) +
           "); YAML indents with spaces only: replace the tabs in its indentation with spaces" + parser;
  }
  // A quote opened before this point and never closed: the parser read on past it.
  if (scan.unclosed_quote != std::string_view::npos && scan.unclosed_quote <= at) {
    return std::string("the quote (") + text[scan.unclosed_quote] + ") opened at " +
           line_column(text, scan.unclosed_quote) + " is never closed; close the value with a matching " +
           text[scan.unclosed_quote] + parser;
  }
  const auto closer_of = [](char open) { return open == '[' ? ']' : '}'; };
  const auto kind_of = [](char open) { return open == '[' ? "list" : "mapping"; };
  const char here = at < text.size() ? text[at] : '\0';
  const SyntaxScan::Bracket* inside = scan.open_at(at);
  if (here == ']' || here == '}') {
    if (inside == nullptr) {
      return std::string("this '") + here + "' closes nothing: no '" + (here == ']' ? '[' : '{') +
             "' is open here; remove it" + parser;
    }
    if (closer_of(inside->open) != here) {
      return std::string("this '") + here + "' comes before the '" + inside->open + "' opened at " +
             line_column(text, inside->at) + " is closed; close that " + kind_of(inside->open) + " with '" +
             closer_of(inside->open) + "' first" + parser;
    }
  }
  if (inside != nullptr && inside->closed_at == std::string_view::npos) {
    return std::string("the '") + inside->open + "' opened at " + line_column(text, inside->at) +
           " is never closed with '" + closer_of(inside->open) + "'; add it after the last item of that " +
           kind_of(inside->open) + parser;
  }
  if (inside != nullptr &&
      (message == YAML::ErrorMsg::END_OF_MAP_FLOW || message == YAML::ErrorMsg::END_OF_SEQ_FLOW)) {
    return std::string("in the ") + kind_of(inside->open) + " '" + inside->open + "' opened at " +
           line_column(text, inside->at) + ", items are separated by ', ': add the missing ',' before this " +
           "point, or put quotes around a value that contains ': '" + parser;
  }
  return message +
         "; a YAML syntax error at or just before this point: check the indentation (spaces, the same for "
         "every key of a mapping), a ': ' after each key, a ',' between the items of [...] and {...}, and "
         "quotes around a value that contains ': ', ' #' or '?'";
}

}  // namespace

void check_utf8_text(std::string_view text, const std::string& source) {
  if (const std::size_t zero = text.find('\0'); zero != std::string_view::npos) {
    throw Error(mark_at(text, zero).where(source) +
                ": a zero byte (0x00), which no text file holds; remove it (is the file binary, or cut "
                "short while it was written?)");
  }
  if (const std::size_t bad = first_bad_utf8(text); bad != std::string_view::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[bad]));
    throw Error(mark_at(text, bad).where(source) + ": byte " + hex + " is not UTF-8 text; save the file as UTF-8");
  }
}

namespace {

/// The collections (mappings and lists) a walk has entered. An alias is the node its
/// anchor names, not a copy: nine levels of ten aliases each are a billion paths to a
/// few scalars, so a walk enters every collection once. Loaded nodes are told apart by
/// where they start in the text, and among those that start at one place (a mapping and
/// its first key) by identity.
class VisitedCollections {
 public:
  /// `aliases`: whether the text may hold an alias (a '*'); without one no node is
  /// reached twice, and nothing is kept.
  explicit VisitedCollections(bool aliases) : aliases_(aliases) {}
  /// True the first time for a node, false after.
  bool enter(const YAML::Node& node) {
    if (!aliases_) return true;
    auto [first, last] = seen_.equal_range(node.Mark().pos);
    for (auto it = first; it != last; ++it) {
      if (it->second.is(node)) return false;
    }
    seen_.emplace(node.Mark().pos, node);
    return true;
  }

 private:
  bool aliases_;
  std::unordered_multimap<int, YAML::Node> seen_;
};

/// The first node of `node` (itself, a key, a value or an item, collections before what
/// they hold) for which `pred` holds, or null.
template <class Pred>
std::optional<YAML::Node> first_node(const YAML::Node& node, const Pred& pred, VisitedCollections& visited,
                                     int depth = 0) {
  if (depth > 1000) return std::nullopt;  // yaml-cpp's own depth guard stops far earlier
  if (pred(node)) return node;
  if (!(node.IsSequence() || node.IsMap()) || !visited.enter(node)) return std::nullopt;
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) {
      if (auto found = first_node(item, pred, visited, depth + 1)) return found;
    }
  } else {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (auto found = first_node(it->first, pred, visited, depth + 1)) return found;
      if (auto found = first_node(it->second, pred, visited, depth + 1)) return found;
    }
  }
  return std::nullopt;
}

template <class Pred>
std::optional<YAML::Node> first_node(const YAML::Node& node, const Pred& pred, bool aliases) {
  VisitedCollections visited(aliases);
  return first_node(node, pred, visited);
}

/// The first scalar (key or value) in `node` for which `pred` holds, or null.
template <class Pred>
std::optional<YAML::Node> first_scalar(const YAML::Node& node, const Pred& pred, bool aliases = true) {
  return first_node(
      node, [&pred](const YAML::Node& n) { return n.IsScalar() && pred(n); }, aliases);
}

/// A tag as written: yaml-cpp gives the standard ones in full ("tag:yaml.org,2002:str").
std::string tag_as_written(const std::string& tag) {
  constexpr std::string_view standard = "tag:yaml.org,2002:";
  return tag.starts_with(standard) ? "!!" + tag.substr(standard.size()) : tag;
}

/// No node may carry an explicit tag (`!!str 5`, `!duration 10ms`, `! 5`): takt reads a
/// value by its key, so a tag would be ignored silently, and `cores: !!str 5` would read
/// as the count 5 where the quoted "5" is CPU 5. yaml-cpp gives an untagged node the tag
/// "?" (plain) or "!" (quoted or block scalar), and the written non-specific tag `!` the
/// tag "!" too: that one is told apart by the text where the node starts (after an
/// anchor), which `text` holds where it is UTF-8 (yaml-cpp's offsets leave a byte-order
/// mark out; an empty `text` is not looked at). Only looked for where the text holds a '!'.
void check_no_tags(const YAML::Node& root, const std::string& source, bool aliases, std::string_view text) {
  auto written_bang = [text](const YAML::Node& n) {
    const long pos = n.Mark().pos;
    if (text.empty() || pos < 0 || static_cast<std::size_t>(pos) >= text.size()) return false;
    std::size_t at = static_cast<std::size_t>(pos);
    if (text[at] == '&') {  // an anchor before the tag or the value
      at = property_end(text, at);
      while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
    }
    return at < text.size() && text[at] == '!';
  };
  const auto tagged = first_node(
      root,
      [&written_bang](const YAML::Node& n) {
        const std::string& tag = n.Tag();
        return !tag.empty() && tag != "?" && (tag != "!" || written_bang(n));
      },
      aliases);
  if (tagged) {
    throw Error(mark_of(tagged->Mark()).where(source) + ": the YAML tag " +
                shown(tag_as_written(tagged->Tag())) +
                " is not used by takt (each value is read by its key); remove it (to make a value text, "
                "quote it)");
  }
}

/// Every key and value must have come out of yaml-cpp as UTF-8: an unpaired surrogate of
/// a UTF-16 file, and the escapes "\N", "\x85" or "\xFF" of a double-quoted value in any
/// file, came through as single bytes that no JSON output can hold ("internal error ...
/// invalid UTF-8 byte").
void check_decoded_scalars(const YAML::Node& root, const std::string& source, bool aliases) {
  const auto bad = first_scalar(
      root,
      [](const YAML::Node& n) {
        return n.Scalar().find('\0') != std::string::npos ||
               first_bad_utf8(n.Scalar()) != std::string_view::npos;
      },
      aliases);
  if (bad && bad->Scalar().find('\0') != std::string::npos) {
    throw Error(mark_of(bad->Mark()).where(source) +
                ": this value holds a NUL character (an escape \\0 or \\u0000 in quotes), which no name, "
                "program or argument can hold; remove it");
  }
  if (bad) {
    throw Error(mark_of(bad->Mark()).where(source) +
                ": this value holds a character that is not valid Unicode (an unpaired UTF-16 surrogate, or "
                "an escape such as \\N or \\x85 that the YAML reader turns into a lone byte); write the "
                "character itself, or \\u0085 for a code point");
  }
}

/// Whether a quoted scalar (yaml-cpp's tag "!") of `root` starts at byte offset `pos` of
/// the loaded text.
bool quoted_scalar_at(const YAML::Node& root, long pos) {
  return first_scalar(root, [pos](const YAML::Node& n) { return n.Mark().pos == pos && n.Tag() == "!"; })
      .has_value();
}

}  // namespace

std::size_t utf8_bom_size(std::string_view text) { return text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0; }

std::size_t property_end(std::string_view text, std::size_t pos) {
  const std::size_t end = text.find_first_of(" \t\r\n,]}", pos);
  return end == std::string_view::npos ? text.size() : end;
}

YAML::Node load_yaml(std::string_view text, const std::string& source) {
  // YAML and JSON files are Unicode text; a file in another 8-bit encoding would put its
  // bytes into names that no JSON output can hold. A UTF-16 or UTF-32 file, which
  // yaml-cpp reads itself, starts with a byte-order mark or, as YAML 1.2 §5.2 detects
  // it, with ASCII characters and zero bytes in the pattern of its encoding (two
  // characters "ta" are 74 00 61 00 in UTF-16LE). Any other zero byte is an error, also
  // the first or second byte of the file ("#\0\n..." was taken for UTF-16).
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  bool other_unicode = false;
  if (text.size() >= 2 && ((byte(0) == 0xFE && byte(1) == 0xFF) || (byte(0) == 0xFF && byte(1) == 0xFE))) {
    other_unicode = true;  // UTF-16 (or UTF-32LE) byte-order mark
  } else if (text.size() >= 4) {
    const bool z0 = byte(0) == 0, z1 = byte(1) == 0, z2 = byte(2) == 0, z3 = byte(3) == 0;
    other_unicode = (z0 && z1 && byte(2) == 0xFE && byte(3) == 0xFF) ||  // UTF-32BE mark
                    (z0 && z1 && z2 && !z3) || (!z0 && z1 && z2 && z3) ||  // UTF-32BE, LE
                    (z0 && !z1 && z2 && !z3) || (!z0 && z1 && !z2 && z3);  // UTF-16BE, LE
  } else if (text.size() >= 2) {
    other_unicode = (byte(0) == 0) != (byte(1) == 0);  // one UTF-16 character
  }
  if (!other_unicode) check_utf8_text(text, source);
  try {
    std::vector<YAML::Node> documents = YAML::LoadAll(std::string(text));
    // yaml-cpp's Load reads the first document and ignores the rest silently. A '---'
    // with nothing after it (but comments) makes an empty document, which holds nothing
    // to lose.
    // yaml-cpp lets a quoted value that is never closed run to the end of the file: the
    // rest of the file became that value (a name such as "a\n  period: 10ms ...").
    // The scan is rough (a quote inside a plain value, `a, 'b`, can look like one that
    // opens a value): only a quoted value that yaml-cpp really read from that quote counts.
    if (!other_unicode && !documents.empty() && text.find_first_of("\"'") != std::string_view::npos) {
      const SyntaxScan scan(text);
      const std::size_t bom = utf8_bom_size(text);  // yaml-cpp's offsets leave it out
      if (scan.unclosed_quote != std::string_view::npos && scan.unclosed_quote >= bom &&
          quoted_scalar_at(documents.front(), static_cast<long>(scan.unclosed_quote - bom))) {
        throw Error(mark_at(text, scan.unclosed_quote).where(source) + ": this quote (" +
                    text[scan.unclosed_quote] +
                    ") is never closed, so the value runs to the end of the file; close it with a matching " +
                    text[scan.unclosed_quote]);
      }
    }
    const auto second = std::find_if(documents.begin() + (documents.empty() ? 0 : 1), documents.end(),
                                     [](const YAML::Node& d) { return !d.IsNull(); });
    if (second != documents.end()) {
      const SourceMark at = mark_of(second->Mark());
      // A '---' line before it (not counting one that opens the first document: one
      // before the first document's content, after comments or directives too), or else
      // text after the first document's end (JSON's closing '}', or a YAML '...').
      const std::size_t upto =
          at.offset >= 0 ? std::min(static_cast<std::size_t>(at.offset), text.size()) : text.size();
      // (An empty first document's mark is not where it starts: yaml-cpp places it later.)
      const SourceMark first =
          documents.front().IsNull() ? SourceMark{} : mark_of(documents.front().Mark());
      int dash_lines = 0;
      for (std::size_t p = 0; p <= upto && p < text.size();) {
        const bool opens_first = first.offset >= 0 && p <= static_cast<std::size_t>(first.offset);
        if (text.substr(p, 3) == "---" && !opens_first) ++dash_lines;
        const std::size_t end = text.find('\n', p);
        if (end == std::string_view::npos) break;
        p = end + 1;
      }
      // An empty first document has no content to place its opening line by: the first
      // '---' line opens it (after comments or directives too).
      if (first.offset < 0 && dash_lines > 0) --dash_lines;
      const bool dashes = dash_lines > 0;
      throw Error(at.where(source) +
                  (dashes ? ": a second YAML document (after a '---' line) starts here; a file holds one task "
                            "set: remove the '---' line, or put the second set in a file of its own"
                          : ": more text after the end of the task set (a second document starts here); a file "
                            "holds one task set: remove what follows the first one's end (in JSON, the "
                            "closing '}')"));
    }
    if (!documents.empty()) {
      const bool aliases = text.find('*') != std::string_view::npos;
      check_decoded_scalars(documents.front(), source, aliases);
      if (text.find('!') != std::string_view::npos) {
        check_no_tags(documents.front(), source, aliases,
                      other_unicode ? std::string_view() : text.substr(utf8_bom_size(text)));
      }
    }
    return documents.empty() ? YAML::Node() : documents.front();
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for this is "bad file".
    throw Error(mark_of(e.mark).where(source) +
                ": nested too deeply for the YAML parser (it stops at a depth of " +
                std::to_string(e.depth()) +
                "); a task set nests a few levels: look for unbalanced or repeated brackets there");
  } catch (const YAML::ParserException& e) {
    throw Error(mark_of(e.mark).where(source) + ": " + explain_syntax_error(text, e.mark, e.msg));
  } catch (const YAML::Exception& e) {
    throw Error(source + ": " + e.what());
  }
}

std::string read_text_file(const std::string& path, const std::string& what, std::size_t limit) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error("cannot read " + what + " '" + path + "': it is a folder; give the path of a file");
  }
  if (std::filesystem::is_socket(path, ec)) {  // open() says only "No such device or address"
    throw Error("cannot read " + what + " '" + path + "': it is a socket; give the path of a file");
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    throw Error("cannot read " + what + " '" + path + "'" +
                (error != 0 ? std::string(": ") + std::strerror(error) : "") +
                (error == EACCES ? "; check its permissions" : "; check the path"));
  }
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got > limit - text.size()) {
      const std::string size = limit % (std::size_t{1} << 20) == 0 ? std::to_string(limit >> 20) + " MiB"
                                                                   : std::to_string(limit) + " bytes";
      throw Error("cannot read " + what + " '" + path + "': it holds more than " + size + ", more than any " +
                  what + " takt reads; check the path (a device such as /dev/zero, or a pipe that keeps " +
                  "writing, never ends)");
    }
    text.append(chunk, got);
  }
  if (in.bad()) throw Error("reading " + what + " '" + path + "' failed: " + std::strerror(errno));
  return text;
}

void YamlReader::fail(const YAML::Node& node, const std::string& message) const {
  fail_at(position_of(node), message);
}

SourceMark YamlReader::position_of(const YAML::Node& node) const {
  const SourceMark mark = mark_of(node.Mark());
  if (!node.IsNull() || text_.empty() || mark.offset < 0) return mark;
  // yaml-cpp's offsets are into the text it decoded: a UTF-16/32 file's offsets are not
  // this text's (keep its mark), a UTF-8 byte-order mark is left out of them.
  if (text_.find('\0') != std::string_view::npos) return mark;
  const std::size_t bom = utf8_bom_size(text_);
  // A null written out (~, null) is marked where it is written.
  const std::string_view from =
      text_.substr(std::min(static_cast<std::size_t>(mark.offset) + bom, text_.size()));
  for (std::string_view word : {"~", "null", "Null", "NULL"}) {
    if (from.substr(0, word.size()) == word &&
        (from.size() == word.size() ||
         std::string_view(" \t\r\n,]}#").find(from[word.size()]) != std::string_view::npos)) {
      return mark;
    }
  }
  // yaml-cpp marks an empty value at the token after it. Walk back over white space and
  // comments to what the value belongs to: "key:" (report the key), "- " or a flow ','.
  std::size_t i = std::min(static_cast<std::size_t>(mark.offset) + bom, text_.size());
  while (i > bom) {
    const char c = text_[i - 1];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      --i;
      continue;
    }
    // A comment on this line ('#' after a space or at the line's start) ends before it.
    const std::size_t newline = text_.rfind('\n', i - 1);
    const std::size_t line = newline == std::string_view::npos ? 0 : newline + 1;
    std::size_t hash = std::string_view::npos;
    for (std::size_t k = line; k < i; ++k) {
      if (text_[k] == '#' && (k == line || text_[k - 1] == ' ' || text_[k - 1] == '\t')) {
        hash = k;
        break;
      }
    }
    if (hash == std::string_view::npos) break;
    i = hash;
  }
  if (i <= bom) return mark;
  std::size_t at = i - 1;  // the character before the empty value
  if (text_[at] == ':') {
    // The key: back to its start (a space, or a flow '{' or ',' before it, or the line's start).
    std::size_t start = at;
    while (start > bom && text_[start - 1] != ' ' && text_[start - 1] != '\t' && text_[start - 1] != '\n' &&
           text_[start - 1] != '{' && text_[start - 1] != ',') {
      --start;
    }
    at = start;
  }
  SourceMark found = mark_at(text_, at);
  if (found.line == 1) found.column -= static_cast<int>(bom);
  found.offset -= static_cast<long>(bom);  // as yaml-cpp's offsets
  return found;
}

void YamlReader::fail_at(SourceMark mark, const std::string& message) const {
  throw Error(mark.where(source_) + ": " + message);
}

void YamlReader::expect_map(const YAML::Node& node, const std::string& what) const {
  if (!node.IsMap()) fail(node, what + " must be a mapping of 'key: value' lines");
}

void YamlReader::check_keys(const YAML::Node& map, const std::vector<std::string_view>& allowed,
                            const std::string& context) const {
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    YAML::Node key = it->first;
    if (!key.IsScalar()) fail(key, "keys of " + context + " must be plain words");
    const std::string& name = key.Scalar();
    if (!seen.insert(name).second) fail(key, "key '" + name + "' appears twice in " + context + "; keep one");
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    std::string hint;
    std::size_t best = 3;
    for (std::string_view candidate : allowed) {
      std::size_t d = edit_distance(name, candidate);
      if (d < best) {
        best = d;
        hint = "did you mean '" + std::string(candidate) + "'? ";
      }
    }
    if (name == "<<") {
      hint = "YAML merge keys ('<<: *anchor') are not supported: write the keys out in each mapping. ";
    } else if (hint.empty() && !name.empty() &&
               std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      // {cores: 0-3,6} in a flow mapping: the ',' ended the value and '6' became a key.
      hint = "a ',' inside a {...} mapping ends the value before it: quote a CPU list there (\"0-3,6\"). ";
    }
    std::string list;
    for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    fail(key, "unknown key '" + name + "' in " + context + "; " + hint + "allowed keys: " + list);
  }
}

std::string YamlReader::scalar(const YAML::Node& node, const std::string& what) const {
  if (node.IsNull()) fail(node, what + " is empty (null); give it a value");
  if (!node.IsScalar()) fail(node, what + " must be a single value, not a list or mapping");
  return node.Scalar();
}

std::string name_problem(std::string_view text) {
  if (text.empty()) return "must not be empty";
  if (const std::size_t bad = first_bad_utf8(text); bad != std::string_view::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[bad]));
    return std::string("is not UTF-8 text (byte ") + hex + " at byte " + std::to_string(bad + 1) +
           "); use UTF-8 text";
  }
  // Walk the UTF-8 text (valid by now) by code point.
  bool visible = false;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_length_at(text, i);
    const char32_t cp = code_point_at(text, i, length);
    if (control_or_line_break(cp)) {
      char code[16];
      std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(cp));
      return std::string("holds a control character or line break (") + code + " at byte " +
             std::to_string(i + 1) + "); use printable characters only";
    }
    visible = visible || !space(cp);
    i += length;
  }
  if (!visible) return "is blank; give it a visible name";
  return "";
}

std::string YamlReader::name(const YAML::Node& node, const std::string& what) const {
  std::string text = scalar(node, what);
  if (const std::string problem = name_problem(text); !problem.empty()) fail(node, what + " " + problem);
  return text;
}

std::chrono::nanoseconds YamlReader::duration(const YAML::Node& node, const std::string& what) const {
  std::string text = scalar(node, what);
  try {
    return parse_duration(text);
  } catch (const Error& e) {
    fail(node, what + ": " + e.what());
  }
}

std::int64_t YamlReader::integer(const YAML::Node& node, const std::string& what, std::int64_t min,
                                 std::int64_t max,
                                 const std::function<std::string(const std::string&)>& too_large) const {
  std::string text = scalar(node, what);
  const auto digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(),
                                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  if (text.size() > 1 && text[0] == '-' && digits(std::string_view(text).substr(1))) {
    fail(node, what + " must be at least " + std::to_string(min) + ", not " + text);
  }
  if (!digits(text)) fail(node, what + ": " + shown(text) + " is not a whole number");
  const auto above = [&] {
    return too_large ? too_large(text)
                     : what + ": " + shown(text) + " is too large (at most " + std::to_string(max) + ")";
  };
  // More than 18 digits (leading zeros aside) is above kMaxInteger, and so above max.
  const std::size_t first = text.find_first_not_of('0');
  if (first != std::string::npos && text.size() - first > 18) fail(node, above());
  const std::int64_t value = std::stoll(text);
  if (value < min) fail(node, what + " must be at least " + std::to_string(min) + ", not " + text);
  if (value > max) fail(node, above());
  return value;
}

}  // namespace takt::model
