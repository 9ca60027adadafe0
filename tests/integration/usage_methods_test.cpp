// OpenClaw's usage methods against the real gateway binary (gateway/methods/usage.cpp,
// usage_report.cpp): usage.cost and sessions.usage from the transcripts' usage entries — an
// imported OpenClaw transcript with recorded prices and a turn Pincer ran itself (tokens, no
// price: counted as a missing cost entry).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace usage_methods_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kToken = "usage-methods-token-0123456789";

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string iso(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return std::string(buf) + ".000Z";
}

std::string day(int64_t ms) { return iso(ms).substr(0, 10); }

json message_line(const std::string& id, const std::string& parent, int64_t ms, json message) {
  message["timestamp"] = ms;
  return {{"type", "message"}, {"id", id}, {"parentId", parent.empty() ? json(nullptr) : json(parent)}, {"timestamp", iso(ms)},
          {"message", message}};
}

class UsageMethodsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mock_ = std::make_unique<MockLlm>();
    home_.write("pincer.json", mock_config({.token = kToken,
                                            .provider = {.base_url = mock_->base_url(), .models = "{ id: 'model-a' }", .api = ""},
                                            .primary = "mock/model-a"}));
    // An imported OpenClaw session: an hour ago with prices, and 100 days ago (outside 30 days).
    t_ = now_ms() - 3'600'000;
    old_ = now_ms() - 100LL * 86'400'000;
    const json assistant = {{"role", "assistant"},
                            {"content", {{{"type", "text"}, {"text", "x"}}, {{"type", "toolCall"}, {"id", "t1"}, {"name", "read"}, {"arguments", json::object()}}}},
                            {"provider", "anthropic"}, {"model", "claude-x"}, {"stopReason", "toolUse"},
                            {"usage", {{"input", 100}, {"output", 50}, {"cacheRead", 10}, {"cacheWrite", 0}, {"totalTokens", 160},
                                       {"cost", {{"input", 0.1}, {"output", 0.15}, {"cacheRead", 0.01}, {"cacheWrite", 0}, {"total", 0.26}}}}}};
    json old_reply = assistant;
    old_reply["content"] = {{{"type", "text"}, {"text", "old"}}};
    old_reply["usage"] = {{"input", 1000}, {"output", 0}, {"totalTokens", 1000}, {"cost", {{"total", 5.0}}}};
    std::string lines = json{{"type", "session"}, {"version", 3}, {"id", "imported-1"}, {"timestamp", iso(old_)}, {"cwd", "/tmp"}}.dump() + "\n";
    lines += message_line("a0", "", old_, {{"role", "user"}, {"content", "long ago"}}).dump() + "\n";
    lines += message_line("a1", "a0", old_ + 1000, old_reply).dump() + "\n";
    lines += message_line("b0", "a1", t_, {{"role", "user"}, {"content", "hi"}}).dump() + "\n";
    lines += message_line("b1", "b0", t_ + 1000, assistant).dump() + "\n";
    lines += message_line("b2", "b1", t_ + 2000, {{"role", "toolResult"}, {"toolCallId", "t1"}, {"toolName", "read"},
                                                  {"content", {{{"type", "text"}, {"text", "r"}}}}, {"isError", true}})
                 .dump() + "\n";
    home_.write("agents/main/sessions/imported-1.jsonl", lines);
    home_.write("agents/main/sessions/sessions.json",
                json{{"agent:main:imported", {{"sessionId", "imported-1"}, {"updatedAt", t_ + 2000}, {"label", "Imported"}, {"channel", "telegram"}}}}.dump(2));
    gw_ = std::make_unique<Gateway>(home_.path());
  }
  std::unique_ptr<WsClient> client(const std::vector<std::string>& scopes) {
    auto c = std::make_unique<WsClient>(gw_->port());
    EXPECT_TRUE(handshake(*c, connect_params(kToken, scopes)));
    return c;
  }
  static std::string error(const json& r) { return r.value("error", json::object()).value("message", ""); }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gw_;
  int64_t t_ = 0, old_ = 0;
};

TEST_F(UsageMethodsTest, UsageNeedsTheReadScope) {
  auto c = client({"operator.approvals"});
  for (const char* method : {"usage.cost", "sessions.usage"}) {
    auto r = c->request(method, json::object());
    EXPECT_EQ(r["error"]["code"], "FORBIDDEN") << r.dump();
    EXPECT_EQ(error(r), "missing scope: operator.read") << r.dump();
  }
}

TEST_F(UsageMethodsTest, CostAndSessionUsageComeFromTheTranscripts) {
  auto writer = client({"operator.write"});
  auto frames = chat_turn(*writer, "main", "hello", "run-usage");
  ASSERT_FALSE(frames.empty());
  ASSERT_EQ(frames.back()["payload"]["state"], "final") << frames.back().dump();
  auto c = client({"operator.read"});

  // usage.cost: the last 30 days by default — the priced turn and Pincer's own unpriced one.
  auto cost = c->request("usage.cost", json::object());
  ASSERT_EQ(cost["ok"], true) << cost.dump();
  const json& totals = cost["payload"]["totals"];
  EXPECT_NEAR(totals["totalCost"].get<double>(), 0.26, 1e-9) << totals.dump();
  EXPECT_NEAR(totals["inputCost"].get<double>(), 0.1, 1e-9);
  EXPECT_EQ(totals["cacheRead"], 10);
  EXPECT_GT(totals["totalTokens"].get<int64_t>(), 160) << "Pincer's own turn counts its tokens";
  EXPECT_EQ(totals["missingCostEntries"], 1) << totals.dump();
  EXPECT_EQ(totals["missingCostByModel"], (json{{"mock/model-a", 1}})) << totals.dump();
  EXPECT_EQ(cost["payload"]["days"], 30);
  ASSERT_FALSE(cost["payload"]["daily"].empty());
  EXPECT_EQ(cost["payload"]["daily"].back()["date"], day(now_ms()));

  // range "all" adds the old turn; explicit dates select days.
  auto all = c->request("usage.cost", {{"range", "all"}});
  EXPECT_NEAR(all["payload"]["totals"]["totalCost"].get<double>(), 5.26, 1e-9) << all.dump();
  auto old_day = c->request("usage.cost", {{"startDate", day(old_)}, {"endDate", day(old_)}});
  EXPECT_EQ(old_day["payload"]["totals"]["totalTokens"], 1000) << old_day.dump();
  EXPECT_EQ(old_day["payload"]["days"], 1);

  // sessions.usage: one row per session, newest first, with its summary and aggregates.
  auto usage = c->request("sessions.usage", {{"key", "agent:main:imported"}});
  ASSERT_EQ(usage["ok"], true) << usage.dump();
  ASSERT_EQ(usage["payload"]["sessions"].size(), 1u) << usage.dump();
  const json& row = usage["payload"]["sessions"][0];
  EXPECT_EQ(row["key"], "agent:main:imported");
  EXPECT_EQ(row["label"], "Imported");
  EXPECT_EQ(row["channel"], "telegram");
  EXPECT_EQ(row["sessionId"], "imported-1");
  const json& s = row["usage"];
  EXPECT_EQ(s["totalTokens"], 160) << s.dump();
  EXPECT_EQ(s["messageCounts"], (json{{"total", 2}, {"user", 1}, {"assistant", 1}, {"toolCalls", 1}, {"toolResults", 1}, {"errors", 1}}));
  EXPECT_EQ(s["toolUsage"]["tools"], (json{{{"name", "read"}, {"count", 1}}}));
  EXPECT_EQ(s["modelUsage"][0]["model"], "claude-x");
  EXPECT_EQ(s["firstActivity"], t_);
  EXPECT_EQ(s["durationMs"], 2000);
  EXPECT_EQ(usage["payload"]["aggregates"]["byChannel"][0]["channel"], "telegram");

  auto list = c->request("sessions.usage", {{"limit", 5}});
  ASSERT_EQ(list["ok"], true) << list.dump();
  EXPECT_EQ(list["payload"]["sessions"].size(), 2u) << list.dump();
  EXPECT_EQ(list["payload"]["sessions"][0]["key"], "agent:main:main") << "the newest first";
  EXPECT_EQ(list["payload"]["aggregates"]["sessionCount"], 2);
  EXPECT_EQ(list["payload"]["endDate"], day(now_ms()));

  // Refusals with OpenClaw's messages.
  EXPECT_EQ(error(c->request("usage.cost", {{"startDate", "2026-02-30"}, {"endDate", "2026-03-01"}})),
            "invalid startDate: expected a valid YYYY-MM-DD calendar date");
  EXPECT_EQ(error(c->request("usage.cost", {{"startDate", "2026-03-01"}})), "startDate and endDate must be provided together");
  EXPECT_EQ(error(c->request("sessions.usage", {{"agentScope", "all"}, {"agentId", "main"}})),
            "agentScope=all cannot be combined with key or agentId");
  EXPECT_EQ(error(c->request("sessions.usage", {{"key", "agent:main:nothing"}})), "Invalid session reference: agent:main:nothing");
  EXPECT_EQ(error(c->request("sessions.usage", {{"limit", 0}})), "invalid sessions.usage params: /limit must be an integer >= 1");
  EXPECT_EQ(error(c->request("usage.cost", {{"agentId", "ghost"}})), "unknown agent id \"ghost\"");
}

}  // namespace
}  // namespace usage_methods_test
}  // namespace pincer::test
