// The fast compact serializer (src/core/json_dump.h) against nlohmann's own dump with the same
// options; the json_dump_fuzz target checks the same property on arbitrary inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json_dump.h"

namespace {

using nlohmann::json;

std::string reference(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

void expect_same(const json& j) {
  const std::string expected = reference(j);
  EXPECT_EQ(pincer::json_dump::compact(j), expected);
  EXPECT_EQ(pincer::json_dump::compact_size(j), expected.size()) << expected;
}

TEST(JsonDump, ScalarsAndContainersMatchNlohmann) {
  for (const json& j : std::vector<json>{nullptr, true, false, 0, -1, 42u, INT64_MIN, UINT64_MAX, 1.5, -0.0, 1e300, 0.1,
                                         json::object(), json::array(), "", "plain"}) {
    expect_same(j);
  }
  expect_same(json{{"model", "m"}, {"messages", json::array({json{{"role", "user"}, {"content", "hi"}}})},
                   {"stream", true}, {"temperature", 0.7}, {"n", json::array({1, 2, 3})}, {"empty", json::object()}});
}

TEST(JsonDump, EscapesEveryControlByteQuoteAndBackslash) {
  std::string all;
  for (int c = 0; c < 0x80; ++c) all += static_cast<char>(c);
  expect_same(json(all));
  EXPECT_EQ(pincer::json_dump::compact(json(std::string("a\"b\\c\n\x01\x7f"))), "\"a\\\"b\\\\c\\n\\u0001\x7f\"");
}

TEST(JsonDump, ValidUtf8IsCopiedAsIs) {
  const std::string text = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbf \xf4\x8f\xbf\xbf";
  expect_same(json(text));
  EXPECT_EQ(pincer::json_dump::compact(json(text)), "\"" + text + "\"");
  expect_same(json{{text, text}});
}

TEST(JsonDump, InvalidUtf8IsReplacedExactlyAsNlohmannDoes) {
  for (const std::string& bad : {std::string("\xc3"), std::string("ab\xc3z"), std::string("\x80"), std::string("\xc0\xaf"),
                                std::string("\xe0\x80\x80"), std::string("\xed\xa0\x80"), std::string("\xf0\x80\x80\x80"),
                                std::string("\xf4\x90\x80\x80"), std::string("\xf5\x80\x80\x80"), std::string("\xff"),
                                std::string("ok \xe2\x82"), std::string("\xe2\x82\xac\xe2")}) {
    expect_same(json(bad));
    expect_same(json{{bad, json::array({bad, 1})}});
  }
}

TEST(JsonDump, AsParsedGivesWhatParsingTheDumpGives) {
  json j = {{"n", 5}, {"neg", -3}, {"big", 18446744073709551615ULL}, {"f", 1.5}, {"whole", 3.0},
            {"nested", {{"list", json::array({1, -1, "é€😀", nullptr, true})}}}, {"empty", json::object()}};
  ASSERT_TRUE(pincer::json_dump::as_parsed(j));
  const json parsed = json::parse(pincer::json_dump::compact(j));
  EXPECT_EQ(j, parsed);
  EXPECT_TRUE(j["n"].is_number_unsigned());  // as the parser reads a non-negative integer
  EXPECT_TRUE(j["nested"]["list"][0].is_number_unsigned());
  EXPECT_TRUE(j["neg"].is_number_integer() && !j["neg"].is_number_unsigned());
  EXPECT_TRUE(j["whole"].is_number_float());
  // Types, not only values, as the parser's: the dumps with type-sensitive formatting agree too.
  EXPECT_EQ(j.dump(), parsed.dump());
}

TEST(JsonDump, AsParsedRefusesWhatOnlyTheDumpKnows) {
  json bad_string = {{"text", std::string("ok \xff not UTF-8")}};
  EXPECT_FALSE(pincer::json_dump::as_parsed(bad_string));  // written as U+FFFD
  json bad_key = {{std::string("k\xc3"), 1}};
  EXPECT_FALSE(pincer::json_dump::as_parsed(bad_key));
  json nan = {{"cost", std::nan("")}};
  EXPECT_FALSE(pincer::json_dump::as_parsed(nan));  // written as null
  json inf = json::array({1, std::numeric_limits<double>::infinity()});
  EXPECT_FALSE(pincer::json_dump::as_parsed(inf));
  json deep = 1;
  for (int i = 0; i < 5; ++i) deep = json::array({deep});
  json deep_copy = deep;
  EXPECT_TRUE(pincer::json_dump::as_parsed(deep_copy, 5));
  EXPECT_FALSE(pincer::json_dump::as_parsed(deep, 4));  // a reader's nesting limit
}

TEST(JsonDump, WriterPlacesCommasAndMatchesTheTreeItWrites) {
  std::string out;
  pincer::json_dump::Writer w(out);
  w.begin_object().key("a").begin_array().integer(1).string("x\n").null().boolean(false);
  w.begin_object().end_object().begin_array().end_array().end_array();
  w.key("b").value(json{{"k", json::array({1, "two"})}}).key("c").begin_object().key("d").boolean(true).end_object();
  w.end_object();
  const json expected{{"a", json::array({1, "x\n", nullptr, false, json::object(), json::array()})},
                      {"b", {{"k", json::array({1, "two"})}}},
                      {"c", {{"d", true}}}};
  EXPECT_EQ(out, reference(expected));
}

}  // namespace
