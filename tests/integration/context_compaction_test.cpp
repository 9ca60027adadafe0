// Long conversations in small windows (issue #12, SPEC CX-5..CX-10, AG-5): the real gateway, the
// mock LLM over real HTTP (reporting usage, and answering a request larger than its window with the
// provider's real context-length error), a real WebSocket client and the transcript on disk.
#include <fstream>
#include <iostream>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace context_compaction_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "context-test-token-0123456789";
/// In the summariser's system prompt (context/compaction.cpp summary_system_prompt).
constexpr const char* kSummariserMarker = "working memory of an AI assistant";

class ContextCompactionTest : public ::testing::Test {
 protected:
  /// `window`: the model's contextWindow as Pincer is told; `mock_args`: e.g. the mock's own window.
  /// `extra_models`: more entries for the provider's models list (", { id: … }").
  void start(int64_t window, const std::vector<std::string>& mock_args = {}, const std::string& extra_defaults = "",
             const std::string& extra_models = "") {
    mock_ = std::make_unique<MockLlm>(mock_args);
    home_.write("pincer.json",
                mock_config({.token = kToken,
                             .provider = {.base_url = mock_->base_url(),
                                          .models = "{ id: 'mock-model', contextWindow: " + std::to_string(window) +
                                                    ", maxTokens: 256 }" + extra_models,
                                          .api_key = "mock-key"},
                             .defaults = ", bootstrapTotalMaxChars: 1200, compaction: { reserveTokens: 600 }" + extra_defaults,
                             .top = ",\n  tools: { profile: 'minimal' }"}));
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    EXPECT_TRUE(client_->recv());
    auto params = connect_params(kToken);
    params["caps"] = json::array({"tool-events"});
    client_->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
    auto res = client_->recv_response("c1");
    ASSERT_TRUE(res && (*res)["ok"] == true);
  }

  /// One chat.send turn; the terminal chat payload. `events` collects every event seen.
  json turn(const std::string& message, const std::string& run_id) {
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    if (ack["ok"] != true) return ack;
    return wait_terminal(run_id);
  }
  json wait_terminal(const std::string& run_id) {
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
  /// The compaction events seen so far ({phase, reason, tokensBefore, …}).
  std::vector<json> compaction_events() const {
    std::vector<json> out;
    for (const auto& f : events_) {
      if (f["event"] == "agent" && f["payload"]["stream"] == "compaction") out.push_back(f["payload"]["data"]);
    }
    return out;
  }
  /// Requests the mock received: {body, overflow?, failedSystem?, status}.
  std::vector<json> mock_requests() {
    auto r = http_request(mock_->port(), "GET", "/__mock/requests");
    std::vector<json> out;
    for (auto& e : json::parse(r.body)) {
      if (e.value("path", "").find("chat/completions") != std::string::npos) out.push_back(e);
    }
    return out;
  }
  static bool is_summary_call(const json& request) { return request["body"].dump().find(kSummariserMarker) != std::string::npos; }
  /// The last request of a turn (not a summary call).
  json last_turn_request() {
    auto all = mock_requests();
    for (auto it = all.rbegin(); it != all.rend(); ++it) {
      if (!is_summary_call(*it)) return *it;
    }
    return json();
  }
  /// Every line of the session's transcript, checked: one header, then entries each with a unique
  /// id whose parentId is an earlier entry, compaction entries cutting at an existing entry.
  std::vector<json> transcript() {
    auto list = client_->request("sessions.list", json::object());
    std::string session_id;
    for (const auto& s : list["payload"]["sessions"]) {
      if (s["key"] == "agent:main:main") session_id = s["sessionId"];
    }
    EXPECT_FALSE(session_id.empty());
    std::ifstream in(home_.path() / "agents" / "main" / "sessions" / (session_id + ".jsonl"));
    std::vector<json> entries;
    std::set<std::string> ids;
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
      json e = json::parse(line, nullptr, false);
      EXPECT_FALSE(e.is_discarded()) << line;
      if (header) {
        EXPECT_EQ(e["type"], "session");
        header = false;
        continue;
      }
      EXPECT_TRUE(e["parentId"].is_null() || ids.contains(e["parentId"].get<std::string>())) << line;
      if (e["type"] == "compaction") {
        EXPECT_TRUE(ids.contains(e["firstKeptEntryId"].get<std::string>())) << line;
        EXPECT_TRUE(e["summary"].is_string() && !e["summary"].get<std::string>().empty());
        EXPECT_TRUE(e["tokensBefore"].is_number_integer());
      }
      EXPECT_TRUE(ids.insert(e["id"].get<std::string>()).second) << "duplicate id: " << line;
      entries.push_back(std::move(e));
    }
    return entries;
  }
  static int count_type(const std::vector<json>& entries, const std::string& type) {
    int n = 0;
    for (const auto& e : entries) n += e["type"] == type;
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

std::string filler(int i) {
  // Words only (no digits): the identifiers of the test are the only ones in the conversation.
  static const char* words[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"};
  std::string s = "Please keep going with the plan, step ";
  for (int k = 0; k < 12; ++k) s += std::string(words[(i + k) % 8]) + " ";
  return s;
}

TEST_F(ContextCompactionTest, TwoHundredTurnsInAFourThousandTokenWindow) {
  // Pincer and the mock agree on the window: a request over it would be refused.
  start(4000, {"--context-window", "4000"});
  ASSERT_EQ(turn("My order is ORD-7731-XK, the file is /srv/data/report-q3.csv, the deadline 2026-03-05 and "
                 "the budget $1,250.00. Call parse_invoice() on it. ECHO:first",
                 "t0")["state"],
            "final");
  for (int i = 1; i < 200; ++i) {
    const std::string message = i == 199 ? "Last instruction: summarise everything ECHO:last" : filler(i);
    json final = turn(message, "t" + std::to_string(i));
    ASSERT_EQ(final["state"], "final") << "turn " << i << ": " << final.dump();
  }
  // Compactions happened, were recorded, and the transcript stays valid.
  const auto entries = transcript();
  EXPECT_GE(count_type(entries, "compaction"), 3);
  // The memory flush (CX-10) ran before compactions, a silent turn each time (its prompt and the
  // agent's answer, with tool calls when it wrote a note); the user's 200 turns are all there.
  int flushes = 0, user_turns = 0;
  for (const auto& e : entries) {
    if (e["type"] != "message" || e["message"]["role"] != "user") continue;
    (e["message"]["content"].dump().find("Pre-compaction memory flush.") != std::string::npos ? flushes : user_turns)++;
  }
  EXPECT_GE(flushes, 1);
  EXPECT_EQ(user_turns, 200);
  EXPECT_GE(count_type(entries, "message"), 400 + 2 * flushes);
  bool any_compacted = false;
  for (const auto& e : compaction_events()) any_compacted |= e.value("compacted", false);
  EXPECT_TRUE(any_compacted);
  // The last request carries the identifiers of the first turn and the last instruction verbatim.
  const std::string last = last_turn_request()["body"].dump();
  for (const char* id : {"ORD-7731-XK", "/srv/data/report-q3.csv", "2026-03-05", "$1,250.00", "parse_invoice"}) {
    EXPECT_NE(last.find(id), std::string::npos) << id;
  }
  EXPECT_NE(last.find("Last instruction: summarise everything"), std::string::npos);
  // No request was ever refused for its size: L1 kept every one within the window.
  for (const auto& r : mock_requests()) EXPECT_FALSE(r.value("overflow", false)) << r["body"].dump().substr(0, 300);
  // The history the clients read starts with the summary.
  auto history = client_->request("chat.history", {{"sessionKey", "main"}, {"limit", 1000}});
  ASSERT_EQ(history["ok"], true);
  EXPECT_EQ(history["payload"]["messages"][0]["role"], "compactionSummary");
}

TEST_F(ContextCompactionTest, ASessionsOwnModelSetsTheWindowItsRunsAreBudgetedIn) {
  // The agent's model has a large window, the one the session switches to a small one: the run
  // after the switch is budgeted (and compacted) in the small window, not in the default's.
  start(64000, {}, "", ", { id: 'mock-small', contextWindow: 2500, maxTokens: 256 }");
  for (int i = 0; i < 4; ++i) ASSERT_EQ(turn(filler(i) + " " + std::string(1200, 'x'), "w" + std::to_string(i))["state"], "final");
  EXPECT_EQ(count_type(transcript(), "compaction"), 0) << "everything fits the default model's window";
  auto patched = client_->request("sessions.patch", {{"key", "main"}, {"model", "mock/mock-small"}});
  ASSERT_EQ(patched["ok"], true) << patched.dump();
  ASSERT_EQ(turn("and now? ECHO:small", "w-small")["state"], "final");
  // (The compaction may happen in the memory flush's silent run before the turn, CX-10.)
  EXPECT_GE(count_type(transcript(), "compaction"), 1) << "the 2 500-token window of the session's model was not used";
  // One memory flush: the compaction its own run made belongs to its cycle (no second flush).
  int flushes = 0;
  for (const auto& e : transcript()) {
    if (e["type"] == "message" && e["message"]["role"] == "user" &&
        e["message"]["content"].dump().find("Pre-compaction memory flush.") != std::string::npos) {
      ++flushes;
    }
  }
  EXPECT_EQ(flushes, 1);
  bool summarised = false;
  for (const auto& r : mock_requests()) summarised |= r["body"].dump().find(kSummariserMarker) != std::string::npos;
  EXPECT_TRUE(summarised);
}

TEST_F(ContextCompactionTest, AFailingSummariserKeepsTheRawMessages) {
  // Pincer believes in a small window; the mock takes anything, but fails every summary call.
  start(3000, {"--fail-system", kSummariserMarker});
  for (int i = 0; i < 40; ++i) {
    json final = turn(i == 0 ? "The code word is ZEBRA-4412-Q. ECHO:zero" : filler(i), "f" + std::to_string(i));
    ASSERT_EQ(final["state"], "final") << "turn " << i << ": " << final.dump();
  }
  bool tried = false;
  for (const auto& r : mock_requests()) tried |= r.value("failedSystem", false);
  EXPECT_TRUE(tried) << "no summary was attempted";
  const auto entries = transcript();
  EXPECT_EQ(count_type(entries, "compaction"), 0);
  // Nothing was lost: the first message still goes to the model verbatim.
  EXPECT_NE(last_turn_request()["body"].dump().find("The code word is ZEBRA-4412-Q."), std::string::npos);
  bool reported = false;
  for (const auto& e : compaction_events()) {
    if (e["phase"] == "end") {
      EXPECT_FALSE(e.value("compacted", true));
      reported |= e.value("error", "").find("summary call failed") != std::string::npos;
    }
  }
  EXPECT_TRUE(reported);
}

TEST_F(ContextCompactionTest, TheProvidersOverflowErrorCompactsAndRetriesInvisibly) {
  // Pincer is told 128 000 tokens; the mock's real window is 1 500.
  start(128000, {"--context-window", "1500"});
  int overflowed_turns = 0;
  for (int i = 0; i < 30; ++i) {
    const std::size_t before = mock_requests().size();
    json final = turn(filler(i) + " ECHO:r" + std::string(1, static_cast<char>('a' + i % 26)), "o" + std::to_string(i));
    ASSERT_EQ(final["state"], "final") << "turn " << i << ": " << final.dump();
    // The user sees the reply, never the overflow.
    std::string text;
    for (const auto& b : final["message"]["content"]) text += b.value("text", "");
    EXPECT_EQ(text.rfind("Hello from the mock LLM.", 0), 0u) << text;
    auto all = mock_requests();
    for (std::size_t k = before; k < all.size(); ++k) {
      if (all[k].value("overflow", false)) {
        ++overflowed_turns;
        break;
      }
    }
  }
  EXPECT_GE(overflowed_turns, 1);
  const auto entries = transcript();
  ASSERT_GE(count_type(entries, "compaction"), 1);
  bool overflow_reason = false;
  for (const auto& e : compaction_events()) {
    overflow_reason |= e["phase"] == "end" && e["reason"] == "overflow" && e.value("compacted", false) &&
                       e.value("willRetry", false);
  }
  EXPECT_TRUE(overflow_reason);
  EXPECT_EQ(count_type(entries, "message"), 60);  // no error entries: every call was answered
}

TEST_F(ContextCompactionTest, ATimedOutCallOverAFullContextCompactsAndRetries) {
  // L2 (CX-9, AG-5): a call that times out (HTTP 408 here) while more than 65 % of the window is
  // used is compacted and retried once; below the prompt budget, so L1 never ran before.
  start(10000, {"--context-window", "10000"});
  int64_t input_tokens = 0;
  for (int i = 0; i < 60 && input_tokens < 7200; ++i) {
    ASSERT_EQ(turn(filler(i) + filler(i + 1) + filler(i + 2) + filler(i + 3), "l" + std::to_string(i))["state"], "final");
    auto list = client_->request("sessions.list", json::object());
    for (const auto& row : list["payload"]["sessions"]) {
      if (row["key"] == "agent:main:main") input_tokens = row.value("inputTokens", int64_t{0});
    }
  }
  ASSERT_GE(input_tokens, 7200) << "the session did not fill up";
  ASSERT_EQ(count_type(transcript(), "compaction"), 0) << "L1 compacted before the test could begin";
  json final = turn("one more thing MOCK_ERR:408_ONCE ECHO:l2", "l-timeout");
  ASSERT_EQ(final["state"], "final") << final.dump();
  EXPECT_EQ(final["message"]["content"][0].value("text", ""), "Hello from the mock LLM. [l2]");
  bool timeout_compaction = false;
  for (const auto& e : compaction_events()) {
    timeout_compaction |= e["phase"] == "end" && e["reason"] == "timeout" && e.value("compacted", false) &&
                          e.value("willRetry", false);
  }
  EXPECT_TRUE(timeout_compaction);
  EXPECT_EQ(count_type(transcript(), "compaction"), 1);
}

TEST_F(ContextCompactionTest, ATranscriptLargerThanTheSummarisersWindowIsSummarisedInPieces) {
  // Build a long session in a large window (no compaction), then shrink the window: the part to
  // summarise is 1.3× (and more) the summariser's window.
  start(128000, {"--context-window", "6000"});
  for (int i = 0; i < 60; ++i) ASSERT_EQ(turn(filler(i), "p" + std::to_string(i))["state"], "final");
  const std::size_t calls_before = mock_requests().size();
  gateway_.reset();
  client_.reset();
  home_.write("pincer.json",
              mock_config({.token = kToken,
                           .provider = {.base_url = mock_->base_url(),
                                        .models = "{ id: 'mock-model', contextWindow: 2000, maxTokens: 256 }",
                                        .api_key = "mock-key"},
                           .defaults = ", bootstrapTotalMaxChars: 1200, compaction: { reserveTokens: 600 }",
                           .top = ",\n  tools: { profile: 'minimal' }"}));
  gateway_ = std::make_unique<Gateway>(home_.path());
  client_ = std::make_unique<WsClient>(gateway_->port());
  EXPECT_TRUE(client_->recv());
  client_->send_json({{"type", "req"}, {"id", "c2"}, {"method", "connect"}, {"params", connect_params(kToken)}});
  ASSERT_TRUE(client_->recv_response("c2"));
  ASSERT_EQ(turn("and now? ECHO:after", "p-after")["state"], "final");
  auto all = mock_requests();
  int pieces = 0;
  for (std::size_t k = calls_before; k < all.size(); ++k) pieces += is_summary_call(all[k]);
  EXPECT_GE(pieces, 2) << "the part was not split";
  EXPECT_GE(count_type(transcript(), "compaction"), 1);
}

TEST_F(ContextCompactionTest, CompactCommandAndSessionsCompact) {
  start(128000);
  for (int i = 0; i < 6; ++i) ASSERT_EQ(turn(filler(i) + " ID-" + std::string(1, 'A' + i) + "99X", "m" + std::to_string(i))["state"], "final");
  // sessions.compact answers when the compaction is done.
  auto r = client_->request("sessions.compact", {{"key", "main"}, {"instructions", "keep the ids"}});
  ASSERT_EQ(r["ok"], true) << r.dump();
  EXPECT_EQ(r["payload"]["compacted"], true) << r.dump();
  EXPECT_LT(r["payload"]["tokensAfter"].get<int64_t>(), r["payload"]["tokensBefore"].get<int64_t>());
  // The session's token count is now the estimate after it, as OpenClaw records it (it was 0: the
  // compact run made no model call of its own and wrote its empty usage over the last turn's).
  bool listed = false;
  const json sessions = client_->request("sessions.list", json::object());
  for (const auto& s : sessions["payload"]["sessions"]) {
    if (s["key"] != "agent:main:main") continue;
    listed = true;
    EXPECT_EQ(s.value("totalTokens", int64_t{-1}), r["payload"]["tokensAfter"].get<int64_t>()) << s.dump();
  }
  EXPECT_TRUE(listed) << sessions.dump();
  // The user's instructions reached the summariser.
  bool instructed = false;
  for (const auto& q : mock_requests()) instructed |= is_summary_call(q) && q["body"].dump().find("keep the ids") != std::string::npos;
  EXPECT_TRUE(instructed);
  // /compact through chat.send (the slash command of every chat surface).
  for (int i = 6; i < 10; ++i) ASSERT_EQ(turn(filler(i), "m" + std::to_string(i))["state"], "final");
  auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", "/compact"}, {"idempotencyKey", "cmd-1"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  // The command answers at once; the compaction runs on the session's lane: wait for its entry.
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (count_type(transcript(), "compaction") < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);  // polling a file for a condition, with a deadline
  }
  EXPECT_EQ(count_type(transcript(), "compaction"), 2);
  // The session goes on from the summary; the ids are still there.
  ASSERT_EQ(turn("what were the ids? ECHO:q", "m-last")["state"], "final");
  const std::string last = last_turn_request()["body"].dump();
  EXPECT_NE(last.find("ID-A99X"), std::string::npos);
}

TEST_F(ContextCompactionTest, CompactingAnEmptySessionSaysSoAndWritesNothing) {
  start(128000);
  auto ack = client_->request("chat.send", {{"sessionKey", "fresh"}, {"message", "/compact"}, {"idempotencyKey", "cmd-e"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  const json answer = wait_terminal("cmd-e");
  EXPECT_EQ(answer["message"]["content"][0]["text"], "Nothing to compact: this session has no messages yet.") << answer.dump();
  auto r = client_->request("sessions.compact", {{"key", "other"}});
  ASSERT_EQ(r["ok"], true) << r.dump();
  EXPECT_EQ(r["payload"]["compacted"], false) << r.dump();
  EXPECT_EQ(r["payload"]["reason"], "no sessionId") << r.dump();
  // Neither made a session or a transcript.
  EXPECT_EQ(client_->request("sessions.list", json::object())["payload"]["count"], 0);
  const auto dir = home_.path() / "agents" / "main" / "sessions";
  int transcripts = 0;
  if (std::filesystem::exists(dir)) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) transcripts += e.path().extension() == ".jsonl";
  }
  EXPECT_EQ(transcripts, 0);
  EXPECT_TRUE(mock_requests().empty());
}

}  // namespace
}  // namespace context_compaction_test
}  // namespace pincer::test
