// The memory flush before compaction (CX-10) as a user meets it, with the real gateway, the mock
// LLM and the workspace files: the flush appends to the day's note (never replaces what was
// captured there), runs only when there is a conversation, loses no message sent or aborted while
// it runs, and stays out of every user-facing history while the transcript keeps it.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace memory_flush_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kFlushToken = "memory-flush-test-token-0123456789";

// "YYYY-MM-DD" of now in the user's zone (Etc/GMT-14 is UTC+14 all year).
std::string flush_user_day() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() + std::chrono::hours(14));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string slurp_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class MemoryFlushE2E : public ::testing::Test {
 protected:
  /// `defaults` goes into agents.defaults; `script` (a JSON array) is the mock's script.
  void start(const std::string& defaults, int window, const std::string& script = "", const std::string& top = "") {
    std::vector<std::string> args;
    if (!script.empty()) {
      home_.write("script.json", script);
      args = {"--script", (home_.path() / "script.json").string()};
    }
    mock_ = std::make_unique<MockLlm>(args);
    home_.write("pincer.json",
                mock_config({.token = kFlushToken,
                             .provider = {.base_url = mock_->base_url(),
                                          .models = "{ id: 'mock-model', contextWindow: " + std::to_string(window) + " }"},
                             .defaults = ", userTimezone: 'Etc/GMT-14'" + defaults,
                             .top = top.empty() ? "" : ",\n  " + top}));
    gateway_ = std::make_unique<Gateway>(home_.path());
    client_ = std::make_unique<WsClient>(gateway_->port());
    ASSERT_TRUE(client_->recv());
    client_->send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"},
                        {"params", connect_params(kFlushToken, {"operator.admin", "operator.read", "operator.write",
                                                                "operator.approvals"})}});
    auto res = client_->recv_response("c1");
    ASSERT_TRUE(res && (*res)["ok"] == true);
  }
  void send(const std::string& message, const std::string& run_id) {
    auto ack = client_->request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", run_id}});
    ASSERT_EQ(ack["ok"], true) << ack.dump();
  }
  /// The terminal chat payload of `run_id` (null on timeout); every frame seen is kept in seen_.
  json wait_terminal(const std::string& run_id) {
    for (int i = 0; i < 4000; ++i) {
      std::optional<json> f;
      if (!client_->events().empty()) {
        f = std::move(client_->events().front());
        client_->events().pop_front();
      } else {
        f = client_->recv(30s);
      }
      if (!f) break;
      seen_.push_back(*f);
      const json& p = (*f)["payload"];
      if ((*f)["event"] == "chat" && (p.value("runId", "") == run_id || p.value("stopReason", "") == "command") &&
          (p["state"] == "final" || p["state"] == "error" || p["state"] == "aborted")) {
        return p;
      }
    }
    ADD_FAILURE() << "no terminal chat event for " << run_id;
    return json();
  }
  json turn(const std::string& message, const std::string& run_id) {
    send(message, run_id);
    return wait_terminal(run_id);
  }
  std::vector<json> requests() {
    auto r = http_request(mock_->port(), "GET", "/__mock/requests");
    std::vector<json> out;
    for (auto& e : json::parse(r.body)) {
      if (e.value("path", "").find("chat/completions") != std::string::npos) out.push_back(e["body"]);
    }
    return out;
  }
  static bool is_flush_request(const json& body) {
    return body["messages"][0].dump().find("Pre-compaction memory flush turn.") != std::string::npos;
  }
  int flush_requests() {
    int n = 0;
    for (const auto& r : requests()) n += is_flush_request(r);
    return n;
  }
  /// Waits (generous deadline) until `pred` holds; polls state, never sleeps as synchronisation.
  template <class Pred>
  bool eventually(Pred pred) {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (pred()) return true;
      std::this_thread::sleep_for(50ms);
    }
    return pred();
  }
  bool flush_held() {
    auto r = http_request(mock_->port(), "GET", "/__mock/holds");
    const json holds = json::parse(r.body, nullptr, false);
    return holds.is_object() && holds.contains("flush") && holds["flush"].value("waiting", 0) > 0;
  }
  fs::path note() const { return home_.path() / "workspace" / "memory" / (flush_user_day() + ".md"); }
  std::string transcript() {
    std::string all;
    for (const auto& e : fs::recursive_directory_iterator(home_.path() / "agents")) {
      if (e.path().extension() == ".jsonl") all += slurp_file(e.path());
    }
    return all;
  }
  std::map<std::string, std::string> cli_env() const {
    return {{"PINCER_HOME", home_.path().string()}, {"PINCER_GATEWAY_PORT", std::to_string(gateway_->port())},
            {"PINCER_GATEWAY_TOKEN", "\x01"}, {"PINCER_GATEWAY_URL", "\x01"}};
  }
  void TearDown() override {
    if (HasFailure() && gateway_) std::cerr << "--- gateway stderr ---\n" << gateway_->process().err() << "\n";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<WsClient> client_;
  std::vector<json> seen_;
};

// Window 40 000: prompt budget 23 616; soft threshold 12 000 → a flush from 11 808 tokens on.
constexpr const char* kFlushSoon = ", compaction: { memoryFlush: { softThresholdTokens: 12000 } }";

TEST_F(MemoryFlushE2E, TheFlushAppendsAndKeepsWhatWasCapturedThatDay) {
  start(kFlushSoon, 40000);
  // Auto-capture puts the user's fact into today's note, then the conversation grows.
  ASSERT_EQ(turn("remember that my locker code is 4417", "m1")["state"], "final");
  ASSERT_NE(slurp_file(note()).find("my locker code is 4417"), std::string::npos) << slurp_file(note());
  ASSERT_EQ(turn("MOCK_LONG:46000", "m2")["state"], "final");
  ASSERT_EQ(turn("what next?", "m3")["state"], "final");
  ASSERT_EQ(flush_requests(), 2);  // the write call, then NO_REPLY after its result
  // The flush's write only appended: the captured line is still there, the flushed one after it.
  const std::string text = slurp_file(note());
  EXPECT_NE(text.find("my locker code is 4417"), std::string::npos) << text;
  EXPECT_NE(text.find("MOCK_FLUSHED"), std::string::npos) << text;
  EXPECT_LT(text.find("locker code"), text.find("MOCK_FLUSHED")) << text;
  // The flush's `write` is the append-only one and says so (the turn's other tools are refused).
  int flush_writes = 0;
  for (const auto& r : requests()) {
    if (!is_flush_request(r)) continue;
    for (const auto& t : r["tools"]) {
      if (t["function"]["name"] != "write") continue;
      ++flush_writes;
      EXPECT_NE(t["function"]["description"].get<std::string>().find("Append text to memory/" + flush_user_day() + ".md"),
                std::string::npos) << t.dump();
    }
  }
  EXPECT_EQ(flush_writes, 2);
}

TEST_F(MemoryFlushE2E, TheFlushTurnIsHiddenFromEveryHistoryButKeptInTheTranscript) {
  start(kFlushSoon, 40000);
  // A note of today: the session starts with it as its (hidden) startup context.
  fs::create_directories(note().parent_path());
  std::ofstream(note(), std::ios::binary) << "- 08:00 [fact] the Alfama venue is booked\n";
  ASSERT_EQ(turn("MOCK_LONG:46000", "h1")["state"], "final");
  ASSERT_EQ(turn("what next?", "h2")["state"], "final");
  ASSERT_EQ(flush_requests(), 2);
  // chat.history (the web chat, `pincer chat`'s start-up history): nothing of the flush turn —
  // not its prompt, not its write call or the call's result, not its NO_REPLY.
  auto history = client_->request("chat.history", {{"sessionKey", "main"}});
  ASSERT_EQ(history["ok"], true) << history.dump();
  const std::string h = history["payload"].dump();
  for (const char* hidden : {"Pre-compaction memory flush", "MOCK_FLUSHED", "toolResult", "Appended", "NO_REPLY"}) {
    EXPECT_EQ(h.find(hidden), std::string::npos) << hidden << " in " << h;
  }
  EXPECT_NE(h.find("what next?"), std::string::npos);
  // two turns (user, agent, user, agent); the startup context (role custom, display false) is
  // left out as OpenClaw leaves it out, and given with Pincer's includeHidden.
  EXPECT_EQ(history["payload"]["messages"].size(), 4u) << h;
  EXPECT_EQ(h.find("Alfama venue"), std::string::npos) << h;
  auto with_hidden = client_->request("chat.history", {{"sessionKey", "main"}, {"includeHidden", true}});
  ASSERT_EQ(with_hidden["payload"]["messages"].size(), 5u) << with_hidden.dump();
  EXPECT_EQ(with_hidden["payload"]["messages"][0]["display"], false) << with_hidden.dump();
  EXPECT_NE(with_hidden["payload"].dump().find("Alfama venue"), std::string::npos);
  EXPECT_EQ(with_hidden["payload"].dump().find("MOCK_FLUSHED"), std::string::npos);  // the flush stays hidden
  EXPECT_EQ(client_->request("chat.history", {{"sessionKey", "main"}, {"includeHidden", 1}})["ok"], false);
  // /tree lists the user's turns only.
  const json tree = turn("/tree", "h3");
  EXPECT_EQ(tree.dump().find("Pre-compaction"), std::string::npos) << tree.dump();
  EXPECT_NE(tree.dump().find("what next?"), std::string::npos) << tree.dump();
  // `pincer sessions show`, through the gateway and from the files.
  for (bool local : {false, true}) {
    auto env = cli_env();
    if (local) env["PINCER_GATEWAY_PORT"] = "1";  // nobody listens there: the CLI reads the files
    const RunResult r = run_pincer({"sessions", "show", "main"}, env, 30s);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("Pre-compaction"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("MOCK_FLUSHED"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("you: what next?"), std::string::npos) << r.out << r.err;
    // Nor the session's hidden startup context, unless asked for.
    EXPECT_EQ(r.out.find("Startup context"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("Alfama venue"), std::string::npos) << r.out;
    const RunResult all = run_pincer({"sessions", "show", "main", "--startup-context"}, env, 30s);
    EXPECT_EQ(all.exit_code, 0) << all.err;
    EXPECT_NE(all.out.find("Alfama venue"), std::string::npos) << all.out;
  }
  // The transcript file keeps the whole turn.
  const std::string file = transcript();
  EXPECT_NE(file.find("Pre-compaction memory flush."), std::string::npos);
  EXPECT_NE(file.find("MOCK_FLUSHED"), std::string::npos);
}

TEST_F(MemoryFlushE2E, NoFlushBeforeTheFirstTurnOfANewSessionInASmallWindow) {
  // contextTokens 12 000: budget 6 000, flush from 3 000 tokens — the system prompt, the tools
  // and a startup context of today's notes pass that before anything was said.
  start(", contextTokens: 12000", 128000);
  fs::create_directories(note().parent_path());
  std::string notes = "# today\n\n";
  for (int i = 0; i < 30; ++i) notes += "- 09:" + std::to_string(10 + i) + " [fact] a note about the Alfama project, item " + std::to_string(i) + "\n";
  std::ofstream(note(), std::ios::binary) << notes;
  ASSERT_EQ(turn("hello there", "n1")["state"], "final");
  EXPECT_EQ(flush_requests(), 0);
  EXPECT_EQ(requests().size(), 1u);
  // Once there is a conversation, the same frame does bring the flush (the check is not just off).
  ASSERT_EQ(turn("tell me more", "n2")["state"], "final");
  EXPECT_EQ(flush_requests(), 2);
}

TEST_F(MemoryFlushE2E, AMessageAbortedDuringTheFlushIsKeptAndReportedAborted) {
  // The flush's first model call waits at the mock's hold "flush".
  start(kFlushSoon, 40000, R"([{}, {"hold": "flush"}])");
  ASSERT_EQ(turn("MOCK_LONG:46000", "a1")["state"], "final");
  send("please keep this message safe", "a2");
  ASSERT_TRUE(eventually([&] { return flush_held(); })) << "the flush never reached the mock";
  // Ctrl-C in `pincer chat`: chat.abort with the run the client knows.
  auto res = client_->request("chat.abort", {{"sessionKey", "main"}, {"runId", "a2"}});
  ASSERT_EQ(res["ok"], true) << res.dump();
  EXPECT_EQ(res["payload"]["runIds"], json::array({"a2"})) << res.dump();
  const json terminal = wait_terminal("a2");
  EXPECT_EQ(terminal["state"], "aborted") << terminal.dump();
  // The message is in the session, with its turn marked aborted; the next turn goes on normally.
  auto history = client_->request("chat.history", {{"sessionKey", "main"}});
  const std::string h = history["payload"].dump();
  EXPECT_NE(h.find("please keep this message safe"), std::string::npos) << h;
  EXPECT_NE(h.find("aborted"), std::string::npos) << h;
  EXPECT_EQ(h.find("Pre-compaction"), std::string::npos) << h;
  http_request(mock_->port(), "POST", "/__mock/release?name=flush");
  const json next = turn("still there? ECHO:next", "a3");
  EXPECT_EQ(next["state"], "final") << next.dump();
  EXPECT_NE(next.dump().find("[next]"), std::string::npos) << next.dump();
  for (const auto& f : seen_) EXPECT_EQ(f.dump().find("memory-flush-"), std::string::npos) << f.dump();
}

TEST_F(MemoryFlushE2E, MessagesSentDuringTheFlushAreAllAnswered) {
  start(kFlushSoon, 40000, R"([{}, {"hold": "flush"}])");
  ASSERT_EQ(turn("MOCK_LONG:46000", "s1")["state"], "final");
  send("first while flushing ECHO:one", "s2");
  ASSERT_TRUE(eventually([&] { return flush_held(); })) << "the flush never reached the mock";
  send("second while flushing ECHO:two", "s3");
  http_request(mock_->port(), "POST", "/__mock/release?name=flush");
  const json a = wait_terminal("s2");
  EXPECT_EQ(a["state"], "final") << a.dump();
  EXPECT_NE(a.dump().find("[one]"), std::string::npos) << a.dump();
  const json b = wait_terminal("s3");
  EXPECT_EQ(b["state"], "final") << b.dump();
  EXPECT_NE(b.dump().find("[two]"), std::string::npos) << b.dump();
  EXPECT_NE(slurp_file(note()).find("MOCK_FLUSHED"), std::string::npos);
}

TEST_F(MemoryFlushE2E, TerminalControlCodesReachNeitherTheNoteNorTheTerminal) {
  start("", 128000);
  // A sender's "remember" with escape codes (colour, clear screen, a window title, BEL).
  ASSERT_EQ(turn("remember that my \x1b[31mlocker\x1b[0m code is 4417\x1b[2J\x1b]0;owned\x07 ok", "t1")["state"], "final");
  const std::string text = slurp_file(note());
  EXPECT_NE(text.find("remember that my locker code is 4417 ok"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  // A note written some other way (by hand, by a tool) still prints clean in `memory search`.
  std::ofstream(home_.path() / "workspace" / "memory" / "topics.md", std::ios::binary)
      << "- the padlock \x1b[5mcombination\x1b[0m is 2718 \x1b]0;pwned\x07\xc2\x9b" "2J\n";
  const RunResult r = run_pincer({"memory", "search", "padlock combination"}, cli_env(), 30s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("the padlock combination is 2718"), std::string::npos) << r.out;
  for (char c : r.out) EXPECT_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f) << r.out;
  EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos) << r.out;
}

// `pincer agent -m`, the one-shot CLI: it says when an exec waits for approval and how to answer
// it, and a slash command that fails is a failure for the script that ran it.
TEST_F(MemoryFlushE2E, AgentDashMSaysItWaitsForApprovalAndFailsOnAFailingCommand) {
  start("", 128000, R"([{"toolCalls": [{"name": "exec", "arguments": {"command": "touch approved.txt"}}]}, {"text": "done"}])",
        "tools: { exec: { ask: 'always' } }");
  const RunResult bad = run_pincer({"agent", "-m", "/tree zzzz"}, cli_env(), 30s);
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  const RunResult good = run_pincer({"agent", "-m", "/status"}, cli_env(), 30s);
  EXPECT_EQ(good.exit_code, 0) << good.out << good.err;

  Process cli({pincer_binary(), "agent", "-m", "go"}, cli_env());
  std::string notice;
  ASSERT_TRUE(eventually([&] {
    notice = cli.err();
    return notice.find("exec.approval.resolve") != std::string::npos;
  })) << notice << cli.out();
  EXPECT_NE(notice.find("waiting for approval to run: touch approved.txt"), std::string::npos) << notice;
  // The printed call answers it.
  const std::size_t id_at = notice.find("{\"id\":\"") + 7;
  const std::string id = notice.substr(id_at, notice.find('"', id_at) - id_at);
  auto res = client_->request("exec.approval.resolve", {{"id", id}, {"decision", "allow-once"}});
  ASSERT_EQ(res["ok"], true) << res.dump() << notice;
  EXPECT_EQ(cli.wait(60s), 0) << cli.err();
  EXPECT_NE(cli.out().find("done"), std::string::npos) << cli.out();
  EXPECT_TRUE(fs::exists(home_.path() / "workspace" / "approved.txt"));

}

}  // namespace
}  // namespace memory_flush_test
}  // namespace pincer::test
