// Tests of writing measured work / span into a task-set file in place (for `takt profile --update`).
#include "model/measurement_update.hpp"
#include "model/task_set_parser.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

using namespace std::chrono_literals;
using takt::model::MeasurementUpdate;
using takt::model::update_measurements;

TEST(MeasurementUpdate, ReplacesValuesAndKeepsEverythingElse) {
  const std::string before = R"(# my tasks — µs are fine here
global: {cores: 2}   # two cores
tasks:
  - name: heat       # the heat program
    period: 100ms
    program: heat
    work: 20ms       # measured last week
    span: 2ms
    burdened_span: "2.5ms"
  - name: other
    period: 50ms
    work: 1ms
    span: 1ms
)";
  const std::string after = update_measurements(before, "t.yaml", {{"heat", 31ms, 2100us, 2600us}});
  const std::string expected = R"(# my tasks — µs are fine here
global: {cores: 2}   # two cores
tasks:
  - name: heat       # the heat program
    period: 100ms
    program: heat
    work: 31ms       # measured last week
    span: 2.1ms
    burdened_span: "2.6ms"
  - name: other
    period: 50ms
    work: 1ms
    span: 1ms
)";
  EXPECT_EQ(after, expected);
}

TEST(MeasurementUpdate, ABlockScalarIsReplacedWithItsLines) {
  // `work: >-` with the value on the lines below (valid YAML, read as "20ms"): the
  // indicator and the content lines are replaced, the next key and task stay. Until
  // 2026-11-28 only the indicator was, leaving "work: 31ms\n      20ms", which reads as
  // "31ms 20ms", and the update was refused with "unknown unit". A key the task lacks
  // goes after the last value's lines, not inside them (where the replacement cut it).
  const std::string before =
      "tasks:\n"
      "  - name: heat\n"
      "    period: 100ms\n"
      "    work: >-   # folded\n"
      "      20ms\n"
      "\n"
      "    span: |-\n"
      "       2ms\n"
      "  - work: >2-\n"
      "      1ms\n"
      "    name: other\n"
      "    period: 50ms\n"
      "    span: 1ms\n";
  const std::string after = update_measurements(
      before, "t.yaml", {{"heat", 31ms, 2100us, 2600us}, {"other", 3ms, 2ms, std::nullopt}});
  const std::string expected =
      "tasks:\n"
      "  - name: heat\n"
      "    period: 100ms\n"
      "    work: 31ms\n"
      "\n"
      "    span: 2.1ms\n"
      "    burdened_span: 2.6ms\n"
      "  - work: 3ms\n"
      "    name: other\n"
      "    period: 50ms\n"
      "    span: 2ms\n";
  EXPECT_EQ(after, expected);
  // What it wrote reads back as written.
  const auto set = takt::model::parse_task_set(after, "t.yaml");
  EXPECT_EQ(set.tasks.at(0).work(), 31ms);
  EXPECT_EQ(set.tasks.at(1).work(), 3ms);
}

TEST(MeasurementUpdate, AddsMissingKeysToABlockMapping) {
  const std::string before = R"(tasks:
  - name: seg
    period: 10ms
    segments:
      - {length: 1ms, strands: 2}
  - name: b
    period: 10ms
    work: 1ms
    span: 1ms
)";
  const std::string after = update_measurements(before, "t.yaml", {{"seg", 2100us, 1050us, std::nullopt}});
  const std::string expected = R"(tasks:
  - name: seg
    period: 10ms
    work: 2.1ms
    span: 1.05ms
    segments:
      - {length: 1ms, strands: 2}
  - name: b
    period: 10ms
    work: 1ms
    span: 1ms
)";
  EXPECT_EQ(after, expected);
  auto set = takt::model::parse_task_set(after, "t.yaml");
  EXPECT_EQ(set.tasks[0].work(), 2100us);
  EXPECT_EQ(set.tasks[0].segments.size(), 1u);
}

TEST(MeasurementUpdate, AKeyIsAddedAfterAValueWrittenOnTheLineBelowItsKey) {
  // `span:` with its value on the next line: burdened_span was inserted between the two,
  // the re-parse found "span is empty (null)" and the update was refused.
  const std::string before = "tasks:\n  - name: a\n    period: 10ms\n    work: 2ms\n    span:\n      1ms\n";
  const std::string after = update_measurements(before, "t.yaml", {{"a", 2ms, 1ms, 1500us}});
  EXPECT_EQ(after,
            "tasks:\n  - name: a\n    period: 10ms\n    work: 2ms\n    span:\n      1ms\n"
            "    burdened_span: 1.5ms\n");
  EXPECT_EQ(takt::model::parse_task_set(after, "t.yaml").tasks[0].burdened_span,
            std::optional<std::chrono::nanoseconds>(1500us));
}

TEST(MeasurementUpdate, FlowMappings) {
  const std::string before =
      "tasks:\n  - {name: a, period: 10ms, segments: [{length: 1ms}]}  # keep\n"
      "  - {name: b, period: 10ms, work: 2ms, span: 1ms}\n";
  const std::string after = update_measurements(
      before, "t.yaml", {{"a", 1ms, 1ms, 1200us}, {"b", 3ms, std::nullopt, std::nullopt}});
  EXPECT_EQ(
      after,
      "tasks:\n  - {name: a, period: 10ms, segments: [{length: 1ms}], work: 1ms, span: 1ms, burdened_span: "
      "1.2ms}  # keep\n  - {name: b, period: 10ms, work: 3ms, span: 1ms}\n");
}

TEST(MeasurementUpdate, AnchorsAliasesAndTagsAreEditedWhereTheValueIsOrRefused) {
  // yaml-cpp marks a node before its anchor or tag. An anchored task was taken for a
  // block mapping (its text starts with '&', not '{') and the edit swallowed the rest of
  // the line; an alias's mark is its anchor's value, so updating b rewrote a's value.
  const std::string anchored = "tasks:\n  - &t {name: a, period: 10ms, work: &v 4ms, span: 1ms}\n";
  EXPECT_EQ(update_measurements(anchored, "t.yaml", {{"a", 5ms, 2ms, 3ms}}),
            "tasks:\n  - &t {name: a, period: 10ms, work: &v 5ms, span: 2ms, burdened_span: 3ms}\n");
  const std::string aliased =
      "tasks:\n  - {name: a, period: 10ms, work: &w 4ms, span: 1ms}\n  - {name: b, period: 10ms, work: *w, "
      "span: 1ms}\n";
  try {
    (void)update_measurements(aliased, "t.yaml", {{"b", 5ms, std::nullopt, std::nullopt}});
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:3:29: task 'b': its work is an alias of a value elsewhere"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)update_measurements(aliased, "t.yaml", {{"a", 5ms, std::nullopt, std::nullopt}});
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("task 'a': its work carries the anchor used by *w"), std::string::npos)
        << e.what();
  }
  // A tag is refused when the file is read, before anything is edited.
  const std::string tagged =
      "tasks:\n  - {name: a, period: 10ms, work: !!str &w 4ms, span: 1ms}\n  - {name: b, period: 10ms, work: *w, "
      "span: 1ms}\n";
  try {
    (void)update_measurements(tagged, "t.yaml", {{"a", 5ms, std::nullopt, std::nullopt}});
    FAIL() << "expected takt::Error";
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:2:35: the YAML tag '!!str' is not used by takt"),
              std::string::npos)
        << e.what();
  }
  // An anchor that only a longer alias name (*wx) or a comment mentions is not used.
  const std::string unused =
      "tasks:\n  - {name: a, period: 10ms, work: &w 4ms, span: &wx 1ms}  # not *w\n"
      "  - {name: b, period: 10ms, work: 2ms, span: *wx}\n";
  EXPECT_EQ(update_measurements(unused, "t.yaml", {{"a", 5ms, std::nullopt, std::nullopt}}),
            "tasks:\n  - {name: a, period: 10ms, work: &w 5ms, span: &wx 1ms}  # not *w\n"
            "  - {name: b, period: 10ms, work: 2ms, span: *wx}\n");
  // Its span, not aliased, is updated as usual.
  EXPECT_EQ(update_measurements(aliased, "t.yaml", {{"a", std::nullopt, 2ms, std::nullopt}}),
            "tasks:\n  - {name: a, period: 10ms, work: &w 4ms, span: 2ms}\n  - {name: b, period: 10ms, work: *w, "
            "span: 1ms}\n");
}

TEST(MeasurementUpdate, LastLineWithoutNewline) {
  const std::string before =
      "tasks:\n  - name: a\n    period: 10ms\n    segments: [{length: 1ms}]\n    offset: 1ms";
  const std::string after = update_measurements(before, "t.yaml", {{"a", 1ms, 1ms, std::nullopt}});
  EXPECT_EQ(after,
            "tasks:\n  - name: a\n    period: 10ms\n    segments: [{length: 1ms}]\n    offset: 1ms\n"
            "    work: 1ms\n    span: 1ms\n");
}

TEST(MeasurementUpdate, RejectsUnknownTasksAndInvalidValues) {
  const std::string text = "tasks:\n  - {name: a, period: 10ms, work: 2ms, span: 1ms}\n";
  EXPECT_THROW((void)update_measurements(text, "t.yaml", {{"z", 1ms, 1ms, std::nullopt}}), takt::Error);
  try {
    (void)update_measurements(text, "t.yaml", {{"a", 1ms, 12ms, std::nullopt}});
    FAIL();
  } catch (const takt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds"), std::string::npos) << e.what();
  }
}

TEST(MeasurementUpdate, ByteOffsetsSurviveMultiByteCharactersAndABom) {
  // "µ" is two bytes in UTF-8; a byte-order mark is three. The value must still be found.
  const std::string before =
      "\xEF\xBB\xBF# µµµ\ntasks:\n  - {name: \"µ\", period: 10ms, work: 2ms, span: 1ms}\n";
  const std::string after = update_measurements(before, "t.yaml", {{"µ", 3ms, std::nullopt, std::nullopt}});
  EXPECT_EQ(after, "\xEF\xBB\xBF# µµµ\ntasks:\n  - {name: \"µ\", period: 10ms, work: 3ms, span: 1ms}\n");
}

TEST(MeasurementUpdate, JsonStaysJson) {
  // A JSON task set: replaced values keep their quotes, new keys and values get them.
  const std::string one_line =
      R"({"tasks":[{"name":"f","period":"10ms","program":"fib","args":[12],"work":"1ms","span":"1ms"}]})";
  EXPECT_EQ(
      update_measurements(one_line, "t.json", {{"f", 16us, 5us, 9us}}),
      R"({"tasks":[{"name":"f","period":"10ms","program":"fib","args":[12],"work":"16us","span":"5us", )"
      R"("burdened_span": "9us"}]})");
  // Pretty-printed (as `takt generate --json` writes): one key a line, indented alike.
  const std::string pretty =
      "{\n  \"tasks\": [\n    {\n      \"name\": \"f\",\n      \"period\": \"10ms\",\n"
      "      \"work\": \"1ms\",\n      \"span\": \"1ms\"\n    }\n  ]\n}\n";
  EXPECT_EQ(update_measurements(pretty, "t.json", {{"f", 16us, 5us, 9us}}),
            "{\n  \"tasks\": [\n    {\n      \"name\": \"f\",\n      \"period\": \"10ms\",\n"
            "      \"work\": \"16us\",\n      \"span\": \"5us\",\n      \"burdened_span\": \"9us\"\n    }\n  "
            "]\n}\n");
  // Single-quoted YAML values stay single-quoted.
  EXPECT_EQ(update_measurements("tasks:\n  - {name: a, period: '10ms', work: '1ms', span: '1ms'}\n", "t.yaml",
                                {{"a", 2ms, 1ms, 1500us}}),
            "tasks:\n  - {name: a, period: '10ms', work: '2ms', span: '1ms', burdened_span: '1.5ms'}\n");
}

TEST(MeasurementUpdate, AFlowMappingWithATrailingCommaGetsNoSecondComma) {
  // YAML allows a ',' after a flow mapping's last item; takt analyze reads such a file,
  // but the update wrote ",, burdened_span" (one line) and ",\n,\n" (one key a line) and
  // then refused its own result ("keys of task 'f' must be plain words").
  EXPECT_EQ(update_measurements("tasks:\n  - {name: f, period: 10ms, work: 1ms, span: 1ms, }\n", "t.yaml",
                                {{"f", 2ms, 1ms, 1500us}}),
            "tasks:\n  - {name: f, period: 10ms, work: 2ms, span: 1ms, burdened_span: 1.5ms, }\n");
  EXPECT_EQ(update_measurements("tasks:\n  - {name: f,\n     period: 10ms,\n     segments: [{length: 1ms}],\n  }\n",
                                "t.yaml", {{"f", 2ms, 1ms, 1500us}}),
            "tasks:\n  - {name: f,\n     period: 10ms,\n     segments: [{length: 1ms}],\n     work: 2ms,\n"
            "     span: 1ms,\n     burdened_span: 1.5ms,\n  }\n");
}

TEST(MeasurementUpdate, AFlowMappingsLastItemFollowedByACommentGetsTheNewKeysBeforeIt) {
  // The trailing comma hidden behind a comment was not seen: ", burdened_span" went
  // before the '}' after "1ms, # c", and takt refused its own result (two commas).
  EXPECT_EQ(update_measurements("tasks:\n  - {name: f, period: 10ms, work: 1ms,\n     span: 1ms, # measured\n  }\n",
                                "t.yaml", {{"f", 2ms, 1ms, 1500us}}),
            "tasks:\n  - {name: f, period: 10ms, work: 2ms,\n     span: 1ms, burdened_span: 1.5ms, # measured\n  }\n");
  // Without a comma: after the value, before the comment (it still ends the line).
  EXPECT_EQ(update_measurements("tasks:\n  - {name: f, period: 10ms,\n     segments: [{length: 1ms}] # one\n  }\n",
                                "t.yaml", {{"f", 2ms, 1ms, std::nullopt}}),
            "tasks:\n  - {name: f, period: 10ms,\n     segments: [{length: 1ms}], work: 2ms, span: 1ms # one\n  }\n");
  // A comment line of its own before the '}', and a '#' inside a quoted value or a
  // word, which begins no comment.
  EXPECT_EQ(update_measurements("tasks:\n  - {name: 'f #1', period: 10ms, work: 1ms, span: 1ms,\n# last\n  }\n",
                                "t.yaml", {{"f #1", 2ms, 1ms, 1500us}}),
            "tasks:\n  - {name: 'f #1', period: 10ms, work: 2ms, span: 1ms, burdened_span: 1.5ms,\n# last\n  }\n");
}

TEST(MeasurementUpdate, AQuoteInsideAPlainValueOpensNoQuotedString) {
  // "it's" was read as the start of a quoted string: the task's end was not found
  // (refused), or, with a quote in a later comment, burdened_span went into that comment.
  EXPECT_EQ(update_measurements("tasks:\n  - {name: it's, period: 10ms, work: 1ms, span: 1ms}\n", "t.yaml",
                                {{"it's", 2ms, 1ms, 1500us}}),
            "tasks:\n  - {name: it's, period: 10ms, work: 2ms, span: 1ms, burdened_span: 1.5ms}\n");
  const std::string two =
      "tasks:\n  - {name: it's, period: 10ms, work: 1ms, span: 1ms}\n"
      "  - {name: b, period: 10ms, work: 1ms, span: 1ms}  # b's }\n";
  EXPECT_EQ(update_measurements(two, "t.yaml", {{"it's", 2ms, 1ms, 1500us}}),
            "tasks:\n  - {name: it's, period: 10ms, work: 2ms, span: 1ms, burdened_span: 1.5ms}\n"
            "  - {name: b, period: 10ms, work: 1ms, span: 1ms}  # b's }\n");
  EXPECT_EQ(update_measurements("tasks:\n  - {name: a\"b, period: 10ms, work: 1ms, span: 1ms}\n", "t.yaml",
                                {{"a\"b", 2ms, 1ms, 1500us}}),
            "tasks:\n  - {name: a\"b, period: 10ms, work: 2ms, span: 1ms, burdened_span: 1.5ms}\n");
}

TEST(MeasurementUpdate, NewLinesEndAsTheFilesLinesDo) {
  // A CRLF file got LF-only lines for the keys it lacked.
  const std::string pretty =
      "{\r\n  \"tasks\": [\r\n    {\r\n      \"name\": \"f\",\r\n      \"period\": \"10ms\",\r\n"
      "      \"work\": \"1ms\",\r\n      \"span\": \"1ms\"\r\n    }\r\n  ]\r\n}\r\n";
  EXPECT_EQ(update_measurements(pretty, "t.json", {{"f", 16us, 5us, 9us}}),
            "{\r\n  \"tasks\": [\r\n    {\r\n      \"name\": \"f\",\r\n      \"period\": \"10ms\",\r\n"
            "      \"work\": \"16us\",\r\n      \"span\": \"5us\",\r\n      \"burdened_span\": \"9us\"\r\n    }\r\n"
            "  ]\r\n}\r\n");
  EXPECT_EQ(update_measurements("tasks:\r\n  - name: a\r\n    period: 10ms\r\n    segments: [{length: 1ms}]\r\n",
                                "t.yaml", {{"a", 1ms, 1ms, std::nullopt}}),
            "tasks:\r\n  - name: a\r\n    period: 10ms\r\n    work: 1ms\r\n    span: 1ms\r\n"
            "    segments: [{length: 1ms}]\r\n");
}
