// Unit tests for the pi-format message model (src/llm/messages.h): exact JSON written, lossless
// round trips of transcript-shaped messages, tolerance of unknown fields and errors that name the
// offending field.
#include "llm/messages.h"

#include <gtest/gtest.h>

#include <string>

namespace pincer::llm {
namespace {

using nlohmann::json;

json round_trip(const json& in) {
  auto parsed = message_from_json(in);
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message);
  return parsed.ok() ? to_json(parsed.value()) : json();
}

TEST(LlmMessages, StopReasonNames) {
  const std::pair<StopReason, const char*> table[] = {{StopReason::Stop, "stop"},
                                                      {StopReason::Length, "length"},
                                                      {StopReason::ToolUse, "toolUse"},
                                                      {StopReason::Error, "error"},
                                                      {StopReason::Aborted, "aborted"}};
  for (const auto& [reason, name] : table) {
    EXPECT_EQ(to_string(reason), name);
    EXPECT_EQ(stop_reason_from_string(name), reason);
  }
  EXPECT_FALSE(stop_reason_from_string("tool_use").has_value());
}

TEST(LlmMessages, UserStringContentWritesAString) {
  UserMessage m;
  m.content.emplace_back(TextContent{"hello"});
  m.timestamp = 1700000000123;
  EXPECT_EQ(to_json(Message{m}), json::parse(R"({"role":"user","content":"hello","timestamp":1700000000123})"));
  m.content_is_string = false;
  EXPECT_EQ(to_json(Message{m})["content"], json::parse(R"([{"type":"text","text":"hello"}])"));
}

TEST(LlmMessages, AssistantJsonHasEveryPiField) {
  AssistantMessage a;
  a.content.emplace_back(ThinkingContent{"hmm", "sig", false});
  a.content.emplace_back(TextContent{"Hi"});
  a.content.emplace_back(ToolCall{"call_1", "read", json{{"path", "/tmp"}}});
  a.api = "anthropic-messages";
  a.provider = "anthropic";
  a.model = "claude";
  a.usage.input = 10;
  a.usage.output = 5;
  a.usage.cache_read = 2;
  a.usage.total_tokens = 17;
  a.usage.cost.total = 0.25;
  a.stop_reason = StopReason::ToolUse;
  a.response_id = "msg_1";
  a.timestamp = 42;
  const json expected = json::parse(R"({
    "role":"assistant",
    "content":[{"type":"thinking","thinking":"hmm","thinkingSignature":"sig"},
               {"type":"text","text":"Hi"},
               {"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"/tmp"}}],
    "api":"anthropic-messages","provider":"anthropic","model":"claude",
    "usage":{"input":10,"output":5,"cacheRead":2,"cacheWrite":0,"totalTokens":17,
             "cost":{"input":0.0,"output":0.0,"cacheRead":0.0,"cacheWrite":0.0,"total":0.25}},
    "stopReason":"toolUse","responseId":"msg_1","timestamp":42})");
  EXPECT_EQ(to_json(Message{a}), expected);
  EXPECT_EQ(a.text(), "Hi");
  ASSERT_EQ(a.tool_calls().size(), 1u);
  EXPECT_EQ(a.tool_calls()[0]->name, "read");
}

TEST(LlmMessages, TranscriptShapesRoundTrip) {
  const char* cases[] = {
      R"({"role":"user","content":"plain","timestamp":1})",
      R"({"role":"user","content":[{"type":"text","text":"look"},{"type":"image","data":"aGk=","mimeType":"image/png"}],"timestamp":2})",
      R"({"role":"assistant","content":[{"type":"thinking","thinking":"","thinkingSignature":"opaque","redacted":true},{"type":"text","text":"ok"}],
          "api":"openai-responses","provider":"openai","model":"gpt-5",
          "usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.5,"output":0.25,"cacheRead":0.0,"cacheWrite":0.0,"total":0.75}},
          "stopReason":"error","errorMessage":"boom","timestamp":3})",
      R"({"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"data"}],"details":{"bytes":4},"isError":false,"timestamp":4})",
      R"({"role":"toolResult","toolCallId":"call_2","toolName":"exec","content":[],"isError":true,"timestamp":5})",
  };
  for (const char* text : cases) {
    const json in = json::parse(text);
    EXPECT_EQ(round_trip(in), in) << text;
  }
}

TEST(LlmMessages, UnknownFieldsAreIgnored) {
  const json in = json::parse(R"({"role":"assistant","content":[{"type":"text","text":"x","textSignature":"msg_1"},
      {"type":"toolCall","id":"c","name":"n","arguments":{},"thoughtSignature":"t"}],
      "api":"a","provider":"p","model":"m","stopReason":"stop","timestamp":1,"extra":{"k":1}})");
  auto parsed = message_from_json(in);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const auto& a = std::get<AssistantMessage>(parsed.value());
  EXPECT_EQ(a.text(), "x");
  EXPECT_EQ(a.tool_calls().size(), 1u);
  EXPECT_EQ(a.usage.total_tokens, 0);  // usage absent → zeros
}

TEST(LlmMessages, ErrorsNameTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"([1])", "message: expected an object"},
      {R"({"content":"x"})", "message.role: missing"},
      {R"({"role":"system","content":"x"})", "message.role: unsupported role \"system\""},
      {R"({"role":"user"})", "message.content: missing"},
      {R"({"role":"user","content":[{"type":"toolCall","id":"a","name":"b"}]})",
       "message.content[0].type: unexpected block type \"toolCall\""},
      {R"({"role":"user","content":[{"type":"image","data":"x"}]})", "message.content[0].mimeType: missing"},
      {R"({"role":"assistant","content":[],"stopReason":"done"})", "message.stopReason: unknown value \"done\""},
      {R"({"role":"assistant","content":[],"usage":{"input":"3"}})", "message.usage.input: expected an integer"},
      {R"({"role":"assistant","content":[],"usage":{"cost":{"total":"x"}}})", "message.usage.cost.total: expected a number"},
      {R"({"role":"toolResult","content":[]})", "message.toolCallId: missing"},
      {R"({"role":"toolResult","toolCallId":"a","content":[],"isError":"no"})", "message.isError: expected a boolean"},
      {R"({"role":"user","content":"x","timestamp":1.5})", "message.timestamp: expected an integer"},
  };
  for (const auto& [text, want] : cases) {
    auto parsed = message_from_json(json::parse(text));
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error().code, "MESSAGE_INVALID");
    EXPECT_EQ(parsed.error().message, want) << text;
  }
}

TEST(LlmMessages, IntegralDoublesAreAcceptedAsIntegers) {
  auto parsed = message_from_json(json::parse(R"({"role":"user","content":"x","timestamp":1700000000000.0})"));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(std::get<UserMessage>(parsed.value()).timestamp, 1700000000000);
}

}  // namespace
}  // namespace pincer::llm
