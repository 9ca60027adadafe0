// Findings of a new-user tester's pass over the CLI and the config (set A): gateway run lists every
// config problem validate lists, config unset refuses to leave a model reference dangling, chat
// checks --agent at start, agents add warns about a binding to an unconfigured channel, agent
// --json errors are JSON, error codes are shown as [CODE], a busy port is said once, and channels
// status names an account once. The real binary with a temp PINCER_HOME.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gateway_process.h"

namespace pincer::test {
namespace cli_defects_a_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "a-gateway-token-0123456789abcdef";

std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

std::string file_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class CliDefectsATest : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env(int port = 0) const {
    return {{"PINCER_HOME", home_.path().string()},
            {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()},
            {"PINCER_GATEWAY_TOKEN", port == 0 ? std::string("\x01") : std::string(kToken)},  // a URL's token
            {"PINCER_GATEWAY_PASSWORD", "\x01"},
            {"PINCER_GATEWAY_URL", port == 0 ? std::string("\x01") : "ws://127.0.0.1:" + std::to_string(port)},
            {"PINCER_GATEWAY_PORT", "\x01"}};
  }
  RunResult pincer(const std::vector<std::string>& args, int port = 0) const { return run_pincer(args, env(port), 60s); }
  std::filesystem::path config() const { return home_.path() / "pincer.json"; }
  TempDir home_;
};

// Item 1: every problem at once, in both commands, each naming the file; a schema error does not
// hide the other checks.
TEST_F(CliDefectsATest, GatewayRunListsEveryProblemValidateLists) {
  home_.write("pincer.json",
              "{ gateway: { auth: { mode: 'token' } }, agents: { list: [ { id: 'a' }, { id: 'a' } ] },\n"
              "  channels: { telegram: { enabled: true } } }\n");
  const std::string file = config().string();
  const std::vector<std::string> expected = {
      "gateway.auth.mode is \"token\" but no token is set",
      file + ": channels.telegram.botToken: required to run the Telegram channel",
      file + ": agents.list[1].id: duplicate agent id \"a\" (also agents.list[0])",
  };
  auto validate = pincer({"config", "validate"});
  auto run = pincer({"gateway", "run", "--port", "0"});
  EXPECT_EQ(validate.exit_code, 2) << validate.err;
  EXPECT_EQ(run.exit_code, 2) << run.err;
  for (const auto& line : expected) {
    EXPECT_EQ(occurrences(validate.err, line), 1u) << line << "\n" << validate.err;
    EXPECT_EQ(occurrences(run.err, line), 1u) << line << "\n" << run.err;
  }
  EXPECT_NE(run.err.find("the gateway does not start with an invalid configuration"), std::string::npos) << run.err;

  // A schema error beside them: the other checks still run (on the rest of the document).
  home_.write("pincer.json",
              "{ gateway: { port: 'abc', auth: { token: '" + std::string(kToken) + "' } },\n"
              "  agents: { list: [ { id: 'a' }, { id: 'a', bogus: 1 } ] } }\n");
  validate = pincer({"config", "validate"});
  run = pincer({"gateway", "run"});
  for (const auto* r : {&validate, &run}) {
    EXPECT_EQ(r->exit_code, 2) << r->err;
    EXPECT_NE(r->err.find(file + ": gateway.port: expected integer 1..65535, got \"abc\""), std::string::npos) << r->err;
    EXPECT_NE(r->err.find(file + ": agents.list[1].bogus: unknown key"), std::string::npos) << r->err;
    EXPECT_NE(r->err.find(file + ": agents.list[1].id: duplicate agent id \"a\""), std::string::npos) << r->err;
  }
  auto as_json = pincer({"config", "validate", "--json"});
  const json report = json::parse(as_json.out);
  EXPECT_EQ(report["valid"], false);
  EXPECT_EQ(report["errors"].size(), 3u) << report.dump(2);
}

// Item 2: removing a provider a model reference still names is refused, naming the reference, with
// the provider's path spelled as the user writes it; the file is left as it was.
TEST_F(CliDefectsATest, UnsetRefusesToLeaveAModelReferenceDangling) {
  home_.write("pincer.json",
              "{ gateway: { auth: { token: '" + std::string(kToken) + "' } },\n"
              "  models: { providers: { 'my.lab': { baseUrl: 'http://127.0.0.1:9/v1', api: 'openai-completions',\n"
              "    apiKey: 'k', models: [ { id: 'x' } ] } } },\n"
              "  agents: { defaults: { model: { primary: 'my.lab/x' } } } }\n");
  const std::string before = file_text(config());
  auto r = pincer({"config", "unset", "models.providers[\"my.lab\"]"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("not removed, the config would still refer to it"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("agents.defaults.model.primary: \"my.lab/x\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("models.providers[\"my.lab\"]"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("models.providers.my.lab"), std::string::npos) << r.err;
  EXPECT_EQ(file_text(config()), before);
  EXPECT_EQ(pincer({"config", "validate"}).exit_code, 0);

  // Once nothing names it, it goes.
  ASSERT_EQ(pincer({"config", "unset", "agents.defaults.model.primary"}).exit_code, 0);
  auto removed = pincer({"config", "unset", "models.providers[\"my.lab\"]"});
  EXPECT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(file_text(config()).find("my.lab"), std::string::npos) << file_text(config());
}

// Items 3 and 6: chat refuses an agent the gateway does not have before the first line; a
// connection refused for a missing token shows its code as [CODE].
TEST_F(CliDefectsATest, ChatChecksTheAgentAtStartAndCodesAreBracketed) {
  home_.write("pincer.json", "{ gateway: { auth: { token: '" + std::string(kToken) + "' } },\n"
                             "  agents: { list: [ { id: 'main' }, { id: 'work' } ] } }\n");
  Gateway gateway(home_.path());
  auto chat = pincer({"chat", "--agent", "ghost"}, gateway.port());
  EXPECT_EQ(chat.exit_code, 2) << chat.out << chat.err;
  EXPECT_NE(chat.err.find("--agent: no agent \"ghost\" on the gateway (agents: main, work)"), std::string::npos) << chat.err;
  EXPECT_EQ(chat.out.find("Type a message"), std::string::npos) << chat.out;

  TempDir elsewhere;  // no config: no token to send
  auto status = run_pincer({"status", "--url", "ws://127.0.0.1:" + std::to_string(gateway.port())},
                           {{"PINCER_HOME", elsewhere.path().string()}, {"PINCER_GATEWAY_TOKEN", "\x01"},
                            {"PINCER_GATEWAY_URL", "\x01"}},
                           60s);
  EXPECT_EQ(status.exit_code, 1) << status.err;
  EXPECT_NE(status.err.find("[AUTH_TOKEN_MISSING]"), std::string::npos) << status.err;
  EXPECT_EQ(status.err.find("(AUTH_TOKEN_MISSING)"), std::string::npos) << status.err;
}

// Item 4: a binding to a channel with no settings is kept (as OpenClaw's) with a clear warning.
TEST_F(CliDefectsATest, AgentsAddWarnsAboutABindingToAnUnconfiguredChannel) {
  home_.write("pincer.json", "{ gateway: { auth: { token: '" + std::string(kToken) + "' } } }\n");
  auto r = pincer({"agents", "add", "x", "--bind", "telegram", "--bind", "telegram:ops"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(occurrences(r.err, "pincer: warning: channels.telegram is not configured; the binding takes effect once it is"), 1u)
      << r.err;

  home_.write("pincer.json", "{ gateway: { auth: { token: '" + std::string(kToken) + "' } },\n"
                             "  channels: { telegram: { botToken: '123:abc' } } }\n");
  auto configured = pincer({"agents", "add", "y", "--bind", "telegram"});
  EXPECT_EQ(configured.exit_code, 0) << configured.err;
  EXPECT_EQ(configured.err.find("is not configured"), std::string::npos) << configured.err;
}

// Item 5: with --json, errors are {"ok": false, "error": {code, message}} on stdout; exit codes kept.
TEST_F(CliDefectsATest, AgentJsonErrorsAreJson) {
  home_.write("pincer.json",
              "{ gateway: { auth: { token: '" + std::string(kToken) + "' } },\n"
              "  models: { providers: { lab: { baseUrl: 'http://127.0.0.1:9/v1', api: 'openai-completions',\n"
              "    apiKey: 'k', models: [ { id: 'x' } ] } } },\n"
              "  agents: { defaults: { model: { primary: 'lab/x' } } } }\n");
  auto unreachable = run_pincer({"agent", "--json", "-m", "hi", "--url", "ws://127.0.0.1:9"},
                                {{"PINCER_HOME", home_.path().string()}, {"PINCER_GATEWAY_TOKEN", kToken}}, 60s);
  EXPECT_EQ(unreachable.exit_code, 1) << unreachable.err;
  const json e = json::parse(unreachable.out);
  EXPECT_EQ(e["ok"], false);
  EXPECT_EQ(e["error"]["code"], "UNREACHABLE") << e.dump();
  EXPECT_NE(e["error"]["message"].get<std::string>().find("cannot reach the gateway"), std::string::npos) << e.dump();
  EXPECT_EQ(unreachable.err.find("cannot reach the gateway"), std::string::npos) << unreachable.err;

  TempDir no_config;  // the second line about the missing pincer.json joins the one message
  auto bare = run_pincer({"agent", "--json", "-m", "hi"},
                         {{"PINCER_HOME", no_config.path().string()}, {"PINCER_GATEWAY_TOKEN", "\x01"},
                          {"PINCER_GATEWAY_URL", "\x01"}, {"PINCER_GATEWAY_PORT", "9"}},
                         60s);
  EXPECT_EQ(bare.exit_code, 1) << bare.err;
  const std::string bare_message = json::parse(bare.out)["error"]["message"].get<std::string>();
  EXPECT_NE(bare_message.find("pincer.json"), std::string::npos) << bare_message;
  EXPECT_EQ(bare_message.find("\npincer:"), std::string::npos) << bare_message;

  auto empty = pincer({"agent", "--json", "-m", " "});
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  EXPECT_EQ(json::parse(empty.out)["error"]["code"], "INVALID_REQUEST") << empty.out;

  auto local = pincer({"agent", "--json", "--local", "-m", "hi"});  // the model's server is not there
  EXPECT_EQ(local.exit_code, 1) << local.out << local.err;
  const json l = json::parse(local.out);
  EXPECT_EQ(l["ok"], false);
  EXPECT_EQ(l["error"]["code"], "AGENT_ERROR") << l.dump();
  EXPECT_EQ(local.err.find("pincer: agent:"), std::string::npos) << local.err;
}

// Item 7: a port another process holds is said once (not also as a log line on the console).
TEST_F(CliDefectsATest, ABusyPortIsSaidOnce) {
  home_.write("pincer.json", "{ gateway: { auth: { token: '" + std::string(kToken) + "' } } }\n");
  Gateway first(home_.path());
  TempDir other;
  other.write("pincer.json", "{ gateway: { auth: { token: '" + std::string(kToken) + "' } } }\n");
  auto r = run_pincer({"gateway", "run", "--port", std::to_string(first.port())},
                      {{"PINCER_HOME", other.path().string()}, {"PINCER_GATEWAY_TOKEN", "\x01"}}, 60s);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string said = "cannot listen on 127.0.0.1:" + std::to_string(first.port());
  EXPECT_EQ(occurrences(r.out + r.err, said), 1u) << r.out << r.err;
  // The log file still says why the gateway is gone.
  EXPECT_NE(file_text(other.path() / "logs" / "gateway.log").find(said), std::string::npos);
}

// Item 8: a failing account's line names it once, not again before its error.
TEST_F(CliDefectsATest, ChannelsStatusNamesAFailingAccountOnce) {
  home_.write("pincer.json", "{ gateway: { auth: { token: '" + std::string(kToken) + "' } },\n"
                             "  channels: { telegram: { botToken: '123:abc', apiRoot: 'http://127.0.0.1:9' } } }\n");
  Gateway gateway(home_.path());
  ASSERT_TRUE(gateway.wait_for_stderr("telegram[default]: ")) << gateway.process().err();
  auto r = pincer({"channels", "status"}, gateway.port());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.find("failed: ") != std::string::npos || r.out.find("last error: ") != std::string::npos) << r.out;
  EXPECT_EQ(occurrences(r.out, "telegram[default]"), 1u) << r.out;
}

}  // namespace
}  // namespace cli_defects_a_test
}  // namespace pincer::test
