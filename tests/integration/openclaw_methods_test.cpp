// The methods and payload fields OpenClaw 2026.9's Control UI and TUI rely on (issue 23): the real
// gateway binary, the mock LLM, a real WebSocket client.
#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace openclaw_methods_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "oc-methods-token-0123456789";

class OpenClawMethodsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mock_ = std::make_unique<MockLlm>(std::vector<std::string>{});
    home_.write("pincer.json", mock_config({.token = kToken,
                                            .provider = {.base_url = mock_->base_url(), .models = "{ id: 'mock-model', contextWindow: 64000 }"},
                                            .agents = ",\n            list: [ { id: 'main', name: 'Claw' } ]"}));
    gateway_ = std::make_unique<Gateway>(home_.path());
  }
  std::unique_ptr<WsClient> client(const std::vector<std::string>& scopes = {"operator.admin"}) {
    auto c = std::make_unique<WsClient>(gateway_->port());
    EXPECT_TRUE(handshake(*c, connect_params(kToken, scopes)));
    return c;
  }
  /// chat.send, then waits for the run's final chat event; every frame seen goes to `seen_`.
  void turn(WsClient& c, json params) {
    seen_.clear();
    auto ack = c.request("chat.send", params);
    for (const auto& f : c.events()) seen_.push_back(f);
    ASSERT_EQ(ack["ok"], true) << ack.dump();
    const std::string run_id = ack["payload"]["runId"];
    for (int i = 0; i < 2000; ++i) {
      auto f = c.recv(20s);
      ASSERT_TRUE(f) << "no final chat event";
      seen_.push_back(*f);
      if ((*f)["event"] == "chat" && (*f)["payload"]["runId"] == run_id && (*f)["payload"]["state"] != "delta") {
        ASSERT_EQ((*f)["payload"]["state"], "final") << f->dump();
        return;
      }
    }
  }

  std::vector<json> seen_;
  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(OpenClawMethodsTest, TwoTurnsInOneSessionWithTheSessionIdTheUiSends) {
  auto c = client();
  turn(*c, {{"sessionKey", "main"}, {"message", "one ECHO:a"}, {"idempotencyKey", "r1"}});
  auto history = c->request("chat.history", {{"sessionKey", "main"}, {"agentId", "main"}});
  ASSERT_EQ(history["ok"], true) << history.dump();
  const std::string session_id = history["payload"]["sessionId"];
  // The Control UI's second message carries the session id it shows.
  turn(*c, {{"sessionKey", "agent:main:main"}, {"sessionId", session_id}, {"agentId", "main"},
            {"message", "two ECHO:b"}, {"idempotencyKey", "r2"}});
  history = c->request("chat.history", {{"sessionKey", "main"}, {"inputRunIds", {"r2"}}});
  ASSERT_EQ(history["ok"], true) << history.dump();
  EXPECT_EQ(history["payload"]["messages"].size(), 4u);
  EXPECT_EQ(history["payload"]["totalMessages"], 4);
  EXPECT_EQ(history["payload"]["hasMore"], false);
  // The Control UI takes its next message only once its input's receipt says consumed.
  EXPECT_EQ(history["payload"]["inputReceipts"],
            json::array({json{{"runId", "r2"}, {"state", "consumed"}, {"consumedByEventId", "r2"}}}));
  EXPECT_EQ(history["payload"]["inputConsumptions"], json::array({json{{"runId", "r2"}, {"consumedByEventId", "r2"}}}));
  EXPECT_EQ(c->request("chat.history", {{"sessionKey", "main"}, {"inputRunIds", {"r2", "r2"}}})["error"]["message"],
            "invalid chat.history params: /inputRunIds must NOT have duplicate items (0 and 1)");
  EXPECT_EQ(history["payload"]["defaults"]["model"], "mock-model");
  // Another session id (e.g. from before a reset) has no messages.
  auto other = c->request("chat.history", {{"sessionKey", "main"}, {"sessionId", "not-this-one"}});
  EXPECT_EQ(other["payload"]["messages"].size(), 0u);
  // chat.startup answers as chat.history.
  auto startup = c->request("chat.startup", {{"sessionKey", "main"}, {"limit", 2}});
  ASSERT_EQ(startup["ok"], true) << startup.dump();
  EXPECT_EQ(startup["payload"]["messages"].size(), 2u);
  EXPECT_EQ(startup["payload"]["hasMore"], true);
  EXPECT_EQ(c->request("chat.startup", {{"shortId", "x"}, {"agentId", "main"}})["payload"]["resolution"]["ok"], false);
}

TEST_F(OpenClawMethodsTest, SessionsSubscribeDeliversSessionEventsUntilUnsubscribed) {
  auto watcher = client();
  auto quiet = client();
  auto sub = watcher->request("sessions.subscribe", json::object());
  ASSERT_EQ(sub["ok"], true) << sub.dump();
  EXPECT_EQ(sub["payload"]["subscribed"], true);
  auto with_list = watcher->request("sessions.subscribe", {{"limit", 5}});
  EXPECT_TRUE(with_list["payload"]["list"]["sessions"].is_array()) << with_list.dump();
  turn(*quiet, {{"sessionKey", "main"}, {"message", "hi ECHO:s"}, {"idempotencyKey", "rs"}});
  std::vector<std::string> phases, statuses;
  std::vector<bool> active;
  json message;
  for (int i = 0; i < 2000 && (phases.size() < 2 || message.is_null()); ++i) {
    auto f = watcher->recv(20s);
    ASSERT_TRUE(f) << "session events missing";
    if ((*f)["event"] == "sessions.changed" && (*f)["payload"]["runId"] == "rs") {
      phases.push_back((*f)["payload"]["phase"]);
      statuses.push_back((*f)["payload"]["status"]);
      active.push_back((*f)["payload"]["hasActiveRun"]);
    }
    if ((*f)["event"] == "session.message" && (*f)["payload"]["runId"] == "rs") message = (*f)["payload"];
  }
  EXPECT_EQ(phases, (std::vector<std::string>{"start", "end"}));
  // The session row's run state, as OpenClaw projects it (the Control UI's "Working…" ends on it).
  EXPECT_EQ(statuses, (std::vector<std::string>{"running", "done"}));
  EXPECT_EQ(active, (std::vector<bool>{true, false}));
  EXPECT_EQ(message["sessionKey"], "agent:main:main");
  EXPECT_TRUE(message["sessionId"].is_string());
  EXPECT_EQ(message["message"]["role"], "assistant");
  // The client that did not subscribe got none (a round trip: events of the run come before it).
  EXPECT_EQ(quiet->request("health")["ok"], true);
  for (const auto& f : seen_) EXPECT_NE(f["event"], "sessions.changed");
  for (const auto& f : quiet->events()) EXPECT_NE(f["event"], "sessions.changed");
  EXPECT_EQ(watcher->request("sessions.unsubscribe")["payload"]["subscribed"], false);
  turn(*quiet, {{"sessionKey", "main"}, {"message", "again ECHO:t"}, {"idempotencyKey", "rt"}});
  EXPECT_EQ(watcher->request("health")["ok"], true);  // a round trip: events of rt would be queued before it
  for (const auto& f : watcher->events()) EXPECT_FALSE(f["event"] == "sessions.changed" && f["payload"]["runId"] == "rt");
}

TEST_F(OpenClawMethodsTest, HistoryPagesByBytes) {
  auto c = client();
  turn(*c, {{"sessionKey", "main"}, {"message", "first " + std::string(3000, 'x') + " ECHO:a"}, {"idempotencyKey", "r1"}});
  turn(*c, {{"sessionKey", "main"}, {"message", "second ECHO:b"}, {"idempotencyKey", "r2"}});
  auto all = c->request("chat.history", {{"sessionKey", "main"}});
  ASSERT_EQ(all["payload"]["messages"].size(), 4u);
  // 2048 bytes cannot hold the 3000-byte first message: it and everything before it go.
  auto page = c->request("chat.history", {{"sessionKey", "main"}, {"maxBytes", 2048}});
  ASSERT_EQ(page["ok"], true) << page.dump();
  const json& messages = page["payload"]["messages"];
  EXPECT_EQ(messages.size(), 3u);
  EXPECT_LE(messages.dump().size(), 2048u);
  EXPECT_EQ(messages[0], all["payload"]["messages"][1]);  // the newest are kept, in order
  EXPECT_EQ(page["payload"]["hasMore"], true);
  EXPECT_EQ(page["payload"]["totalMessages"], 4);
  auto bad = c->request("chat.history", {{"sessionKey", "main"}, {"maxBytes", 10}});
  EXPECT_EQ(bad["error"]["message"], "invalid chat.history params: /maxBytes must be an integer in 1024..9223372036854775807");
}

TEST_F(OpenClawMethodsTest, PayloadShapesTheClientsRead) {
  auto c = client();
  auto sessions = c->request("sessions.list");
  ASSERT_EQ(sessions["ok"], true);
  EXPECT_EQ(sessions["payload"]["defaults"]["modelProvider"], "mock");
  EXPECT_EQ(sessions["payload"]["defaults"]["model"], "mock-model");
  EXPECT_EQ(sessions["payload"]["defaults"]["contextTokens"], 64000);
  auto agents = c->request("agents.list");
  EXPECT_EQ(agents["payload"]["agents"][0]["model"]["primary"], "mock/mock-model");
  auto health = c->request("health");
  EXPECT_TRUE(health["payload"]["agents"][0]["sessions"]["recent"].is_array()) << health.dump();
  // The heartbeat is on by default for the default agent (AT-1, OpenClaw's default), every 30 m.
  EXPECT_EQ(health["payload"]["agents"][0]["heartbeat"]["enabled"], true) << health.dump();
  EXPECT_EQ(health["payload"]["agents"][0]["heartbeat"]["every"], "30m");
  auto identity = c->request("agent.identity.get", {{"sessionKey", "main"}});
  EXPECT_EQ(identity["payload"]["name"], "Claw");
  EXPECT_GT(c->request("system.info")["payload"]["cpuCount"].get<int>(), 0);
}

TEST_F(OpenClawMethodsTest, ListsOfFeaturesPincerLacksAreEmptyNotErrors) {
  auto c = client({"operator.read", "operator.write", "operator.approvals", "operator.questions"});
  for (const char* method : {"exec.approval.list", "plugin.approval.list", "openclaw.approval.list"}) {
    auto r = c->request(method);
    EXPECT_EQ(r["payload"], json::array()) << method << ": " << r.dump();
  }
  EXPECT_EQ(c->request("question.list")["payload"]["questions"], json::array());
  EXPECT_EQ(c->request("cron.list")["payload"]["jobs"], json::array());  // no job yet (methods/cron.cpp)
  EXPECT_EQ(c->request("cron.status")["payload"]["jobs"], 0);
  EXPECT_EQ(c->request("plugins.list")["payload"]["plugins"], json::array());
  EXPECT_EQ(c->request("sessions.observer.visibility", {{"visible", true}})["payload"]["ok"], true);
  EXPECT_TRUE(c->request("sessions.describe", {{"key", "main"}})["payload"].contains("session"));
  EXPECT_EQ(c->request("gateway.stability")["error"]["message"], "unknown method: gateway.stability");
  // The Control UI's chat page.
  EXPECT_EQ(c->request("tasks.list", {{"sessionKey", "main"}})["payload"]["tasks"], json::array());
  EXPECT_EQ(c->request("progressCard.get", {{"sessionKey", "main"}})["payload"]["card"], nullptr);
  auto sub = c->request("sessions.messages.subscribe", {{"key", "main"}, {"includeApprovals", true}});
  EXPECT_EQ(sub["payload"], (json{{"subscribed", true}, {"key", "agent:main:main"}})) << sub.dump();
  EXPECT_EQ(c->request("sessions.messages.unsubscribe", {{"key", "main"}})["payload"]["subscribed"], false);
  EXPECT_EQ(c->request("sessions.messages.subscribe", json::object())["error"]["message"],
            "invalid sessions.messages.subscribe params: must have required property 'key'");
  EXPECT_EQ(c->request("sessions.companion.state", {{"sessionKey", "main"}})["error"]["message"], "Side chat is unavailable.");
}

}  // namespace
}  // namespace openclaw_methods_test
}  // namespace pincer::test
