// Unit tests for the JSON5 parser (src/core/json5.h): every feature of https://spec.json5.org/, the
// exact number types produced, and the exact position and wording of errors.
#include "core/json5.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace pincer::json5 {
namespace {

using nlohmann::json;

/// Expected values are written as strict JSON. nlohmann reads non-negative integers as unsigned,
/// while json5::parse gives int64 whenever the value fits, so convert to that convention.
json expected(const std::string& strict_json) {
  json value = json::parse(strict_json);
  const auto normalise = [](auto& self, json& j) -> void {
    if (j.is_number_unsigned() &&
        j.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      j = j.get<std::int64_t>();
    }
    if (j.is_structured()) {
      for (auto& child : j) self(self, child);
    }
  };
  normalise(normalise, value);
  return value;
}

/// Equality that also requires the same number types (nlohmann's == treats 1 and 1.0 as equal).
testing::AssertionResult same_json(const json& actual, const json& want) {
  if (actual.type() != want.type()) {
    return testing::AssertionFailure() << actual.dump() << " is a " << actual.type_name()
                                       << ", expected " << want.dump() << " (" << want.type_name()
                                       << ")";
  }
  if (actual != want) {
    return testing::AssertionFailure() << actual.dump() << " != " << want.dump();
  }
  if (actual.is_array()) {
    for (std::size_t i = 0; i < actual.size(); ++i) {
      if (auto r = same_json(actual[i], want[i]); !r) return r << " at [" << i << "]";
    }
  }
  if (actual.is_object()) {
    for (const auto& [key, value] : actual.items()) {
      if (auto r = same_json(value, want.at(key)); !r) return r << " at ." << key;
    }
  }
  return testing::AssertionSuccess();
}

/// Test input as one ASCII line (for test names listings and failure messages).
std::string printable(const std::string& text) {
  return json(text).dump(-1, ' ', /*ensure_ascii=*/true, json::error_handler_t::replace);
}

/// Parses text that must be valid and returns the value (failing the test otherwise).
json parse_ok(const std::string& text) {
  const Result<json> result = parse(text);
  EXPECT_TRUE(result.ok()) << "input: " << text << "\nerror: "
                           << (result.ok() ? "" : result.error().message);
  return result.ok() ? result.value() : json();
}

/// Parses text that must be invalid and returns the error message.
std::string parse_error(const std::string& text, std::string_view source = {}) {
  const Result<json> result = parse(text, source);
  if (result.ok()) {
    ADD_FAILURE() << "input unexpectedly parsed: " << text << " -> " << result.value().dump();
    return {};
  }
  EXPECT_EQ(result.error().code, "JSON5_PARSE");
  return result.error().message;
}

// -------------------------------------------------------------------------------------------
// Valid input

struct ValidCase {
  std::string json5;        // input
  std::string strict_json;  // expected value, as strict JSON (see expected())
};

void PrintTo(const ValidCase& c, std::ostream* os) { *os << printable(c.json5); }

class Json5ParseValid : public testing::TestWithParam<ValidCase> {};

TEST_P(Json5ParseValid, ParsesToExpectedValueAndTypes) {
  const ValidCase& c = GetParam();
  const Result<json> result = parse(c.json5);
  ASSERT_TRUE(result.ok()) << "input: " << c.json5 << "\nerror: " << result.error().message;
  EXPECT_TRUE(same_json(result.value(), expected(c.strict_json))) << "input: " << c.json5;
}

INSTANTIATE_TEST_SUITE_P(
    Literals, Json5ParseValid,
    testing::Values(ValidCase{"null", "null"}, ValidCase{"true", "true"},
                    ValidCase{"false", "false"}, ValidCase{"[true,false,null]", "[true,false,null]"}));

INSTANTIATE_TEST_SUITE_P(
    Integers, Json5ParseValid,
    testing::Values(ValidCase{"0", "0"}, ValidCase{"42", "42"}, ValidCase{"-42", "-42"},
                    ValidCase{"+42", "42"}, ValidCase{"-0", "0"},
                    ValidCase{"9223372036854775807", "9223372036854775807"},
                    ValidCase{"-9223372036854775808", "-9223372036854775808"},
                    // Beyond int64: unsigned while it fits uint64, then double.
                    ValidCase{"9223372036854775808", "9223372036854775808"},
                    ValidCase{"18446744073709551615", "18446744073709551615"},
                    ValidCase{"18446744073709551616", "18446744073709551616.0"},
                    ValidCase{"-9223372036854775809", "-9223372036854775809.0"},
                    ValidCase{"123456789012345678901234567890", "1.2345678901234568e29"}));

INSTANTIATE_TEST_SUITE_P(
    HexIntegers, Json5ParseValid,
    testing::Values(ValidCase{"0x1F", "31"}, ValidCase{"0XaB", "171"}, ValidCase{"0x0", "0"},
                    ValidCase{"-0x10", "-16"}, ValidCase{"+0x10", "16"},
                    ValidCase{"0x7FFFFFFFFFFFFFFF", "9223372036854775807"},
                    ValidCase{"0x8000000000000000", "9223372036854775808"},
                    ValidCase{"0xFFFFFFFFFFFFFFFF", "18446744073709551615"},
                    ValidCase{"-0x8000000000000000", "-9223372036854775808"},
                    ValidCase{"0x00000000000000000001", "1"}, ValidCase{"0xdecaf", "912559"}));

INSTANTIATE_TEST_SUITE_P(
    Decimals, Json5ParseValid,
    testing::Values(ValidCase{"1.5", "1.5"}, ValidCase{".5", "0.5"}, ValidCase{"5.", "5.0"},
                    ValidCase{"-.5", "-0.5"}, ValidCase{"+.5", "0.5"}, ValidCase{"-5.", "-5.0"},
                    ValidCase{"1e3", "1000.0"}, ValidCase{"1E3", "1000.0"},
                    ValidCase{"1e+2", "100.0"}, ValidCase{"1E-2", "0.01"},
                    ValidCase{"5.e2", "500.0"}, ValidCase{".5e1", "5.0"}, ValidCase{"0.0", "0.0"},
                    ValidCase{"0e5", "0.0"}, ValidCase{"1e-400", "0.0"},
                    ValidCase{"0.1234567890123456789", "0.12345678901234568"},
                    ValidCase{"4e-320", "4e-320"}));

INSTANTIATE_TEST_SUITE_P(
    Strings, Json5ParseValid,
    testing::Values(
        ValidCase{R"('single')", R"("single")"}, ValidCase{R"("double")", R"("double")"},
        ValidCase{R"('say "hi"')", R"("say \"hi\"")"}, ValidCase{R"("it's")", R"("it's")"},
        ValidCase{R"('')", R"("")"}, ValidCase{R"('\'\"\\')", R"("'\"\\")"},
        ValidCase{R"('\b\f\n\r\t\v')", R"("\b\f\n\r\t\u000b")"},
        ValidCase{R"('\x41\x7a\xe9')", R"("Azé")"}, ValidCase{R"('\u00e9\u4E2D')", R"("é中")"},
        ValidCase{R"('\uD83D\uDE00')", R"("😀")"}, ValidCase{R"('\ud83d\ude00!')", R"("😀!")"},
        // Characters without a special escape meaning stand for themselves.
        ValidCase{R"('\q\/\a\é')", R"("q/aé")"},
        // Line continuations: backslash + LF, CR, CRLF, U+2028, U+2029 add nothing.
        ValidCase{"'a\\\nb'", R"("ab")"}, ValidCase{"'a\\\rb'", R"("ab")"},
        ValidCase{"'a\\\r\nb'", R"("ab")"}, ValidCase{"'a\\\u2028b'", R"("ab")"},
        ValidCase{"'a\\\u2029b'", R"("ab")"},
        // U+2028/U+2029 and other characters may appear unescaped.
        ValidCase{"'a\u2028b\u2029c'", "\"a\u2028b\u2029c\""}, ValidCase{"'a\tb'", R"("a\tb")"},
        ValidCase{"'ключ 中文 😀'", R"("ключ 中文 😀")"}));

INSTANTIATE_TEST_SUITE_P(
    Objects, Json5ParseValid,
    testing::Values(
        ValidCase{"{}", "{}"}, ValidCase{"{ }", "{}"}, ValidCase{"{a:1}", R"({"a":1})"},
        ValidCase{"{\"a\":1,'b':2,c:3}", R"({"a":1,"b":2,"c":3})"},
        ValidCase{"{a:1,}", R"({"a":1})"}, ValidCase{"{ a : 1 , b : 2 , }", R"({"a":1,"b":2})"},
        ValidCase{"{$:1,_:2,a1:3,$_a9:4,A_$:5}", R"({"$":1,"_":2,"a1":3,"$_a9":4,"A_$":5})"},
        ValidCase{R"({\u0061b:1, a\u0062c:2, \u0024:3})", R"({"ab":1,"abc":2,"$":3})"},
        ValidCase{"{ключ:1, café:2, 中文:3, ǅ:4}", R"({"ключ":1,"café":2,"中文":3,"ǅ":4})"},
        ValidCase{"{null:1, true:2, false:3, Infinity:4, NaN:5, if:6}",
                  R"({"null":1,"true":2,"false":3,"Infinity":4,"NaN":5,"if":6})"},
        ValidCase{"{'':1}", R"({"":1})"}, ValidCase{"{a:1, a:2}", R"({"a":2})"},
        ValidCase{"{a:{b:{c:[1,{d:2}]}}}", R"({"a":{"b":{"c":[1,{"d":2}]}}})"}));

INSTANTIATE_TEST_SUITE_P(
    Arrays, Json5ParseValid,
    testing::Values(ValidCase{"[]", "[]"}, ValidCase{"[ ]", "[]"}, ValidCase{"[1]", "[1]"},
                    ValidCase{"[1,]", "[1]"}, ValidCase{"[1, 'a', .5, [], {},]", R"([1,"a",0.5,[],{}])"},
                    ValidCase{"[[[]]]", "[[[]]]"}));

INSTANTIATE_TEST_SUITE_P(
    CommentsAndWhitespace, Json5ParseValid,
    testing::Values(
        ValidCase{"// comment\n1", "1"}, ValidCase{"1 // trailing, no newline", "1"},
        ValidCase{"/* c */ 1 /* d */", "1"}, ValidCase{"/**/1/**/", "1"},
        ValidCase{"/* a * b / c **/ 1", "1"}, ValidCase{"/* multi\nline\n*/ 1", "1"},
        ValidCase{"/* // */ 1", "1"}, ValidCase{"// /* \n 1", "1"},
        ValidCase{"[1, // one\n 2 /* two */, /* end */]", "[1,2]"},
        ValidCase{"{/*k*/a/*c*/:/*v*/1/*,*/,//\n}", R"({"a":1})"},
        ValidCase{"// line\r1", "1"}, ValidCase{"// line\u20281", "1"},
        ValidCase{"\t\v\f \r\n1\n", "1"}, ValidCase{"\u00A01\u00A0", "1"},
        ValidCase{"\uFEFF{a:1}", R"({"a":1})"}, ValidCase{"\u2028[\u20291\u3000]", "[1]"},
        ValidCase{"\u1680\u2000\u200A\u202F\u205F1", "1"}));

// The example document from https://spec.json5.org/ ("Short Example").
TEST(Json5Parse, SpecExample) {
  const std::string text = R"(// This is the spec's example.
{
  // comments
  unquoted: 'and you can quote me on that',
  singleQuotes: 'I can use "double quotes" here',
  lineBreaks: "Look, Mom! \
No \\n's!",
  hexadecimal: 0xdecaf,
  leadingDecimalPoint: .8675309, andTrailing: 8675309.,
  positiveSign: +1,
  trailingComma: 'in objects', andIn: ['arrays',],
  "backwardsCompatible": "with JSON",
}
)";
  EXPECT_TRUE(same_json(parse_ok(text), expected(R"({
    "unquoted": "and you can quote me on that",
    "singleQuotes": "I can use \"double quotes\" here",
    "lineBreaks": "Look, Mom! No \\n's!",
    "hexadecimal": 912559,
    "leadingDecimalPoint": 0.8675309,
    "andTrailing": 8675309.0,
    "positiveSign": 1,
    "trailingComma": "in objects",
    "andIn": ["arrays"],
    "backwardsCompatible": "with JSON"
  })")));
}

// A pincer.json-shaped file with the features users actually write.
TEST(Json5Parse, ConfigLikeDocument) {
  const std::string text = R"({
  // Gateway
  gateway: { port: 18789, bind: 'loopback', },
  agents: {
    defaults: { model: "anthropic/claude", timeoutSeconds: 6e2, },
    list: [ { id: 'main', default: true }, ],  /* more later */
  },
  channels: { telegram: { enabled: false, allowFrom: [ +15551234567, ], }, },
})";
  EXPECT_TRUE(same_json(parse_ok(text), expected(R"({
    "gateway": {"port": 18789, "bind": "loopback"},
    "agents": {"defaults": {"model": "anthropic/claude", "timeoutSeconds": 600.0},
               "list": [{"id": "main", "default": true}]},
    "channels": {"telegram": {"enabled": false, "allowFrom": [15551234567]}}
  })")));
}

TEST(Json5Parse, NumberTypes) {
  EXPECT_TRUE(parse_ok("1").is_number_integer());
  EXPECT_FALSE(parse_ok("1").is_number_unsigned());
  EXPECT_TRUE(parse_ok("-1").is_number_integer());
  EXPECT_TRUE(parse_ok("9223372036854775808").is_number_unsigned());
  EXPECT_EQ(parse_ok("18446744073709551615").get<std::uint64_t>(),
            std::numeric_limits<std::uint64_t>::max());
  EXPECT_TRUE(parse_ok("18446744073709551616").is_number_float());
  EXPECT_TRUE(parse_ok("1.0").is_number_float());
  EXPECT_TRUE(parse_ok("1e0").is_number_float());
  EXPECT_TRUE(parse_ok("0x10").is_number_integer());
  EXPECT_EQ(parse_ok("-0x8000000000000000").get<std::int64_t>(),
            std::numeric_limits<std::int64_t>::min());
  const json negative_zero = parse_ok("-0.0");
  ASSERT_TRUE(negative_zero.is_number_float());
  EXPECT_TRUE(std::signbit(negative_zero.get<double>()));
}

TEST(Json5Parse, InfinityAndNaN) {
  for (const char* text : {"Infinity", "+Infinity", "1e400", "1.5e99999999999999999999"}) {
    const json value = parse_ok(text);
    ASSERT_TRUE(value.is_number_float()) << text;
    EXPECT_TRUE(std::isinf(value.get<double>()) && value.get<double>() > 0) << text;
  }
  for (const char* text : {"-Infinity", "-1e400"}) {
    const json value = parse_ok(text);
    ASSERT_TRUE(value.is_number_float()) << text;
    EXPECT_TRUE(std::isinf(value.get<double>()) && value.get<double>() < 0) << text;
  }
  for (const char* text : {"NaN", "+NaN", "-NaN"}) {
    const json value = parse_ok(text);
    ASSERT_TRUE(value.is_number_float()) << text;
    EXPECT_TRUE(std::isnan(value.get<double>())) << text;
  }
  const json mixed = parse_ok("{a: [Infinity, -Infinity, NaN], b: -1e-400}");
  EXPECT_TRUE(std::isinf(mixed["a"][0].get<double>()));
  EXPECT_TRUE(std::isinf(mixed["a"][1].get<double>()));
  EXPECT_TRUE(std::isnan(mixed["a"][2].get<double>()));
  EXPECT_EQ(mixed["b"].get<double>(), 0.0);
  EXPECT_TRUE(std::signbit(mixed["b"].get<double>()));
}

TEST(Json5Parse, EscapedNulAndHighCodePoints) {
  EXPECT_EQ(parse_ok(R"('a\0b')").get<std::string>(), std::string("a\0b", 3));
  EXPECT_EQ(parse_ok(R"('\x00')").get<std::string>(), std::string("\0", 1));
  EXPECT_EQ(parse_ok(R"('\u0000')").get<std::string>(), std::string("\0", 1));
  EXPECT_EQ(parse_ok(R"('\uDBFF\uDFFF')").get<std::string>(), "\xF4\x8F\xBF\xBF");  // U+10FFFF
  EXPECT_EQ(parse_ok(R"('\x80\xff')").get<std::string>(), "\u0080\u00FF");
  EXPECT_EQ(parse_ok("'\\\r\n\\\n'").get<std::string>(), "");
}

TEST(Json5Parse, NestingUpToTheLimitIsAccepted) {
  const std::string arrays = std::string(kMaxDepth, '[') + std::string(kMaxDepth, ']');
  EXPECT_TRUE(parse(arrays).ok());
  std::string objects;
  for (int i = 0; i < kMaxDepth; ++i) objects += "{a:";
  objects += "1" + std::string(kMaxDepth, '}');
  EXPECT_TRUE(parse(objects).ok());
}

TEST(Json5Parse, NestingBeyondTheLimitIsAnError) {
  const std::string arrays = std::string(kMaxDepth + 1, '[') + std::string(kMaxDepth + 1, ']');
  EXPECT_EQ(parse_error(arrays), "1:513: nesting too deep (more than 512 levels)");
  std::string mixed;
  for (int i = 0; i <= kMaxDepth / 2; ++i) mixed += "{a:[";
  EXPECT_EQ(parse_error(mixed), "1:" + std::to_string(2 * kMaxDepth + 1) +
                                    ": nesting too deep (more than 512 levels)");
  // Far deeper hostile input fails cleanly instead of overflowing the stack.
  EXPECT_EQ(parse_error(std::string(1'000'000, '[')),
            "1:513: nesting too deep (more than 512 levels)");
}

TEST(Json5Parse, ColumnsCountCodePoints) {
  EXPECT_EQ(parse_error("{ключ: @}"), "1:8: unexpected character '@' (expected a value)");
  EXPECT_EQ(parse_error("['😀', @]"), "1:7: unexpected character '@' (expected a value)");
  EXPECT_EQ(parse_error("'中文' x"), "1:6: unexpected character 'x' (expected end of input)");
}

TEST(Json5Parse, SourceNameIsPrefixed) {
  EXPECT_EQ(parse_error("{\n  a: 1,\n  b: nope,\n}", "/home/me/.pincer/pincer.json"),
            "/home/me/.pincer/pincer.json:3:6: unexpected identifier 'nope' (expected a value; "
            "strings must be quoted)");
}

TEST(Json5Parse, ArbitraryShortInputsNeverCrash) {
  // Every 1- and 2-byte input: parse either succeeds or reports a JSON5_PARSE error.
  for (int a = 0; a < 256; ++a) {
    for (int b = -1; b < 256; ++b) {
      std::string text(1, static_cast<char>(a));
      if (b >= 0) text.push_back(static_cast<char>(b));
      const Result<json> result = parse(text);
      if (!result.ok()) {
        ASSERT_EQ(result.error().code, "JSON5_PARSE");
      }
    }
  }
}

// -------------------------------------------------------------------------------------------
// Invalid input: exact position and message

struct InvalidCase {
  std::string json5;
  std::string message;  // "<line>:<col>: <what>" (no source given)
};

void PrintTo(const InvalidCase& c, std::ostream* os) { *os << printable(c.json5); }

class Json5ParseInvalid : public testing::TestWithParam<InvalidCase> {};

TEST_P(Json5ParseInvalid, ReportsPositionAndReason) {
  EXPECT_EQ(parse_error(GetParam().json5), GetParam().message) << "input: " << GetParam().json5;
}

INSTANTIATE_TEST_SUITE_P(
    Structure, Json5ParseInvalid,
    testing::Values(
        InvalidCase{"", "1:1: unexpected end of input (expected a value)"},
        InvalidCase{"  // only a comment", "1:20: unexpected end of input (expected a value)"},
        InvalidCase{"}", "1:1: unexpected character '}' (expected a value)"},
        InvalidCase{"[1,,]", "1:4: unexpected character ',' (expected a value)"},
        InvalidCase{"[,]", "1:2: unexpected character ',' (expected a value)"},
        InvalidCase{"[1", "1:3: unexpected end of input (expected ',' or ']')"},
        InvalidCase{"[1 2]", "1:4: unexpected character '2' (expected ',' or ']')"},
        InvalidCase{"[1}", "1:3: unexpected character '}' (expected ',' or ']')"},
        InvalidCase{"['a''b']", "1:5: unexpected character \"'\" (expected ',' or ']')"},
        InvalidCase{"{a:1", "1:5: unexpected end of input (expected ',' or '}')"},
        InvalidCase{"{a:1]", "1:5: unexpected character ']' (expected ',' or '}')"},
        InvalidCase{"{a 1}", "1:4: unexpected character '1' (expected ':' after key 'a')"},
        InvalidCase{"{'a\\nb' 1}", "1:9: unexpected character '1' (expected ':' after key 'a\\u000Ab')"},
        InvalidCase{"{a:}", "1:4: unexpected character '}' (expected a value)"},
        InvalidCase{"{1:2}", "1:2: unexpected character '1' (expected a key or '}')"},
        InvalidCase{"{,}", "1:2: unexpected character ',' (expected a key or '}')"},
        InvalidCase{"{a:1,,}", "1:6: unexpected character ',' (expected a key or '}')"},
        InvalidCase{"{", "1:2: unexpected end of input (expected a key or '}')"},
        InvalidCase{"{-a:1}", "1:2: unexpected character '-' (expected a key or '}')"},
        InvalidCase{"1 2", "1:3: unexpected character '2' (expected end of input)"},
        InvalidCase{"{} x", "1:4: unexpected character 'x' (expected end of input)"},
        InvalidCase{"[] // ok\n]", "2:1: unexpected character ']' (expected end of input)"},
        InvalidCase{"/ 1", "1:1: unexpected character '/' (expected a value)"},
        InvalidCase{"[1 / 2]", "1:4: unexpected character '/' (expected ',' or ']')"},
        InvalidCase{"/* never closed", "1:1: unterminated comment (missing '*/')"},
        InvalidCase{"[1, /* x */ /* y ", "1:13: unterminated comment (missing '*/')"},
        InvalidCase{"foo", "1:1: unexpected identifier 'foo' (expected a value; strings must be quoted)"},
        InvalidCase{"{a: b}", "1:5: unexpected identifier 'b' (expected a value; strings must be quoted)"},
        InvalidCase{"truex", "1:1: unexpected identifier 'truex' (expected a value; strings must be quoted)"},
        InvalidCase{"True", "1:1: unexpected identifier 'True' (expected a value; strings must be quoted)"},
        InvalidCase{"undefined", "1:1: unexpected identifier 'undefined' (expected a value; strings must be quoted)"},
        InvalidCase{"abcdefghijabcdefghijabcdefghijabcdefghij",
                    "1:1: unexpected identifier 'abcdefghijabcdefghijabcdefghijab...' (expected a "
                    "value; strings must be quoted)"},
        InvalidCase{"\\u0061", "1:1: unexpected character '\\' (expected a value)"},
        InvalidCase{"[\x01]", "1:2: unexpected character U+0001 (expected a value)"},
        InvalidCase{"[\u2192]", "1:2: unexpected character '\u2192' (U+2192) (expected a value)"},
        InvalidCase{"[1\u00A0\u00D7]", "1:4: unexpected character '\u00D7' (U+00D7) (expected ',' or ']')"}));

INSTANTIATE_TEST_SUITE_P(
    Keys, Json5ParseInvalid,
    testing::Values(
        InvalidCase{"{\\u0020:1}",
                    "1:2: invalid escape '\\u0020' in key (not an identifier character; quote the key)"},
        InvalidCase{"{\\u0031a:1}",
                    "1:2: invalid escape '\\u0031' in key (not an identifier character; quote the key)"},
        InvalidCase{"{a\\x41:1}", "1:3: invalid escape in key (only \\uXXXX is allowed)"},
        InvalidCase{"{a\\u00G1:1}", "1:3: invalid escape '\\u' (expected 4 hex digits)"},
        InvalidCase{"{a\\", "1:3: invalid escape in key (only \\uXXXX is allowed)"},
        InvalidCase{"{a-b:1}", "1:3: unexpected character '-' (expected ':' after key 'a')"}));

INSTANTIATE_TEST_SUITE_P(
    Numbers, Json5ParseInvalid,
    testing::Values(
        InvalidCase{"01", "1:1: invalid number '01' (leading zeros are not allowed)"},
        InvalidCase{"-01", "1:1: invalid number '-01' (leading zeros are not allowed)"},
        InvalidCase{"00.5", "1:1: invalid number '00.5' (leading zeros are not allowed)"},
        InvalidCase{"[1, 007]", "1:5: invalid number '007' (leading zeros are not allowed)"},
        InvalidCase{"1e", "1:1: invalid number '1e' (expected digits in the exponent)"},
        InvalidCase{"1e+", "1:1: invalid number '1e+' (expected digits in the exponent)"},
        InvalidCase{"[1.5E-]", "1:2: invalid number '1.5E-' (expected digits in the exponent)"},
        InvalidCase{".", "1:1: invalid number '.' (expected a digit)"},
        InvalidCase{"-.e1", "1:1: invalid number '-.e1' (expected a digit)"},
        InvalidCase{"0x", "1:1: invalid number '0x' (expected hex digits after '0x')"},
        InvalidCase{"0xg", "1:1: invalid number '0xg' (expected hex digits after '0x')"},
        InvalidCase{"0x10000000000000000",
                    "1:1: invalid number '0x10000000000000000' (does not fit in 64 bits)"},
        InvalidCase{"-0x8000000000000001",
                    "1:1: invalid number '-0x8000000000000001' (does not fit in 64 bits)"},
        InvalidCase{"5x", "1:2: unexpected character 'x' after number"},
        InvalidCase{"0x1g", "1:4: unexpected character 'g' after number"},
        InvalidCase{"1e5e", "1:4: unexpected character 'e' after number"},
        InvalidCase{"1.5.3", "1:4: unexpected character '.' (expected end of input)"},
        InvalidCase{"0x1.5", "1:4: unexpected character '.' (expected end of input)"},
        InvalidCase{"-", "1:2: unexpected end of input (expected a number after '-')"},
        InvalidCase{"+a", "1:2: unexpected character 'a' (expected a number after '+')"},
        InvalidCase{"- 1", "1:2: unexpected character U+0020 (expected a number after '-')"},
        InvalidCase{"+-1", "1:2: unexpected character '-' (expected a number after '+')"},
        InvalidCase{"-Infinit", "1:1: invalid number '-Infinit' (expected Infinity or NaN after the sign)"},
        InvalidCase{"+Infinityx",
                    "1:1: invalid number '+Infinityx' (expected Infinity or NaN after the sign)"},
        InvalidCase{"-nan", "1:2: unexpected character 'n' (expected a number after '-')"}));

INSTANTIATE_TEST_SUITE_P(
    Strings, Json5ParseInvalid,
    testing::Values(
        InvalidCase{"'abc", "1:1: unterminated string"},
        InvalidCase{"\"abc'", "1:1: unterminated string"},
        InvalidCase{"['a', 'b", "1:7: unterminated string"},
        InvalidCase{"'a\\", "1:1: unterminated string"},
        InvalidCase{"'ab\ncd'", "1:4: unterminated string (a line break inside a string must be escaped)"},
        InvalidCase{"'ab\rcd'", "1:4: unterminated string (a line break inside a string must be escaped)"},
        InvalidCase{"'\\1'", "1:2: invalid escape '\\1' (octal escapes are not allowed)"},
        InvalidCase{"'\\9'", "1:2: invalid escape '\\9' (octal escapes are not allowed)"},
        InvalidCase{"'ab\\01'", "1:4: invalid escape '\\01' (octal escapes are not allowed)"},
        InvalidCase{"'\\x4'", "1:2: invalid escape '\\x' (expected 2 hex digits)"},
        InvalidCase{"'\\xg0'", "1:2: invalid escape '\\x' (expected 2 hex digits)"},
        InvalidCase{"'\\x", "1:2: invalid escape '\\x' (expected 2 hex digits)"},
        InvalidCase{"'\\u12'", "1:2: invalid escape '\\u' (expected 4 hex digits)"},
        InvalidCase{"'\\u12G4'", "1:2: invalid escape '\\u' (expected 4 hex digits)"},
        InvalidCase{"'\\uD800'", "1:2: invalid escape '\\uD800' (lone surrogate)"},
        InvalidCase{"'\\uDC00\\uD800'", "1:2: invalid escape '\\uDC00' (lone surrogate)"},
        InvalidCase{"'x\\uD83Dy'", "1:3: invalid escape '\\uD83D' (lone surrogate)"},
        InvalidCase{"'\\uD83D\\u0041'", "1:2: invalid escape '\\uD83D' (lone surrogate)"},
        InvalidCase{"'\\uD83D\\uD83D'", "1:2: invalid escape '\\uD83D' (lone surrogate)"},
        InvalidCase{"'\\uD83D\\n'", "1:2: invalid escape '\\uD83D' (lone surrogate)"}));

INSTANTIATE_TEST_SUITE_P(
    Utf8, Json5ParseInvalid,
    testing::Values(
        InvalidCase{"\xFF", "1:1: invalid UTF-8 byte 0xFF"},
        InvalidCase{"'\xC3'", "1:2: invalid UTF-8 byte 0xC3"},       // truncated sequence
        InvalidCase{"'é\xC3", "1:3: invalid UTF-8 byte 0xC3"},       // truncated at the end
        InvalidCase{"\xC0\x80", "1:1: invalid UTF-8 byte 0xC0"},     // overlong NUL
        InvalidCase{"'\xE0\x80\xAF'", "1:2: invalid UTF-8 byte 0xE0"},  // overlong '/'
        InvalidCase{"'\xED\xA0\x80'", "1:2: invalid UTF-8 byte 0xED"},  // encoded surrogate
        InvalidCase{"'\xF4\x90\x80\x80'", "1:2: invalid UTF-8 byte 0xF4"},  // above U+10FFFF
        InvalidCase{"'\x80'", "1:2: invalid UTF-8 byte 0x80"},       // stray continuation
        // Invalid UTF-8 is found even where the parser would never look (here after an error).
        InvalidCase{"} // \xFE", "1:6: invalid UTF-8 byte 0xFE"}));

INSTANTIATE_TEST_SUITE_P(
    Positions, Json5ParseInvalid,
    testing::Values(
        InvalidCase{"{\n  a: 1,\n  b: ?,\n}", "3:6: unexpected character '?' (expected a value)"},
        InvalidCase{"[\r\n1,\r\n@]", "3:1: unexpected character '@' (expected a value)"},
        InvalidCase{"[\r1,\r@]", "3:1: unexpected character '@' (expected a value)"},
        InvalidCase{"[1,\u2028@]", "2:1: unexpected character '@' (expected a value)"},
        InvalidCase{"[1,\u2029 @]", "2:2: unexpected character '@' (expected a value)"},
        InvalidCase{"/* a\nb */ // c\n\n   }", "4:4: unexpected character '}' (expected a value)"},
        InvalidCase{"'a\\\nb' @", "2:4: unexpected character '@' (expected end of input)"},
        InvalidCase{"\uFEFF}", "1:2: unexpected character '}' (expected a value)"}));

}  // namespace
}  // namespace pincer::json5
