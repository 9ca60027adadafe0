// Findings of a new-user tester's pass over the CLI (set C): --json errors that CLI11 raises before a
// command runs, and cron's own errors, are JSON; flag values out of range are said in the words the
// other commands use; `agents add --json` carries its warnings; `status --url` to this gateway's own
// loopback address sends the local token and to any other says why none was sent; `cron add`
// refuses a schedule that never runs and an --at in the past; `/status` counts no tool step; and
// `pincer chat` marks the partial reply of a run a gateway kill cut off. The real binary with a
// temp PINCER_HOME (and, for the chat, a real terminal through tmux).
#include <signal.h>
#include <unistd.h>

#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gateway_process.h"
#include "mock_config.h"
#include "ws_client.h"

namespace pincer::test {
namespace cli_defects_c_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "defects-c-token-0123456789abcdef";

class CliDefectsCTest : public ::testing::Test {
 protected:
  /// No gateway variables from the developer's shell; `extra` on top ("\x01" removes one).
  std::map<std::string, std::string> env(const std::map<std::string, std::string>& extra = {}) const {
    return isolated_cli_env(home_.path(), extra);
  }
  RunResult pincer(const std::vector<std::string>& args, const std::map<std::string, std::string>& extra = {}) const {
    return run_pincer(args, env(extra), 60s);
  }
  void write_config(const std::string& more = "") const {
    home_.write("pincer.json", "{ gateway: { auth: { token: '" + std::string(kToken) + "' } }" + more + " }\n");
  }
  TempDir home_;
};

/// The one JSON value of `text`, or null when it is not one.
json parsed(const std::string& text) { return json::parse(text, nullptr, false); }

// Item 1: with --json, an error CLI11 raises before the command runs is the command's JSON error.
TEST_F(CliDefectsCTest, JsonCommandsPrintParseErrorsAsJson) {
  write_config();
  for (const auto& args : std::vector<std::vector<std::string>>{{"agent", "--json", "--timeout", "abc", "-m", "hi"},
                                                                {"agent", "-m", "hi", "--timeout", "0", "--json"},
                                                                {"agent", "--json"},
                                                                {"cron", "list", "--json", "--token-file", "/nonexistent/t"}}) {
    const auto r = pincer(args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    const json e = parsed(r.out);
    ASSERT_TRUE(e.is_object()) << args[1] << ": " << r.out << r.err;
    EXPECT_EQ(e["ok"], false);
    EXPECT_EQ(e["error"]["code"], "INVALID_REQUEST") << e.dump();
    EXPECT_EQ(r.err.find("pincer:"), std::string::npos) << r.err;  // one JSON value, nothing beside it
  }
  EXPECT_NE(parsed(pincer({"agent", "--json"}).out)["error"]["message"].get<std::string>().find("--message"), std::string::npos);
  // Without --json the same mistake is text, as before.
  const auto text = pincer({"agent", "--timeout", "abc", "-m", "hi"});
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_TRUE(text.out.empty()) << text.out;
  EXPECT_NE(text.err.find("pincer: --timeout: "), std::string::npos) << text.err;

  // cron's own errors: an unreachable --url gateway (a write or a read there has no offline fallback).
  const auto cron = pincer({"cron", "list", "--json", "--url", "ws://127.0.0.1:9"}, {{"PINCER_GATEWAY_TOKEN", kToken}});
  EXPECT_EQ(cron.exit_code, 1) << cron.err;
  const json c = parsed(cron.out);
  ASSERT_TRUE(c.is_object()) << cron.out << cron.err;
  EXPECT_EQ(c["error"]["code"], "UNREACHABLE") << c.dump();
  EXPECT_EQ(cron.err.find("cannot reach"), std::string::npos) << cron.err;
  const auto bad_add = pincer({"cron", "add", "--json", "--every", "abc", "--message", "hi"});
  EXPECT_EQ(bad_add.exit_code, 2) << bad_add.err;
  EXPECT_NE(parsed(bad_add.out).dump().find("--every: expected a duration"), std::string::npos) << bad_add.out << bad_add.err;
}

// Item 2: a value out of range names the flag, the value and what it takes (not CLI11's "Value … not in range").
TEST_F(CliDefectsCTest, RangesAreSaidInTheCommandsOwnWords) {
  write_config();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"agent", "-m", "hi", "--timeout", "abc"}, "--timeout: expected a whole number of milliseconds from 1 to 86400000 (got 'abc')"},
      {{"agent", "-m", "hi", "--timeout", "0"}, "--timeout: expected a whole number of milliseconds from 1 to 86400000 (got '0')"},
      {{"logs", "-n", "abc"}, "--lines: expected a whole number of lines from 0 to 1000000 (got 'abc')"},
      {{"logs", "-n", "-5"}, "--lines: expected a whole number of lines from 0 to 1000000 (got '-5')"},
      {{"sessions", "list", "--limit", "0"}, "--limit: expected a whole number of sessions from 1 to 100000 (got '0')"},
  };
  for (const auto& [args, said] : cases) {
    const auto r = pincer(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("pincer: " + said), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("not in range"), std::string::npos) << r.err;
  }
}

// Item 3: the warning the text output prints is in --json's summary too.
TEST_F(CliDefectsCTest, AgentsAddJsonCarriesItsWarnings) {
  write_config();
  const auto r = pincer({"agents", "add", "x", "--bind", "telegram", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json out = parsed(r.out);
  ASSERT_TRUE(out.is_object()) << r.out;
  EXPECT_EQ(out["warnings"], json::array({"channels.telegram is not configured; the binding takes effect once it is"}))
      << out.dump();
  EXPECT_EQ(r.err.find("is not configured"), std::string::npos) << r.err;  // said once, in the JSON
  const auto quiet = pincer({"agents", "add", "y", "--json"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_FALSE(parsed(quiet.out).contains("warnings")) << quiet.out;  // only when there are any
}

// Item 4: the local token goes to this gateway's own loopback address only; elsewhere the refusal says why.
TEST_F(CliDefectsCTest, StatusUrlSendsTheLocalTokenOnlyToThisGatewaysOwnAddress) {
  write_config();
  Gateway gateway(home_.path());
  const std::string port = std::to_string(gateway.port());
  // The config's port (here from PINCER_GATEWAY_PORT) is the URL's: the local gateway, its token sent.
  for (const std::string& url : {"ws://127.0.0.1:" + port, "ws://localhost:" + port + "/"}) {
    const auto own = pincer({"status", "--url", url}, {{"PINCER_GATEWAY_PORT", port}});
    EXPECT_EQ(own.exit_code, 0) << url << ": " << own.err;
  }
  // Another address (the config says 18789): no local secret is sent, and the refusal says so.
  const auto other = pincer({"status", "--url", "ws://127.0.0.1:" + port});
  EXPECT_EQ(other.exit_code, 1) << other.err;
  EXPECT_NE(other.err.find("--url given: the local config's gateway.auth token or password is sent only to this "
                           "gateway's own address, so no credentials were sent; pass --token-file or --token"),
            std::string::npos)
      << other.err;
  const auto with_token = pincer({"status", "--url", "ws://127.0.0.1:" + port}, {{"PINCER_GATEWAY_TOKEN", kToken}});
  EXPECT_EQ(with_token.exit_code, 0) << with_token.err;
}

// Item 5: a schedule that never runs, and an --at in the past, are refused (as OpenClaw's cron.add refuses the latter).
TEST_F(CliDefectsCTest, CronAddRefusesASchedulesThatNeverRuns) {
  write_config();
  const auto never = pincer({"cron", "add", "--cron", "0 8 31 2 *", "--message", "hi", "--no-deliver"});
  EXPECT_EQ(never.exit_code, 2) << never.err;
  EXPECT_NE(never.err.find("--cron '0 8 31 2 *' never runs: no time in the next 5 years matches it"), std::string::npos)
      << never.err;
  const auto past = pincer({"cron", "add", "--at", "2020-01-01T08:00:00Z", "--system-event", "hi"});
  EXPECT_EQ(past.exit_code, 2) << past.err;
  EXPECT_NE(past.err.find("--at '2020-01-01T08:00:00Z' is in the past (2020-01-01 08:00"), std::string::npos) << past.err;
  EXPECT_EQ(parsed(pincer({"cron", "list", "--json", "--all"}).out).value("jobs", json::array({1})).size(), 0u);  // none added
  // What runs is still taken.
  const auto ok = pincer({"cron", "add", "--cron", "0 8 29 2 *", "--message", "hi", "--no-deliver"});  // leap days
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  const auto soon = pincer({"cron", "add", "--at", "20m", "--system-event", "hi"});
  EXPECT_EQ(soon.exit_code, 0) << soon.err;
}

// Item 6: /status counts the conversation's messages, not a turn's tool steps.
TEST_F(CliDefectsCTest, StatusCountsNoToolStep) {
  MockLlm mock;
  home_.write("pincer.json", mock_config({.token = kToken, .provider = {.base_url = mock.base_url(), .models = "{ id: 'mock-model' }"}}));
  Gateway gateway(home_.path());
  const std::map<std::string, std::string> to_gateway = {{"PINCER_GATEWAY_PORT", std::to_string(gateway.port())}};
  // user, assistant (the tool call), tool result, assistant (the reply): two messages.
  const auto turn = pincer({"agent", "-m", R"(look MOCK_TOOL:read:{"path":"nothing-here.txt"})"}, to_gateway);
  ASSERT_EQ(turn.exit_code, 0) << turn.err;
  EXPECT_NE(turn.out.find("Tool said:"), std::string::npos) << turn.out;
  const auto status = pincer({"agent", "-m", "/status"}, to_gateway);
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("(2 messages)"), std::string::npos) << status.out;
}

/// A private tmux server (own socket) with one 120x40 window running `command`.
class DefectsCTmux {
 public:
  explicit DefectsCTmux(const std::string& command) : socket_("pincer-defects-c-" + std::to_string(::getpid())) {
    run({"new-session", "-d", "-s", "t", "-x", "120", "-y", "40", command});
  }
  ~DefectsCTmux() { run({"kill-server"}); }
  std::string screen() { return run({"capture-pane", "-p", "-J", "-t", "t", "-S", "-300"}); }
  void type_line(const std::string& text) {
    run({"send-keys", "-t", "t", "-l", text});
    run({"send-keys", "-t", "t", "Enter"});
  }
  /// The screen once it contains `needle` (tmux has no change notification: it is read again); the
  /// bound is for a loaded machine, not a timing.
  std::string wait_for(const std::string& needle, std::chrono::milliseconds timeout = 60s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string s = screen();
    while (s.find(needle) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(100ms);
      s = screen();
    }
    return s;
  }

 private:
  std::string run(std::vector<std::string> args) {
    args.insert(args.begin(), {find_on_path("tmux"), "-u", "-L", socket_});
    Process p(args, {{"TMUX", "\x01"}});
    p.wait(60s);
    return p.out();
  }
  std::string socket_;
};

// Item 7: the part of a reply a gateway kill cut off is marked as discarded when the restarted gateway answers again.
TEST_F(CliDefectsCTest, ChatMarksTheCutPartialReplyAsDiscarded) {
  if (find_on_path("tmux").empty()) GTEST_SKIP() << "tmux is not installed (scripts/install-deps.sh installs it)";
  MockLlm mock;
  home_.write("pincer.json", mock_config({.token = kToken, .provider = {.base_url = mock.base_url(), .models = "{ id: 'mock-model' }"}}));
  // The first answer is held after two deltas; the rerun after the restart answers differently.
  const json script = json::array({json{{"text", "Draft plan: coffee, then email, then lunch."}, {"hold", "cut"}, {"holdAfterDeltas", 2}},
                                   json{{"text", "Final plan: a walk, then deep work."}}});
  ASSERT_EQ(http_request(mock.port(), "POST", "/__mock/script", {{"Content-Type", "application/json"}}, script.dump()).status, 200);
  auto gateway = std::make_unique<Gateway>(home_.path());
  const int port = gateway->port();
  DefectsCTmux tmux("env PINCER_HOME=" + home_.path().string() + " PINCER_GATEWAY_PORT=" + std::to_string(port) + " " +
                    pincer_binary() + " chat; sleep 30");
  ASSERT_NE(tmux.wait_for("/help for commands").find("/help for commands"), std::string::npos) << tmux.screen();
  tmux.type_line("plan my day");
  ASSERT_TRUE(wait_for_held(mock, "cut"));
  std::string s = tmux.wait_for("Draft");
  ASSERT_NE(s.find("Draft"), std::string::npos) << s;
  gateway->process().signal(SIGKILL);
  ASSERT_TRUE(gateway->process().wait(60s));
  s = tmux.wait_for("[connection lost");
  ASSERT_NE(s.find("[connection lost"), std::string::npos) << s;
  http_request(mock.port(), "POST", "/__mock/release?name=cut");
  gateway = std::make_unique<Gateway>(home_.path(), std::vector<std::string>{"--port", std::to_string(port)});

  tmux.type_line("and then?");
  s = tmux.wait_for("Final plan: a walk, then deep work.");
  const auto partial = s.find("Draft");
  const auto mark = s.find("[interrupted — the partial reply above was discarded; ");
  const auto resumed = s.find("Final plan: a walk, then deep work.");
  ASSERT_NE(resumed, std::string::npos) << s;
  ASSERT_NE(mark, std::string::npos) << s;
  EXPECT_LT(partial, mark) << s;
  EXPECT_LT(mark, resumed) << s;
  EXPECT_EQ(s.find("Draft", partial + 1), std::string::npos) << s;  // the cut reply is not shown twice
}

}  // namespace
}  // namespace cli_defects_c_test
}  // namespace pincer::test
