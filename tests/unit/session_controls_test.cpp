// The pure parts of issue 12 items 6–7: thinking-level step-down (AG-7), session reset policies
// (SS-5, OpenClaw's rules), IANA time-zone offsets for the turn context (CX-4), and the prompt-cache
// markers of the wire requests (Anthropic cache_control, OpenAI prompt_cache_key).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agent/session_reset.h"
#include "agent/thinking_levels.h"
#include "agent/time_zone.h"
#include "llm/provider.h"

namespace pincer::agent {
namespace {

using nlohmann::json;
using L = llm::ThinkingLevel;

constexpr const char* kOpenAiRejection =
    R"({"error":{"message":"Unsupported value: 'reasoning_effort' does not support 'xhigh' with this model. Supported values are: 'low', 'medium', and 'high'.","type":"invalid_request_error","param":"reasoning_effort","code":"unsupported_value"}})";

TEST(ThinkingLevels, RejectionsAreRecognisedInTheProvidersShapes) {
  EXPECT_TRUE(is_thinking_rejection(400, kOpenAiRejection));
  EXPECT_TRUE(is_thinking_rejection(
      400, R"({"type":"error","error":{"type":"invalid_request_error","message":"'claude-3-5-haiku' does not support thinking"}})"));
  EXPECT_FALSE(is_thinking_rejection(429, kOpenAiRejection));
  EXPECT_FALSE(is_thinking_rejection(400, R"({"error":{"message":"This model's maximum context length is 128000 tokens."}})"));
  EXPECT_FALSE(is_thinking_rejection(400, R"({"error":{"message":"Invalid request"}})"));
}

TEST(ThinkingLevels, StepDownTakesTheBestListedLevelElseTheNextLower) {
  EXPECT_EQ(step_down_thinking(L::XHigh, kOpenAiRejection), L::High);
  EXPECT_EQ(step_down_thinking(L::Minimal, kOpenAiRejection), L::Off);  // nothing listed below minimal
  EXPECT_EQ(step_down_thinking(L::High, R"(Supported values are: 'low'.)"), L::Low);
  EXPECT_EQ(step_down_thinking(L::XHigh), L::High);
  EXPECT_EQ(step_down_thinking(L::Low), L::Minimal);
  EXPECT_EQ(step_down_thinking(L::Off), std::nullopt);
  EXPECT_EQ(llm::to_string(L::XHigh), "xhigh");
}

int utc(int64_t) { return 0; }
int plus_two(int64_t) { return 120; }

constexpr int64_t kHour = 3'600'000;
// 2026-03-05T00:00:00Z
constexpr int64_t kDay0 = 1'772'668'800'000;

TEST(SessionReset, PolicyResolutionFollowsOpenClaw) {
  EXPECT_EQ(resolve_reset_policy(json(), "direct", "").mode, ResetMode::None);
  const json cfg = json::parse(R"({
    "reset": {"atHour": 6},
    "resetByType": {"group": {"mode": "idle", "idleMinutes": 30}, "thread": {"idleMinutes": 5}},
    "resetByChannel": {"telegram": {"mode": "none"}}})");
  ResetPolicy direct = resolve_reset_policy(cfg, "direct", "irc");
  EXPECT_EQ(direct.mode, ResetMode::Daily);  // a configured block without mode is daily
  EXPECT_EQ(direct.at_hour, 6);
  ResetPolicy group = resolve_reset_policy(cfg, "group", "");
  EXPECT_EQ(group.mode, ResetMode::Idle);
  EXPECT_EQ(group.idle_minutes, 30);
  ResetPolicy thread = resolve_reset_policy(cfg, "thread", "");
  EXPECT_EQ(thread.mode, ResetMode::Daily);  // inherits the base mode
  EXPECT_EQ(thread.at_hour, 6);
  EXPECT_EQ(thread.idle_minutes, 5);
  EXPECT_EQ(resolve_reset_policy(cfg, "group", "telegram").mode, ResetMode::None);  // the channel wins
  EXPECT_EQ(resolve_reset_policy(json::parse(R"({"reset":{"atHour":99}})"), "direct", "").at_hour, 23);
  EXPECT_EQ(reset_type_of("agent:main:telegram:group:-100"), "group");
  EXPECT_EQ(reset_type_of("agent:main:telegram:group:-100:topic:7"), "thread");
  EXPECT_EQ(reset_type_of("agent:main:main"), "direct");
}

TEST(SessionReset, DailyBoundaryIsInHostTime) {
  // 03:00 UTC is before the 04:00 boundary: the last one was yesterday 04:00.
  EXPECT_EQ(daily_reset_at_ms(kDay0 + 3 * kHour, 4, utc), kDay0 - 20 * kHour);
  EXPECT_EQ(daily_reset_at_ms(kDay0 + 4 * kHour, 4, utc), kDay0 + 4 * kHour);
  // At UTC+2, 04:00 local is 02:00 UTC.
  EXPECT_EQ(daily_reset_at_ms(kDay0 + 3 * kHour, 4, plus_two), kDay0 + 2 * kHour);
}

TEST(SessionReset, StaleReasons) {
  ResetPolicy daily;
  daily.mode = ResetMode::Daily;
  const int64_t started = kDay0 + 1 * kHour;  // 01:00, before the 04:00 boundary
  EXPECT_EQ(stale_reason(daily, kDay0 + 3 * kHour, started, started, utc), std::nullopt);
  EXPECT_EQ(stale_reason(daily, kDay0 + 5 * kHour, started, kDay0 + 4 * kHour + 1, utc), "daily");
  ResetPolicy idle;
  idle.mode = ResetMode::Idle;
  idle.idle_minutes = 60;
  EXPECT_EQ(stale_reason(idle, started + 60 * 60'000, started, started, utc), std::nullopt);
  EXPECT_EQ(stale_reason(idle, started + 60 * 60'000 + 1, started, started, utc), "idle");
  ResetPolicy none;
  EXPECT_EQ(stale_reason(none, started + 100 * kHour, started, started, utc), std::nullopt);
  // Both stale: the earlier expiry names it.
  ResetPolicy both = daily;
  both.idle_minutes = 30;
  EXPECT_EQ(stale_reason(both, kDay0 + 5 * kHour, started, started, utc), "idle");
}

TEST(TimeZone, OffsetsFromTheSystemZoneFiles) {
  if (!time_zone_offset_minutes("UTC", 0)) GTEST_SKIP() << "no /usr/share/zoneinfo on this host";
  EXPECT_EQ(time_zone_offset_minutes("UTC", kDay0), 0);
  EXPECT_EQ(time_zone_offset_minutes("Asia/Kolkata", kDay0), 330);
  EXPECT_EQ(time_zone_offset_minutes("Europe/Berlin", kDay0), 60);                 // March 5: CET
  EXPECT_EQ(time_zone_offset_minutes("Europe/Berlin", kDay0 + 120LL * 24 * kHour), 120);  // July: CEST
  EXPECT_EQ(time_zone_offset_minutes("America/New_York", kDay0), -300);
  EXPECT_EQ(time_zone_offset_minutes("Mars/Olympus", kDay0), std::nullopt);
  EXPECT_EQ(time_zone_offset_minutes("../../etc/passwd", kDay0), std::nullopt);
  EXPECT_FALSE(is_time_zone_name("Europe/../etc"));
  EXPECT_TRUE(is_time_zone_name("America/Argentina/Buenos_Aires"));
}

llm::ModelSpec model(const std::string& api, const std::string& base) {
  llm::ModelSpec m;
  m.provider = "p";
  m.id = "m";
  m.api = api;
  m.base_url = base;
  m.api_key = "k";
  m.max_tokens = 1000;
  return m;
}

llm::UserMessage user(const std::string& text) {
  llm::UserMessage u;
  u.content.emplace_back(llm::TextContent{text});
  return u;
}

llm::AssistantMessage reply(const std::string& text) {
  llm::AssistantMessage a;
  a.content.emplace_back(llm::TextContent{text});
  a.stop_reason = llm::StopReason::Stop;
  a.api = "anthropic-messages";
  a.provider = "p";
  a.model = "m";
  return a;
}

TEST(PromptCache, AnthropicMarksToolsSystemTheHistoryEndAndTheTail) {
  const auto m = model("anthropic-messages", "https://api.anthropic.com");
  llm::Context c;
  c.system_prompt = "sys";
  c.tools.push_back({"a", "A", json{{"type", "object"}}});
  c.tools.push_back({"b", "B", json{{"type", "object"}}});
  c.messages = {user("one"), reply("first"), user("two")};
  const json body = json::parse(llm::find_api(m.api)->build_request(m, c, {}).body);
  EXPECT_FALSE(body["tools"][0].contains("cache_control"));
  EXPECT_EQ(body["tools"][1]["cache_control"]["type"], "ephemeral");
  EXPECT_EQ(body["system"][0]["cache_control"]["type"], "ephemeral");
  EXPECT_FALSE(body["messages"][0]["content"].dump().find("cache_control") != std::string::npos);
  EXPECT_EQ(body["messages"][1]["content"][0]["cache_control"]["type"], "ephemeral");  // end of the history
  EXPECT_EQ(body["messages"][2]["content"][0]["cache_control"]["type"], "ephemeral");  // the tail
  int markers = 0;
  for (std::size_t p = 0; (p = body.dump().find("cache_control", p)) != std::string::npos; ++p) ++markers;
  EXPECT_EQ(markers, 4);  // Anthropic's limit
}

TEST(PromptCache, OpenAiGetsThePromptCacheKeyOtherServersDoNot) {
  llm::Context c;
  c.messages = {user("hi")};
  llm::RequestOptions o;
  o.session_id = "sess-9";
  auto openai = model("openai-completions", "https://api.openai.com/v1");
  EXPECT_EQ(json::parse(llm::find_api(openai.api)->build_request(openai, c, o).body).value("prompt_cache_key", ""), "sess-9");
  auto local = model("openai-completions", "http://127.0.0.1:8080/v1");
  EXPECT_FALSE(json::parse(llm::find_api(local.api)->build_request(local, c, o).body).contains("prompt_cache_key"));
}

}  // namespace
}  // namespace pincer::agent
