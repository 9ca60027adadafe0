// One user message larger than the model's context window (SPEC AG-5, context/message_fit.h): the
// real gateway, the mock LLM over real HTTP (recording every request, and answering a request
// larger than its own window with the provider's real context-length error), a real WebSocket
// client, the `pincer agent` CLI and the transcript on disk.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace message_too_large_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "too-large-test-token-0123456789";

/// 20 000 chars: ceil(20 000 / 4 × 1.2) = 6000 estimated tokens, with a marker to find it by.
std::string huge_message() {
  std::string s = "HUGE-PASTE-MARKER ";
  while (s.size() < 20000) s += "lorem ipsum dolor sit amet ";
  s.resize(20000);
  return s;
}

class MessageTooLargeTest : public ::testing::Test {
 protected:
  /// `window`: the model's contextWindow as Pincer is told (reply reserve 600); `mock_args`: e.g.
  /// the mock's own, smaller window.
  void start(int64_t window, const std::vector<std::string>& mock_args = {}) {
    mock_ = std::make_unique<MockLlm>(mock_args);
    home_.write("pincer.json",
                mock_config({.token = kToken,
                             .provider = {.base_url = mock_->base_url(),
                                          .models = "{ id: 'mock-model', contextWindow: " + std::to_string(window) + ", maxTokens: 256 }",
                                          .api_key = "mock-key"},
                             .defaults = ", bootstrapTotalMaxChars: 1200, compaction: { reserveTokens: 600 }",
                             .top = ",\n  tools: { profile: 'minimal' }",
                             .gateway = ", http: { endpoints: { chatCompletions: { enabled: true } } }"}));
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }

  /// One chat.send turn; the terminal chat payload. `events_` collects every event seen.
  json turn(const std::string& message, const std::string& run_id) {
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump().substr(0, 500);
    if (ack["ok"] != true) return ack;
    auto check = [&](const json& f) {
      events_.push_back(f);
      return f["event"] == "chat" && f["payload"]["runId"] == run_id &&
             (f["payload"]["state"] == "final" || f["payload"]["state"] == "error" || f["payload"]["state"] == "aborted");
    };
    while (!client_->events().empty()) {
      json f = std::move(client_->events().front());
      client_->events().pop_front();
      if (check(f)) return f["payload"];
    }
    for (int i = 0; i < 5000; ++i) {
      auto f = client_->recv(30s);
      if (!f) break;
      if (check(*f)) return (*f)["payload"];
    }
    ADD_FAILURE() << "no terminal chat event for " << run_id;
    return json();
  }
  /// The lifecycle error the agent stream sent for `run_id` ("" when none).
  std::string agent_error(const std::string& run_id) const {
    for (const auto& f : events_) {
      if (f["event"] == "agent" && f["payload"]["runId"] == run_id && f["payload"]["stream"] == "lifecycle" &&
          f["payload"]["data"]["phase"] == "error") {
        return f["payload"]["data"].value("error", "");
      }
    }
    return "";
  }
  /// Chat requests the mock received (not its other endpoints): {body, overflow?, status}.
  std::vector<json> mock_requests() {
    auto r = http_request(mock_->port(), "GET", "/__mock/requests");
    std::vector<json> out;
    for (auto& e : json::parse(r.body)) {
      if (e.value("path", "").find("chat/completions") != std::string::npos) out.push_back(e);
    }
    return out;
  }
  std::string session_id() {
    auto list = client_->request("sessions.list", json::object());
    for (const auto& s : list["payload"]["sessions"]) {
      if (s["key"] == "agent:main:main") return s["sessionId"];
    }
    return "";
  }
  std::filesystem::path sessions_dir() const { return home_.path() / "agents" / "main" / "sessions"; }
  std::string read_file(const std::filesystem::path& p) const {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  /// Transcripts (`<id>.jsonl`) in the sessions directory.
  int transcripts() const {
    int n = 0;
    if (!std::filesystem::exists(sessions_dir())) return 0;
    for (const auto& e : std::filesystem::directory_iterator(sessions_dir())) n += e.path().extension() == ".jsonl";
    return n;
  }
  /// Files of a session reset (`<id>.jsonl.reset.<time>`).
  int reset_files() const {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(sessions_dir())) {
      n += e.path().filename().string().find(".reset.") != std::string::npos;
    }
    return n;
  }

  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
  std::vector<json> events_;
};

TEST_F(MessageTooLargeTest, AMessageLargerThanTheWindowIsRefusedBeforeAnyModelCallAndTheSessionStaysUsable) {
  start(4000);
  ASSERT_EQ(turn("Remember the order number ORD-4242-PA for later. ECHO:noted", "t1")["state"], "final");
  const std::string id = session_id();
  ASSERT_FALSE(id.empty());
  const std::filesystem::path file = sessions_dir() / (id + ".jsonl");
  const std::string before = read_file(file);
  const std::size_t calls = mock_requests().size();

  // Window 4000, reserve 600 → 3400 tokens for the prompt; the message alone is ~6000.
  const json refused = turn(huge_message(), "t2");
  ASSERT_EQ(refused["state"], "error") << refused.dump().substr(0, 500);
  const std::string error = refused.value("errorMessage", "");
  EXPECT_NE(error.find("This message is ~6000 tokens"), std::string::npos) << error;
  EXPECT_NE(error.find(" fit in a request to mock/mock-model (context window 4000 tokens, less the reply reserve"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("Shorten it or split it into parts"), std::string::npos) << error;
  EXPECT_EQ(agent_error("t2"), error);  // the agent stream says the same
  // No request reached the model (no turn, no summary, no memory flush), nothing was reset, and
  // the transcript is byte for byte what it was: the refused message is not recorded.
  EXPECT_EQ(mock_requests().size(), calls);
  EXPECT_EQ(session_id(), id);
  EXPECT_EQ(reset_files(), 0);
  EXPECT_EQ(read_file(file), before);

  // The next message is answered with the earlier history in context, without the refused one.
  const json next = turn("Which order number did I give you? ECHO:answered", "t3");
  ASSERT_EQ(next["state"], "final") << next.dump().substr(0, 500);
  const auto requests = mock_requests();
  ASSERT_EQ(requests.size(), calls + 1);
  const std::string body = requests.back()["body"].dump();
  EXPECT_NE(body.find("ORD-4242-PA"), std::string::npos);
  EXPECT_NE(body.find("Which order number did I give you?"), std::string::npos);
  EXPECT_EQ(body.find("HUGE-PASTE-MARKER"), std::string::npos);

  // `pincer agent -m` fails with the same message and a non-zero exit code.
  const std::map<std::string, std::string> env = {{"PINCER_HOME", home_.path().string()},
                                                  {"PINCER_GATEWAY_PORT", std::to_string(gateway_->port())},
                                                  {"PINCER_GATEWAY_TOKEN", "\x01"},
                                                  {"PINCER_GATEWAY_URL", "\x01"}};
  const RunResult cli = run_pincer({"agent", "-m", huge_message(), "--session", "cli-big"}, env, 30s);
  EXPECT_NE(cli.exit_code, 0);
  EXPECT_NE((cli.out + cli.err).find("This message is ~6000 tokens"), std::string::npos) << cli.out << cli.err;
  // The request's fault, not an unavailable service.
  EXPECT_NE(cli.err.find("[INVALID_REQUEST]"), std::string::npos) << cli.err;
  EXPECT_EQ(cli.err.find("UNAVAILABLE"), std::string::npos) << cli.err;
  EXPECT_EQ(mock_requests().size(), calls + 1);
  // `cli-big` was a new session: its refused first message leaves no empty session behind.
  EXPECT_EQ(client_->request("sessions.list", json::object())["payload"].dump().find("cli-big"), std::string::npos);
  EXPECT_EQ(transcripts(), 1);

  // The OpenAI-compatible API answers OpenAI's own error for it: 400 context_length_exceeded.
  const json request = {{"model", "pincer"}, {"messages", json::array({{{"role", "user"}, {"content", huge_message()}}})}};
  const HttpResult http = http_request(gateway_->port(), "POST", "/v1/chat/completions",
                                       {{"Authorization", std::string("Bearer ") + kToken},
                                        {"Content-Type", "application/json"}},
                                       request.dump());
  EXPECT_EQ(http.status, 400) << http.body.substr(0, 500);
  const json answer = json::parse(http.body, nullptr, false);
  ASSERT_TRUE(answer.is_object()) << http.body.substr(0, 500);
  EXPECT_EQ(answer["error"]["type"], "invalid_request_error");
  EXPECT_EQ(answer["error"]["code"], "context_length_exceeded");
  EXPECT_NE(answer["error"].value("message", "").find("(context window 4000 tokens"), std::string::npos)
      << http.body.substr(0, 500);
  EXPECT_EQ(mock_requests().size(), calls + 1);
}

TEST_F(MessageTooLargeTest, AWindowTooSmallForTheSystemPromptIsTheGatewaysSetupNotTheCallersOrTheProviders) {
  start(700);  // 100 tokens beside the reply reserve: the system prompt and tools alone do not fit
  const size_t calls = mock_requests().size();
  const json payload = turn("hello", "small-window");
  EXPECT_EQ(payload["state"], "error") << payload.dump().substr(0, 500);
  EXPECT_NE(agent_error("small-window").find("context window"), std::string::npos) << agent_error("small-window");
  // The refused first message of a new session leaves neither an index entry nor a transcript.
  EXPECT_EQ(session_id(), "");
  EXPECT_EQ(transcripts(), 0);

  // Through the OpenAI-compatible API: a server-side problem (500 api_error) with its own code,
  // not 502 upstream_error (no provider was asked) nor the caller's 400.
  const json request = {{"model", "pincer"}, {"messages", json::array({{{"role", "user"}, {"content", "hello"}}})}};
  const HttpResult http = http_request(gateway_->port(), "POST", "/v1/chat/completions",
                                       {{"Authorization", std::string("Bearer ") + kToken},
                                        {"Content-Type", "application/json"}},
                                       request.dump());
  EXPECT_EQ(http.status, 500) << http.body.substr(0, 500);
  const json answer = json::parse(http.body, nullptr, false);
  ASSERT_TRUE(answer.is_object()) << http.body.substr(0, 500);
  EXPECT_EQ(answer["error"]["type"], "api_error");
  EXPECT_EQ(answer["error"]["code"], "context_window_too_small");
  EXPECT_NE(answer["error"].value("message", "").find("mock/mock-model"), std::string::npos) << http.body.substr(0, 500);
  EXPECT_EQ(mock_requests().size(), calls) << "no request can fit: none is sent";
}

TEST_F(MessageTooLargeTest, TheProviderRefusingTheLatestTurnAloneFailsItWithoutResettingTheSession) {
  // Pincer is told 128 000 tokens (the message passes the check); the provider's real window is
  // 3000, so it refuses the message even after the history before it is compacted away.
  start(128000, {"--context-window", "3000"});
  ASSERT_EQ(turn("Remember the order number ORD-4242-PA for later. ECHO:noted", "t1")["state"], "final");
  const std::string id = session_id();
  ASSERT_FALSE(id.empty());

  const json failed = turn(huge_message(), "t2");
  ASSERT_EQ(failed["state"], "error") << failed.dump().substr(0, 500);
  const std::string error = failed.value("errorMessage", "");
  EXPECT_NE(error.find("This message is ~6000 tokens and does not fit"), std::string::npos) << error;
  EXPECT_NE(error.find("the provider refused it"), std::string::npos) << error;
  EXPECT_NE(error.find("(context window 128000 tokens"), std::string::npos) << error;
  EXPECT_NE(error.find("the session's history is kept"), std::string::npos) << error;
  EXPECT_EQ(error.find("session was reset"), std::string::npos) << error;
  bool overflowed = false;
  for (const auto& r : mock_requests()) overflowed |= r.value("overflow", false);
  EXPECT_TRUE(overflowed);
  EXPECT_EQ(session_id(), id);
  EXPECT_EQ(reset_files(), 0);

  // The message went to a side branch (the file keeps it); the session's branch goes on from
  // before it: the next message is answered with the earlier history and without the large one.
  EXPECT_NE(read_file(sessions_dir() / (id + ".jsonl")).find("HUGE-PASTE-MARKER"), std::string::npos);
  const std::size_t calls = mock_requests().size();
  const json next = turn("Which order number did I give you? ECHO:answered", "t3");
  ASSERT_EQ(next["state"], "final") << next.dump().substr(0, 500);
  const auto requests = mock_requests();
  ASSERT_EQ(requests.size(), calls + 1);  // no overflow, no compaction
  const std::string body = requests.back()["body"].dump();
  EXPECT_NE(body.find("ORD-4242-PA"), std::string::npos);
  EXPECT_EQ(body.find("HUGE-PASTE-MARKER"), std::string::npos);
  EXPECT_EQ(session_id(), id);
  EXPECT_EQ(reset_files(), 0);
}

}  // namespace
}  // namespace message_too_large_test
}  // namespace pincer::test
