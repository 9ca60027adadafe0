// The run journal end to end (issue 15 items 6-7; SPEC SS-6, GW-10): the real gateway binary,
// killed with SIGKILL in the middle of a `chat.send` turn, answers it exactly once after a restart;
// SIGTERM lets a running turn finish. The mock LLM's MOCK_HOLD gate tells when the turn is
// half-streamed (no timing): GET /__mock/holds shows the request waiting.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace run_journal_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "journal-test-token-0123456789";

std::string config_for(const MockLlm& mock, const std::string& gateway_extra = "") {
  return mock_config({.token = kToken, .provider = {.base_url = mock.base_url()}, .gateway = gateway_extra});
}

json mock_get(const MockLlm& mock, const std::string& path) {
  auto r = http_request(mock.port(), "GET", path);
  return json::parse(r.body, nullptr, false);
}

/// Polls `done` every 50 ms until it holds or `limit` passes (a generous deadline, not a timing).
template <class Fn>
bool eventually(Fn done, std::chrono::milliseconds limit = 30s) {
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

class RunJournalTest : public ::testing::Test {
 protected:
  std::unique_ptr<WsClient> client() {
    auto c = std::make_unique<WsClient>(gateway_->port());
    EXPECT_TRUE(c->recv());
    c->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(kToken)}});
    auto res = c->recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true);
    return c;
  }
  json history() {
    auto c = client();
    auto res = c->request("chat.history", {{"sessionKey", "main"}});
    return res["payload"]["messages"];
  }
  /// The messages of `role` in the main session's history.
  std::vector<json> of_role(const json& messages, const std::string& role) {
    std::vector<json> out;
    for (const auto& m : messages) {
      if (m.value("role", "") == role) out.push_back(m);
    }
    return out;
  }
  bool held(const std::string& name) {
    json h = mock_get(*mock_, "/__mock/holds");
    return h.is_object() && h.contains(name) && h[name].value("waiting", 0) >= 1;
  }
  /// Every entry the journal file ever accepted was answered (the file as the gateway left it).
  void expect_journal_settled() {
    std::ifstream in(home_.path() / "runs" / "journal.jsonl");
    std::set<std::string> accepted, answered;
    std::string line;
    while (std::getline(in, line)) {
      json r = json::parse(line, nullptr, false);
      if (!r.is_object()) continue;
      if (r["op"] == "accepted") accepted.insert(r.value("id", ""));
      if (r["op"] == "answered") answered.insert(r.value("id", ""));
    }
    for (const auto& id : accepted) EXPECT_TRUE(answered.contains(id)) << "journal entry " << id << " left unanswered";
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(RunJournalTest, AChatSendCutByKill9IsAnsweredOnceAfterTheRestart) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config_for(*mock_));
  gateway_ = std::make_unique<Gateway>(home_.path());
  {
    auto c = client();
    auto ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "plan my day MOCK_HOLD:k9 ECHO:k9"},
                                        {"idempotencyKey", "run-k9"}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
    // The model is half-way through its answer when the gateway dies.
    ASSERT_TRUE(eventually([&] { return held("k9"); })) << mock_get(*mock_, "/__mock/holds").dump();
  }
  gateway_->process().signal(SIGKILL);
  ASSERT_TRUE(gateway_->process().wait(10s));
  http_request(mock_->port(), "POST", "/__mock/release?name=k9");  // the next attempt streams through

  gateway_ = std::make_unique<Gateway>(home_.path());
  json messages;
  ASSERT_TRUE(eventually([&] {
    messages = history();
    return !of_role(messages, "assistant").empty();
  })) << messages.dump();
  // One user message (the turn was continued, not asked again), one complete reply.
  const auto users = of_role(messages, "user"), replies = of_role(messages, "assistant");
  ASSERT_EQ(users.size(), 1u) << messages.dump();
  ASSERT_EQ(replies.size(), 1u) << messages.dump();
  EXPECT_EQ(text_of(replies[0]), "Hello from the mock LLM. [k9]");
  EXPECT_EQ(replies[0].value("stopReason", ""), "stop");
  EXPECT_EQ(mock_get(*mock_, "/health")["requests"], 2);  // the cut request and its rerun

  // A stop and a third start: nothing is left to resume, the model is not asked again.
  gateway_->process().signal(SIGTERM);
  ASSERT_TRUE(gateway_->process().wait(30s));
  expect_journal_settled();
  gateway_ = std::make_unique<Gateway>(home_.path());
  EXPECT_EQ(of_role(history(), "assistant").size(), 1u);
  EXPECT_EQ(mock_get(*mock_, "/health")["requests"], 2);
}

TEST_F(RunJournalTest, SigtermLetsARunningTurnFinish) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config_for(*mock_));
  gateway_ = std::make_unique<Gateway>(home_.path());
  auto c = client();
  auto ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "short one MOCK_HOLD:drain ECHO:drain"},
                                      {"idempotencyKey", "run-drain"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  ASSERT_TRUE(eventually([&] { return held("drain"); }));
  gateway_->process().signal(SIGTERM);
  // The stop has begun (clients are told) while the turn still waits at the mock; the gateway
  // waits for it (gateway.drainTimeoutMs, 30 s) and exits once it ended.
  bool told = false;
  for (int i = 0; i < 200 && !told; ++i) {
    auto f = c->recv(20s);
    if (!f) break;
    told = (*f)["event"] == "shutdown";
  }
  ASSERT_TRUE(told) << "no shutdown event";
  // The client that asked stays connected while its turn drains, and receives the answer.
  EXPECT_FALSE(c->closed());
  http_request(mock_->port(), "POST", "/__mock/release?name=drain");
  bool answered = false;
  for (int i = 0; i < 400 && !answered; ++i) {
    auto f = c->recv(20s);
    if (!f) break;
    answered = (*f)["event"] == "chat" && (*f)["payload"].value("state", "") == "final" &&
               (*f)["payload"].dump().find("[drain]") != std::string::npos;
  }
  EXPECT_TRUE(answered) << "the client was not sent its turn's final answer during the drain";
  // Then the gateway closes it (1001: going away) and exits.
  ASSERT_TRUE(c->closed() || c->wait_closed(10s));
  auto code = gateway_->process().wait(40s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 0);
  expect_journal_settled();

  gateway_ = std::make_unique<Gateway>(home_.path());
  const json messages = history();
  const auto replies = of_role(messages, "assistant");
  ASSERT_EQ(replies.size(), 1u) << messages.dump();
  EXPECT_EQ(text_of(replies[0]), "Hello from the mock LLM. [drain]");
  EXPECT_EQ(replies[0].value("stopReason", ""), "stop");  // finished, not aborted by the stop
  EXPECT_EQ(mock_get(*mock_, "/health")["requests"], 1);
}

TEST_F(RunJournalTest, ATurnCutByTheDrainTimeoutIsAnsweredOnceAtTheNextStart) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config_for(*mock_, ", drainTimeoutMs: 300"));
  gateway_ = std::make_unique<Gateway>(home_.path());
  {
    auto c = client();
    auto ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "long one MOCK_HOLD:dt ECHO:dt"},
                                        {"idempotencyKey", "run-dt"}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
    ASSERT_TRUE(eventually([&] { return held("dt"); }));
  }
  // The turn outlives the drain: the stop aborts it, and the journal keeps it for the next start.
  gateway_->process().signal(SIGTERM);
  auto code = gateway_->process().wait(30s);
  ASSERT_TRUE(code);
  http_request(mock_->port(), "POST", "/__mock/release?name=dt");

  gateway_ = std::make_unique<Gateway>(home_.path());
  json messages;
  ASSERT_TRUE(eventually([&] {
    messages = history();
    for (const auto& m : of_role(messages, "assistant")) {
      if (text_of(m).find("[dt]") != std::string::npos && m.value("stopReason", "") == "stop") return true;
    }
    return false;
  })) << messages.dump();
  // The user's message once, one complete answer (an aborted partial one may stay, marked aborted).
  EXPECT_EQ(of_role(messages, "user").size(), 1u) << messages.dump();
  std::size_t complete = 0;
  for (const auto& m : of_role(messages, "assistant")) complete += m.value("stopReason", "") == "stop";
  EXPECT_EQ(complete, 1u) << messages.dump();
  gateway_->process().signal(SIGTERM);
  ASSERT_TRUE(gateway_->process().wait(30s));
  expect_journal_settled();
}

TEST_F(RunJournalTest, ACliWaitingOnAQueuedTurnIsToldItIsKeptAndItIsAnsweredAfterTheRestart) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config_for(*mock_, ", drainTimeoutMs: 300"));
  gateway_ = std::make_unique<Gateway>(home_.path());
  auto c = client();
  auto ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "first MOCK_HOLD:busy ECHO:busy"},
                                      {"idempotencyKey", "run-busy"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  ASSERT_TRUE(eventually([&] { return held("busy"); }));
  // `pincer agent -m` in the same session: its turn queues behind the held one.
  Process cli({pincer_binary(), "agent", "-m", "second ECHO:queued"},
              {{"PINCER_HOME", home_.path().string()}, {"PINCER_GATEWAY_PORT", std::to_string(gateway_->port())},
               {"PINCER_GATEWAY_TOKEN", "\x01"}, {"PINCER_GATEWAY_URL", "\x01"}});
  ASSERT_TRUE(eventually([&] {
    std::ifstream in(home_.path() / "runs" / "journal.jsonl");
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return all.find("ECHO:queued") != std::string::npos;  // accepted (journaled) before the stop
  })) << cli.err();
  gateway_->process().signal(SIGTERM);
  auto code = cli.wait(60s);
  ASSERT_TRUE(code) << "the CLI kept waiting after the gateway stopped";
  EXPECT_EQ(*code, 1);
  EXPECT_NE(cli.err().find("the gateway stopped before answering (1001: going away); your message is kept"),
            std::string::npos) << cli.err();
  ASSERT_TRUE(gateway_->process().wait(30s));
  http_request(mock_->port(), "POST", "/__mock/release?name=busy");

  gateway_ = std::make_unique<Gateway>(home_.path());
  json messages;
  ASSERT_TRUE(eventually([&] {
    messages = history();
    for (const auto& m : of_role(messages, "assistant")) {
      if (text_of(m) == "Hello from the mock LLM. [queued]") return true;
    }
    return false;
  })) << "the kept message was not answered after the restart: " << messages.dump();
  gateway_->process().signal(SIGTERM);
  ASSERT_TRUE(gateway_->process().wait(30s));
  expect_journal_settled();
}

TEST_F(RunJournalTest, AQueuedTurnWithAttachmentsKeepsThemAcrossAKill9) {
  // A 1x1 PNG and a small text file.
  const std::string png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
  const std::string note = "aGVsbG8gZnJvbSB0aGUgbm90ZQ==";  // "hello from the note"
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", mock_config({.token = kToken,
                                          .provider = {.base_url = mock_->base_url(), .models = "{ id: 'eyes', input: ['text', 'image'] }"},
                                          .primary = "mock/eyes"}));
  gateway_ = std::make_unique<Gateway>(home_.path());
  {
    auto c = client();
    auto ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "first MOCK_HOLD:busy ECHO:busy"},
                                        {"idempotencyKey", "run-busy"}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
    ASSERT_TRUE(eventually([&] { return held("busy"); }));
    // Queued behind the held turn, with an image and a file: accepted (journaled), not started.
    ack = c->request("chat.send", {{"sessionKey", "main"}, {"message", "second ECHO:queued"},
                                   {"attachments", json::array({{{"type", "image"}, {"mimeType", "image/png"}, {"content", png}},
                                                                {{"type", "file"}, {"mimeType", "text/plain"},
                                                                 {"fileName", "note.txt"}, {"content", note}}})},
                                   {"idempotencyKey", "run-queued"}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
  }
  std::string journal;
  {
    std::ifstream in(home_.path() / "runs" / "journal.jsonl");
    journal.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  EXPECT_NE(journal.find("\"ref\":\"media/"), std::string::npos) << journal;
  EXPECT_EQ(journal.find(png.substr(0, 40)), std::string::npos) << "the journal holds references, not bytes";
  EXPECT_EQ(journal.find(note), std::string::npos);
  gateway_->process().signal(SIGKILL);
  ASSERT_TRUE(gateway_->process().wait(10s));
  http_request(mock_->port(), "POST", "/__mock/release?name=busy");

  gateway_ = std::make_unique<Gateway>(home_.path());
  json messages;
  ASSERT_TRUE(eventually([&] {
    messages = history();
    for (const auto& m : of_role(messages, "assistant")) {
      if (text_of(m).rfind("Hello from the mock LLM. [queued", 0) == 0) return true;  // (the mock joins the text blocks)
    }
    return false;
  })) << messages.dump();
  // The resumed turn reached the model with its image and its file.
  json requests = mock_get(*mock_, "/__mock/requests");
  ASSERT_TRUE(requests.is_array() && !requests.empty());
  const std::string last = requests.back()["body"].dump();
  EXPECT_NE(last.find("data:image/png;base64," + png), std::string::npos) << last;
  EXPECT_NE(last.find("[file: note.txt]"), std::string::npos) << last;
  EXPECT_NE(last.find("hello from the note"), std::string::npos) << last;
  // The image stays beside the transcript; the journal's copy of the file is gone with the turn recorded.
  int images = 0, others = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(home_.path() / "agents")) {
    if (!e.is_regular_file() || e.path().parent_path().filename() != "media") continue;
    (e.path().extension() == ".png" ? images : others)++;
  }
  EXPECT_EQ(images, 1);
  EXPECT_EQ(others, 0);
  gateway_->process().signal(SIGTERM);
  ASSERT_TRUE(gateway_->process().wait(30s));
  expect_journal_settled();
}

TEST_F(RunJournalTest, ATurnCutDuringItsToolCallShowsThatCallOnceAfterTheRestart) {
  mock_ = std::make_unique<MockLlm>();
  home_.write("pincer.json", config_for(*mock_));
  gateway_ = std::make_unique<Gateway>(home_.path());
  const std::filesystem::path started = home_.path() / "tool-started";
  {
    auto c = client();
    const std::string command = "touch '" + started.string() + "'; sleep 20";
    auto ack = c->request("chat.send", {{"sessionKey", "main"},
                                        {"message", "run it MOCK_TOOL:exec:" + json{{"command", command}}.dump() + " ECHO:k9t"},
                                        {"idempotencyKey", "run-k9-tool"}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
    // The tool call is recorded and its command runs when the gateway dies.
    ASSERT_TRUE(eventually([&] { return std::filesystem::exists(started); }));
  }
  gateway_->process().signal(SIGKILL);
  ASSERT_TRUE(gateway_->process().wait(10s));

  gateway_ = std::make_unique<Gateway>(home_.path());
  json messages;
  ASSERT_TRUE(eventually([&] {
    messages = history();
    for (const auto& m : of_role(messages, "assistant")) {
      if (m.value("stopReason", "") == "stop") return true;
    }
    return false;
  })) << messages.dump();
  int calls = 0;
  for (const auto& m : of_role(messages, "assistant")) {
    for (const auto& b : m.value("content", json::array())) calls += b.value("type", "") == "toolCall";
  }
  EXPECT_EQ(calls, 1) << messages.dump();
  EXPECT_EQ(of_role(messages, "user").size(), 1u) << messages.dump();
  // The call cut off gets a result saying so (not run again: it may have had its effect); the
  // model answers from it.
  const auto results = of_role(messages, "toolResult");
  ASSERT_EQ(results.size(), 1u) << messages.dump();
  EXPECT_EQ(results[0].value("isError", false), true);
  EXPECT_NE(text_of(results[0]).find("the gateway restarted while this tool ran"), std::string::npos) << messages.dump();
  EXPECT_EQ(mock_get(*mock_, "/health")["requests"], 2);  // the tool call, then the answer
}

}  // namespace
}  // namespace run_journal_test
}  // namespace pincer::test
