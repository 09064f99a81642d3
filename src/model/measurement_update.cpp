// Writes measured work / span / burdened span into a task-set file's text in place.
#include "model/measurement_update.hpp"

#include "model/duration.hpp"
#include "model/task_set_parser.hpp"
#include "model/yaml_reader.hpp"
#include "takt/error.hpp"

#include <algorithm>

namespace takt::model {
namespace {

// One edit of the text: replace [begin, end) by `replacement`.
struct Edit {
  std::size_t begin;
  std::size_t end;
  std::string replacement;
};

// The end of the scalar token starting at `begin`: a quoted string up to its
// closing quote, else a plain scalar up to the end of the line, a comment, or (in
// a flow collection) a ',', '}' or ']'.
std::size_t scalar_end(std::string_view text, std::size_t begin, bool in_flow) {
  if (begin < text.size() && (text[begin] == '"' || text[begin] == '\'')) {
    char quote = text[begin];
    std::size_t i = begin + 1;
    while (i < text.size() && text[i] != quote) i += (text[i] == '\\' && quote == '"') ? 2 : 1;
    return std::min(i + 1, text.size());
  }
  std::size_t i = begin;
  while (i < text.size() && text[i] != '\n' && text[i] != '\r') {
    if (in_flow && (text[i] == ',' || text[i] == '}' || text[i] == ']')) break;
    if (text[i] == '#' && i > begin && (text[i - 1] == ' ' || text[i - 1] == '\t')) break;
    ++i;
  }
  while (i > begin && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
  return i;
}

// The end of a block scalar (`>-`, `|`, `>2`...) whose indicator is at `begin`, the
// value of a key at column `indent`: its header line, then every line that is blank or
// indented deeper than the key (the scalar's content), less trailing blank lines; the
// line break after it stays.
std::size_t block_scalar_end(std::string_view text, std::size_t begin, std::size_t indent) {
  std::size_t end = scalar_end(text, begin, false);  // the header: indicators, up to a comment
  std::size_t line = text.find('\n', begin);
  const std::size_t header_line_end = line == std::string_view::npos ? text.size() : line;
  if (end > header_line_end) end = header_line_end;
  while (line != std::string_view::npos) {
    const std::size_t start = line + 1;
    std::size_t i = start;
    while (i < text.size() && text[i] == ' ') ++i;
    const std::size_t next = text.find('\n', start);
    const std::size_t stop = next == std::string_view::npos ? text.size() : next;
    const bool blank = text.substr(i, stop - i).find_first_not_of(" \t\r") == std::string_view::npos;
    if (!blank && i - start <= indent) break;
    if (!blank) end = stop > start && text[stop - 1] == '\r' ? stop - 1 : stop;
    line = next;
  }
  return end;
}

// A YAML comment begins with '#' at the start of a line or after white space.
bool starts_comment(std::string_view text, std::size_t i) {
  return text[i] == '#' && (i == 0 || std::string_view(" \t\r\n").find(text[i - 1]) != std::string_view::npos);
}

// Where the flow mapping that opens at `open` ends: its closing '}', and the end of its
// last token (just after the last character before the '}' that is neither white space
// nor part of a comment or a nested collection's inside), and whether a comment follows
// that token (`span: 1ms, # measured\n}`).
struct FlowMappingEnd {
  std::size_t close = std::string_view::npos;
  std::size_t last = std::string_view::npos;
  bool comment_after_last = false;
};

FlowMappingEnd flow_mapping_end(std::string_view text, std::size_t open) {
  FlowMappingEnd end;
  int depth = 0;
  char previous = '{';  // the last character before i that is neither white space nor in a comment
  for (std::size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (std::string_view(" \t\r\n").find(c) != std::string_view::npos) continue;
    if (starts_comment(text, i)) {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      end.comment_after_last = true;
      continue;
    }
    // A quote opens a quoted scalar only where a scalar begins; inside a plain one
    // (`name: it's`) it is an ordinary character.
    if ((c == '"' || c == '\'') && std::string_view("{[,:").find(previous) != std::string_view::npos) {
      i = scalar_end(text, i, true) - 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      end.close = i;
      return end;
    }
    end.last = i + 1;
    end.comment_after_last = false;
    previous = text[i];
  }
  return end;
}

std::size_t line_end(std::string_view text, std::size_t pos) {
  std::size_t e = text.find('\n', pos);
  return e == std::string_view::npos ? text.size() : e + 1;
}

/// Whether `text` uses the alias *name: the whole token, where a value begins (after
/// a space, '[', '{', ',' or ':'), not in a comment.
bool aliased(std::string_view text, std::string_view name) {
  const std::string alias = "*" + std::string(name);
  for (std::size_t at = text.find(alias); at != std::string_view::npos; at = text.find(alias, at + 1)) {
    const std::size_t after = at + alias.size();
    if (after < text.size() && std::string_view(" \t\r\n,}]").find(text[after]) == std::string_view::npos) continue;
    if (at > 0 && std::string_view(" \t[{,:").find(text[at - 1]) == std::string_view::npos) continue;
    const std::size_t line = text.rfind('\n', at);
    const std::string_view before = text.substr(line == std::string_view::npos ? 0 : line + 1,
                                                at - (line == std::string_view::npos ? 0 : line + 1));
    const std::size_t hash = before.find(" #");
    if (hash != std::string_view::npos || before.rfind('#', 0) == 0) continue;  // in a comment
    return true;
  }
  return false;
}

}  // namespace

std::string update_measurements(std::string_view text, const std::string& source,
                                const std::vector<MeasurementUpdate>& updates) {
  TaskSet set = parse_task_set(text, source);
  // yaml-cpp's byte offsets do not count a UTF-8 byte-order mark.
  const long bom = static_cast<long>(utf8_bom_size(text));
  auto at = [&](const SourceMark& m) { return static_cast<std::size_t>(m.offset + bom); };
  std::vector<Edit> edits;
  // New lines end as the file's lines do (CRLF when its first line does).
  const std::size_t first_newline = text.find('\n');
  const std::string eol =
      first_newline != std::string_view::npos && first_newline > 0 && text[first_newline - 1] == '\r' ? "\r\n"
                                                                                                       : "\n";
  for (const MeasurementUpdate& u : updates) {
    const Task* task = set.find(u.task);
    if (task == nullptr) throw Error(source + ": no task named '" + u.task + "' to update");
    const TaskMarks& marks = task->marks;
    // yaml-cpp marks a node before its anchor or tag (`&t {...}`, `&w 4ms`): the value
    // itself starts after them. Calls on_anchor(name) for each anchor on the way. (The
    // file was read first, which refuses tags; they are stepped over all the same.)
    auto skip_properties = [&](std::size_t pos, auto on_anchor) {
      while (pos < text.size() && (text[pos] == '&' || text[pos] == '!')) {
        const std::size_t end = property_end(text, pos);
        if (text[pos] == '&') on_anchor(text.substr(pos + 1, end - pos - 1));
        pos = end;
        while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
      }
      return pos;
    };
    const std::size_t task_begin =
        marks.task.offset >= 0 ? skip_properties(at(marks.task), [](std::string_view) {}) : text.size();
    bool flow = task_begin < text.size() && text[task_begin] == '{';
    // The end of the value of `key` that starts at `begin` (after its properties): its
    // scalar, and for a block scalar (work: >- and the value on the lines below) those
    // lines too, the ones indented deeper than the key's column.
    auto value_end = [&](std::size_t begin, std::string_view key) {
      if (flow || begin >= text.size() || (text[begin] != '>' && text[begin] != '|')) {
        return scalar_end(text, begin, flow);
      }
      const auto key_mark = marks.keys.find(key);
      const std::size_t key_at = key_mark != marks.keys.end() ? at(key_mark->second) : begin;
      const std::size_t newline = text.rfind('\n', key_at);
      return block_scalar_end(text, begin, key_at - (newline == std::string_view::npos ? 0 : newline + 1));
    };
    // Quoted as the file quotes: a replaced value as the value it replaces (or, a bare
    // `0`, as its key if that has double quotes: JSON), a new key as the task's `name`
    // key and a new value as its `period` value (in JSON both are).
    auto quote_at = [&](const SourceMark& m) -> std::string {
      if (m.offset < 0 || at(m) >= text.size()) return {};
      const char c = text[at(m)];
      return c == '"' || c == '\'' ? std::string(1, c) : std::string();
    };
    const std::string key_quote = quote_at(marks.keys.at("name"));
    const std::string value_quote = quote_at(marks.period);
    std::vector<std::string> added;  // "key: value" for each key the task lacks
    auto set_value = [&](std::string_view key, const SourceMark& value_mark,
                         std::optional<std::chrono::nanoseconds> value) {
      if (!value) return;
      std::string written = format_duration(*value);
      if (value_mark.offset >= 0) {
        const auto key_mark = marks.keys.find(key);
        // An alias (*w) is marked where its anchor's value is, before its own key.
        if (key_mark != marks.keys.end() && value_mark.offset < key_mark->second.offset) {
          throw Error(key_mark->second.where(source) + ": task '" + u.task + "': its " + std::string(key) +
                      " is an alias of a value elsewhere in the file, which takt profile --update cannot "
                      "rewrite without changing that one too; write the value out here");
        }
        // An anchored value (&w 4ms) that an alias (*w) repeats:
        // rewriting it would change the other value too.
        const std::size_t begin = skip_properties(at(value_mark), [&](std::string_view anchor) {
          if (!aliased(text, anchor)) return;
          throw Error(value_mark.where(source) + ": task '" + u.task + "': its " + std::string(key) +
                      " carries the anchor used by *" + std::string(anchor) +
                      " elsewhere in the file, which takt profile --update would change too; write that value "
                      "out instead of the alias");
        });
        std::string quote = begin < text.size() && (text[begin] == '"' || text[begin] == '\'')
                                ? std::string(1, text[begin])
                                : std::string();
        if (quote.empty() && key_mark != marks.keys.end() && quote_at(key_mark->second) == "\"") quote = "\"";
        edits.push_back({begin, value_end(begin, key), quote + written + quote});
      } else {
        added.push_back(key_quote + std::string(key) + key_quote + ": " + value_quote + written +
                        value_quote);
      }
    };
    set_value("work", marks.work, u.work);
    set_value("span", marks.span, u.span);
    set_value("burdened_span", marks.burdened_span, u.burdened_span);
    if (added.empty()) continue;
    // New keys are indented like the task's `name` key.
    const std::string indent(static_cast<std::size_t>(marks.keys.at("name").column - 1), ' ');
    std::string insertion;
    if (flow) {
      const FlowMappingEnd end = flow_mapping_end(text, task_begin);
      if (end.close == std::string_view::npos)
        throw Error(marks.task.where(source) + ": cannot find the end of this task");
      // A mapping written one key a line (pretty-printed JSON): a new line per key after
      // the last value. When a comment follows the last value, the new keys go between
      // the two, on its line. Else ", key: value" before the '}'.
      const std::size_t last = end.last;
      const bool one_key_a_line = text.substr(last, end.close - last).find('\n') != std::string_view::npos &&
                                  !end.comment_after_last && text[last - 1] != '{';
      // YAML allows a ',' after the last item ({a: 1, b: 2, }): then each new entry
      // goes after it and keeps one of its own, instead of a second ',' before it.
      const bool trailing_comma = text[last - 1] == ',';
      for (const std::string& entry : added) {
        const std::string before = one_key_a_line ? eol + indent : std::string(" ");
        insertion += trailing_comma ? before + entry + "," : "," + before + entry;
      }
      const std::size_t where = one_key_a_line || trailing_comma || end.comment_after_last ? last : end.close;
      edits.push_back({where, where, insertion});
    } else {
      for (const std::string& entry : added) insertion += indent + entry + eol;
      // After the line where the task's last timing value ends: those values are
      // durations (on the key's line, on the next: `span:` then `1ms`, or a block
      // scalar's lines: `span: >-` then `1ms`), and `period` is always there; a new key
      // line at the mapping's indentation may stand between any two keys. (Inserted
      // inside a block scalar's lines, it would be cut by that value's replacement.)
      std::size_t last = 0;
      for (const char* key : {"period", "deadline", "offset", "work", "span", "burdened_span"}) {
        auto it = marks.keys.find(key);
        if (it != marks.keys.end()) last = std::max(last, at(it->second));
      }
      const std::pair<const char*, const SourceMark*> values[] = {
          {"period", &marks.period}, {"deadline", &marks.deadline}, {"offset", &marks.offset},
          {"work", &marks.work},     {"span", &marks.span},         {"burdened_span", &marks.burdened_span}};
      for (const auto& [key, value] : values) {
        if (value->offset < 0) continue;
        last = std::max(last, value_end(skip_properties(at(*value), [](std::string_view) {}), key));
      }
      const std::size_t end = line_end(text, last);
      if (end == text.size() && !text.empty() && text.back() != '\n') insertion.insert(0, eol);
      edits.push_back({end, end, insertion});
    }
  }
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin > b.begin; });
  std::string result(text);
  for (const Edit& e : edits) result.replace(e.begin, e.end - e.begin, e.replacement);
  (void)parse_task_set(result, source);  // the new values must be valid too
  return result;
}

}  // namespace takt::model
