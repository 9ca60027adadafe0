// The session tools and agent-to-agent messages (TL-1, MA-2; agent/session_tools_backend.h) in a
// real gateway with three agents and the mock LLM scripting the tool calls:
//   - sessions_send from `main` reaches `work`'s main session (marked as an inter-session
//     message) and returns its reply; sessions_history / session_status / sessions_list answer
//     about the sessions main may see, and `other` (not in tools.agentToAgent.allow) is refused
//     and left out of the list;
//   - the ping-pong after the reply stops at session.agentToAgent.maxPingPongTurns, then one
//     announce step;
//   - with tools.agentToAgent.enabled false a cross-agent send is refused, a same-agent send by
//     label still works, and a REPLY_SKIP ends the ping-pong before the default cap of 5;
//     tools.sessions.visibility "tree" lists the agent's own sessions and says it is restricted.
// Every wait is for a condition with a generous deadline.
#include <algorithm>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace session_tools_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "session-tools-test-token-0123456789";

template <class Fn>
bool eventually(Fn done, std::chrono::milliseconds limit = 40s) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return done();
}

json tool_call(const std::string& name, json args) { return {{"name", name}, {"arguments", std::move(args)}}; }

class SessionToolsE2E : public ::testing::Test {
 protected:
  /// pincer.json: the mock model, three agents (main, work, other) and `extra` top-level keys.
  std::string config_text(const std::string& extra) const {
    return mock_config({.token = kToken,
                        .provider = {.base_url = mock_->base_url()},
                        .agents = ",\n            list: [ { id: 'main', default: true }, { id: 'work' }, { id: 'other' } ]",
                        .top = ",\n" + extra});
  }
  void start(const json& script, const std::string& extra_config) {
    home_.write("script.json", script.dump());
    mock_ = std::make_unique<MockLlm>(std::vector<std::string>{"--script", (home_.path() / "script.json").string()});
    home_.write("pincer.json", config_text(extra_config));
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(client_->recv());
    client_->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"},
                        {"params", connect_params(kToken, {"operator.admin", "operator.read", "operator.write"})}});
    auto res = client_->recv_response("c1");
    ASSERT_TRUE(res && (*res)["ok"] == true);
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }
  /// One chat turn of `key`, waited for until its final chat event.
  void turn(const std::string& key, const std::string& message, const std::string& run_id) {
    auto ack = client_->request("chat.send", {{"sessionKey", key}, {"message", message}, {"idempotencyKey", run_id}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
    for (int i = 0; i < 4000; ++i) {
      std::optional<json> f;
      if (!client_->events().empty()) {
        f = std::move(client_->events().front());
        client_->events().pop_front();
      } else {
        f = client_->recv(60s);
      }
      ASSERT_TRUE(f) << "no final chat event for " << run_id;
      const json& p = (*f)["payload"];
      if ((*f)["event"] == "chat" && p.value("runId", "") == run_id && p["state"] == "final") return;
      ASSERT_FALSE((*f)["event"] == "chat" && p.value("runId", "") == run_id && p["state"] == "error") << f->dump();
    }
  }
  /// The transcript of `key` as chat.history gives it (tool results included), as one string.
  std::string history_text(const std::string& key) {
    auto h = client_->request("chat.history", {{"sessionKey", key}, {"limit", 200}});
    return h["payload"]["messages"].dump();
  }
  /// The tool results of `key`'s transcript for `tool`, each parsed from its text.
  std::vector<json> tool_results(const std::string& key, const std::string& tool) {
    std::vector<json> out;
    auto h = client_->request("chat.history", {{"sessionKey", key}, {"limit", 200}});
    for (const auto& m : h["payload"]["messages"]) {
      if (m.value("role", "") != "toolResult" || m.value("toolName", "") != tool) continue;
      std::string text;
      for (const auto& b : m["content"])
        if (b.value("type", "") == "text") text += b.value("text", "");
      const auto brace = text.find('{');
      out.push_back(brace == std::string::npos ? json(text) : json::parse(text.substr(brace), nullptr, false));
    }
    return out;
  }
  /// How many generation requests ended in a user message containing `marker`.
  int requests_ending_with(const std::string& marker) {
    int n = 0;
    for (const auto& r : json::parse(http_request(mock_->port(), "GET", "/__mock/requests").body)) {
      const json& messages = r["body"]["messages"];
      if (!messages.is_array() || messages.empty()) continue;
      const json& last = messages.back();
      if (last.value("role", "") == "user" && last["content"].dump().find(marker) != std::string::npos) ++n;
    }
    return n;
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(SessionToolsE2E, MainTalksToWorkWithinTheCapAndOtherIsRefused) {
  const json script = json::array({
      "other here",  // the turn that gives agent `other` a session
      {{"toolCalls", {tool_call("sessions_send", {{"agentId", "work"}, {"message", "ping from main"}, {"timeoutSeconds", 60}})}}},
      "pong from work",  // work's turn (nested lane)
      {{"toolCalls",
        {tool_call("sessions_send", {{"agentId", "other"}, {"message", "are you there"}}),
         tool_call("sessions_history", {{"sessionKey", "agent:work:main"}}),
         tool_call("session_status", {{"sessionKey", "agent:work:main"}}),
         tool_call("sessions_list", json::object()),
         tool_call("sessions_send", {{"sessionKey", "agent:main:nosuch"}, {"message", "hi"}, {"timeoutSeconds", 0}})}}},
      "main done",
      "main says more",  // ping-pong turn 1 (main's session)
      "work says more",  // ping-pong turn 2 (work's session) = the cap
      "ANNOUNCE_SKIP",   // the announce step (work)
  });
  start(script, "tools: { agentToAgent: { allow: ['main', 'work'] } }, session: { agentToAgent: { maxPingPongTurns: 2 } }");
  turn("agent:other:main", "hello other", "run-other");
  turn("main", "talk to work", "run-main");

  const auto sent = tool_results("main", "sessions_send");
  ASSERT_EQ(sent.size(), 3u) << history_text("main");
  EXPECT_EQ(sent[0]["status"], "ok") << sent[0].dump();
  EXPECT_EQ(sent[0]["reply"], "pong from work");
  EXPECT_EQ(sent[0]["sessionKey"], "agent:work:main");
  EXPECT_EQ(sent[1]["status"], "forbidden") << sent[1].dump();
  EXPECT_NE(sent[1].value("error", "").find("tools.agentToAgent.allow"), std::string::npos) << sent[1].dump();
  // An unknown session key is an error, not a new session.
  EXPECT_EQ(sent[2]["status"], "error") << sent[2].dump();
  EXPECT_NE(sent[2].value("error", "").find("No session found with key: agent:main:nosuch"), std::string::npos) << sent[2].dump();

  // The message reached work's session marked as coming from main's session.
  const std::string work = history_text("agent:work:main");
  EXPECT_NE(work.find("ping from main"), std::string::npos) << work;
  EXPECT_NE(work.find("[Inter-session message] sourceSession=agent:main:main"), std::string::npos) << work;
  EXPECT_NE(work.find("isUser=false"), std::string::npos);

  const auto history = tool_results("main", "sessions_history");
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0]["sessionKey"], "agent:work:main");
  EXPECT_NE(history[0]["messages"].dump().find("pong from work"), std::string::npos) << history[0].dump();

  const auto status = tool_results("main", "session_status");
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0]["agentId"], "work") << status[0].dump();
  EXPECT_EQ(status[0]["model"], "mock/mock-model");
  EXPECT_GE(status[0].value("messages", 0), 2);

  const auto list = tool_results("main", "sessions_list");
  ASSERT_EQ(list.size(), 1u);
  std::vector<std::string> keys;
  for (const auto& row : list[0]["sessions"]) keys.push_back(row.value("key", ""));
  EXPECT_NE(std::find(keys.begin(), keys.end(), "agent:main:main"), keys.end()) << list[0].dump();
  EXPECT_NE(std::find(keys.begin(), keys.end(), "agent:work:main"), keys.end()) << list[0].dump();
  EXPECT_EQ(std::find(keys.begin(), keys.end(), "agent:other:main"), keys.end()) << "other is not allowed: " << list[0].dump();

  // The ping-pong: two reply steps (the cap), then one announce step, then nothing more.
  ASSERT_TRUE(eventually([&] { return requests_ending_with("Agent-to-agent announce step") == 1; }))
      << "reply steps: " << requests_ending_with("Agent-to-agent reply step");
  EXPECT_EQ(requests_ending_with("Agent-to-agent reply step"), 2);
  EXPECT_EQ(requests_ending_with("Turn 2 of 2."), 1);
  EXPECT_EQ(requests_ending_with("Turn 3 of"), 0);
  EXPECT_NE(history_text("main").find("main says more"), std::string::npos) << "turn 1 ran in main's session";
  EXPECT_NE(history_text("agent:work:main").find("work says more"), std::string::npos) << "turn 2 in work's";
}

TEST_F(SessionToolsE2E, DisabledAgentToAgentRefusesOtherAgentsAndReplySkipEndsTheExchange) {
  const json script = json::array({
      {{"toolCalls", {tool_call("sessions_send", {{"sessionKey", "agent:work:main"}, {"message", "hello work"}})}}},
      {{"toolCalls", {tool_call("sessions_send", {{"label", "helper"}, {"message", "hi side"}, {"timeoutSeconds", 60}})}}},
      "side reply",  // agent:main:side's turn
      "main done",
      "REPLY_SKIP",     // ping-pong turn 1 (main): ends the exchange before the default cap of 5
      "ANNOUNCE_SKIP",  // the announce step (side)
      {{"toolCalls", {tool_call("sessions_list", json::object()), tool_call("sessions_history", {{"sessionKey", "agent:work:main"}})}}},
      "listed",  // the turn after the visibility change
  });
  start(script, "tools: { agentToAgent: { enabled: false } }");
  auto patched = client_->request("sessions.patch", {{"key", "agent:main:side"}, {"label", "helper"}});
  ASSERT_EQ(patched["ok"], true) << patched.dump();
  turn("main", "talk to work and side", "run-main");

  const auto sent = tool_results("main", "sessions_send");
  ASSERT_EQ(sent.size(), 2u) << history_text("main");
  EXPECT_EQ(sent[0]["status"], "forbidden") << sent[0].dump();
  EXPECT_NE(sent[0].value("error", "").find("tools.agentToAgent.enabled"), std::string::npos) << sent[0].dump();
  EXPECT_EQ(history_text("agent:work:main").find("hello work"), std::string::npos) << "nothing reached work";
  EXPECT_EQ(sent[1]["status"], "ok") << sent[1].dump();
  EXPECT_EQ(sent[1]["sessionKey"], "agent:main:side");
  EXPECT_EQ(sent[1]["reply"], "side reply");

  ASSERT_TRUE(eventually([&] { return requests_ending_with("Agent-to-agent announce step") == 1; }));
  EXPECT_EQ(requests_ending_with("Agent-to-agent reply step"), 1) << "REPLY_SKIP ends the ping-pong";
  EXPECT_EQ(requests_ending_with("Turn 1 of 5."), 1);

  // tools.sessions.visibility "tree" (a hot change): from the main session, the agent's own
  // sessions only, and the answer says it is restricted.
  home_.write("pincer.json", config_text("tools: { agentToAgent: { enabled: false }, sessions: { visibility: 'tree' } }"));
  ASSERT_TRUE(eventually([&] { return gateway_->process().err().find("config reloaded") != std::string::npos; }));
  turn("main", "list them", "run-list");
  const auto list = tool_results("main", "sessions_list");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["visibility"]["mode"], "tree") << list[0].dump();
  std::vector<std::string> keys;
  for (const auto& row : list[0]["sessions"]) keys.push_back(row.value("key", ""));
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"agent:main:main", "agent:main:side"})) << list[0].dump();
  const auto history = tool_results("main", "sessions_history");
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0]["status"], "forbidden") << history[0].dump();
  EXPECT_NE(history[0].value("error", "").find("tools.sessions.visibility=tree"), std::string::npos);
}

}  // namespace
}  // namespace session_tools_test
}  // namespace pincer::test
