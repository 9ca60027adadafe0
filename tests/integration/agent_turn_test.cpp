// Agent turns end to end (issue #3 §7): the real gateway binary, the mock LLM speaking the OpenAI
// Chat Completions wire format over real HTTP, a real WebSocket client, real tools, real files.
#include <signal.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace agent_turn_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "agent-test-token-0123456789";

std::string agent_config(const MockLlm& mock, const std::string& model = "mock/mock-model",
                         const std::string& api_key = "mock-key", const std::string& api = "openai-completions") {
  // OpenAI-style APIs take the /v1 base; Anthropic and Ollama append their own paths to the host.
  const bool v1 = api == "openai-completions" || api == "openai-responses";
  const std::string base = v1 ? mock.base_url() : "http://127.0.0.1:" + std::to_string(mock.port());
  return mock_config({.token = kToken, .provider = {.base_url = base, .api_key = api_key, .api = api}, .primary = model});
}

class AgentTurnTest : public ::testing::Test {
 protected:
  void start(const std::vector<std::string>& mock_args = {}, const std::string& model = "mock/mock-model",
             const std::string& api_key = "mock-key", const std::string& api = "openai-completions") {
    mock_ = std::make_unique<MockLlm>(mock_args);
    home_.write("pincer.json", agent_config(*mock_, model, api_key, api));
    gateway_ = std::make_unique<Gateway>(home_.path());
  }
  std::unique_ptr<WsClient> client(const std::vector<std::string>& caps = {}) {
    auto c = std::make_unique<WsClient>(gateway_->port());
    EXPECT_TRUE(c->recv());
    auto params = connect_params(kToken);
    params["caps"] = caps;
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
    auto res = c->recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true);
    return c;
  }
  /// Sends chat.send and collects events until the run's terminal chat event.
  json turn(WsClient& c, const std::string& message, const std::string& run_id, std::vector<json>* events = nullptr) {
    auto ack = c.request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    if (ack["ok"] != true) return ack;
    EXPECT_EQ(ack["payload"]["runId"], run_id);
    EXPECT_EQ(ack["payload"]["status"], "started");
    return wait_terminal(c, run_id, events);
  }
  json wait_terminal(WsClient& c, const std::string& run_id, std::vector<json>* events = nullptr) {
    auto check = [&](const json& f) -> bool {
      if (events) events->push_back(f);
      return f["event"] == "chat" && f["payload"]["runId"] == run_id &&
             (f["payload"]["state"] == "final" || f["payload"]["state"] == "error" || f["payload"]["state"] == "aborted");
    };
    while (!c.events().empty()) {
      json f = std::move(c.events().front());
      c.events().pop_front();
      if (check(f)) return f["payload"];
    }
    for (int i = 0; i < 2000; ++i) {
      auto f = c.recv(20s);
      if (!f) break;
      if (check(*f)) return (*f)["payload"];
    }
    ADD_FAILURE() << "no terminal chat event for " << run_id;
    return json();
  }
  static std::string text_of(const json& message) {
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

  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(AgentTurnTest, StreamsAReplyWithDeltasAndLifecycle) {
  start();
  auto c = client();
  std::vector<json> events;
  json final = turn(*c, "hello ECHO:one", "run-one", &events);
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(text_of(final["message"]), "Hello from the mock LLM. [one]");
  EXPECT_EQ(final["sessionKey"], "agent:main:main");
  int deltas = 0;
  bool started = false, ended = false;
  std::string last_delta_text;
  for (const auto& e : events) {
    if (e["event"] == "chat" && e["payload"]["state"] == "delta") {
      ++deltas;
      last_delta_text = text_of(e["payload"]["message"]);
    }
    if (e["event"] == "agent" && e["payload"]["stream"] == "lifecycle") {
      started |= e["payload"]["data"]["phase"] == "start";
      ended |= e["payload"]["data"]["phase"] == "end";
    }
  }
  EXPECT_GE(deltas, 1);
  EXPECT_EQ(last_delta_text, "Hello from the mock LLM. [one]");  // a final is preceded by the full text
  EXPECT_TRUE(started);
  EXPECT_TRUE(ended);

  // The agent stream's assistant events (paced: deltas within a window are merged into one) add up
  // to the reply, each carrying the text so far, and all come before the lifecycle end.
  std::string joined, last_text;
  int assistant = 0;
  bool after_end = false, ended_yet = false;
  for (const auto& e : events) {
    if (e["event"] != "agent") continue;
    const json& p = e["payload"];
    if (p["stream"] == "lifecycle" && p["data"]["phase"] == "end") ended_yet = true;
    if (p["stream"] != "assistant") continue;
    ++assistant;
    after_end |= ended_yet;
    joined += p["data"].value("delta", "");
    last_text = p["data"].value("text", "");
    EXPECT_EQ(last_text, joined) << p.dump();
  }
  EXPECT_GE(assistant, 1);
  EXPECT_EQ(joined, "Hello from the mock LLM. [one]");
  EXPECT_FALSE(after_end);
}

TEST_F(AgentTurnTest, RunsExecAndAnswersWithItsOutput) {
  start();
  auto c = client({"tool-events"});
  std::vector<json> events;
  json final = turn(*c, R"(please run MOCK_TOOL:exec:{"command":"echo pincer-exec-ok; exit 3"})", "run-exec", &events);
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_NE(text_of(final["message"]).find("pincer-exec-ok"), std::string::npos) << final.dump();
  bool tool_start = false, tool_result = false;
  for (const auto& e : events) {
    if (e["event"] == "agent" && e["payload"]["stream"] == "tool") {
      const json& d = e["payload"]["data"];
      tool_start |= d["phase"] == "start" && d["name"] == "exec";
      if (d["phase"] == "result") {
        tool_result = true;
        EXPECT_NE(d["result"].get<std::string>().find("exit code 3"), std::string::npos) << d.dump();
      }
    }
  }
  EXPECT_TRUE(tool_start);
  EXPECT_TRUE(tool_result);

  // A client without the tool-events capability sees the reply but no tool events.
  auto plain = client();
  std::vector<json> plain_events;
  json second = turn(*plain, R"(again MOCK_TOOL:exec:{"command":"echo second"})", "run-exec-2", &plain_events);
  EXPECT_EQ(second["state"], "final");
  for (const auto& e : plain_events) EXPECT_NE(e["payload"].value("stream", ""), "tool") << e.dump();
}

TEST_F(AgentTurnTest, HistorySurvivesARestartAndTheTranscriptIsPiV3) {
  start();
  {
    auto c = client();
    ASSERT_EQ(turn(*c, "remember ECHO:first", "run-h1")["state"], "final");
    ASSERT_EQ(turn(*c, "and ECHO:second", "run-h2")["state"], "final");
  }
  gateway_->process().signal(SIGTERM);
  ASSERT_EQ(gateway_->process().wait(5s), 0);
  gateway_ = std::make_unique<Gateway>(home_.path());

  auto c = client();
  auto history = c->request("chat.history", {{"sessionKey", "main"}});
  ASSERT_EQ(history["ok"], true) << history.dump();
  const json& messages = history["payload"]["messages"];
  ASSERT_EQ(messages.size(), 4u) << messages.dump();
  EXPECT_EQ(messages[0]["role"], "user");
  EXPECT_EQ(text_of(messages[0]), "remember ECHO:first");
  EXPECT_EQ(messages[1]["role"], "assistant");
  EXPECT_EQ(text_of(messages[3]), "Hello from the mock LLM. [second]");
  EXPECT_EQ(messages[1]["provider"], "mock");

  // The session continues with its history: the model sees all four messages plus the new one.
  ASSERT_EQ(turn(*c, "third ECHO:third", "run-h3")["state"], "final");

  // pi session v3 on disk: header line, then entries with id/parentId chained.
  const std::string session_id = history["payload"]["sessionId"];
  std::ifstream in(home_.path() / "agents" / "main" / "sessions" / (session_id + ".jsonl"));
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  json header = json::parse(line);
  EXPECT_EQ(header["type"], "session");
  EXPECT_EQ(header["version"], 3);
  EXPECT_EQ(header["id"], session_id);
  std::string parent;
  int entries = 0;
  while (std::getline(in, line)) {
    json e = json::parse(line);
    EXPECT_EQ(e["type"], "message");
    EXPECT_EQ(e["id"].get<std::string>().size(), 8u);
    if (entries++ > 0) {
      EXPECT_EQ(e["parentId"], parent);
    }
    parent = e["id"];
  }
  EXPECT_EQ(entries, 6);
  auto sessions = c->request("sessions.list");
  EXPECT_EQ(sessions["payload"]["sessions"][0]["key"], "agent:main:main");
  EXPECT_EQ(sessions["payload"]["sessions"][0]["sessionId"], session_id);
}

TEST_F(AgentTurnTest, AbortMidStreamKeepsThePartialReplyMarkedAborted) {
  start();
  auto c = client();
  auto ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "MOCK_SLOW:100 MOCK_LONG:3000"}, {"idempotencyKey", "run-slow"}});
  ASSERT_EQ(ack["ok"], true);
  // Wait for the first delta, then abort.
  for (int i = 0; i < 200; ++i) {
    auto f = c->recv(5s);
    ASSERT_TRUE(f);
    if ((*f)["event"] == "chat" && (*f)["payload"]["state"] == "delta") break;
    c->events().push_back(*f);
  }
  auto abort = c->request("chat.abort", {{"sessionKey", "main"}});
  ASSERT_EQ(abort["ok"], true) << abort.dump();
  EXPECT_EQ(abort["payload"]["aborted"], true);
  EXPECT_EQ(abort["payload"]["runIds"][0], "run-slow");
  json terminal = wait_terminal(*c, "run-slow");
  EXPECT_EQ(terminal["state"], "aborted");
  EXPECT_EQ(terminal["stopReason"], "rpc");
  const std::string partial = text_of(terminal["message"]);
  EXPECT_FALSE(partial.empty());
  EXPECT_LT(partial.size(), 3000u);

  auto history = c->request("chat.history", {{"sessionKey", "main"}});
  const json& messages = history["payload"]["messages"];
  ASSERT_EQ(messages.size(), 2u) << messages.dump();
  EXPECT_EQ(messages[1]["stopReason"], "aborted");
  EXPECT_EQ(text_of(messages[1]), partial);
}

TEST_F(AgentTurnTest, OneRunPerSessionAtATimeAndIdempotentSends) {
  start();
  auto c = client();
  auto a = c->request("chat.send", {{"sessionKey", "main"}, {"message", "MOCK_SLOW:20 ECHO:a"}, {"idempotencyKey", "run-a"}});
  auto b = c->request("chat.send", {{"sessionKey", "main"}, {"message", "ECHO:b"}, {"idempotencyKey", "run-b"}});
  auto again = c->request("chat.send", {{"sessionKey", "main"}, {"message", "ECHO:b"}, {"idempotencyKey", "run-b"}});
  ASSERT_EQ(a["ok"], true);
  ASSERT_EQ(b["ok"], true);
  EXPECT_EQ(again["payload"], b["payload"]);  // a retried key gets the first answer, runs once
  std::vector<json> events;
  EXPECT_EQ(wait_terminal(*c, "run-a", &events)["state"], "final");
  for (const auto& e : events) EXPECT_NE(e["payload"].value("runId", ""), "run-b") << "run-b started before run-a ended";
  EXPECT_EQ(text_of(wait_terminal(*c, "run-b")["message"]), "Hello from the mock LLM. [b]");
  auto history = c->request("chat.history", {{"sessionKey", "main"}});
  EXPECT_EQ(history["payload"]["messages"].size(), 4u) << "run-b ran exactly once";
}

TEST_F(AgentTurnTest, AgentMethodAnswersTwiceAndAgentWaitWaits) {
  start();
  auto c = client();
  c->send_json({{"type", "req"}, {"id", "a1"}, {"method", "agent"},
                {"params", {{"message", "MOCK_SLOW:10 ECHO:ag"}, {"idempotencyKey", "run-ag"}}}});
  auto ack = c->recv_response("a1");
  ASSERT_TRUE(ack);
  EXPECT_EQ((*ack)["payload"]["status"], "accepted");
  EXPECT_EQ((*ack)["payload"]["runId"], "run-ag");
  c->send_json({{"type", "req"}, {"id", "w1"}, {"method", "agent.wait"}, {"params", {{"runId", "run-ag"}}}});
  std::optional<json> final, waited;
  for (int i = 0; i < 500 && !(final && waited); ++i) {
    std::optional<json> f;
    if (!c->events().empty()) {
      f = c->events().front();
      c->events().pop_front();
    } else {
      f = c->recv(10s);
    }
    ASSERT_TRUE(f);
    if ((*f)["type"] == "res" && (*f)["id"] == "a1") final = f;
    if ((*f)["type"] == "res" && (*f)["id"] == "w1") waited = f;
  }
  ASSERT_TRUE(final && waited);
  EXPECT_EQ((*final)["payload"]["status"], "ok");
  EXPECT_EQ((*final)["payload"]["result"]["payloads"][0]["text"], "Hello from the mock LLM. [ag]");
  EXPECT_EQ((*waited)["payload"]["status"], "ok");
  auto unknown = c->request("agent.wait", {{"runId", "no-such-run"}, {"timeoutMs", 10}});
  EXPECT_EQ(unknown["payload"]["status"], "error");
}

TEST_F(AgentTurnTest, UnknownModelIsAClearError) {
  start({}, "mock/no-such-model");
  auto c = client();
  auto res = c->request("chat.send", {{"sessionKey", "main"}, {"message", "hi"}, {"idempotencyKey", "run-x"}});
  EXPECT_EQ(res["ok"], false);
  const std::string message = res["error"]["message"];
  EXPECT_NE(message.find("mock/no-such-model"), std::string::npos) << message;
  EXPECT_NE(message.find("mock/mock-model"), std::string::npos) << "lists what is configured: " << message;
}

TEST_F(AgentTurnTest, WrongApiKeyIsAClearErrorEvent) {
  start({"--api-key", "the-right-key"}, "mock/mock-model", "a-wrong-key");
  auto c = client();
  json terminal = turn(*c, "hi", "run-key");
  ASSERT_EQ(terminal["state"], "error") << terminal.dump();
  const std::string message = terminal["errorMessage"];
  EXPECT_NE(message.find("401"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
  EXPECT_EQ(message.find("a-wrong-key"), std::string::npos) << "no secret in errors: " << message;
}

TEST_F(AgentTurnTest, RateLimitIsRetriedAfterRetryAfter) {
  start();
  auto c = client();
  json final = turn(*c, "MOCK_429_ONCE ECHO:retry", "run-429");
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(text_of(final["message"]), "Hello from the mock LLM. [retry]");
}

TEST_F(AgentTurnTest, StreamCutMidwayIsAnErrorNotASilentDrop) {
  start();
  auto c = client();
  json terminal = turn(*c, "MOCK_CUT", "run-cut");
  ASSERT_EQ(terminal["state"], "error") << terminal.dump();
  EXPECT_FALSE(terminal["errorMessage"].get<std::string>().empty());
}

TEST_F(AgentTurnTest, HugeToolOutputIsCapped) {
  start();
  auto c = client();
  json final = turn(*c, R"(MOCK_TOOL:exec:{"command":"head -c 10000000 /dev/zero | tr '\\0' a"})", "run-big");
  ASSERT_EQ(final["state"], "final") << final.dump();
  auto history = c->request("chat.history", {{"sessionKey", "main"}});
  bool seen = false;
  for (const auto& m : history["payload"]["messages"]) {
    if (m["role"] != "toolResult") continue;
    seen = true;
    const std::string text = text_of(m);
    EXPECT_LE(text.size(), 20'000u) << "CX-8 caps a tool result at 16 000 chars plus a marker";
    EXPECT_GE(text.size(), 2'000u);
  }
  EXPECT_TRUE(seen);
}

TEST_F(AgentTurnTest, ProviderCallsGoThroughHttpProxyUnlessNoProxy) {
  const std::string node = find_on_path("node");
  ASSERT_FALSE(node.empty());
  Process proxy({node, std::string(PINCER_SOURCE_DIR) + "/tests/mock_llm/http-proxy.mjs", "--port", "0"}, {});
  auto line = proxy.wait_for_stdout("http-proxy listening on http://127.0.0.1:");
  ASSERT_TRUE(line);
  const int proxy_port = std::stoi(line->substr(line->rfind(':') + 1));
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", agent_config(*mock_));
  const std::string proxy_url = "http://user:secret@127.0.0.1:" + std::to_string(proxy_port);
  gateway_ = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{},
                                       std::map<std::string, std::string>{{"HTTP_PROXY", proxy_url},
                                                                          {"http_proxy", proxy_url},
                                                                          {"NO_PROXY", "\x01"},
                                                                          {"no_proxy", "\x01"}});
  auto c = client();
  ASSERT_EQ(turn(*c, "via proxy ECHO:p", "run-proxy")["state"], "final");
  auto stats = json::parse(http_request(proxy_port, "GET", "/__proxy/stats").body);
  EXPECT_EQ(stats["forward"], 1);
  EXPECT_EQ(stats["authorization"], "Basic dXNlcjpzZWNyZXQ=");  // user:secret

  // NO_PROXY exempts the host: the proxy sees nothing more.
  gateway_->process().signal(SIGTERM);
  gateway_->process().wait(5s);
  gateway_ = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{},
                                       std::map<std::string, std::string>{{"HTTP_PROXY", proxy_url},
                                                                          {"http_proxy", proxy_url},
                                                                          {"NO_PROXY", "localhost,127.0.0.1"},
                                                                          {"no_proxy", "\x01"}});
  auto c2 = client();
  ASSERT_EQ(turn(*c2, "direct ECHO:d", "run-direct")["state"], "final");
  stats = json::parse(http_request(proxy_port, "GET", "/__proxy/stats").body);
  EXPECT_EQ(stats["forward"], 1);
}

/// The same turn — text, then a tool call and its answer — over every wire API (PV-1).
class AgentWireApiTest : public AgentTurnTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(AgentWireApiTest, TextAndToolTurns) {
  start({}, "mock/mock-model", "mock-key", GetParam());
  auto c = client();
  json final = turn(*c, "hello ECHO:api", "run-api-1");
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(text_of(final["message"]), "Hello from the mock LLM. [api]");
  json tool = turn(*c, R"(MOCK_TOOL:exec:{"command":"echo wire-ok"})", "run-api-2");
  ASSERT_EQ(tool["state"], "final") << tool.dump();
  EXPECT_NE(text_of(tool["message"]).find("wire-ok"), std::string::npos) << tool.dump();
  json reasoning = turn(*c, "MOCK_REASON ECHO:think", "run-api-3");
  ASSERT_EQ(reasoning["state"], "final") << reasoning.dump();
  EXPECT_NE(text_of(reasoning["message"]).find("[think]"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Apis, AgentWireApiTest,
                         ::testing::Values("openai-completions", "openai-responses", "anthropic-messages", "ollama"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace agent_turn_test
}  // namespace pincer::test
