// The terminal chat (issue #4 §3, §6) driven in a real terminal: tmux runs `pincer chat` against a
// real gateway answering from the mock LLM; keys go in with send-keys, the screen comes back with
// capture-pane. Covers a streamed turn, a tool call line, slash commands, Ctrl-C abort and exit.
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace chat_tui_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "tui-test-token-0123456789";

/// A private tmux server (own socket) with one 120x40 window.
class Tmux {
 public:
  explicit Tmux(const std::string& command) : socket_("pincer-test-" + std::to_string(::getpid()) + "-" + std::to_string(++counter_)) {
    run({"new-session", "-d", "-s", "t", "-x", "120", "-y", "40", command});
  }
  ~Tmux() { run({"kill-server"}); }

  std::string screen() { return run({"capture-pane", "-p", "-J", "-t", "t", "-S", "-300"}); }
  void keys(const std::vector<std::string>& keys) {
    std::vector<std::string> args = {"send-keys", "-t", "t"};
    args.insert(args.end(), keys.begin(), keys.end());
    run(args);
  }
  void type_line(const std::string& text) {
    run({"send-keys", "-t", "t", "-l", text});
    keys({"Enter"});
  }
  /// Waits until the screen contains `needle`; returns the screen either way.
  std::string wait_for(const std::string& needle, std::chrono::milliseconds timeout = 15s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string s;
    while (std::chrono::steady_clock::now() < deadline) {
      s = screen();
      if (s.find(needle) != std::string::npos) return s;
      std::this_thread::sleep_for(100ms);
    }
    return s;
  }
  int pane_pid() { return std::stoi(run({"list-panes", "-t", "t", "-F", "#{pane_pid}"})); }
  bool pane_dead() { return run({"list-panes", "-t", "t", "-F", "#{pane_dead}"}).find('1') != std::string::npos; }

 private:
  std::string run(std::vector<std::string> args) {
    args.insert(args.begin(), {find_on_path("tmux"), "-u", "-L", socket_});  // -u: UTF-8 whatever the locale
    Process p(args, {{"TMUX", "\x01"}});
    p.wait(10s);
    return p.out();
  }
  std::string socket_;
  static inline int counter_ = 0;
};

class ChatTuiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (find_on_path("tmux").empty()) GTEST_SKIP() << "tmux is not installed (scripts/install-deps.sh installs it)";
    mock_ = std::make_unique<MockLlm>();
    home_.write("pincer.json", mock_config({.token = kToken, .provider = {.base_url = mock_->base_url(), .models = "{ id: 'mock-model' }"}}));
    gateway_ = std::make_unique<Gateway>(home_.path());
  }
  std::string chat_command(const std::string& extra = "") {
    // remain-on-exit keeps the pane so that the test can see that the program ended.
    return "env PINCER_HOME=" + home_.path().string() + " PINCER_GATEWAY_PORT=" + std::to_string(gateway_->port()) +
           " " + pincer_binary() + " chat " + extra + "; echo CHAT-EXITED-$?; sleep 30";
  }

  TempDir home_;
  std::unique_ptr<MockLlm> mock_;
  std::unique_ptr<Gateway> gateway_;
};

TEST_F(ChatTuiTest, StreamedTurnToolCallAndSlashCommands) {
  Tmux tmux(chat_command());
  auto s = tmux.wait_for("/help for commands");
  ASSERT_NE(s.find("session main"), std::string::npos) << s;

  tmux.type_line("hello ECHO:tui-one");
  s = tmux.wait_for("Hello from the mock LLM. [tui-one]");
  ASSERT_NE(s.find("Hello from the mock LLM. [tui-one]"), std::string::npos) << s;

  tmux.type_line(R"(run it MOCK_TOOL:exec:{"command":"echo tool-ran"})");
  s = tmux.wait_for("⚙ exec echo tool-ran");
  EXPECT_NE(s.find("⚙ exec echo tool-ran"), std::string::npos) << s;

  tmux.type_line("/think high");
  s = tmux.wait_for("Thinking: high");
  EXPECT_NE(s.find("Thinking: high"), std::string::npos) << s;
  tmux.type_line("/model");
  s = tmux.wait_for("  mock/mock-model");  // the list's line: the /think answer names the model too
  EXPECT_NE(s.find("  mock/mock-model"), std::string::npos) << s;
  tmux.type_line("/status");  // answered by the gateway's command table, like /help promises
  s = tmux.wait_for("thinking high");
  EXPECT_NE(s.find("model `mock/mock-model` · thinking high"), std::string::npos) << s;
  tmux.type_line("/nonsense");
  s = tmux.wait_for("Unknown command /nonsense");
  EXPECT_NE(s.find("Unknown command /nonsense"), std::string::npos) << s;
  tmux.type_line("/agent nobody");  // an agent the gateway does not have is not switched to
  s = tmux.wait_for("No agent \"nobody\"");
  EXPECT_NE(s.find("No agent \"nobody\". Agents: main"), std::string::npos) << s;

  tmux.keys({"C-d"});
  s = tmux.wait_for("CHAT-EXITED-0");
  EXPECT_NE(s.find("CHAT-EXITED-0"), std::string::npos) << s;
  // Input history is kept for the next chat, privately.
  std::ifstream history(home_.path() / "chat_history");
  std::string saved((std::istreambuf_iterator<char>(history)), std::istreambuf_iterator<char>());
  EXPECT_NE(saved.find("hello\\040ECHO:tui-one"), std::string::npos) << saved;  // libedit escapes spaces
  EXPECT_EQ(std::filesystem::status(home_.path() / "chat_history").permissions() & std::filesystem::perms::others_read,
            std::filesystem::perms::none);

  // A new chat on the same session shows the history.
  Tmux again(chat_command());
  s = again.wait_for("/help for commands");
  s = again.wait_for("[tui-one]", 5s);
  EXPECT_NE(s.find("> hello ECHO:tui-one"), std::string::npos) << s;
  s = again.wait_for("⚙ exec echo tool-ran", 5s);  // the tool step replayed, not a blank line
  EXPECT_NE(s.find("⚙ exec echo tool-ran"), std::string::npos) << s;
}

TEST_F(ChatTuiTest, AReplyCutByAGatewayKillIsShownWhenTheChatReconnects) {
  Tmux tmux(chat_command());
  auto s = tmux.wait_for("/help for commands");
  tmux.type_line("plan my day MOCK_HOLD:cut ECHO:cut-one");
  ASSERT_TRUE(wait_for_held(*mock_, "cut"));  // the model is half-way through its answer
  const int port = gateway_->port();
  gateway_->process().signal(SIGKILL);
  ASSERT_TRUE(gateway_->process().wait(10s));
  s = tmux.wait_for("[connection lost");
  ASSERT_NE(s.find("shows it when it reconnects"), std::string::npos) << s;
  tmux.type_line("while it is down");  // no gateway: the line is not sent, and the chat says so
  s = tmux.wait_for("[not sent");
  ASSERT_NE(s.find("[not sent: type it again once the gateway is back"), std::string::npos) << s;
  http_request(mock_->port(), "POST", "/__mock/release?name=cut");  // the rerun streams through
  gateway_ = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{"--port", std::to_string(port)});

  // The next line reconnects: the resumed reply is shown (from the history, or live if it is
  // still running), then the new message is answered.
  tmux.type_line("and then ECHO:cut-two");
  s = tmux.wait_for("Hello from the mock LLM. [cut-two]");
  const auto resumed = s.find("Hello from the mock LLM. [cut-one]");
  ASSERT_NE(resumed, std::string::npos) << s;
  EXPECT_GT(resumed, s.find("[connection lost")) << s;
  EXPECT_LT(resumed, s.find("Hello from the mock LLM. [cut-two]")) << s;
  EXPECT_EQ(s.find("Hello from the mock LLM. [cut-one]", resumed + 1), std::string::npos) << s;  // shown once
}

TEST_F(ChatTuiTest, CtrlCAbortsTheRunThenSecondCtrlCQuits) {
  Tmux tmux(chat_command("--session slow"));
  tmux.wait_for("/help for commands");
  tmux.type_line("take your time MOCK_SLOW:400 MOCK_LONG:400");
  auto s = tmux.wait_for("The quick brown");
  ASSERT_NE(s.find("The quick brown"), std::string::npos) << s;
  tmux.keys({"C-c"});
  s = tmux.wait_for("[aborted]");
  ASSERT_NE(s.find("[aborted]"), std::string::npos) << s;

  // Still usable after the abort (in a new session: the mock would read the aborted turn's keywords).
  tmux.type_line("/new");
  tmux.wait_for("Started a fresh session.");
  tmux.type_line("after ECHO:still-here");
  s = tmux.wait_for("[still-here]\n>");  // the reply, then the prompt again
  EXPECT_NE(s.find("Hello from the mock LLM. [still-here]"), std::string::npos) << s;

  // Ctrl-C at the prompt only warns; the second quits. (Within 2 s of the abort it would quit at
  // once: the abort counts as the first Ctrl-C.)
  std::this_thread::sleep_for(2100ms);
  tmux.keys({"C-c"});
  s = tmux.wait_for("(Ctrl-C again to quit)");
  EXPECT_NE(s.find("(Ctrl-C again to quit)"), std::string::npos) << s;
  tmux.keys({"C-c"});
  s = tmux.wait_for("CHAT-EXITED-130");
  EXPECT_NE(s.find("CHAT-EXITED-130"), std::string::npos) << s;
}

TEST_F(ChatTuiTest, EachLineReachesTheHistoryFileAtOnceSoAKillLosesNone) {
  // exec: the pane's process is the chat itself, so that the test can kill it.
  Tmux tmux("exec env PINCER_HOME=" + home_.path().string() + " PINCER_GATEWAY_PORT=" +
            std::to_string(gateway_->port()) + " " + pincer_binary() + " chat");
  tmux.wait_for("/help for commands");
  tmux.type_line("remember me ECHO:kept");
  auto s = tmux.wait_for("[kept]");
  ASSERT_NE(s.find("Hello from the mock LLM. [kept]"), std::string::npos) << s;
  ASSERT_EQ(::kill(tmux.pane_pid(), SIGKILL), 0);  // no clean exit: nothing is written at the end
  std::ifstream history(home_.path() / "chat_history");
  std::string saved((std::istreambuf_iterator<char>(history)), std::istreambuf_iterator<char>());
  EXPECT_NE(saved.find("remember\\040me\\040ECHO:kept"), std::string::npos) << saved;
  EXPECT_EQ(std::filesystem::status(home_.path() / "chat_history").permissions() & std::filesystem::perms::others_read,
            std::filesystem::perms::none);
}

TEST_F(ChatTuiTest, TypedUtf8ReachesTheModelIntactWhateverTheLocale) {
  // libedit takes each value its reader returns as a whole character: bytes handed over one by
  // one arrived as Latin-1 ("cafÃ©"), and under the C locale non-ASCII was dropped.
  Tmux tmux("env LANG= LC_ALL= " + chat_command());
  tmux.wait_for("/help for commands");
  tmux.type_line("caf\u00e9 \u65e5\u672c ECHO:utf8-typed");
  auto s = tmux.wait_for("[utf8-typed]");
  ASSERT_NE(s.find("Hello from the mock LLM. [utf8-typed]"), std::string::npos) << s;
  std::string transcripts;
  for (const auto& e : std::filesystem::recursive_directory_iterator(home_.path() / "agents")) {
    if (e.path().extension() != ".jsonl") continue;
    std::ifstream in(e.path());
    transcripts.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  EXPECT_NE(transcripts.find("caf\u00e9 \u65e5\u672c ECHO:utf8-typed"), std::string::npos) << transcripts.substr(0, 2000);
}

TEST_F(ChatTuiTest, UnreachableGatewayIsOneClearLine) {
  auto r = run_pincer({"chat", "--url", "ws://127.0.0.1:1", "--token", "x"}, {}, 20s);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot connect to the gateway at ws://127.0.0.1:1"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace chat_tui_test
}  // namespace pincer::test
