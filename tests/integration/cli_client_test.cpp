// The CLI's gateway commands (issue #4 §2, §6): the real binary as a client of a real gateway,
// which answers from the mock LLM. Asserts exit codes, human output and --json shapes.
#include <csignal>
#include <thread>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gateway_process.h"
#include "mock_config.h"

namespace pincer::test {
namespace cli_client_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "cli-test-token-0123456789";

std::string config_for(const MockLlm& mock) {
  return mock_config({.token = kToken, .provider = {.base_url = mock.base_url()}});
}

class CliClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    mock_ = new MockLlm();
    home_ = new TempDir();
    home_->write("pincer.json", config_for(*mock_));
    gateway_ = new Gateway(home_->path());
  }
  static void TearDownTestSuite() {
    delete gateway_;
    delete home_;
    delete mock_;
  }
  /// The CLI finds the gateway through PINCER_HOME (token) and PINCER_GATEWAY_PORT (the test port).
  static std::map<std::string, std::string> env() {
    return {{"PINCER_HOME", home_->path().string()}, {"PINCER_GATEWAY_PORT", std::to_string(gateway_->port())},
            {"PINCER_GATEWAY_TOKEN", "\x01"}, {"PINCER_GATEWAY_URL", "\x01"}};
  }
  static RunResult pincer(const std::vector<std::string>& args) { return run_pincer(args, env(), 30s); }
  static json json_of(const RunResult& r) {
    json j = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.out << r.err;
    return j;
  }

  static MockLlm* mock_;
  static TempDir* home_;
  static Gateway* gateway_;
};
MockLlm* CliClientTest::mock_ = nullptr;
TempDir* CliClientTest::home_ = nullptr;
Gateway* CliClientTest::gateway_ = nullptr;

TEST_F(CliClientTest, HealthHumanAndJson) {
  auto r = pincer({"health"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("ok · pincer ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("ws://127.0.0.1:" + std::to_string(gateway_->port())), std::string::npos) << r.out;

  auto j = json_of(pincer({"health", "--json"}));
  EXPECT_EQ(j["ok"], true);
  EXPECT_TRUE(j["uptimeMs"].is_number());
}

TEST_F(CliClientTest, StatusJsonNamesTheStateDir) {
  auto r = pincer({"status", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = json_of(r);
  EXPECT_EQ(j["stateDir"], home_->path().string());
  EXPECT_EQ(j["gateway"]["port"], gateway_->port());
  auto human = pincer({"status"});
  EXPECT_NE(human.out.find("Config    " + (home_->path() / "pincer.json").string()), std::string::npos) << human.out;
}

TEST_F(CliClientTest, AgentTurnThenSessionsAndHistory) {
  auto r = pincer({"agent", "-m", "hello ECHO:cli", "--session", "cli-s1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Hello from the mock LLM. [cli]\n");

  auto j = json_of(pincer({"agent", "--message", "again ECHO:two", "--session", "cli-s1", "--json"}));
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["result"]["payloads"][0]["text"], "Hello from the mock LLM. [two]");
  EXPECT_EQ(j["result"]["meta"]["model"], "mock-model");

  auto list = json_of(pincer({"sessions", "list", "--json"}));
  bool found = false;
  for (const auto& s : list["sessions"]) found = found || s["key"] == "agent:main:cli-s1";
  EXPECT_TRUE(found) << list.dump();
  auto human_list = pincer({"sessions", "list"});
  EXPECT_NE(human_list.out.find("agent:main:cli-s1"), std::string::npos) << human_list.out;

  auto show = pincer({"sessions", "show", "cli-s1"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("you: hello ECHO:cli\nagent: Hello from the mock LLM. [cli]\n"), std::string::npos) << show.out;

  auto reset = pincer({"sessions", "reset", "cli-s1"});
  EXPECT_EQ(reset.exit_code, 0) << reset.err;
  auto after = json_of(pincer({"sessions", "show", "cli-s1", "--json"}));
  EXPECT_TRUE(after["messages"].empty()) << after.dump();
  // The new session is listed without the old transcript's token counts.
  auto entry_of = [](const json& listing) {
    for (const auto& s : listing["sessions"]) {
      if (s["key"] == "agent:main:cli-s1") return s;
    }
    return json();
  };
  EXPECT_TRUE(entry_of(list).contains("totalTokens")) << list.dump();
  const json relisted = entry_of(json_of(pincer({"sessions", "list", "--json"})));
  EXPECT_FALSE(relisted.is_null());
  EXPECT_FALSE(relisted.contains("totalTokens")) << relisted.dump();
}

TEST_F(CliClientTest, AHistoryShowsTheTurnsToolCalls) {
  auto r = pincer({"agent", "-m", "look MOCK_TOOL:read:{\"path\":\"notes.txt\"}", "--session", "cli-tools"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto show = pincer({"sessions", "show", "cli-tools"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  // The tool step is a line of its own, as the live chat shows it, not a blank "agent:" line.
  EXPECT_NE(show.out.find("agent: \u2699 read"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("notes.txt"), std::string::npos) << show.out;
}

TEST_F(CliClientTest, AnUnknownSlashCommandGetsTheOneAnswer) {
  auto r = pincer({"agent", "-m", "/bogus"});
  EXPECT_NE(r.out.find("Unknown command /bogus — /help lists them."), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.out.find("mock LLM"), std::string::npos) << "it went to the model: " << r.out;
  // Docking exists, but not here: say so instead of "unknown".
  auto dock = pincer({"agent", "-m", "/dock_telegram"});
  EXPECT_NE(dock.out.find("/dock_telegram works in a chat channel"), std::string::npos) << dock.out << dock.err;
  EXPECT_EQ(dock.out.find("Unknown command"), std::string::npos) << dock.out;
  EXPECT_EQ(dock.out.find("mock LLM"), std::string::npos) << "it went to the model: " << dock.out;
}

TEST_F(CliClientTest, ModelsListAndRawCall) {
  auto r = pincer({"models", "list"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("mock/mock-model"), std::string::npos) << r.out;
  auto call = json_of(pincer({"gateway", "call", "agents.list"}));
  EXPECT_EQ(call["defaultId"], "main");
  // The gateway finds the method or its parameters invalid (INVALID_REQUEST): exit 2, as
  // docs/cli.md says of arguments the gateway refuses; other errors stay 1.
  auto bad = pincer({"gateway", "call", "no.such.method"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("pincer: no.such.method: unknown method: no.such.method [INVALID_REQUEST]"), std::string::npos) << bad.err;
  auto bad_value = pincer({"gateway", "call", "chat.history", "--params", "{\"sessionKey\": 5}"});
  EXPECT_EQ(bad_value.exit_code, 2) << bad_value.err;
  EXPECT_NE(bad_value.err.find("[INVALID_REQUEST]"), std::string::npos) << bad_value.err;
  // INVALID_REQUEST with a more specific details.code (cron's CRON_JOB_NOT_FOUND) is still invalid
  // params: 2, naming the specific code; so is INVALID_REQUEST as the details.code of UNAVAILABLE
  // (the agent method's refusal of an unknown agent).
  auto not_found = pincer({"gateway", "call", "cron.get", "--params", "{\"id\": \"no-such-job\"}"});
  EXPECT_EQ(not_found.exit_code, 2) << not_found.err;
  EXPECT_NE(not_found.err.find("pincer: cron.get: "), std::string::npos) << not_found.err;
  EXPECT_NE(not_found.err.find("[CRON_JOB_NOT_FOUND]"), std::string::npos) << not_found.err;
  auto no_agent = pincer({"gateway", "call", "agent", "--params",
                          "{\"message\": \"hi\", \"agentId\": \"nope\", \"idempotencyKey\": \"call-no-agent\"}"});
  EXPECT_EQ(no_agent.exit_code, 2) << no_agent.err;
  EXPECT_NE(no_agent.err.find("unknown agent \"nope\""), std::string::npos) << no_agent.err;
  // Another class is a failed request: 1.
  auto no_approval = pincer({"gateway", "call", "exec.approval.get", "--params", "{\"id\": \"no-such-approval\"}"});
  EXPECT_EQ(no_approval.exit_code, 1) << no_approval.err;
  EXPECT_NE(no_approval.err.find("[APPROVAL_NOT_FOUND]"), std::string::npos) << no_approval.err;
  // What is wrong with --params, and where.
  auto bad_params = pincer({"gateway", "call", "health", "--params", "[1"});
  EXPECT_EQ(bad_params.exit_code, 2);
  EXPECT_NE(bad_params.err.find("pincer: --params: not valid JSON at 1:3 (line:column): "), std::string::npos) << bad_params.err;
  auto broken = pincer({"gateway", "call", "health", "--params", "{bad json"});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("pincer: --params: not valid JSON at 1:2 (line:column): "), std::string::npos) << broken.err;
  EXPECT_NE(broken.err.find("expected a JSON object such as"), std::string::npos) << broken.err;
  auto array = pincer({"gateway", "call", "health", "--params", "[1]"});
  EXPECT_EQ(array.exit_code, 2);
  EXPECT_NE(array.err.find("pincer: --params: expected a JSON object ({…}), got array"), std::string::npos) << array.err;
  auto empty = pincer({"gateway", "call", ""});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("pincer: gateway call: the method name is empty: give one, e.g. "), std::string::npos) << empty.err;
  // Parameters from a file (an attachment does not fit on a command line); a missing file is named.
  home_->write("params.json", "{\"sessionKey\": \"main\", \"limit\": 5}");
  auto from_file = pincer({"gateway", "call", "chat.history", "--params", "@" + (home_->path() / "params.json").string()});
  EXPECT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_NE(from_file.out.find("\"sessionKey\""), std::string::npos) << from_file.out;
  auto missing = pincer({"gateway", "call", "health", "--params", "@" + (home_->path() / "nope.json").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.json"), std::string::npos) << missing.err;
}

TEST_F(CliClientTest, WrongTokenIsRefusedWithAHint) {
  auto e = env();
  e["PINCER_GATEWAY_TOKEN"] = "wrong-token";
  auto r = run_pincer({"health"}, e, 30s);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("refused"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("AUTH_TOKEN_MISMATCH"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("wrong-token"), std::string::npos) << "never echo a secret: " << r.err;
}

TEST_F(CliClientTest, UnreachableGatewaySaysHowToStartIt) {
  auto r = run_pincer({"health", "--url", "ws://127.0.0.1:1", "--token", "x"}, env(), 30s);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot reach the gateway at ws://127.0.0.1:1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pincer gateway run"), std::string::npos) << r.err;
  auto bad_url = run_pincer({"health", "--url", "http://127.0.0.1:1"}, env(), 30s);
  EXPECT_EQ(bad_url.exit_code, 2);
  EXPECT_NE(bad_url.err.find("ws://"), std::string::npos) << bad_url.err;
}

TEST_F(CliClientTest, ArgumentErrorsExitTwo) {
  auto r = pincer({"agent"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--message"), std::string::npos) << r.err;
  EXPECT_EQ(pincer({"agent", "-m", "x", "--thinking", "loud"}).exit_code, 2);
  EXPECT_EQ(pincer({"sessions"}).exit_code, 2);
  auto empty = pincer({"agent", "-m", "  "});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("--message: empty"), std::string::npos) << empty.err;
  auto unknown = pincer({"frobnicate"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown command \"frobnicate\""), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("agent"), std::string::npos) << "should list the commands: " << unknown.err;
}

TEST_F(CliClientTest, CtrlCAbortsTheRunInTheGateway) {
  std::map<std::string, std::string> e = env();
  Process agent({pincer_binary(), "agent", "-m", "take your time MOCK_SLOW:300 MOCK_LONG:400", "--session", "cli-ctrlc"}, e);
  std::this_thread::sleep_for(1500ms);  // the run is streaming now
  agent.signal(SIGINT);
  auto code = agent.wait(20s);
  ASSERT_TRUE(code.has_value()) << "pincer agent did not stop after Ctrl-C: " << agent.err();
  EXPECT_EQ(*code, 130) << agent.err();
  EXPECT_NE(agent.err().find("aborting the run"), std::string::npos) << agent.err();
  // The gateway stopped the run: its transcript ends with the partial reply marked aborted.
  auto history = json_of(pincer({"sessions", "show", "cli-ctrlc", "--json"}));
  ASSERT_FALSE(history["messages"].empty()) << history.dump();
  EXPECT_EQ(history["messages"].back().value("stopReason", ""), "aborted") << history["messages"].back().dump();
}

TEST_F(CliClientTest, AnUnknownAgentIsRefusedWithTheKnownOnes) {
  auto r = pincer({"agent", "-m", "hi", "--agent", "nosuch"});
  EXPECT_EQ(r.exit_code, 2);  // an invalid argument, as for `chat --agent nosuch` (docs/cli.md)
  EXPECT_NE(r.err.find("unknown agent \"nosuch\" (agents: main)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(home_->path() / "agents" / "nosuch")) << "a phantom agent got a directory";
}

TEST_F(CliClientTest, ABrokenConfigFileStillLetsTheEnvironmentReachTheGateway) {
  TempDir broken;
  broken.write("pincer.json", "{ gateway: { port: 1, ");  // a half-saved file
  auto e = env();
  e["PINCER_HOME"] = broken.path().string();
  auto without = run_pincer({"health"}, e, 30s);  // no secret anywhere: the file's error, exit 2
  EXPECT_EQ(without.exit_code, 2) << without.err;
  EXPECT_NE(without.err.find("pincer.json"), std::string::npos) << without.err;
  e["PINCER_GATEWAY_TOKEN"] = kToken;
  auto with = run_pincer({"health"}, e, 30s);
  EXPECT_EQ(with.exit_code, 0) << with.err;
}

TEST_F(CliClientTest, ShowingAnUnknownSessionFails) {
  auto r = pincer({"sessions", "show", "no-such-session"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no session \"no-such-session\""), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(CliClientTest, LocalAgentRefusesWhileTheGatewayOwnsTheStateDir) {
  auto r = pincer({"agent", "--local", "-m", "hi"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("running"), std::string::npos) << r.err;
}

TEST(CliLocalAgent, RunsInProcessWithoutAGateway) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json", config_for(mock));
  auto r = run_pincer({"agent", "--local", "-m", "hi ECHO:local"}, {{"PINCER_HOME", home.path().string()}}, 30s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Hello from the mock LLM. [local]\n");
  auto again = run_pincer({"agent", "--local", "-m", "more ECHO:l2", "--json"}, {{"PINCER_HOME", home.path().string()}}, 30s);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["result"]["payloads"][0]["text"], "Hello from the mock LLM. [l2]");
}

}  // namespace
}  // namespace cli_client_test
}  // namespace pincer::test

namespace pincer::test {
namespace cli_client_test {
namespace {

// The provider key lives in the gateway's environment (e.g. the service's env file), not in the
// shell that runs `pincer status`: client commands still work.
TEST(CliClientEnv, ClientCommandsDoNotNeedTheProvidersEnvVars) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json", mock_config({.token = "env-test-token-0123456789",
                                         .provider = {.base_url = mock.base_url(),
                                                      .models = "{ id: 'mock-model' }",
                                                      .api_key = "${PINCER_TEST_PROVIDER_KEY}"}}));
  Gateway gateway(home.path(), {}, {{"PINCER_TEST_PROVIDER_KEY", "k"}});
  std::map<std::string, std::string> env = {{"PINCER_HOME", home.path().string()},
                                            {"PINCER_GATEWAY_PORT", std::to_string(gateway.port())},
                                            {"PINCER_TEST_PROVIDER_KEY", "\x01"}, {"PINCER_GATEWAY_TOKEN", "\x01"}};
  auto r = run_pincer({"agent", "-m", "hi ECHO:env"}, env, 30s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Hello from the mock LLM. [env]\n");
  EXPECT_EQ(run_pincer({"health"}, env, 30s).exit_code, 0);
}

// Model text printed by the CLI cannot drive the terminal.
TEST(CliClientEnv, RepliesArePrintedWithoutTerminalEscapes) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json",
             mock_config({.token = "esc-test-token-0123456789", .provider = {.base_url = mock.base_url(), .models = "{ id: 'mock-model' }"}}));
  Gateway gateway(home.path());
  std::map<std::string, std::string> env = {{"PINCER_HOME", home.path().string()},
                                            {"PINCER_GATEWAY_PORT", std::to_string(gateway.port())}};
  auto r = run_pincer({"agent", "-m", "ECHO:\x1b]0;PWNED\x07\x1b[2J"}, env, 30s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PWNED"), std::string::npos) << r.out;
}

// A corrupt sessions index is moved aside and the agent keeps working.
TEST(CliClientEnv, CorruptSessionsIndexIsQuarantinedNotFatal) {
  MockLlm mock;
  TempDir home;
  home.write("pincer.json",
             mock_config({.token = "idx-test-token-0123456789", .provider = {.base_url = mock.base_url(), .models = "{ id: 'mock-model' }"}}));
  home.write("agents/main/sessions/sessions.json", "{\"agent:main:main\": 5, broken");
  Gateway gateway(home.path());
  std::map<std::string, std::string> env = {{"PINCER_HOME", home.path().string()},
                                            {"PINCER_GATEWAY_PORT", std::to_string(gateway.port())}};
  auto r = run_pincer({"agent", "-m", "hi ECHO:idx"}, env, 30s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Hello from the mock LLM. [idx]\n");
  bool quarantined = false;
  for (const auto& e : std::filesystem::directory_iterator(home.path() / "agents/main/sessions")) {
    quarantined = quarantined || (e.path().filename().string().rfind("sessions.json.", 0) == 0);
  }
  EXPECT_TRUE(quarantined) << "the corrupt index should be kept next to the new one";
}

}  // namespace
}  // namespace cli_client_test
}  // namespace pincer::test
