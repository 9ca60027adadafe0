// A silent reply (CX-10, agent/silent_reply.h) from a normal turn, with the real gateway and the
// mock LLM: a `NO_REPLY` answer reaches no client — no chat delta, no final message, no
// session.message, no `agent` payload, no line from `pincer agent -m` (through the gateway or
// --local) — while the transcript keeps it; a stray trailing token is cut from a real answer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace silent_reply_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kSilentToken = "silent-reply-test-token-0123456789";

std::string silent_slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string silent_text_of(const json& message) {
  std::string out;
  if (!message.is_object() || !message.contains("content")) return out;
  for (const auto& block : message["content"]) {
    if (block.is_object() && block.value("type", "") == "text") out += block.value("text", "");
  }
  return out;
}

class SilentReplyE2E : public ::testing::Test {
 protected:
  /// The mock answers the first generation requests with `script` (a JSON array), then by keyword.
  void configure(const std::string& script) {
    home_.write("script.json", script);
    mock_ = std::make_unique<MockLlm>(std::vector<std::string>{"--script", (home_.path() / "script.json").string()});
    home_.write("pincer.json", mock_config({.token = kSilentToken, .provider = {.base_url = mock_->base_url(), .models = "{ id: 'mock-model' }"}}));
  }
  void start(const std::string& script) {
    configure(script);
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(client_->recv());
    client_->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"},
                        {"params", connect_params(kSilentToken, {"operator.admin", "operator.read", "operator.write"})}});
    auto res = client_->recv_response("c1");
    ASSERT_TRUE(res && (*res)["ok"] == true);
  }
  /// Every frame until the terminal chat event of `run_id` (the last one); empty on timeout.
  std::vector<json> frames_until_terminal(const std::string& run_id) {
    std::vector<json> frames;
    for (int i = 0; i < 4000; ++i) {
      std::optional<json> f;
      if (!client_->events().empty()) {
        f = std::move(client_->events().front());
        client_->events().pop_front();
      } else {
        f = client_->recv(30s);
      }
      if (!f) break;
      frames.push_back(*f);
      const json& p = (*f)["payload"];
      if ((*f)["event"] == "chat" && p.value("runId", "") == run_id &&
          (p["state"] == "final" || p["state"] == "error" || p["state"] == "aborted")) {
        return frames;
      }
    }
    ADD_FAILURE() << "no terminal chat event for " << run_id;
    return {};
  }
  std::vector<json> turn(const std::string& message, const std::string& run_id) {
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    return frames_until_terminal(run_id);
  }
  std::string transcripts() {
    std::string all;
    for (const auto& e : fs::recursive_directory_iterator(home_.path() / "agents")) {
      if (e.path().extension() == ".jsonl") all += silent_slurp(e.path());
    }
    return all;
  }
  std::map<std::string, std::string> cli_env() const {
    std::map<std::string, std::string> env = {{"PINCER_HOME", home_.path().string()},
                                              {"PINCER_GATEWAY_TOKEN", "\x01"}, {"PINCER_GATEWAY_URL", "\x01"}};
    env["PINCER_GATEWAY_PORT"] = gateway_ ? std::to_string(gateway_->port()) : "\x01";
    return env;
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(SilentReplyE2E, GatewayClientsSeeNoSilentReplyButTheTranscriptKeepsIt) {
  start(R"(["NO_REPLY", "Checked the logs. NO_REPLY"])");
  ASSERT_EQ(client_->request("sessions.subscribe", json::object())["ok"], true);  // session.message too

  // A silent turn: no delta, a final without a message, no session.message.
  const auto silent = turn("anything to say?", "s1");
  ASSERT_FALSE(silent.empty());
  for (const auto& f : silent) {
    const json& p = f["payload"];
    if (p.value("runId", "") != "s1") continue;
    EXPECT_FALSE(f["event"] == "chat" && p["state"] == "delta") << f.dump();
    EXPECT_NE(f["event"], "session.message") << f.dump();
  }
  EXPECT_EQ(silent.back()["payload"]["state"], "final");
  EXPECT_FALSE(silent.back()["payload"].contains("message")) << silent.back().dump();

  // A stray trailing token is cut from a real answer, in the deltas and in the final.
  const auto stray = turn("check the logs", "s2");
  ASSERT_FALSE(stray.empty());
  std::string deltas;
  bool session_message = false;
  for (const auto& f : stray) {
    const json& p = f["payload"];
    if (f["event"] == "chat" && p.value("runId", "") == "s2" && p["state"] == "delta") deltas += p.value("deltaText", "");
    if (f["event"] == "session.message" && p.value("runId", "") == "s2") {
      session_message = true;
      EXPECT_EQ(silent_text_of(p["message"]), "Checked the logs.");
    }
  }
  EXPECT_EQ(silent_text_of(stray.back()["payload"]["message"]), "Checked the logs.");
  EXPECT_EQ(deltas.find("NO_"), std::string::npos) << deltas;
  EXPECT_TRUE(session_message) << "the answer's session.message was not sent";

  // A normal answer is unchanged (the script is used up: the mock's keyword reply).
  const auto normal = turn("and now ECHO:plain", "s3");
  ASSERT_FALSE(normal.empty());
  EXPECT_EQ(silent_text_of(normal.back()["payload"]["message"]), "Hello from the mock LLM. [plain]");

  // The history the web chat shows has no NO_REPLY; the transcript keeps what the model said.
  auto history = client_->request("chat.history", {{"sessionKey", "main"}});
  ASSERT_EQ(history["ok"], true) << history.dump();
  EXPECT_EQ(history["payload"].dump().find("\"NO_REPLY\""), std::string::npos) << history.dump();
  const std::string file = transcripts();
  EXPECT_NE(file.find("\"text\":\"NO_REPLY\""), std::string::npos) << file;
  EXPECT_NE(file.find("Checked the logs. NO_REPLY"), std::string::npos) << file;
}

TEST_F(SilentReplyE2E, AgentMethodAnswersASilentReplyWithNoPayload) {
  start(R"(["NO_REPLY"])");
  client_->send_json({{"type", "req"}, {"id", "a1"}, {"method", "agent"},
                      {"params", {{"message", "quiet please"}, {"idempotencyKey", "run-quiet"}}}});
  auto ack = client_->recv_response("a1", 30s);
  ASSERT_TRUE(ack);
  ASSERT_EQ((*ack)["payload"]["status"], "accepted") << ack->dump();
  auto final = client_->recv_response("a1", 30s);
  ASSERT_TRUE(final);
  EXPECT_EQ((*final)["payload"]["status"], "ok") << final->dump();
  EXPECT_EQ((*final)["payload"]["result"]["payloads"], json::array()) << final->dump();
}

TEST_F(SilentReplyE2E, PincerAgentPrintsNothingForASilentReply) {
  start(R"(["NO_REPLY", "Done. NO_REPLY"])");
  const RunResult silent = run_pincer({"agent", "-m", "quiet please"}, cli_env(), 60s);
  EXPECT_EQ(silent.exit_code, 0) << silent.err;
  EXPECT_EQ(silent.out, "") << silent.out;
  const RunResult stray = run_pincer({"agent", "-m", "and now?"}, cli_env(), 60s);
  EXPECT_EQ(stray.exit_code, 0) << stray.err;
  EXPECT_EQ(stray.out, "Done.\n");
}

TEST_F(SilentReplyE2E, PincerAgentLocalPrintsNothingForASilentReply) {
  configure(R"(["NO_REPLY", "No problem, NO_REPLY"])");  // no gateway: --local runs the turn itself
  const RunResult silent = run_pincer({"agent", "--local", "-m", "quiet please"}, cli_env(), 60s);
  EXPECT_EQ(silent.exit_code, 0) << silent.err;
  EXPECT_EQ(silent.out, "") << silent.out;
  const RunResult stray = run_pincer({"agent", "--local", "-m", "and now?"}, cli_env(), 60s);
  EXPECT_EQ(stray.exit_code, 0) << stray.err;
  EXPECT_EQ(stray.out, "No problem,\n");
  const RunResult plain = run_pincer({"agent", "--local", "-m", "ECHO:loc"}, cli_env(), 60s);
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, "Hello from the mock LLM. [loc]\n");
  EXPECT_NE(transcripts().find("\"text\":\"NO_REPLY\""), std::string::npos);
}

}  // namespace
}  // namespace silent_reply_test
}  // namespace pincer::test
