// Inbound webhooks in the real gateway (AT-3; docs/automation.md "Hooks") over real HTTP with the
// mock LLM: the refusals (query token 400, not POST 405, no/wrong token 401, 20 wrong tokens a
// minute → 429 with Retry-After while the right token still passes, body over maxBodyBytes 413,
// bad fields 400, unknown path 404); `/agent` runs an isolated `hook:` session with the message
// inside the untrusted-content block, a repeat with the same idempotency key runs nothing, and
// the main session's next turn sees `Hook <name>: …`; `/wake` with `mode: now` makes the
// heartbeat beat at once even with an empty HEARTBEAT.md, `next-heartbeat` makes no model call;
// mappings and a hot reload; a turn cut by kill -9 is answered once after the restart; hooks.status.
// Delivery to a chat: tests/channels/telegram_hooks.test.mjs. Every wait is for a condition.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <iostream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "raw_socket.h"
#include "ws_client.h"

namespace pincer::test {
namespace hooks_gateway_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "hooks-gateway-test-token-0123456789";
constexpr const char* kHookToken = "hook-token-abcdefghijklmnop";

std::string config_with(const MockLlm& mock, const std::string& hooks, const std::string& heartbeat = "{ every: '0m' }") {
  return mock_config({.token = kToken,
                      .provider = {.base_url = mock.base_url()},
                      .defaults = ", heartbeat: " + heartbeat,
                      .top = ",\n  hooks: " + hooks});
}

std::string enabled_hooks(const std::string& extra = "") {
  return std::string("{ enabled: true, token: '") + kHookToken + "'" + extra + " }";
}

template <class Fn>
bool eventually(Fn done, std::chrono::milliseconds limit = 30s) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return done();
}

class HooksGatewayTest : public ::testing::Test {
 protected:
  void start(const std::string& config) {
    if (!mock_) mock_ = std::make_unique<MockLlm>();
    home_.write("pincer.json", config);
    gateway_ = std::make_unique<Gateway>(home_.path());
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }
  /// One POST (or `method`) to the gateway; `auth` "" = no token header.
  RawResponse post(const std::string& target, const std::string& body, const std::string& auth = kHookToken,
                   const std::string& source_ip = "", const std::string& method = "POST",
                   const std::string& extra_headers = "") {
    std::string req = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
    if (!auth.empty()) req += "Authorization: Bearer " + auth + "\r\n";
    if (!body.empty() || method == "POST") req += "Content-Type: application/json\r\n";
    req += extra_headers;
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return raw_exchange(gateway_->port(), req, source_ip);
  }
  std::unique_ptr<WsClient> client() {
    auto c = std::make_unique<WsClient>(gateway_->port());
    EXPECT_TRUE(c->recv());
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
    auto res = c->recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true);
    return c;
  }
  /// Every chat request the mock answered: all its messages' text joined.
  std::vector<std::string> mock_requests() {
    auto r = http_request(mock_->port(), "GET", "/__mock/requests");
    std::vector<std::string> out;
    for (auto& e : json::parse(r.body)) {
      if (e.value("path", "").find("chat/completions") == std::string::npos) continue;
      std::string all;
      for (const auto& m : e["body"]["messages"])
        all += (m["content"].is_string() ? m["content"].get<std::string>() : m["content"].dump()) + "\n";
      out.push_back(all);
    }
    return out;
  }
  /// Every run the journal accepted has been answered (the file as the gateway writes it).
  bool journal_settled() {
    std::ifstream in(home_.path() / "runs" / "journal.jsonl");
    std::set<std::string> accepted, answered;
    std::string line;
    while (std::getline(in, line)) {
      json r = json::parse(line, nullptr, false);
      if (!r.is_object()) continue;
      if (r["op"] == "accepted") accepted.insert(r.value("id", ""));
      if (r["op"] == "answered") answered.insert(r.value("id", ""));
    }
    return !accepted.empty() && std::includes(answered.begin(), answered.end(), accepted.begin(), accepted.end());
  }
  std::size_t requests_containing(const std::string& needle) {
    std::size_t n = 0;
    for (const auto& r : mock_requests()) n += r.find(needle) != std::string::npos;
    return n;
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(HooksGatewayTest, RefusalsAnswerWithTheRightStatus) {
  mock_ = std::make_unique<MockLlm>();
  start(config_with(*mock_, enabled_hooks(", maxBodyBytes: 2048")));
  EXPECT_EQ(post("/hooks/wake?token=x", R"({"text":"hi"})").status, 400) << "tokens never in the query string";
  auto get = post("/hooks/wake", "", kHookToken, "", "GET");
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.headers["allow"], "POST");
  EXPECT_EQ(post("/hooks/wake", R"({"text":"hi"})", "").status, 401);
  EXPECT_EQ(post("/hooks/wake", R"({"text":"hi"})", "wrong-token").status, 401);
  EXPECT_EQ(post("/hooks/wake", std::string(4096, ' ')).status, 413) << "over maxBodyBytes";
  auto bad_json = post("/hooks/agent", "{not json");
  EXPECT_EQ(bad_json.status, 400);
  auto no_message = post("/hooks/agent", "{}");
  EXPECT_EQ(no_message.status, 400);
  EXPECT_EQ(json::parse(no_message.body)["error"], "message required");
  auto own_key = post("/hooks/agent", R"({"message":"m","sessionKey":"hook:mine"})");
  EXPECT_EQ(own_key.status, 400);
  EXPECT_NE(own_key.body.find("allowRequestSessionKey"), std::string::npos) << own_key.body;
  EXPECT_EQ(post("/hooks/agent", R"({"message":"m","channel":"discord"})").status, 400) << "no such channel here";
  EXPECT_EQ(post("/hooks/nothing-mapped", R"({})").status, 404);
  EXPECT_EQ(post("/hooks", R"({})").status, 404);

  // Brute force from one address: 20 wrong tokens, then 429 — but the owner's token still works.
  for (int i = 0; i < 20; ++i) ASSERT_EQ(post("/hooks/wake", R"({"text":"x"})", "guess", "127.0.0.3").status, 401) << i;
  auto throttled = post("/hooks/wake", R"({"text":"x"})", "guess", "127.0.0.3");
  EXPECT_EQ(throttled.status, 429);
  EXPECT_FALSE(throttled.headers["retry-after"].empty());
  EXPECT_EQ(post("/hooks/wake", R"({"text":"x"})", "guess", "127.0.0.4").status, 401) << "another address has its own count";
  auto right = post("/hooks/wake", R"({"text":"backup finished","mode":"next-heartbeat"})", kHookToken, "127.0.0.3");
  EXPECT_EQ(right.status, 200) << right.body;
  EXPECT_EQ(json::parse(right.body), (json{{"ok", true}, {"mode", "next-heartbeat"}}));

  auto c = client();
  auto status = c->request("hooks.status");
  ASSERT_EQ(status["ok"], true) << status.dump();
  const json& w = status["payload"]["webhooks"];
  EXPECT_EQ(w["enabled"], true);
  EXPECT_EQ(w["path"], "/hooks");
  EXPECT_EQ(w["counters"]["throttled"], 1);
  EXPECT_GE(w["counters"]["unauthorized"], 22);
  EXPECT_EQ(status["payload"]["hooks"], json::array()) << "OpenClaw's internal hooks: none";
}

TEST_F(HooksGatewayTest, AnUnknownAgentIdAndAWrongTokenAreJsonRefusals) {
  mock_ = std::make_unique<MockLlm>();
  start(config_with(*mock_, enabled_hooks()));
  // A direct request's agentId must be a configured agent (OpenClaw); it ran on main silently.
  auto unknown = post("/hooks/agent", R"({"message":"marker-nosuch","agentId":"nosuch"})");
  EXPECT_EQ(unknown.status, 400) << unknown.body;
  const json refused = json::parse(unknown.body, nullptr, false);
  EXPECT_EQ(refused["ok"], false) << unknown.body;
  EXPECT_EQ(refused.value("error", ""), "unknown agentId \"nosuch\" (configured: \"main\")");
  EXPECT_EQ(requests_containing("marker-nosuch"), 0u) << "nothing ran";
  // A wrong token: the same JSON shape as every other refusal, status kept.
  for (const char* token : {"", "wrong-token"}) {
    auto r = post("/hooks/wake", R"({"text":"hi"})", token);
    EXPECT_EQ(r.status, 401);
    EXPECT_NE(r.headers["content-type"].find("application/json"), std::string::npos) << r.headers["content-type"];
    const json body = json::parse(r.body, nullptr, false);
    EXPECT_EQ(body["ok"], false) << r.body;
    EXPECT_EQ(body.value("error", "").rfind("Unauthorized", 0), 0u) << r.body;
  }
}

TEST_F(HooksGatewayTest, AnAgentHookRunsIsolatedAsUntrustedContentAndTheMainSessionHearsOfIt) {
  mock_ = std::make_unique<MockLlm>();
  start(config_with(*mock_, enabled_hooks()));
  const std::string body = R"({"message":"Summarize the inbox ECHO:inbox-done","name":"Email","deliver":false})";
  auto first = post("/hooks/agent", body, kHookToken, "", "POST", "Idempotency-Key: mail-1\r\n");
  ASSERT_EQ(first.status, 200) << first.body;
  const std::string run_id = json::parse(first.body).value("runId", "");
  ASSERT_EQ(run_id.rfind("hook-", 0), 0u) << first.body;
  ASSERT_TRUE(eventually([&] { return requests_containing("Summarize the inbox") == 1; }));
  const std::string request = mock_requests().back();
  EXPECT_NE(request.find("EXTERNAL_UNTRUSTED_CONTENT"), std::string::npos) << request;
  EXPECT_NE(request.find("Email"), std::string::npos);

  auto repeat = post("/hooks/agent", body, kHookToken, "", "POST", "Idempotency-Key: mail-1\r\n");
  ASSERT_EQ(repeat.status, 200);
  EXPECT_EQ(json::parse(repeat.body)["runId"], run_id) << "the same idempotency key: the same run";

  auto c = client();
  std::string hook_key;
  ASSERT_TRUE(eventually([&] {
    const json list = c->request("sessions.list");
    for (const auto& s : list["payload"]["sessions"])
      if (s.value("key", "").rfind("agent:main:hook:", 0) == 0) hook_key = s["key"];
    return !hook_key.empty();
  })) << "no hook: session in " << c->request("sessions.list").dump();
  // Its turn ended (the reply is in its own session); the summary went to the main session then.
  ASSERT_TRUE(eventually([&] {
    return c->request("chat.history", {{"sessionKey", hook_key}})["payload"].dump().find("[inbox-done]") != std::string::npos;
  }));
  auto ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "anything new? ECHO:main"}, {"idempotencyKey", "m1"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  ASSERT_TRUE(eventually([&] { return requests_containing("anything new?") == 1; }));
  std::string main_request;
  for (const auto& r : mock_requests())
    if (r.find("anything new?") != std::string::npos) main_request = r;
  EXPECT_NE(main_request.find("Hook Email: Hello from the mock LLM. [inbox-done]"), std::string::npos) << main_request;
  EXPECT_EQ(requests_containing("Summarize the inbox"), 1u) << "the repeat ran nothing";
}

TEST_F(HooksGatewayTest, AWakeNowBeatsAtOnceAndNextHeartbeatMakesNoCall) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("workspace/HEARTBEAT.md", "# HEARTBEAT.md\n");  // empty: a timed beat would not call the model
  start(config_with(*mock_, enabled_hooks(), "{ every: '1h' }"));
  auto later = post("/hooks/wake", R"({"text":"Printer is out of paper","mode":"next-heartbeat"})");
  ASSERT_EQ(later.status, 200) << later.body;
  auto now = post("/hooks/wake", R"({"text":"Disk is 95% full ECHO:HEARTBEAT_OK"})");
  ASSERT_EQ(now.status, 200) << now.body;
  EXPECT_EQ(json::parse(now.body)["mode"], "now");
  ASSERT_TRUE(eventually([&] { return requests_containing("Disk is 95% full") >= 1; })) << "the wake made no beat";
  const auto requests = mock_requests();
  ASSERT_EQ(requests.size(), 1u) << "one model call: the beat; the next-heartbeat event waited";
  EXPECT_NE(requests[0].find("Printer is out of paper"), std::string::npos) << "both events reach the beat";
}

TEST_F(HooksGatewayTest, MappingsAndAHotReload) {
  mock_ = std::make_unique<MockLlm>();
  start(config_with(*mock_, "{ enabled: false }"));
  EXPECT_NE(post("/hooks/wake", R"({"text":"x"})").status, 200) << "hooks off: no endpoint";
  // Turned on while running, with a mapping of its own.
  home_.write("pincer.json",
              config_with(*mock_, enabled_hooks(", mappings: [ { match: { path: 'github', source: 'github' }, "
                                                "name: 'GitHub', deliver: false, "
                                                "messageTemplate: 'PR {{pull_request.title}} by {{sender.login}} [{{headers.authorization}}]' } ]")));
  ASSERT_TRUE(eventually([&] { return post("/hooks/github", R"({})", "wrong-token").status == 401; }))
      << "the reload did not add the route";
  EXPECT_EQ(post("/hooks/github", R"({"source":"other"})").status, 404) << "the mapping's source does not match";
  auto mapped = post("/hooks/github", R"({"source":"github","pull_request":{"title":"Fix the build"},"sender":{"login":"ada"}})");
  ASSERT_EQ(mapped.status, 200) << mapped.body;
  ASSERT_TRUE(eventually([&] { return requests_containing("PR Fix the build by ada") == 1; }));
  EXPECT_EQ(requests_containing(kHookToken), 0u) << "a template never copies the hook token into a prompt";
}

TEST_F(HooksGatewayTest, AQueuedTurnWithAModelThatDoesNotResolveFailsAloneAndTheOthersRun) {
  // Found by the new-user pass: a queued run that fails as it starts (its model does not resolve)
  // ended inside the lane pump, which then walked a changed queue and corrupted the heap.
  mock_ = std::make_unique<MockLlm>();
  start(config_with(*mock_, enabled_hooks()));
  ASSERT_EQ(post("/hooks/agent", R"({"message":"first MOCK_HOLD:q1 ECHO:one","deliver":false})").status, 200);
  ASSERT_TRUE(eventually([&] {
    auto h = json::parse(http_request(mock_->port(), "GET", "/__mock/holds").body, nullptr, false);
    return h.is_object() && h.contains("q1") && h["q1"].value("waiting", 0) >= 1;
  }));
  // Queued behind it on the cron lane (one at a time).
  ASSERT_EQ(post("/hooks/agent", R"({"message":"bad model","model":"nope/none","deliver":false})").status, 200);
  ASSERT_EQ(post("/hooks/agent", R"({"message":"second ECHO:two","deliver":false})").status, 200);
  ASSERT_EQ(post("/hooks/agent", R"({"message":"third ECHO:three","deliver":false})").status, 200);
  http_request(mock_->port(), "POST", "/__mock/release?name=q1");
  ASSERT_TRUE(eventually([&] { return requests_containing("third ECHO:three") == 1 && requests_containing("second ECHO:two") == 1; }))
      << "the runs queued behind the failing one did not run";
  EXPECT_EQ(requests_containing("bad model"), 0u) << "a model that does not resolve is never called";
  EXPECT_EQ(post("/hooks/wake", R"({"text":"still alive?","mode":"next-heartbeat"})").status, 200) << "the gateway is up";
}

TEST_F(HooksGatewayTest, AHookTurnCutByKill9IsAnsweredOnceAfterTheRestart) {
  mock_ = std::make_unique<MockLlm>();
  start(config_with(*mock_, enabled_hooks()));
  auto r = post("/hooks/agent", R"({"message":"Nightly report MOCK_HOLD:hk ECHO:hk","deliver":false})");
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_TRUE(eventually([&] {
    auto h = json::parse(http_request(mock_->port(), "GET", "/__mock/holds").body, nullptr, false);
    return h.is_object() && h.contains("hk") && h["hk"].value("waiting", 0) >= 1;
  }));
  gateway_->process().signal(SIGKILL);
  ASSERT_TRUE(gateway_->process().wait(10s));
  http_request(mock_->port(), "POST", "/__mock/release?name=hk");
  gateway_ = std::make_unique<Gateway>(home_.path());
  ASSERT_TRUE(eventually([&] { return requests_containing("Nightly report") == 2; })) << "not run again after the restart";
  ASSERT_TRUE(eventually([&] { return journal_settled(); })) << "never answered";
  EXPECT_EQ(requests_containing("Nightly report"), 2u) << "the cut request and its one rerun";
}

}  // namespace
}  // namespace hooks_gateway_test
}  // namespace pincer::test
