// The results of slash commands whose work is queued (issue 12: /compact, /tree ID) reach the
// surface they came from — the chat.send client (a delta now, the final with the result), the
// `agent` method (its final answer), `pincer agent -m` and `pincer agent --local` (printed) — and a
// `/tree` switch is in the run journal (SS-6): cut off by kill -9 it is carried out after the
// restart, exactly once. The real gateway binary, the mock LLM over HTTP, a WebSocket client and
// the files on disk; the mock's `hold` script entry tells when the summariser call is in flight.
#include <signal.h>

#include <fstream>
#include <iostream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace command_results_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "command-results-token-0123456789";

std::string cr_config(const MockLlm& mock) {
  return mock_config({.token = kToken, .provider = {.base_url = mock.base_url()}, .top = ",\n  tools: { profile: 'minimal' }"});
}

/// Polls `done` every 20 ms until it holds or `limit` passes (a generous deadline, not a timing).
template <class Fn>
bool cr_eventually(Fn done, std::chrono::milliseconds limit = 60s) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return done();
}

std::string cr_text(const json& payload) {
  std::string out;
  if (payload.contains("message") && payload["message"].contains("content")) {
    for (const auto& b : payload["message"]["content"]) out += b.value("text", "");
  }
  return out;
}

/// Words only: a long-ish user message that gives a manual compaction something to cut.
std::string cr_filler(int i) {
  static const char* words[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"};
  std::string s = "Please keep going with the plan, step ";
  for (int k = 0; k < 16; ++k) s += std::string(words[(i + k) % 8]) + " ";
  return s;
}

class CommandResultsTest : public ::testing::Test {
 protected:
  /// `mock_args`: e.g. a script (--script FILE) for the mock, started on the first call.
  void start(const std::vector<std::string>& mock_args = {}) {
    if (!mock_) {
      mock_ = std::make_unique<MockLlm>(mock_args);
      home_.write("pincer.json", cr_config(*mock_));
    }
    client_.reset();
    gateway_.reset();
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(handshake(*client_, connect_params(kToken)));
  }
  /// The next event frame (kept ones first); nullopt when none comes within 60 s.
  std::optional<json> next_event() {
    if (!client_->events().empty()) {
      json f = std::move(client_->events().front());
      client_->events().pop_front();
      return f;
    }
    return client_->recv(30s);
  }
  /// chat.send; the `chat` payloads of `run_id` up to its terminal one.
  std::vector<json> chat(const std::string& message, const std::string& run_id) {
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    std::vector<json> seen;
    const auto deadline = std::chrono::steady_clock::now() + 90s;  // other events (ticks) keep coming
    while (std::chrono::steady_clock::now() < deadline) {
      auto f = next_event();
      if (!f) break;
      const json& p = (*f)["payload"];
      if ((*f)["event"] != "chat" || p.value("runId", "") != run_id) continue;
      seen.push_back(p);
      if (p["state"] != "delta") return seen;
    }
    ADD_FAILURE() << "no terminal chat event for " << run_id;
    return seen;
  }
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
  int count_type(const std::string& type) {
    int n = 0;
    for (const auto& e : transcript()) n += e["type"] == type;
    return n;
  }
  std::string user_entry(const std::string& text) {
    for (const auto& e : transcript()) {
      if (e["type"] == "message" && e["message"]["role"] == "user" && e["message"]["content"].dump().find(text) != std::string::npos) {
        return e["id"];
      }
    }
    return "";
  }
  /// Branch summary calls the mock received.
  int summary_calls() {
    auto r = http_request(mock_->port(), "GET", "/__mock/requests");
    int n = 0;
    for (auto& e : json::parse(r.body)) n += e["body"].dump().find("a branch of the conversation") != std::string::npos;
    return n;
  }
  bool held(const std::string& name) {
    json h = json::parse(http_request(mock_->port(), "GET", "/__mock/holds").body, nullptr, false);
    return h.is_object() && h.contains(name) && h[name].value("waiting", 0) >= 1;
  }
  std::map<std::string, std::string> cli_env() {
    return {{"PINCER_HOME", home_.path().string()}, {"PINCER_GATEWAY_PORT", std::to_string(gateway_->port())},
            {"PINCER_GATEWAY_TOKEN", "\x01"}, {"PINCER_GATEWAY_URL", "\x01"}};
  }
  void stop_gateway() {
    client_.reset();
    gateway_->process().signal(SIGTERM);
    ASSERT_TRUE(gateway_->process().wait(30s));
    gateway_.reset();
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
};

TEST_F(CommandResultsTest, ChatSendGetsTheResultOfCompactAndTree) {
  start();
  for (int i = 0; i < 4; ++i) ASSERT_EQ(chat(cr_filler(i) + " ECHO:f" + std::to_string(i), "t" + std::to_string(i)).back()["state"], "final");

  // /compact: "Compacting …" at once (a delta), the result as the final, both texts in it.
  auto compact = chat("/compact", "cmd-compact");
  ASSERT_EQ(compact.size(), 2u) << json(compact).dump();
  EXPECT_EQ(compact[0]["state"], "delta");
  EXPECT_NE(cr_text(compact[0]).find("Compacting the session"), std::string::npos) << compact[0].dump();
  EXPECT_EQ(compact[1]["state"], "final");
  EXPECT_EQ(compact[1]["stopReason"], "command");
  const std::string done = cr_text(compact[1]);
  EXPECT_EQ(done.rfind("Compacting the session", 0), 0u) << done;
  EXPECT_NE(done.find("Compacted the session: about"), std::string::npos) << done;
  EXPECT_EQ(count_type("compaction"), 1);  // the result came after the work, not before

  // /tree ID: the switch's own words arrive, after the branch summary was written.
  const std::string second = user_entry("step bravo");
  ASSERT_FALSE(second.empty());
  auto tree = chat("/tree " + second, "cmd-tree");
  ASSERT_EQ(tree.size(), 2u) << json(tree).dump();
  EXPECT_NE(cr_text(tree[0]).find("Switching branch"), std::string::npos);
  EXPECT_NE(cr_text(tree[1]).find("Switched branch: the conversation goes on from entry"), std::string::npos)
      << tree[1].dump();
  EXPECT_EQ(count_type("branch_summary"), 1);

  // A command with nothing queued answers once, as before.
  auto status = chat("/status", "cmd-status");
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0]["state"], "final");
}

TEST_F(CommandResultsTest, TheAgentMethodAndTheCliGetTheResult) {
  start();
  for (int i = 0; i < 4; ++i) ASSERT_EQ(chat(cr_filler(i), "t" + std::to_string(i)).back()["state"], "final");

  // `agent`: acknowledged, then answered with both texts when the compaction is done.
  client_->send_json({{"type", "req"}, {"id", "a1"}, {"method", "agent"},
                      {"params", {{"message", "/compact keep the plan"}, {"idempotencyKey", "agent-compact"}}}});
  auto ack = client_->recv_response("a1", 30s);
  ASSERT_TRUE(ack && (*ack)["ok"] == true);
  EXPECT_EQ((*ack)["payload"]["status"], "accepted") << ack->dump();
  auto final = client_->recv_response("a1", 60s);
  ASSERT_TRUE(final && (*final)["ok"] == true);
  const json payloads = (*final)["payload"]["result"]["payloads"];
  ASSERT_EQ(payloads.size(), 2u) << final->dump();
  EXPECT_NE(payloads[0].value("text", "").find("Compacting the session"), std::string::npos);
  EXPECT_NE(payloads[1].value("text", "").find("Compacted the session: about"), std::string::npos) << final->dump();
  EXPECT_EQ((*final)["payload"]["result"]["meta"]["ok"], true);

  // `pincer agent --local`: the process waits for the compaction and prints its result.
  for (int i = 4; i < 8; ++i) ASSERT_EQ(chat(cr_filler(i), "t" + std::to_string(i)).back()["state"], "final");
  stop_gateway();
  auto local = run_pincer({"agent", "--local", "-m", "/compact"}, {{"PINCER_HOME", home_.path().string()}}, 60s);
  EXPECT_EQ(local.exit_code, 0) << local.out << local.err;
  EXPECT_NE(local.out.find("Compacting the session"), std::string::npos) << local.out;
  EXPECT_NE(local.out.find("Compacted the session: about"), std::string::npos) << local.out << local.err;
  EXPECT_EQ(count_type("compaction"), 2);

  // `pincer agent -m "/tree ID"` (through the gateway) prints the switch's result.
  start();
  const std::string second = user_entry("step bravo");
  ASSERT_FALSE(second.empty());
  auto r = run_pincer({"agent", "-m", "/tree " + second}, cli_env(), 60s);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Switching branch"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Switched branch: the conversation goes on from entry"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(count_type("branch_summary"), 1);
}

TEST_F(CommandResultsTest, ATreeSwitchCutByKill9IsCarriedOutOnceAfterTheRestart) {
  // The three turns answer as usual; the fourth request, the branch summary call, holds: the
  // switch is in flight when the gateway dies.
  home_.write("script.json", R"([{}, {}, {}, {"hold": "tree"}])");
  start({"--script", (home_.path() / "script.json").string()});
  ASSERT_EQ(chat("first question ECHO:a", "t1").back()["state"], "final");
  ASSERT_EQ(chat("second question ECHO:b", "t2").back()["state"], "final");
  ASSERT_EQ(chat("third question ECHO:c", "t3").back()["state"], "final");
  const std::string second = user_entry("second question");
  ASSERT_FALSE(second.empty());

  auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", "/tree " + second}, {"idempotencyKey", "cmd-k9"}});
  ASSERT_EQ(ack["ok"], true);
  ASSERT_TRUE(cr_eventually([&] { return held("tree"); }));
  client_.reset();
  gateway_->process().signal(SIGKILL);
  ASSERT_TRUE(gateway_->process().wait(10s));
  gateway_.reset();
  EXPECT_EQ(count_type("branch_summary"), 0);

  // The restart carries the switch out from the run journal: one summary, the leaf moved.
  gateway_ = std::make_unique<Gateway>(home_.path());
  ASSERT_TRUE(cr_eventually([&] { return count_type("branch_summary") >= 1; })) << gateway_->process().err();
  EXPECT_EQ(summary_calls(), 2);  // the cut one and its rerun

  // A second (clean) restart does nothing more; the journal holds nothing unfinished.
  gateway_->process().signal(SIGTERM);
  ASSERT_TRUE(gateway_->process().wait(30s));
  gateway_.reset();
  start();
  auto next = chat("another second question ECHO:d", "t4");
  ASSERT_EQ(next.back()["state"], "final");
  EXPECT_EQ(count_type("branch_summary"), 1);
  EXPECT_EQ(summary_calls(), 2);
  // The conversation goes on from before the second question.
  auto history = client_->request("chat.history", {{"sessionKey", "main"}});
  const std::string messages = history["payload"]["messages"].dump();
  EXPECT_EQ(messages.find("third question"), std::string::npos) << messages;
  EXPECT_NE(messages.find("first question"), std::string::npos) << messages;
}

TEST_F(CommandResultsTest, ASwitchAlreadyWrittenBeforeTheRestartIsNotDoneTwice) {
  start();
  ASSERT_EQ(chat("first question ECHO:a", "t1").back()["state"], "final");
  ASSERT_EQ(chat("second question ECHO:b", "t2").back()["state"], "final");
  const std::string second = user_entry("second question");
  auto tree = chat("/tree " + second, "cmd-tree");
  ASSERT_NE(cr_text(tree.back()).find("Switched branch"), std::string::npos) << json(tree).dump();
  stop_gateway();
  // As if the gateway had died between writing the summary and marking the journal entry
  // answered: the journal holds the switch again, unfinished.
  std::string run_id;
  for (const auto& e : transcript()) {
    if (e["type"] == "branch_summary") run_id = e["details"].value("runId", "");
  }
  ASSERT_FALSE(run_id.empty()) << "the branch summary does not name its run";
  json accepted;
  {
    std::ifstream in(home_.path() / "runs" / "journal.jsonl");
    std::string line;
    while (std::getline(in, line)) {
      json r = json::parse(line, nullptr, false);
      if (r.is_object() && r["op"] == "accepted" && r["source"] == "tree") accepted = r;
    }
  }
  ASSERT_TRUE(accepted.is_object()) << "the switch was not journaled: " << [&] {
    std::ifstream in(home_.path() / "runs" / "journal.jsonl");
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }();
  EXPECT_EQ(accepted["request"]["runId"], run_id);
  EXPECT_EQ(accepted["request"]["branchTo"], second);
  accepted["id"] = "j-replayed";
  {
    std::ofstream out(home_.path() / "runs" / "journal.jsonl", std::ios::app);
    out << accepted.dump() << "\n";
  }
  const int calls = summary_calls();
  gateway_ = std::make_unique<Gateway>(home_.path());
  // The rerun finds its own summary and only reports the switch, writing nothing.
  auto replay_answered = [&] {
    std::ifstream in(home_.path() / "runs" / "journal.jsonl");
    std::string line;
    while (std::getline(in, line)) {
      json r = json::parse(line, nullptr, false);
      if (r.is_object() && r["op"] == "answered" && r["id"] == "j-replayed") return r.value("outcome", "") == "end";
    }
    return false;
  };
  ASSERT_TRUE(cr_eventually(replay_answered)) << gateway_->process().err();
  EXPECT_EQ(count_type("branch_summary"), 1);
  EXPECT_EQ(summary_calls(), calls);
}

}  // namespace
}  // namespace command_results_test
}  // namespace pincer::test
