// Agent turns over the Google Gemini wire API ("google-generative-ai", PV-1) end to end: the real
// gateway binary, the mock LLM speaking Gemini's streamGenerateContent SSE (tests/mock_llm/
// gemini.mjs) over real HTTP, a real WebSocket client, the real exec tool. A text turn, a tool
// turn (generated call ids, functionResponse by name, the call's thoughtSignature sent back) and a
// thinking turn (/think medium → thinkingConfig, thought parts shown as thinking).
#include <iostream>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "ws_client.h"

namespace pincer::test {
namespace gemini_turn_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "gemini-test-token-0123456789";
constexpr const char* kKey = "AIza-mock-key-0123";

class GeminiTurnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mock_ = std::make_unique<MockLlm>(std::vector<std::string>{"--api-key", kKey});
    home_.write("pincer.json",
                std::string("{ gateway: { auth: { token: '") + kToken + "' } },\n" +
                    "  models: { providers: { google: { baseUrl: 'http://127.0.0.1:" + std::to_string(mock_->port()) +
                    "/v1beta', apiKey: '" + kKey + "', api: 'google-generative-ai', models: [ { id: 'gemini-2.5-flash', " +
                    "reasoning: true, input: ['text', 'image'], contextWindow: 1048576 } ] } } },\n" +
                    "  agents: { defaults: { model: { primary: 'google/gemini-2.5-flash' } } } }\n");
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }

  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  /// chat.send, then the events until the run's terminal chat event; returns that payload.
  json turn(const std::string& message, const std::string& run_id, std::vector<json>* events = nullptr) {
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    if (ack["ok"] != true) return ack;
    for (int i = 0; i < 2000; ++i) {
      std::optional<json> f;
      if (!client_->events().empty()) {
        f = std::move(client_->events().front());
        client_->events().pop_front();
      } else {
        f = client_->recv(20s);
      }
      if (!f) break;
      if (events) events->push_back(*f);
      const json& p = (*f)["payload"];
      if ((*f)["event"] == "chat" && p["runId"] == run_id &&
          (p["state"] == "final" || p["state"] == "error" || p["state"] == "aborted")) {
        return p;
      }
    }
    ADD_FAILURE() << "no terminal chat event for " << run_id;
    return json();
  }

  static std::string text_of(const json& message) {
    std::string out;
    for (const auto& b : message.value("content", json::array())) {
      if (b.value("type", "") == "text") out += b.value("text", "");
    }
    return out;
  }

  /// The Gemini requests the mock received (recorded entries).
  json gemini_requests() {
    json out = json::array();
    for (const auto& r : json::parse(http_request(mock_->port(), "GET", "/__mock/requests").body)) {
      if (r.value("api", "") == "google-generative-ai") out.push_back(r);
    }
    return out;
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(GeminiTurnTest, TextTurn) {
  std::vector<json> events;
  json final = turn("hello ECHO:gem", "g-text", &events);
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(text_of(final["message"]), "Hello from the mock LLM. [gem]");
  int deltas = 0;
  for (const auto& e : events) deltas += e["event"] == "chat" && e["payload"]["state"] == "delta";
  EXPECT_GT(deltas, 0);
  json reqs = gemini_requests();
  ASSERT_EQ(reqs.size(), 1u);
  const json& r = reqs[0];
  EXPECT_EQ(r["path"], "/v1beta/models/gemini-2.5-flash:streamGenerateContent");
  EXPECT_EQ(r["gemini"]["sse"], true);  // ?alt=sse
  EXPECT_EQ(r["headers"]["x-goog-api-key"], "[redacted]");  // the key went in the header (checked by --api-key)
  EXPECT_EQ(r["status"], 200);
  EXPECT_FALSE(r.contains("validationError")) << r.dump();
  const json& body = r["body"];
  EXPECT_FALSE(body.contains("model"));
  EXPECT_EQ(body["contents"].back()["role"], "user");
  EXPECT_TRUE(body["systemInstruction"]["parts"][0]["text"].is_string());
  EXPECT_GT(body["generationConfig"].value("maxOutputTokens", 0), 0);
  EXPECT_EQ(body["generationConfig"]["thinkingConfig"], json::parse(R"({"thinkingBudget":0})"));  // default off
}

TEST_F(GeminiTurnTest, ToolTurn) {
  json final = turn(R"(MOCK_TOOL:exec:{"command":"echo gemini-wire-ok"})", "g-tool");
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_NE(text_of(final["message"]).find("gemini-wire-ok"), std::string::npos) << final.dump();
  json reqs = gemini_requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_NE(reqs[0]["body"]["tools"][0]["functionDeclarations"].dump().find("\"exec\""), std::string::npos);
  const json& contents = reqs[1]["body"]["contents"];
  ASSERT_GE(contents.size(), 3u);
  const json& call_turn = contents[contents.size() - 2];
  const json& result_turn = contents.back();
  EXPECT_EQ(call_turn["role"], "model");
  ASSERT_EQ(call_turn["parts"].size(), 1u) << call_turn.dump();
  EXPECT_EQ(call_turn["parts"][0]["functionCall"]["name"], "exec");
  EXPECT_EQ(call_turn["parts"][0]["functionCall"]["args"]["command"], "echo gemini-wire-ok");
  EXPECT_TRUE(call_turn["parts"][0]["thoughtSignature"].is_string());  // replayed, as Gemini 3 requires
  EXPECT_EQ(result_turn["role"], "user");
  EXPECT_EQ(result_turn["parts"][0]["functionResponse"]["name"], "exec");
  EXPECT_NE(result_turn["parts"][0]["functionResponse"]["response"].dump().find("gemini-wire-ok"), std::string::npos);
  EXPECT_FALSE(reqs[1].contains("validationError")) << reqs[1].dump();
}

TEST_F(GeminiTurnTest, ThinkingTurn) {
  json set = turn("/think medium", "g-think-0");
  ASSERT_NE(set.dump().find("medium"), std::string::npos) << set.dump();
  json final = turn("MOCK_REASON ECHO:thought", "g-think-1");
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_NE(text_of(final["message"]).find("[thought]"), std::string::npos);
  json reqs = gemini_requests();
  ASSERT_FALSE(reqs.empty());
  EXPECT_EQ(reqs.back()["body"]["generationConfig"]["thinkingConfig"],
            json::parse(R"({"thinkingBudget":8192,"includeThoughts":true})"));
  // The thought parts were kept as a signed thinking block (the chat final message carries text
  // only): the next turn replays them to the same model as a thought with its signature.
  ASSERT_EQ(turn("again ECHO:two", "g-think-2")["state"], "final");
  reqs = gemini_requests();
  const std::string history = reqs.back()["body"]["contents"].dump();
  EXPECT_NE(history.find("\"thought\":true"), std::string::npos) << history.substr(0, 800);
  EXPECT_NE(history.find("thoughtSignature"), std::string::npos);
  EXPECT_NE(history.find("The user wants a reply."), std::string::npos);  // the mock's reasoning text
}

}  // namespace
}  // namespace gemini_turn_test
}  // namespace pincer::test
