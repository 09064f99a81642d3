// Strict reading of YAML nodes with file:line:column errors (shared by the file parsers).
#include "model/yaml_reader.hpp"

#include "model/duration.hpp"
#include "takt/error.hpp"

#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace takt::model {
namespace {

// Edit distance, for "did you mean" hints on misspelt keys.
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

}  // namespace

SourceMark mark_of(const YAML::Mark& m) {
  if (m.is_null() || m.line < 0) return {};
  return SourceMark{m.line + 1, m.column + 1, m.pos};
}

namespace {

/// The offset of the first byte that is not part of well-formed UTF-8 (no overlong
/// forms, no surrogates, nothing above U+10FFFF), or npos.
std::size_t first_bad_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace

YAML::Node load_yaml(std::string_view text, const std::string& source) {
  // YAML and JSON files are Unicode text; a file in another 8-bit encoding would put its
  // bytes into names that no JSON output can hold. (A UTF-16 or UTF-32 file starts with
  // a byte-order mark or a zero byte, which yaml-cpp reads itself.)
  const bool other_unicode = !text.empty() && (static_cast<unsigned char>(text[0]) == 0xFE ||
                                               static_cast<unsigned char>(text[0]) == 0xFF ||
                                               text[0] == '\0' || (text.size() > 1 && text[1] == '\0'));
  if (!other_unicode) {
    if (const std::size_t bad = first_bad_utf8(text); bad != std::string_view::npos) {
      const std::size_t line_start = text.rfind('\n', bad == 0 ? 0 : bad - 1);
      const std::size_t line =
          static_cast<std::size_t>(std::count(text.begin(), text.begin() + bad, '\n')) + 1;
      const std::size_t column =
          line_start == std::string_view::npos || bad == 0 ? bad + 1 : bad - line_start;
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[bad]));
      throw Error(source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": byte " + hex +
                  " is not UTF-8 text; save the file as UTF-8");
    }
  }
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for this is "bad file".
    throw Error(mark_of(e.mark).where(source) +
                ": nested too deeply for the YAML parser (it stops at a depth of " +
                std::to_string(e.depth()) +
                "); a task set nests a few levels: look for unbalanced or repeated brackets there");
  } catch (const YAML::ParserException& e) {
    throw Error(mark_of(e.mark).where(source) + ": " + e.msg);
  } catch (const YAML::Exception& e) {
    throw Error(source + ": " + e.what());
  }
}

std::string read_text_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error("cannot read " + what + " '" + path + "': it is a folder; give the path of a file");
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    throw Error("cannot read " + what + " '" + path + "'" +
                (error != 0 ? std::string(": ") + std::strerror(error) : "") +
                (error == EACCES ? "; check its permissions" : "; check the path"));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error("reading " + what + " '" + path + "' failed: " + std::strerror(errno));
  return buffer.str();
}

void YamlReader::fail(const YAML::Node& node, const std::string& message) const {
  fail_at(mark_of(node.Mark()), message);
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

std::chrono::nanoseconds YamlReader::duration(const YAML::Node& node, const std::string& what) const {
  std::string text = scalar(node, what);
  try {
    return parse_duration(text);
  } catch (const Error& e) {
    fail(node, what + ": " + e.what());
  }
}

std::int64_t YamlReader::integer(const YAML::Node& node, const std::string& what, std::int64_t min) const {
  std::string text = scalar(node, what);
  const auto digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(),
                                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  if (text.size() > 1 && text[0] == '-' && digits(std::string_view(text).substr(1))) {
    fail(node, what + " must be at least " + std::to_string(min) + ", not " + text);
  }
  if (!digits(text)) fail(node, what + ": '" + text + "' is not a whole number");
  if (text.size() > 18) fail(node, what + ": '" + text + "' is too large (at most 18 digits)");
  std::int64_t value = std::stoll(text);
  if (value < min) fail(node, what + " must be at least " + std::to_string(min) + ", not " + text);
  return value;
}

}  // namespace takt::model
