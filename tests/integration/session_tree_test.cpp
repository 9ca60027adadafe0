// `/tree` (SPEC SS-4): the real gateway, the mock LLM over HTTP, a WebSocket client and the
// transcript on disk. Going back to an earlier message starts a branch; what the abandoned branch
// held reaches the model as a branch summary (the model's, or an extractive one when the
// summariser fails), and the switch survives a gateway restart.
#include <fstream>
#include <iostream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace session_tree_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "session-tree-token-0123456789";
/// In the summariser's system prompt (context/compaction.cpp summary_system_prompt).
constexpr const char* kSummariserMarker = "working memory of an AI assistant";

class SessionTreeTest : public ::testing::Test {
 protected:
  void start(const std::vector<std::string>& mock_args = {}) {
    if (!mock_) mock_ = std::make_unique<MockLlm>(mock_args);
    home_.write("pincer.json", mock_config({.token = kToken,
                                            .provider = {.base_url = mock_->base_url(), .models = "{ id: 'mock-model' }", .api_key = "mock-key"},
                                            .top = ",\n  tools: { profile: 'minimal' }"}));
    client_.reset();
    gateway_.reset();
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }

  /// One chat.send; the terminal chat payload (a command's answer is one too).
  json send(const std::string& message, const std::string& run_id) {
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    if (ack["ok"] != true) return ack;
    for (int i = 0; i < 5000; ++i) {
      std::optional<json> f;
      if (!client_->events().empty()) {
        f = std::move(client_->events().front());
        client_->events().pop_front();
      } else {
        f = client_->recv(30s);
      }
      if (!f) break;
      const json& p = (*f)["payload"];
      if ((*f)["event"] == "chat" && p["runId"] == run_id && (p["state"] == "final" || p["state"] == "error")) return p;
    }
    ADD_FAILURE() << "no terminal chat event for " << run_id;
    return json();
  }
  static std::string text_of(const json& payload) {
    if (!payload.contains("message")) return "";
    return payload["message"]["content"][0].value("text", "");
  }

  /// The session's transcript entries (the header left out).
  std::vector<json> transcript() {
    std::vector<json> entries;
    for (const auto& file : std::filesystem::directory_iterator(home_.path() / "agents" / "main" / "sessions")) {
      if (file.path().extension() != ".jsonl") continue;
      std::ifstream in(file.path());
      std::string line;
      while (std::getline(in, line)) {
        json e = json::parse(line, nullptr, false);
        if (e.is_object() && e["type"] != "session") entries.push_back(std::move(e));
      }
    }
    return entries;
  }
  /// The id of the user message entry whose text is `text`.
  std::string user_entry(const std::string& text) {
    for (const auto& e : transcript()) {
      if (e["type"] == "message" && e["message"]["role"] == "user" && e["message"]["content"].dump().find(text) != std::string::npos) {
        return e["id"];
      }
    }
    return "";
  }
  /// Waits (deadline 60 s) for an entry of `type`; null when none came.
  json wait_entry(const std::string& type) {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline) {
      for (const auto& e : transcript()) {
        if (e["type"] == type) return e;
      }
      std::this_thread::sleep_for(20ms);  // polling a file for a condition, with a deadline
    }
    return json();
  }
  /// The `messages` of the last chat-completions request that was not a summary call.
  json last_turn_messages() {
    auto r = http_request(mock_->port(), "GET", "/__mock/requests");
    json last;
    for (auto& e : json::parse(r.body)) {
      if (e.value("path", "").find("chat/completions") == std::string::npos) continue;
      if (e["body"].dump().find(kSummariserMarker) != std::string::npos) continue;
      last = e["body"]["messages"];
    }
    return last;
  }
  static bool has_user_message(const json& messages, const std::string& text) {
    for (const auto& m : messages) {
      if (m.value("role", "") == "user" && m["content"].dump().find(text) != std::string::npos) return true;
    }
    return false;
  }
  int summary_calls() {
    auto r = http_request(mock_->port(), "GET", "/__mock/requests");
    int n = 0;
    for (auto& e : json::parse(r.body)) n += e["body"].dump().find("a branch of the conversation") != std::string::npos;
    return n;
  }

  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(SessionTreeTest, GoingBackToAMessageBranchesWithASummaryAndSurvivesARestart) {
  start();
  ASSERT_EQ(send("first question ECHO:a", "t1")["state"], "final");
  ASSERT_EQ(send("second question ECHO:b", "t2")["state"], "final");
  ASSERT_EQ(send("third question ECHO:c", "t3")["state"], "final");
  const std::string second = user_entry("second question");
  ASSERT_FALSE(second.empty());

  const std::string listing = text_of(send("/tree", "cmd-1"));
  EXPECT_NE(listing.find(second + "  second question ECHO:b"), std::string::npos) << listing;
  EXPECT_NE(listing.find(user_entry("first question") + "  first question"), std::string::npos) << listing;
  EXPECT_EQ(listing.find("Other branches"), std::string::npos) << listing;

  // Back to before the second question: a prefix of its id is enough.
  EXPECT_NE(text_of(send("/tree " + second.substr(0, 6), "cmd-2")).find("Switching branch"), std::string::npos);
  const json summary = wait_entry("branch_summary");
  ASSERT_TRUE(summary.is_object()) << "no branch summary was written";
  EXPECT_EQ(summary["details"]["summarised"], true);
  EXPECT_EQ(summary_calls(), 1);
  // It hangs off the first reply (the second question's parent) and names the old leaf.
  json second_entry;
  for (const auto& e : transcript()) {
    if (e["id"] == second) second_entry = e;
  }
  EXPECT_EQ(summary["parentId"], second_entry["parentId"]);
  std::string old_leaf;  // the last message entry before the summary: the third reply
  for (const auto& e : transcript()) {
    if (e["type"] == "branch_summary") break;
    if (e["type"] == "message") old_leaf = e["id"];
  }
  EXPECT_EQ(summary["fromId"], old_leaf);

  // The switch is the last entry in the file: it survives a restart.
  start();
  ASSERT_EQ(send("another second question ECHO:d", "t4")["state"], "final");
  json sent = last_turn_messages();
  EXPECT_TRUE(has_user_message(sent, "first question ECHO:a")) << sent.dump();
  EXPECT_TRUE(has_user_message(sent, "summary of a branch")) << sent.dump();
  EXPECT_FALSE(has_user_message(sent, "second question ECHO:b")) << sent.dump();
  EXPECT_FALSE(has_user_message(sent, "third question ECHO:c")) << sent.dump();

  // The branch left behind is listed: the four messages after the fork, with its first one.
  const std::string after = text_of(send("/tree", "cmd-3"));
  EXPECT_NE(after.find("4 messages after " + second_entry["parentId"].get<std::string>() + ": second question ECHO:b"),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("another second question"), std::string::npos) << after;
}

TEST_F(SessionTreeTest, AFailingSummariserLeavesTheBranchMessagesInstead) {
  start({"--fail-system", kSummariserMarker});
  ASSERT_EQ(send("first question ECHO:a", "t1")["state"], "final");
  ASSERT_EQ(send("second question with ORD-4471 ECHO:b", "t2")["state"], "final");
  send("/tree " + user_entry("second question"), "cmd-1");
  const json summary = wait_entry("branch_summary");
  ASSERT_TRUE(summary.is_object()) << "no branch summary was written";
  EXPECT_EQ(summary["details"]["summarised"], false);
  const std::string text = summary.value("summary", "");
  EXPECT_NE(text.find("No summary could be written"), std::string::npos) << text;
  EXPECT_NE(text.find("ORD-4471"), std::string::npos) << text;  // the abandoned message, kept
  ASSERT_EQ(send("and now ECHO:c", "t3")["state"], "final");
  EXPECT_TRUE(has_user_message(last_turn_messages(), "ORD-4471"));
}

TEST_F(SessionTreeTest, BadIdsAreAnsweredAtOnce) {
  start();
  EXPECT_NE(text_of(send("/tree", "cmd-0")).find("No messages yet"), std::string::npos);
  ASSERT_EQ(send("first question ECHO:a", "t1")["state"], "final");
  EXPECT_NE(text_of(send("/tree zz", "cmd-1")).find("is not an entry id"), std::string::npos);
  // An unknown id is answered with the ids /tree lists (the user's message), never a hidden one.
  const std::string unknown = text_of(send("/tree 0000abcd", "cmd-2"));
  EXPECT_NE(unknown.find("no entry 0000abcd"), std::string::npos) << unknown;
  std::string asked;
  for (const auto& e : transcript()) {
    if (e["type"] == "message" && e["message"]["role"] == "user") asked = e["id"];
  }
  ASSERT_FALSE(asked.empty());
  EXPECT_NE(unknown.find("the ids /tree lists: " + asked), std::string::npos) << unknown;
  EXPECT_EQ(unknown.find(transcript().back()["id"].get<std::string>()), std::string::npos) << unknown;  // the reply
  // The last entry is the leaf already: nothing to do.
  const std::string leaf = transcript().back()["id"];
  EXPECT_NE(text_of(send("/tree " + leaf, "cmd-3")).find("already goes on from there"), std::string::npos);
  EXPECT_EQ(summary_calls(), 0);
}

}  // namespace
}  // namespace session_tree_test
}  // namespace pincer::test
