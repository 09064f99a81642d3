// Tests of durations with units: parsing, exact formatting, errors that say what to change.
#include "model/duration.hpp"
#include "model/decimal.hpp"
#include "model/text.hpp"
#include "takt/error.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace std::chrono_literals;
using takt::model::Decimal;
using takt::model::display_duration;
using takt::model::format_duration;
using takt::model::parse_duration;

namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_duration(text);
  } catch (const takt::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(Duration, ParsesEveryUnit) {
  EXPECT_EQ(parse_duration("10ms"), 10ms);
  EXPECT_EQ(parse_duration("250us"), 250us);
  EXPECT_EQ(parse_duration("250µs"), 250us);
  // The Greek letter mu (U+03BC), which looks the same as the micro sign (U+00B5).
  EXPECT_EQ(parse_duration("250\u03bcs"), 250us);
  EXPECT_EQ(parse_duration("2s"), 2s);
  EXPECT_EQ(parse_duration("7ns"), 7ns);
  EXPECT_EQ(parse_duration("10 ms"), 10ms);
  EXPECT_EQ(parse_duration("0"), 0ns);
  EXPECT_EQ(parse_duration("0ms"), 0ns);
}

TEST(Duration, ZeroNeedsNoUnitButMustBeANumber) {
  EXPECT_EQ(parse_duration("0.0"), 0ns);
  EXPECT_EQ(parse_duration("00"), 0ns);
  EXPECT_EQ(parse_duration(".0"), 0ns);
  // No digit, or two decimal points: not a number, so not zero (and no "add a unit" hint).
  for (const char* text : {".", "..", "0.0.0", "1..", "1.2.3"}) {
    EXPECT_NE(
        error_of(text).find("'" + std::string(text) + "' is not a duration; write a non-negative number"),
        std::string::npos)
        << error_of(text);
  }
}

TEST(Duration, ParsesExactDecimals) {
  EXPECT_EQ(parse_duration("1.5ms"), 1500us);
  EXPECT_EQ(parse_duration("0.6ms"), 600us);
  EXPECT_EQ(parse_duration("761.905us"), 761905ns);
  EXPECT_EQ(parse_duration("1.000000001s"), 1000000001ns);
  EXPECT_EQ(parse_duration(".5s"), 500ms);
}

TEST(Duration, RejectsWithAReasonToFix) {
  EXPECT_NE(error_of("10").find("no unit"), std::string::npos) << error_of("10");
  EXPECT_NE(error_of("10m").find("unknown unit 'm'"), std::string::npos);
  // ns is the smallest unit: no "smaller unit" to suggest there.
  EXPECT_EQ(error_of("1.5ns"),
            "'1.5ns' is not a whole number of nanoseconds; give whole nanoseconds (ns is the "
            "smallest unit)");
  EXPECT_EQ(error_of("1.5000001ms"),
            "'1.5000001ms' is not a whole number of nanoseconds; use fewer decimals or a smaller unit");
  EXPECT_NE(error_of("-1ms").find("not a duration"), std::string::npos);
  // An exponent is named as such, not as the unit 'e3ms'.
  EXPECT_EQ(error_of("1e3ms"),
            "'1e3ms' has an exponent, which durations do not take; write the number out (1000ms, not 1e3ms)");
  EXPECT_NE(error_of("2E-3s").find("has an exponent"), std::string::npos);
  EXPECT_NE(error_of("1eons").find("unknown unit 'eons'"), std::string::npos);
  EXPECT_NE(error_of("1.2.3ms").find("two decimal points"), std::string::npos);
  EXPECT_NE(error_of("").find("not a duration"), std::string::npos);
  EXPECT_NE(error_of(".ms").find("no digits"), std::string::npos);
  EXPECT_NE(error_of("999999999999s").find("too large"), std::string::npos);
  // 18 decimals are read (a whole number of nanoseconds here); 19 say the limit.
  EXPECT_EQ(parse_duration("1.000000000000000000ms"), 1ms);
  EXPECT_NE(error_of("1.0000000000000000000ms").find("has more than 18 decimals; write it with at most 18"),
            std::string::npos)
      << error_of("1.0000000000000000000ms");
}

TEST(Duration, AValueThatIsNoNumberWithAUnitIsNotADurationAndInvisibleCharactersAreShown) {
  // ".nan" (YAML's not-a-number) said "unknown unit 'nan'", "0-65535" "unknown unit
  // '-65535'": neither is a number with some unit.
  EXPECT_EQ(error_of(".nan"),
            "'.nan' is not a duration; write a non-negative number with a unit, e.g. 10ms, 1.5ms, 250us, 2s");
  EXPECT_NE(error_of("0-65535").find("'0-65535' is not a duration"), std::string::npos);
  // A no-break space after the unit was shown as a plain space ("unknown unit 'us '"); a
  // line break split the message over two lines.
  EXPECT_EQ(error_of("10us\u00a0"), "'10us\\u00A0' has unknown unit 'us\\u00A0'; use ns, us, ms or s");
  EXPECT_EQ(error_of("10ms\nx"), "'10ms\\nx' has unknown unit 'ms\\nx'; use ns, us, ms or s");
  EXPECT_EQ(error_of("1\tms"),
            "'1\\tms' is not a duration; write a non-negative number with a unit, e.g. 10ms, "
            "1.5ms, 250us, 2s");
  EXPECT_EQ(error_of("1\xffms"), "'1\\xFFms' has unknown unit '\\xFFms'; use ns, us, ms or s");
  // Bytes of no well-formed UTF-8 sequence are shown as bytes: an overlong line break
  // (C0 8A), a surrogate (ED A0 80), a code point above U+10FFFF (F4 90 80 80).
  EXPECT_EQ(takt::model::shown("1\xC0\x8Ams"), "'1\\xC0\\x8Ams'");
  EXPECT_EQ(takt::model::shown("\xED\xA0\x80"), "'\\xED\\xA0\\x80'");
  EXPECT_EQ(takt::model::shown("\xF4\x90\x80\x80"), "'\\xF4\\x90\\x80\\x80'");
  EXPECT_EQ(takt::model::shown("\xC3\xA9 \xE2\x80\xA8"), "'\xC3\xA9 \\u2028'");
}

TEST(Decimal, AnExponentIsNamedAsSuch) {
  // delta: 1e308 said "'1e308' is not a non-negative decimal number (such as 1.5)".
  try {
    (void)takt::model::Decimal::parse("1e308");
    ADD_FAILURE() << "1e308 was read";
  } catch (const takt::Error& e) {
    EXPECT_STREQ(e.what(),
                 "'1e308' has an exponent, which this number does not take; write it out (1500, not 1.5e3)");
  }
  for (const char* text : {"1e", "2each"}) {  // no digit or sign after the e: no exponent
    try {
      (void)takt::model::Decimal::parse(text);
      ADD_FAILURE() << text << " was read";
    } catch (const takt::Error& e) {
      EXPECT_EQ(std::string(e.what()),
                "'" + std::string(text) + "' is not a non-negative decimal number (such as 1.5)");
    }
  }
  try {
    (void)takt::model::Decimal::parse("e3");
    ADD_FAILURE() << "e3 was read";
  } catch (const takt::Error& e) {
    EXPECT_STREQ(e.what(), "'e3' is not a non-negative decimal number (such as 1.5)");
  }
}

TEST(Duration, TheLimitIsExactly2To62Nanoseconds) {
  // 2^62 = 4611686018427387904 ns = 4611686018.427387904 s is the largest value; one
  // nanosecond more is too large, however it is written.
  EXPECT_EQ(parse_duration("4611686018427387904ns"), takt::model::kMaxDuration);
  EXPECT_EQ(parse_duration("4611686018.427387904s"), takt::model::kMaxDuration);
  EXPECT_EQ(parse_duration("4611686018427387.904us"), takt::model::kMaxDuration);
  EXPECT_NE(error_of("4611686018427387905ns").find("too large"), std::string::npos);
  EXPECT_NE(error_of("4611686018.427387905s").find("too large"), std::string::npos);
  // 4611686018.9 s has a whole part that fits but is 472612096 ns above the limit.
  EXPECT_NE(error_of("4611686018.9s").find("too large"), std::string::npos) << error_of("4611686018.9s");
  EXPECT_NE(error_of("4611686019s").find("at most 4611686018.427387904s"), std::string::npos);
  EXPECT_EQ(format_duration(takt::model::kMaxDuration), "4611686018.427387904s");
}

TEST(Duration, FormatsExactlyInTheLargestUnit) {
  EXPECT_EQ(format_duration(10ms), "10ms");
  EXPECT_EQ(format_duration(1500us), "1.5ms");
  EXPECT_EQ(format_duration(761905ns), "761.905us");
  EXPECT_EQ(format_duration(3333333ns), "3.333333ms");
  EXPECT_EQ(format_duration(2s), "2s");
  EXPECT_EQ(format_duration(1000000001ns), "1.000000001s");
  EXPECT_EQ(format_duration(3ns), "3ns");
  EXPECT_EQ(format_duration(0ns), "0");
}

TEST(Duration, FormatReadsBackToTheSameValue) {
  std::mt19937_64 random(7);
  for (int i = 0; i < 10000; ++i) {
    const std::chrono::nanoseconds d{static_cast<std::int64_t>(random() % 4'000'000'000'000ULL) >>
                                     static_cast<int>(random() % 40)};
    EXPECT_EQ(parse_duration(format_duration(d)), d) << format_duration(d);
  }
}

TEST(Duration, DisplaysRoundedForPeople) {
  EXPECT_EQ(display_duration(3333333ns), "3.333ms");
  EXPECT_EQ(display_duration(600us), "600us");
  EXPECT_EQ(display_duration(0ns), "0");
  EXPECT_EQ(display_duration(12ns), "12ns");
}

TEST(Decimal, KeepsCoefficientsExact) {
  // δ = 3.65 = 73/20 after dropping the trailing zero of 365/100.
  Decimal d = Decimal::parse("3.65");
  EXPECT_EQ(d.numerator, 73 * 5);
  EXPECT_EQ(d.denominator, 100);
  EXPECT_EQ(Decimal::parse("1.50").numerator, 15);
  EXPECT_EQ(Decimal::parse("1.50").denominator, 10);
  EXPECT_EQ(Decimal::parse("2").to_string(), "2");
  EXPECT_EQ(Decimal::parse("1.7").to_string(), "1.7");
  EXPECT_EQ(Decimal::parse("0.05").to_string(), "0.05");
  EXPECT_DOUBLE_EQ(Decimal::parse("1.5").value(), 1.5);
  EXPECT_THROW((void)Decimal::parse("1,5"), takt::Error);
  EXPECT_THROW((void)Decimal::parse("-1"), takt::Error);
  EXPECT_THROW((void)Decimal::parse(""), takt::Error);
}
