// Active recall end to end (SPEC DR-6): a real gateway, the mock LLM (which records every request
// it gets) and the agent's memory files. The recall's model call and the reply's are told apart by
// their system prompts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace active_recall_e2e {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kToken = "active-recall-test-token-0123456789";
constexpr const char* kRecallMarker = "long-term memory notes";  // in the recall call's instructions
constexpr const char* kNote = "The user's favourite tea is oolong, brewed at 85 degrees.";

std::string config(const MockLlm& mock, const std::string& entry) {
  return mock_config({.token = kToken,
                      .provider = {.base_url = mock.base_url()},
                      .top = ",\n  plugins: { entries: { 'active-memory': " + entry + " } }"});
}

class ActiveRecallE2E : public ::testing::Test {
 protected:
  void start(const std::string& entry) {
    mock_ = std::make_unique<MockLlm>();
    home_.write("pincer.json", config(*mock_, entry));
    home_.write("workspace/MEMORY.md", "# About the user\n\n- Favourite tea: oolong, brewed at 85 degrees.\n");
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }
  /// One chat.send; the terminal chat payload.
  json turn(const std::string& message, const std::string& run_id, const std::string& session = "main") {
    auto frames = chat_turn(*client_, session, message, run_id);
    if (frames.empty()) return json();
    return frames.back()["payload"];
  }
  void script(const json& entries) {
    auto r = http_request(mock_->port(), "POST", "/__mock/script", {{"Content-Type", "application/json"}}, entries.dump());
    ASSERT_EQ(r.status, 200) << r.body;
  }
  /// The chat-completions requests the mock received, oldest first: {body, aborted}.
  std::vector<json> requests() {
    auto r = http_request(mock_->port(), "GET", "/__mock/requests");
    std::vector<json> out;
    for (auto& e : json::parse(r.body)) {
      if (e.value("path", "").find("chat/completions") != std::string::npos) out.push_back(e);
    }
    return out;
  }
  static std::string system_of(const json& request) {
    for (const auto& m : request["body"]["messages"]) {
      if (m.value("role", "") == "system") return m["content"].is_string() ? m["content"].get<std::string>() : m["content"].dump();
    }
    return "";
  }
  static bool is_recall(const json& request) { return system_of(request).find(kRecallMarker) != std::string::npos; }
  /// The text of the last user message of a request.
  static std::string last_user(const json& request) {
    std::string out;
    for (const auto& m : request["body"]["messages"]) {
      if (m.value("role", "") != "user") continue;
      if (m["content"].is_string()) {
        out = m["content"].get<std::string>();
        continue;
      }
      out.clear();
      for (const auto& part : m["content"]) out += part.value("text", "");
    }
    return out;
  }
  /// The mock's holds: {name: {released, waiting, closed}}.
  json hold_state() {
    return json::parse(http_request(mock_->port(), "GET", "/__mock/holds").body, nullptr, false);
  }
  /// One count of the slow-recall hold (0 before any call reached it).
  int recall_hold(const char* field) {
    json h = hold_state();
    if (!h.is_object() || !h.contains("slow-recall") || !h["slow-recall"].is_object()) return 0;
    return h["slow-recall"].value(field, 0);
  }
  /// Polls `done` every 50 ms until it holds or `limit` passes (a generous deadline, not a timing).
  template <class Fn>
  static bool eventually(Fn done, std::chrono::milliseconds limit = 30s) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      if (done()) return true;
      std::this_thread::sleep_for(50ms);
    }
    return done();
  }
  /// Every session transcript of the main agent, concatenated.
  std::string transcripts() const {
    std::string all;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(home_.path() / "agents" / "main" / "sessions", ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it->path().extension() != ".jsonl") continue;
      std::ifstream in(it->path(), std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      all += text.str();
    }
    return all;
  }
  void TearDown() override {
    if (mock_) (void)http_request(mock_->port(), "POST", "/__mock/release?name=slow-recall");
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(ActiveRecallE2E, AMatchingFactIsInjectedHiddenAndAnUnrelatedMessageGetsNothing) {
  start("{ enabled: true, config: { agents: ['main'] } }");
  script(json::array({{{"text", kNote}}}));  // the recall call's answer; the reply is the mock's default
  auto final = turn("Which tea should I make this afternoon?", "r1");
  ASSERT_EQ(final["state"], "final") << final.dump();

  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 2u);
  ASSERT_TRUE(is_recall(reqs[0])) << reqs[0].dump();
  // The recall call saw the memory hit and the user's message, under the balanced style.
  EXPECT_NE(last_user(reqs[0]).find("oolong"), std::string::npos) << last_user(reqs[0]);
  EXPECT_NE(last_user(reqs[0]).find("Which tea should I make this afternoon?"), std::string::npos);
  EXPECT_NE(system_of(reqs[0]).find("Style balanced:"), std::string::npos);
  // The reply's request has the note before the user's words.
  ASSERT_FALSE(is_recall(reqs[1]));
  const std::string user = last_user(reqs[1]);
  const auto hint = user.find("<active_memory_plugin>\nThe user's favourite tea is oolong, brewed at 85 degrees.\n</active_memory_plugin>");
  ASSERT_NE(hint, std::string::npos) << user;
  EXPECT_LT(hint, user.find("Which tea should I make this afternoon?"));

  // Hidden: not in the reply, the history or the transcript.
  EXPECT_EQ(final["message"].dump().find("oolong"), std::string::npos) << final.dump();
  auto history = client_->request("chat.history", {{"sessionKey", "main"}});
  ASSERT_EQ(history["ok"], true) << history.dump();
  const std::string shown = history["payload"]["messages"].dump();
  EXPECT_NE(shown.find("Which tea should I make this afternoon?"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("active_memory_plugin"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("oolong"), std::string::npos) << shown;
  const std::string stored = transcripts();
  EXPECT_NE(stored.find("Which tea should I make this afternoon?"), std::string::npos);
  EXPECT_EQ(stored.find("active_memory_plugin"), std::string::npos);
  EXPECT_EQ(stored.find("oolong"), std::string::npos);

  // A message memory has nothing on: no recall call, no note.
  ASSERT_EQ(turn("Explain DNS over HTTPS briefly", "r2")["state"], "final");
  reqs = requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_FALSE(is_recall(reqs[2]));
  EXPECT_EQ(last_user(reqs[2]).find("active_memory_plugin"), std::string::npos) << last_user(reqs[2]);
  // The earlier message's note was for its own turn only.
  EXPECT_EQ(reqs[2]["body"].dump().find("active_memory_plugin"), std::string::npos);
}

TEST_F(ActiveRecallE2E, DisabledOrNotListedMeansNoRecallAtAll) {
  start("{ enabled: false, config: { agents: ['main'] } }");
  ASSERT_EQ(turn("Which tea should I make this afternoon?", "r1")["state"], "final");
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_FALSE(is_recall(reqs[0]));
  EXPECT_EQ(reqs[0]["body"].dump().find("active_memory_plugin"), std::string::npos);
}

TEST_F(ActiveRecallE2E, AnAgentNotListedGetsNoRecall) {
  start("{ enabled: true, config: { agents: ['ops'] } }");
  ASSERT_EQ(turn("Which tea should I make this afternoon?", "r1")["state"], "final");
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_FALSE(is_recall(reqs[0]));
}

TEST_F(ActiveRecallE2E, GroupChatsGetNoRecallUnlessAllowed) {
  start("{ enabled: true, config: { agents: ['main'] } }");
  ASSERT_EQ(turn("Which tea should I make this afternoon?", "r1", "discord:group:987")["state"], "final");
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 1u);  // direct chats only by default: no recall in a shared room
  EXPECT_FALSE(is_recall(reqs[0]));
}

TEST_F(ActiveRecallE2E, AGroupChatAllowedByAllowedChatTypesGetsTheNote) {
  start("{ enabled: true, config: { agents: ['main'], allowedChatTypes: ['direct', 'group'] } }");
  script(json::array({{{"text", kNote}}}));
  ASSERT_EQ(turn("Which tea should I make this afternoon?", "r1", "discord:group:987")["state"], "final");
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_TRUE(is_recall(reqs[0]));
  EXPECT_NE(last_user(reqs[1]).find("favourite tea is oolong"), std::string::npos) << last_user(reqs[1]);
}

TEST_F(ActiveRecallE2E, ASlowRecallIsCutOffAndTheReplyGoesOn) {
  // The recall call is held by the mock until the test ends: only the timeout can end it.
  // The bound covers the memory search too: 3 s, not less, so that a loaded machine (the sanitizer
  // tree, other tests) still reaches the recall call before the bound and the test sees it held.
  start("{ enabled: true, config: { agents: ['main'], timeoutMs: 3000 } }");
  script(json::array({{{"hold", "slow-recall"}, {"ifSystem", kRecallMarker}}}));  // the recall call's only
  auto final = turn("Which tea should I make this afternoon?", "r1");
  ASSERT_EQ(final["state"], "final") << final.dump();
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_TRUE(is_recall(reqs[0]));
  EXPECT_FALSE(is_recall(reqs[1]));
  EXPECT_EQ(last_user(reqs[1]).find("active_memory_plugin"), std::string::npos);
  EXPECT_NE(final["message"].dump().find("Hello from the mock LLM."), std::string::npos) << final.dump();
  auto holds = json::parse(http_request(mock_->port(), "GET", "/__mock/holds").body);
  EXPECT_EQ(holds["slow-recall"].value("released", true), false) << holds.dump();  // never let go: the bound ended it
}

TEST_F(ActiveRecallE2E, AnAbortWhileTheRecallRunsEndsTheTurnAndItsModelCallAtOnce) {
  // The recall call is held and its bound is long: only the abort can end the turn.
  start("{ enabled: true, config: { agents: ['main'], timeoutMs: 120000 } }");
  script(json::array({{{"hold", "slow-recall"}, {"ifSystem", kRecallMarker}}}));  // the recall call's only
  auto ack = client_->request("chat.send", {{"sessionKey", "main"},
                                            {"message", "Which tea should I make this afternoon?"},
                                            {"idempotencyKey", "r1"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  // The recall's model call has reached the mock and waits at its hold (the turn waits for it).
  ASSERT_TRUE(eventually([&] { return recall_hold("waiting") == 1; })) << hold_state().dump();
  auto abort = client_->request("chat.abort", {{"sessionKey", "main"}, {"runId", "r1"}});
  ASSERT_EQ(abort["ok"], true) << abort.dump();
  std::string state;
  for (int i = 0; i < 200 && state.empty(); ++i) {
    std::optional<json> f;  // frames that came with the abort's answer are queued in events()
    if (!client_->events().empty()) {
      f = std::move(client_->events().front());
      client_->events().pop_front();
    } else {
      f = client_->recv(30s);
    }
    ASSERT_TRUE(f) << "the run did not end";
    if ((*f)["event"] == "chat" && (*f)["payload"]["runId"] == "r1" && (*f)["payload"]["state"] != "delta") {
      state = (*f)["payload"]["state"];
    }
  }
  EXPECT_EQ(state, "aborted");
  // The abort ended the recall's own model call too: the gateway closed the held connection (it
  // was never released), instead of leaving it to run out its two minutes.
  EXPECT_TRUE(eventually([&] { return recall_hold("closed") == 1; })) << hold_state().dump();
  EXPECT_EQ(hold_state()["slow-recall"].value("released", true), false) << hold_state().dump();
  for (const auto& r : requests()) EXPECT_TRUE(is_recall(r)) << r.dump();  // no reply call was made
  // The session goes on (a message memory has nothing on: no recall call) and gets its answer.
  auto final = turn("Explain DNS over HTTPS briefly", "r2");
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_NE(final["message"].dump().find("Hello from the mock LLM."), std::string::npos) << final.dump();
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_FALSE(is_recall(reqs[1]));
}

TEST_F(ActiveRecallE2E, ANoneAnswerOrAFailedRecallCallAddsNothing) {
  start("{ enabled: true, config: { agents: ['main'] } }");
  script(json::array({{{"text", "NONE"}}}));
  ASSERT_EQ(turn("Which tea should I make this afternoon?", "r1")["state"], "final");
  script(json::array({{{"error", {{"status", 500}}}}}));  // the recall call fails; the reply must not
  auto final = turn("What tea do I like best?", "r2");
  ASSERT_EQ(final["state"], "final") << final.dump();
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_TRUE(is_recall(reqs[0]));
  EXPECT_TRUE(is_recall(reqs[2]));
  for (int i : {1, 3}) {
    EXPECT_FALSE(is_recall(reqs[i]));
    EXPECT_EQ(reqs[i]["body"].dump().find("active_memory_plugin"), std::string::npos) << reqs[i].dump();
  }
}

TEST_F(ActiveRecallE2E, AResultIsReusedWithinTheCacheTtl) {
  start("{ enabled: true, config: { agents: ['main'], queryMode: 'message', cacheTtlMs: 120000 } }");
  script(json::array({{{"text", kNote}}}));
  ASSERT_EQ(turn("Which tea should I make?", "r1")["state"], "final");
  ASSERT_EQ(turn("Which tea should I make?", "r2")["state"], "final");
  auto reqs = requests();
  ASSERT_EQ(reqs.size(), 3u);  // one recall call, two replies
  EXPECT_TRUE(is_recall(reqs[0]));
  EXPECT_NE(system_of(reqs[0]).find("Style strict:"), std::string::npos);  // message mode → strict
  for (int i : {1, 2}) {
    EXPECT_FALSE(is_recall(reqs[i]));
    EXPECT_NE(last_user(reqs[i]).find("favourite tea is oolong"), std::string::npos) << last_user(reqs[i]);
  }
}

}  // namespace
}  // namespace active_recall_e2e
}  // namespace pincer::test
