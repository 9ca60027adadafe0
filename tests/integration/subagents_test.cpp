// Subagents end to end (issue 16 item 3; SPEC MA-3, QL-2; docs/subagents.md): the real gateway
// and the mock LLM, whose MOCK_TOOL keyword makes the model call sessions_spawn / subagents and
// whose MOCK_HOLD gates keep a run mid-reply (no timing). Keywords meant for a child are written
// JSON-escaped in the parent's tool arguments (MOCK_\u0048OLD): only the child's text has them.
// One gateway start checks, in order:
// a spawn while the parent is busy (the child's result reaches the parent session exactly once,
// after the parent's turn, as a queued message), the per-session children limit, the child's
// reduced tool set and system prompt, the sessions.json lineage; a child with a short
// runTimeoutSeconds announced as "timed out"; a nested spawn whose grandchild is a leaf (no spawn
// tools; a call to sessions_spawn is refused); /subagents list, steer and kill (announced as
// aborted); cleanup "delete"; the subagents tool's kill.
#include <signal.h>

#include <fstream>
#include <iostream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace subagents_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "subagents-test-token-0123456789";

std::string config_for(const MockLlm& mock) {
  return mock_config({.token = kToken,
                      .provider = {.base_url = mock.base_url()},
                      .defaults = ",\n                        subagents: { maxSpawnDepth: 2, maxChildrenPerAgent: 1 }"});
}

template <class Fn>
bool eventually(Fn done, std::chrono::milliseconds limit = 60s) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return done();
}

std::string text_of(const json& message) {
  std::string out;
  if (message.contains("content") && message["content"].is_array()) {
    for (const auto& b : message["content"]) {
      if (b.value("type", "") == "text") out += b.value("text", "");
    }
  } else if (message.contains("content") && message["content"].is_string()) {
    out = message["content"];
  }
  return out;
}

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

/// The tool names a recorded chat-completions request offered: with their schemas, or in
/// tool_search's catalogue (its description's "- name: …" lines; tools/tool_search.h).
std::vector<std::string> offered_tools(const json& request) {
  std::vector<std::string> out;
  for (const auto& t : request["body"].value("tools", json::array())) {
    const std::string name = t["function"].value("name", "");
    out.push_back(name);
    if (name != "tool_search") continue;
    const std::string catalogue = t["function"].value("description", "");
    for (std::size_t at = catalogue.find("\n- "); at != std::string::npos; at = catalogue.find("\n- ", at + 1)) {
      const std::size_t start = at + 3;
      out.push_back(catalogue.substr(start, catalogue.find_first_of(":\n", start) - start));
    }
  }
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

class SubagentsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }
  std::unique_ptr<WsClient> client() {
    auto c = std::make_unique<WsClient>(gateway_->port());
    EXPECT_TRUE(c->recv());
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
    auto res = c->recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true);
    return c;
  }
  json history(const std::string& key) {
    auto res = ws_->request("chat.history", {{"sessionKey", key}, {"limit", 500}});
    return res["payload"]["messages"];
  }
  /// The user messages of the main session that are announces, and those containing `needle`.
  int announces(const std::string& needle = "") {
    int n = 0;
    for (const auto& m : history("main")) {
      const std::string t = text_of(m);
      if (m.value("role", "") == "user" && contains(t, "[Subagent result") && contains(t, needle)) ++n;
    }
    return n;
  }
  bool held(const std::string& name) {
    json h = json::parse(http_request(mock_->port(), "GET", "/__mock/holds").body, nullptr, false);
    return h.is_object() && h.contains(name) && h[name].value("waiting", 0) >= 1;
  }
  void release(const std::string& name) { http_request(mock_->port(), "POST", "/__mock/release?name=" + name); }
  json requests() { return json::parse(http_request(mock_->port(), "GET", "/__mock/requests").body, nullptr, false); }
  /// The generation requests whose messages contain `needle` (any role).
  std::vector<json> requests_with(const std::string& needle) {
    std::vector<json> out;
    for (const auto& r : requests()) {
      if (!r.contains("body") || !r["body"].is_object() || !r["body"].contains("messages")) continue;
      if (contains(r["body"]["messages"].dump(), needle)) out.push_back(r);
    }
    return out;
  }
  void send(const std::string& message, const std::string& id) {
    auto ack = ws_->request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", id}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
  }
  /// A slash command's reply text (its final `chat` event).
  std::string command(const std::string& text, const std::string& id) {
    auto c = client();
    auto ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", text}, {"idempotencyKey", id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    std::string reply;
    eventually([&] {
      while (!c->events().empty()) {
        json f = std::move(c->events().front());
        c->events().pop_front();
        if (f["event"] == "chat" && f["payload"].value("runId", "") == id && f["payload"]["state"] == "final") {
          reply = text_of(f["payload"]["message"]);
        }
      }
      if (!reply.empty()) return true;
      if (auto f = c->recv(200ms)) c->events().push_back(*f);
      return false;
    });
    return reply;
  }
  /// Every subagent session key in sessions.list.
  std::vector<std::string> child_keys() {
    std::vector<std::string> out;
    auto res = ws_->request("sessions.list", json::object());
    for (const auto& s : res["payload"]["sessions"]) {
      const std::string key = s.value("key", "");
      if (contains(key, ":subagent:")) out.push_back(key);
    }
    return out;
  }
  /// The main session's last message is an assistant reply that asks for no tool (its latest
  /// turn ended).
  bool main_idle() {
    json h = history("main");
    ws_->events().clear();  // (events are not looked at here)
    return !h.empty() && h.back().value("role", "") == "assistant" && h.back().value("stopReason", "") != "toolUse";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> ws_;
};

TEST_F(SubagentsTest, SpawnAnnounceLimitsTimeoutNestingAndKill) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config_for(*mock_));
  gateway_ = std::make_unique<Gateway>(home_.path());
  ws_ = client();

  // 1. Two spawns in one turn with maxChildrenPerAgent 1: one is accepted (its child holds at
  //    "kid"), the other refused. Then the parent gets busy with a turn that holds at "parent".
  const std::string spawn = R"(MOCK_TOOL:sessions_spawn:{"task":"count things \u0045CHO:kid MOCK_\u0048OLD:kid","label":"kid"})";
  send("Delegate please. " + spawn + " " + spawn, "turn-1");
  ASSERT_TRUE(eventually([&] { return held("kid") && main_idle(); })) << requests().dump();
  send("Busy now. MOCK_HOLD:parent", "turn-1b");
  ASSERT_TRUE(eventually([&] { return held("parent"); })) << requests().dump();

  // The child's request: its own session, the task as its first message, the subagent prompt and
  // the reduced tool set (no cron/gateway/message; an orchestrator at depth 1 keeps sessions_spawn).
  auto kid_requests = requests_with("[Subagent task] (depth 1/2");
  ASSERT_EQ(kid_requests.size(), 1u);
  const auto kid_tools = offered_tools(kid_requests[0]);
  EXPECT_TRUE(has(kid_tools, "read")) << kid_requests[0]["body"]["tools"].dump();
  EXPECT_FALSE(has(kid_tools, "cron"));
  EXPECT_FALSE(has(kid_tools, "gateway"));
  EXPECT_TRUE(has(kid_tools, "sessions_spawn"));
  EXPECT_TRUE(contains(kid_requests[0]["body"]["messages"].dump(), "You are a subagent"));
  EXPECT_FALSE(contains(kid_requests[0]["body"]["messages"].dump(), "Delegate please"));  // no inherited history
  auto parent_requests = requests_with("Delegate please");
  ASSERT_FALSE(parent_requests.empty());
  EXPECT_TRUE(has(offered_tools(parent_requests[0]), "cron"));
  EXPECT_TRUE(has(offered_tools(parent_requests[0]), "sessions_spawn"));
  // The refusal of the second spawn, as the parent's model saw it.
  bool refused = false;
  for (const auto& r : parent_requests) refused |= contains(r["body"]["messages"].dump(), "max active children for this session (1/1");
  EXPECT_TRUE(refused);

  // The child's lineage in sessions.json (OpenClaw's field names).
  auto keys = child_keys();
  ASSERT_EQ(keys.size(), 1u);
  const std::string kid_key = keys[0];
  {
    std::ifstream in(home_.path() / "agents" / "main" / "sessions" / "sessions.json");
    json index = json::parse(in, nullptr, false);
    ASSERT_TRUE(index.contains(kid_key)) << index.dump();
    EXPECT_EQ(index[kid_key].value("spawnedBy", ""), "agent:main:main");
    EXPECT_EQ(index[kid_key].value("spawnDepth", 0), 1);
    EXPECT_EQ(index[kid_key].value("subagentRole", ""), "orchestrator");
    EXPECT_EQ(index[kid_key].value("subagentControlScope", ""), "children");
  }

  // The child finishes while the parent is still busy: its result waits on the parent's lane.
  release("kid");
  ASSERT_TRUE(eventually([&] {
    for (const auto& m : history(kid_key)) {
      if (m.value("role", "") == "assistant" && contains(text_of(m), "[kid]")) return true;
    }
    return false;
  }));
  EXPECT_EQ(announces(), 0) << "announced into a busy parent's turn";
  release("parent");
  ASSERT_TRUE(eventually([&] { return announces("status: completed") == 1 && main_idle(); })) << history("main").dump();
  {
    json h = history("main");
    std::size_t at = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
      if (contains(text_of(h[i]), "[Subagent result")) at = i;
    }
    EXPECT_TRUE(contains(text_of(h[at]), "Hello from the mock LLM. [kid]"));
    // After the parent's own reply to turn 1, and answered by an assistant turn of its own.
    EXPECT_TRUE(at > 0 && h[at - 1].value("role", "") == "assistant");
    ASSERT_GT(h.size(), at + 1);
    EXPECT_EQ(h.back().value("role", ""), "assistant");
  }

  // 2. A child with runTimeoutSeconds 1 that never answers: announced as timed out.
  send(R"(Slow one. MOCK_TOOL:sessions_spawn:{"task":"wait MOCK_\u0048OLD:never","runTimeoutSeconds":1,"label":"slowkid"})", "turn-2");
  ASSERT_TRUE(eventually([&] { return announces("status: timed out after 1 s") == 1 && main_idle(); }))
      << history("main").dump();

  // 3. Nesting: the child (depth 1) spawns a grandchild (depth 2 = a leaf: no spawn tools; its
  //    own sessions_spawn call is refused).
  send(R"(Nest. MOCK_TOOL:sessions_spawn:{"task":"MOCK_\u0054OOL:sessions_spawn:{\"task\":\"grand MOCK_\\u0054OOL:sessions_spawn\"}","label":"mid"})",
       "turn-3");
  ASSERT_TRUE(eventually([&] { return !requests_with("[Subagent task] (depth 2/2").empty(); }));
  ASSERT_TRUE(eventually([&] {
    for (const auto& r : requests_with("[Subagent task] (depth 2/2")) {
      if (contains(r["body"]["messages"].dump(), "unknown tool")) return true;
    }
    return false;
  }));
  const auto leaf = requests_with("[Subagent task] (depth 2/2")[0];
  EXPECT_FALSE(has(offered_tools(leaf), "sessions_spawn")) << leaf["body"]["tools"].dump();
  EXPECT_FALSE(has(offered_tools(leaf), "subagents"));
  EXPECT_TRUE(has(offered_tools(leaf), "read"));
  EXPECT_TRUE(contains(leaf["body"]["messages"].dump(), "You are a leaf"));
  // The mid child's result reaches main (its own run, then the turn that took in the grandchild's).
  ASSERT_TRUE(eventually([&] { return announces("task: mid") >= 2 && main_idle(); })) << history("main").dump();

  // 4. /subagents list and kill: a stuck child is stopped and announced as aborted.
  send(R"(Stuck. MOCK_TOOL:sessions_spawn:{"task":"stuck MOCK_\u0048OLD:never2","label":"stuck"})", "turn-4");
  ASSERT_TRUE(eventually([&] { return held("never2"); }));
  // The `subagents` tool sees the same children (its result, as the parent's model got it).
  send(R"(List them. MOCK_TOOL:subagents:{"action":"list"})", "turn-4b");
  ASSERT_TRUE(eventually([&] { return !requests_with("requesterSessionKey").empty() && main_idle(); }));
  const std::string listed = requests_with("requesterSessionKey").back()["body"]["messages"].dump();
  EXPECT_TRUE(contains(listed, R"(\"label\": \"stuck\")")) << listed;
  EXPECT_TRUE(contains(listed, R"(\"status\": \"running\")")) << listed;
  const std::string list = command("/subagents list", "cmd-list");
  EXPECT_TRUE(contains(list, "running · stuck")) << list;
  EXPECT_TRUE(contains(list, "ok · kid")) << list;
  EXPECT_TRUE(contains(list, "timeout · slowkid")) << list;
  const std::string steered = command("/subagents steer stuck look at the README too", "cmd-steer");
  EXPECT_TRUE(contains(steered, "Sent to subagent")) << steered;
  const std::string not_mine = command("/subagents kill nobody", "cmd-kill-none");
  EXPECT_TRUE(contains(not_mine, "no running subagent of this session matches \"nobody\"")) << not_mine;
  const std::string killed = command("/subagents kill stuck", "cmd-kill");
  EXPECT_TRUE(contains(killed, "Stopped 1 subagent")) << killed;
  ASSERT_TRUE(eventually([&] { return announces("status: aborted (killed)") == 1 && main_idle(); })) << history("main").dump();

  // 5. cleanup "delete": the child's session is gone once its result is announced.
  const std::size_t sessions_before = child_keys().size();
  send(R"(Tidy. MOCK_TOOL:sessions_spawn:{"task":"quick \u0045CHO:tidy","label":"tidy","cleanup":"delete"})", "turn-5");
  ASSERT_TRUE(eventually([&] { return announces("[tidy]") == 1 && main_idle(); })) << history("main").dump();
  EXPECT_TRUE(eventually([&] { return child_keys().size() == sessions_before; }));

  // 6. The subagents tool's kill (target "all"), from the parent's own turn.
  send(R"(Another. MOCK_TOOL:sessions_spawn:{"task":"stuck MOCK_\u0048OLD:never3","label":"stuck2"})", "turn-6");
  ASSERT_TRUE(eventually([&] { return held("never3") && main_idle(); }));
  send(R"(Enough. MOCK_TOOL:subagents:{"action":"kill","target":"all"})", "turn-6b");
  ASSERT_TRUE(eventually([&] { return announces("status: aborted (killed)") == 2 && main_idle(); })) << history("main").dump();

  // Exactly once, still: one announce per child run.
  EXPECT_EQ(announces("status: completed\n\nResult:\nHello from the mock LLM. [kid]"), 1);
  EXPECT_EQ(announces("timed out"), 1);
  EXPECT_EQ(announces("aborted (killed)"), 2);
}

// Exactly once across a kill -9: a child cut off mid-reply runs again after the restart (its turn
// continues; the task is not recorded twice) and its result reaches the parent once.
TEST_F(SubagentsTest, AChildCutOffByKill9IsResumedAndAnnouncedOnce) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config_for(*mock_));
  gateway_ = std::make_unique<Gateway>(home_.path());
  ws_ = client();
  send(R"(Spawn. MOCK_TOOL:sessions_spawn:{"task":"survive \u0045CHO:res MOCK_\u0048OLD:r1","label":"survivor"})", "turn-r");
  ASSERT_TRUE(eventually([&] { return held("r1") && main_idle(); })) << requests().dump();
  const auto keys = child_keys();
  ASSERT_EQ(keys.size(), 1u);

  ws_.reset();
  gateway_->process().signal(SIGKILL);
  ASSERT_TRUE(gateway_->process().wait(10s));
  gateway_ = std::make_unique<Gateway>(home_.path());
  ws_ = client();
  // The resumed child's request holds at the same gate; let it through.
  ASSERT_TRUE(eventually([&] { return requests_with("survive").size() >= 2 && held("r1"); })) << requests().dump();
  release("r1");
  ASSERT_TRUE(eventually([&] { return announces("[res]") == 1 && main_idle(); })) << history("main").dump();
  int tasks = 0;
  for (const auto& m : history(keys[0])) tasks += m.value("role", "") == "user" && contains(text_of(m), "survive") ? 1 : 0;
  EXPECT_EQ(tasks, 1) << history(keys[0]).dump();
  EXPECT_EQ(announces(), 1);
}

}  // namespace
}  // namespace subagents_test
}  // namespace pincer::test
