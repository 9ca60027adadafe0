// Unit tests for the incremental SSE parser (src/llm/sse_parser.h, WHATWG event-stream rules) and
// the NDJSON parser (src/llm/ndjson_parser.h): spec examples, every line-ending style, splits at
// every byte boundary, the BOM, size guards and sticky errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "llm/ndjson_parser.h"
#include "llm/sse_parser.h"

namespace pincer::llm {
namespace {

using nlohmann::json;

std::vector<SseEvent> parse_all(std::string_view text, bool flush = false) {
  SseParser p;
  std::vector<SseEvent> out;
  EXPECT_TRUE(p.feed(text, out).ok());
  if (flush) p.flush(out);
  else p.finish();
  return out;
}

/// Feeds `text` split at `cut`, then finishes.
std::vector<SseEvent> parse_split(std::string_view text, std::size_t cut) {
  SseParser p;
  std::vector<SseEvent> out;
  EXPECT_TRUE(p.feed(text.substr(0, cut), out).ok());
  EXPECT_TRUE(p.feed(text.substr(cut), out).ok());
  p.finish();
  return out;
}

SseEvent ev(std::string type, std::string data, std::string id = "") {
  return SseEvent{std::move(type), std::move(data), std::move(id)};
}

TEST(LlmSse, SpecExampleMultiLineData) {
  EXPECT_EQ(parse_all("data: YHOO\ndata: +2\ndata: 10\n\n"), std::vector{ev("message", "YHOO\n+2\n10")});
}

TEST(LlmSse, SpecExampleCommentsIdsAndTypes) {
  const std::string text =
      ": test stream\n\n"
      "data: first event\nid: 1\n\n"
      "data:second event\nid\n\n"
      "data:  third event\n\n"
      "event: add\ndata: 73857293\n\n";
  EXPECT_EQ(parse_all(text), (std::vector{ev("message", "first event", "1"), ev("message", "second event", ""),
                                          ev("message", " third event", ""), ev("add", "73857293", "")}));
}

TEST(LlmSse, SpecExampleEmptyDataAndDiscardedTail) {
  // "data" alone is a data line with an empty value; the last event lacks its blank line.
  EXPECT_EQ(parse_all("data\n\ndata\ndata\n\ndata:"), (std::vector{ev("message", ""), ev("message", "\n")}));
  SseParser p;
  std::vector<SseEvent> out;
  ASSERT_TRUE(p.feed("data: tail", out).ok());
  EXPECT_TRUE(p.finish());  // an incomplete event was discarded
  EXPECT_TRUE(out.empty());
}

TEST(LlmSse, FlushDispatchesTheUnterminatedEvent) {
  EXPECT_EQ(parse_all("data: [DONE]", /*flush=*/true), std::vector{ev("message", "[DONE]")});
  EXPECT_EQ(parse_all("data: a\n", /*flush=*/true), std::vector{ev("message", "a")});
  EXPECT_TRUE(parse_all(": only a comment", /*flush=*/true).empty());
}

TEST(LlmSse, EventWithoutDataIsNotDispatchedAndResetsType) {
  EXPECT_EQ(parse_all("event: ping\n\ndata: x\n\n"), std::vector{ev("message", "x")});
}

TEST(LlmSse, IdPersistsAndNulIdIsIgnored) {
  using namespace std::string_literals;
  const std::string text = "id: 7\ndata: a\n\ndata: b\n\nid: 8\0x\ndata: c\n\n"s;
  EXPECT_EQ(parse_all(text), (std::vector{ev("message", "a", "7"), ev("message", "b", "7"), ev("message", "c", "7")}));
}

TEST(LlmSse, RetryTakesDigitsOnly) {
  SseParser p;
  std::vector<SseEvent> out;
  ASSERT_TRUE(p.feed("retry: 1500\n\n", out).ok());
  EXPECT_EQ(p.retry_ms(), 1500);
  ASSERT_TRUE(p.feed("retry: 2s\n\nretry: -1\n\nretry:\n\n", out).ok());
  EXPECT_EQ(p.retry_ms(), 1500);
  EXPECT_TRUE(out.empty());
}

TEST(LlmSse, UnknownFieldsAndColonInValue) {
  EXPECT_EQ(parse_all("foo: bar\ndata: a: b\n\n"), std::vector{ev("message", "a: b")});
}

TEST(LlmSse, AllLineEndingsGiveTheSameEvents) {
  const std::vector want{ev("message", "one\ntwo"), ev("x", "three", "5")};
  for (const char* eol : {"\n", "\r", "\r\n"}) {
    std::string text;
    for (const char* line : {"data: one", "data: two", "", "event: x", "id: 5", "data: three", ""}) {
      text += line;
      text += eol;
    }
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
      EXPECT_EQ(parse_split(text, cut), want) << "eol " << (eol[0] == '\r' ? (eol[1] ? "CRLF" : "CR") : "LF")
                                              << " cut " << cut;
    }
  }
}

TEST(LlmSse, CrlfSplitBetweenCrAndLfIsOneLineEnd) {
  SseParser p;
  std::vector<SseEvent> out;
  ASSERT_TRUE(p.feed("data: a\r", out).ok());
  ASSERT_TRUE(p.feed("\n\r", out).ok());
  ASSERT_TRUE(p.feed("\n", out).ok());
  EXPECT_EQ(out, std::vector{ev("message", "a")});
}

TEST(LlmSse, ByteAtATime) {
  const std::string text = "\xEF\xBB\xBF" "event: a\r\ndata: 1\r\n\r\n: c\ndata: 2\n\n";
  SseParser p;
  std::vector<SseEvent> out;
  for (char c : text) ASSERT_TRUE(p.feed(std::string_view(&c, 1), out).ok());
  EXPECT_EQ(out, (std::vector{ev("a", "1"), ev("message", "2")}));
}

TEST(LlmSse, BomOnlyAtStart) {
  const std::string bom = "\xEF\xBB\xBF";
  EXPECT_EQ(parse_all(bom + "data: x\n\n"), std::vector{ev("message", "x")});
  // A second BOM is part of the field name, which is then unknown.
  EXPECT_EQ(parse_all(bom + bom + "data: x\n\ndata: y\n\n"), std::vector{ev("message", "y")});
  // A partial BOM followed by something else is ordinary bytes (here: an unknown field).
  EXPECT_EQ(parse_all("\xEF\xBB" "data: x\n\ndata: y\n\n"), std::vector{ev("message", "y")});
  for (std::size_t cut = 0; cut <= 4; ++cut) {
    EXPECT_EQ(parse_split(bom + "data: z\n\n", cut), std::vector{ev("message", "z")}) << cut;
  }
}

TEST(LlmSse, OversizedLineIsAStickyError) {
  SseParser p(16);
  std::vector<SseEvent> out;
  ASSERT_TRUE(p.feed("data: ok\n\n", out).ok());
  auto s = p.feed("data: 0123456789abcdef\n\n", out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "SSE_EVENT_TOO_LARGE");
  EXPECT_EQ(s.error().message, "server-sent event larger than 16 bytes");
  EXPECT_EQ(out, std::vector{ev("message", "ok")});
  EXPECT_FALSE(p.feed("data: x\n\n", out).ok());
}

TEST(LlmSse, OversizedDataAcrossLinesIsAnError) {
  SseParser p(16);
  std::vector<SseEvent> out;
  auto s = p.feed("data: 0123456\ndata: 0123456\ndata: 0123456\n\n", out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "SSE_EVENT_TOO_LARGE");
  EXPECT_TRUE(out.empty());
}

TEST(LlmSse, OversizedLineSplitAcrossFeedsIsAnError) {
  SseParser p(16);
  std::vector<SseEvent> out;
  bool failed = false;
  for (int i = 0; i < 10 && !failed; ++i) failed = !p.feed("aaaa", out).ok();
  EXPECT_TRUE(failed);
}

// ---------------------------------------------------------------------------------------------
// NDJSON
// ---------------------------------------------------------------------------------------------

TEST(LlmNdjson, LinesSplitAnywhere) {
  const std::string text = "{\"a\":1}\n\n  \r\n[2,3]\r\n\"s\"\n{\"b\":{\"c\":null}}";
  const std::vector<json> want{json{{"a", 1}}, json{2, 3}, json("s"), json{{"b", {{"c", nullptr}}}}};
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    NdjsonParser p;
    std::vector<json> out;
    ASSERT_TRUE(p.feed(std::string_view(text).substr(0, cut), out).ok());
    ASSERT_TRUE(p.feed(std::string_view(text).substr(cut), out).ok());
    ASSERT_TRUE(p.finish(out).ok());
    EXPECT_EQ(out, want) << "cut " << cut;
  }
}

TEST(LlmNdjson, BadLineNamesItsNumber) {
  NdjsonParser p;
  std::vector<json> out;
  auto s = p.feed("{\"ok\":true}\n\n{\"broken\":\n{\"after\":1}\n", out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "NDJSON_PARSE");
  EXPECT_EQ(s.error().message.rfind("line 3: ", 0), 0u) << s.error().message;
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos);
  EXPECT_EQ(out, (std::vector<json>{json{{"ok", true}}}));
  // Sticky.
  auto again = p.feed("{}\n", out);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message, s.error().message);
}

TEST(LlmNdjson, TrailingGarbageOnFinishIsAnError) {
  NdjsonParser p;
  std::vector<json> out;
  ASSERT_TRUE(p.feed("1\n2\n{", out).ok());
  auto s = p.finish(out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message.rfind("line 3: ", 0), 0u);
}

TEST(LlmNdjson, LineTooLarge) {
  NdjsonParser p(8);
  std::vector<json> out;
  ASSERT_TRUE(p.feed("[1,2,3]\n", out).ok());
  auto s = p.feed("[1,2,3,4,5]\n", out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "NDJSON_LINE_TOO_LARGE");
  EXPECT_EQ(s.error().message, "line 2: longer than 8 bytes");
}

TEST(LlmNdjson, DeepNestingIsRejected) {
  EXPECT_FALSE(json_nesting_exceeds(std::string(512, '[') + std::string(512, ']')));
  EXPECT_TRUE(json_nesting_exceeds(std::string(513, '[')));
  EXPECT_FALSE(json_nesting_exceeds("\"" + std::string(600, '[') + "\""));  // inside a string
  EXPECT_FALSE(json_nesting_exceeds("[\"\\\"[[[\"]", 1));  // escaped quote inside a string
  NdjsonParser p;
  std::vector<json> out;
  auto s = p.feed("[1]\n" + std::string(100000, '[') + "\n", out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "line 2: nesting deeper than 512");
}

}  // namespace
}  // namespace pincer::llm
