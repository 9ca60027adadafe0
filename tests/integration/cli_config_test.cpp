// `pincer config`, `pincer onboard` and `pincer gateway install|uninstall|status` end to end
// (issue #4 §1-2): the real binary with a temp PINCER_HOME; outputs and files compared exactly;
// onboarded configs proven by a real gateway answering a chat turn from the mock LLM.
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "gateway_process.h"
#include "ws_client.h"

namespace pincer::test {
namespace cli_config_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

unsigned mode_of(const std::filesystem::path& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 ? (st.st_mode & 0777) : 0;
}

class CliConfigTest : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env(std::map<std::string, std::string> extra = {}) const {
    std::map<std::string, std::string> e = {{"PINCER_HOME", home_.path().string()},
                                            {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()},
                                            {"PINCER_GATEWAY_TOKEN", "\x01"},
                                            {"PINCER_GATEWAY_PORT", "\x01"},
                                            {"HTTP_PROXY", "\x01"},
                                            {"http_proxy", "\x01"},
                                            {"ALL_PROXY", "\x01"},
                                            {"all_proxy", "\x01"}};
    for (auto& [k, v] : extra) e[k] = v;
    return e;
  }
  RunResult pincer(const std::vector<std::string>& args, std::map<std::string, std::string> extra = {}) const {
    return run_pincer(args, env(std::move(extra)), 20s);
  }
  std::filesystem::path config() const { return home_.path() / "pincer.json"; }

  /// Connects with the config's token and runs one chat turn; returns the final reply text.
  std::string chat_turn(Gateway& gw, const std::string& message) {
    auto token = pincer({"config", "get", "gateway.auth.token", "--show-secrets"});
    EXPECT_EQ(token.exit_code, 0) << token.err;
    std::string t = token.out.substr(0, token.out.find('\n'));
    WsClient c(gw.port());
    EXPECT_TRUE(c.recv());
    c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", connect_params(t)}});
    auto res = c.recv_response("c1");
    EXPECT_TRUE(res && (*res)["ok"] == true) << (res ? res->dump() : "no answer");
    auto ack = c.request("chat.send", {{"sessionKey", "main"}, {"message", message}, {"idempotencyKey", "run-1"}});
    EXPECT_EQ(ack["ok"], true) << ack.dump();
    for (int i = 0; i < 500; ++i) {
      auto f = c.events().empty() ? c.recv(20s) : std::optional<json>(c.events().front());
      if (!c.events().empty()) c.events().pop_front();
      if (!f) break;
      const json& p = (*f)["payload"];
      if ((*f)["event"] != "chat" || p["state"] == "delta") continue;
      EXPECT_EQ(p["state"], "final") << f->dump();
      std::string text;
      for (const auto& b : p["message"]["content"]) text += b.value("text", "");
      return text;
    }
    ADD_FAILURE() << "no final chat event";
    return "";
  }

  TempDir home_;
};

constexpr const char* kCommented =
    "// my pincer config\n"
    "{\n"
    "  gateway: {\n"
    "    // the port I like\n"
    "    port: 18800,\n"
    "    bind: 'loopback', // keep local\n"
    "    auth: { mode: 'token', token: 'secret-token-1234' },\n"
    "  },\n"
    "  /* tools */\n"
    "  tools: { profile: 'coding' },\n"
    "}\n";

TEST_F(CliConfigTest, HelpListsTheCommandsAndFlags) {
  auto config = pincer({"config", "--help"});
  EXPECT_EQ(config.exit_code, 0);
  for (const char* sub : {"get", "set", "unset", "validate", "schema"}) {
    EXPECT_NE(config.out.find(sub), std::string::npos) << sub << "\n" << config.out;
  }
  auto set = pincer({"config", "set", "--help"});
  for (const char* flag : {"PATH", "VALUE", "--strict-json", "--json-value", "--string", "--file", "JSON5"}) {
    EXPECT_NE(set.out.find(flag), std::string::npos) << flag << "\n" << set.out;
  }
  auto onboard = pincer({"onboard", "--help"});
  for (const char* flag : {"--non-interactive", "--provider", "--base-url", "--api-key-env", "--model", "--workspace",
                           "--port", "--json", "--ollama-url"}) {
    EXPECT_NE(onboard.out.find(flag), std::string::npos) << flag << "\n" << onboard.out;
  }
  auto gateway = pincer({"gateway", "--help"});
  for (const char* sub : {"install", "uninstall", "status"}) {
    EXPECT_NE(gateway.out.find(sub), std::string::npos) << sub << "\n" << gateway.out;
  }
}

TEST_F(CliConfigTest, SetAndUnsetKeepCommentsAndFormatting) {
  home_.write("pincer.json", kCommented);
  auto set = pincer({"config", "set", "gateway.port", "18801"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(set.out, "Set gateway.port = 18801 in " + config().string() + "\n");
  auto add = pincer({"config", "set", "tools.deny", "['exec']"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  auto nested = pincer({"config", "set", "agents.defaults.timeoutSeconds", "30"});
  ASSERT_EQ(nested.exit_code, 0) << nested.err;
  EXPECT_EQ(read_text(config()),
            "// my pincer config\n"
            "{\n"
            "  gateway: {\n"
            "    // the port I like\n"
            "    port: 18801,\n"
            "    bind: 'loopback', // keep local\n"
            "    auth: { mode: 'token', token: 'secret-token-1234' },\n"
            "  },\n"
            "  /* tools */\n"
            "  tools: { profile: 'coding', deny: ['exec'] },\n"
            "  agents: {\n"
            "    defaults: {\n"
            "      timeoutSeconds: 30,\n"
            "    },\n"
            "  },\n"
            "}\n");
  EXPECT_EQ(mode_of(config()), 0600u);

  auto unset = pincer({"config", "unset", "gateway.port"});
  ASSERT_EQ(unset.exit_code, 0) << unset.err;
  EXPECT_EQ(unset.out, "Removed gateway.port from " + config().string() + "\n");
  const std::string after = read_text(config());
  EXPECT_EQ(after.find("the port I like"), std::string::npos) << after;  // its comment line went with it
  EXPECT_NE(after.find("bind: 'loopback', // keep local"), std::string::npos) << after;

  auto again = pincer({"config", "unset", "gateway.port", "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out),
            (json{{"ok", true}, {"file", config().string()}, {"path", "gateway.port"}, {"changed", false}}));
  EXPECT_EQ(read_text(config()), after);
}

TEST_F(CliConfigTest, ErrorsNameThePathAndExit2WithoutTouchingTheFile) {
  home_.write("pincer.json", kCommented);
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"config", "set", "gateway.prot", "1"},
       "pincer: config set: gateway.prot: unknown config key \"prot\" in gateway, did you mean `port`? (expected one of "
       "port|bind|customBindHost|drainTimeoutMs|auth|trustedProxies|controlUi|reload|http)\n"},
      {{"config", "set", "gateway.port", "70000"},
       "pincer: config set gateway.port: not written, the result would be invalid:\n" + config().string() +
           ": gateway.port: expected integer 1..65535, got 70000\n"},
      {{"config", "set", "gateway.bind", "everywhere"},
       "pincer: config set gateway.bind: not written, the result would be invalid:\n" + config().string() +
           ": gateway.bind: expected one of loopback|lan|custom, got \"everywhere\"\n"},
      {{"config", "set", "gateway.port.x", "1"},
       "pincer: config set: gateway.port.x: gateway.port has no keys (it is integer 1..65535)\n"},
      {{"config", "set", "gateway..port", "1"},
       "pincer: config set: invalid path gateway..port: empty key at offset 8\n"},
      {{"config", "set", "gateway.port", "x", "--strict-json"},
       "pincer: config set: gateway.port: VALUE is not valid JSON5: 1:1: unexpected identifier 'x' (expected a value; "
       "strings must be quoted)\n"},
      {{"config", "get", "nope"},
       "pincer: config get: nope: unknown config key \"nope\" in the configuration (expected one of "
       "$schema|env|gateway|models|agents|tools|memory|approvals|commands|logging|session|messages|cron|hooks|skills|mcp|diagnostics|bindings|channels|plugins|meta)\n"},
      {{"config", "unset", "agents.list[0].idd"},
       "pincer: config unset: agents.list[0].idd: unknown config key \"idd\" in agents.list[0], did you mean `id`? (expected one of "
       "id|name|default|tools|binds|workspace|model|memory|contextEngine|sandbox|heartbeat|skills|subagents)\n"},
  };
  for (const auto& c : cases) {
    auto r = pincer(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[2] << ": " << r.err;
    EXPECT_EQ(r.err, c.message);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(read_text(config()), kCommented);
  }
  // No temp or probe file is left behind (the edit lock, taken before the file is read, stays).
  for (const auto& entry : std::filesystem::directory_iterator(home_.path())) {
    if (entry.path().filename() == "pincer.json.lock") continue;
    EXPECT_EQ(entry.path().filename(), "pincer.json") << entry.path();
  }
  // A file that is not JSON5 is reported with its position and left alone.
  home_.write("pincer.json", "{ gateway: { port: 1, }\n");
  auto broken = pincer({"config", "set", "gateway.port", "2"});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_EQ(broken.err, "pincer: config set: " + config().string() + ":2:1: unexpected end of input (expected ',' or '}')\n");
}

TEST_F(CliConfigTest, GetShowsFileValuesDefaultsAndMasksSecrets) {
  home_.write("pincer.json",
              "{ gateway: { port: 18800, auth: { token: 'secret-token-1234' } },\n"
              "  models: { providers: { openai: { baseUrl: 'https://api.openai.com/v1', apiKey: '${OPENAI_API_KEY}',\n"
              "    models: [{ id: 'gpt-4.1' }] } } } }\n");
  auto port = pincer({"config", "get", "gateway.port"});
  EXPECT_EQ(port.exit_code, 0) << port.err;
  EXPECT_EQ(port.out, "18800\n");
  auto bind = pincer({"config", "get", "gateway.bind", "--json"});
  EXPECT_EQ(json::parse(bind.out), (json{{"path", "gateway.bind"}, {"value", "loopback"}, {"source", "default"}}));
  auto token = pincer({"config", "get", "gateway.auth.token"});
  EXPECT_EQ(token.out, "__PINCER_REDACTED__\n");
  auto shown = pincer({"config", "get", "gateway.auth.token", "--show-secrets", "--json"});
  EXPECT_EQ(json::parse(shown.out),
            (json{{"path", "gateway.auth.token"}, {"value", "secret-token-1234"}, {"source", "file"}}));
  auto gateway = pincer({"config", "get", "gateway", "--json"});
  const json g = json::parse(gateway.out)["value"];
  EXPECT_EQ(g["auth"]["token"], "__PINCER_REDACTED__");
  EXPECT_EQ(g["port"], 18800);
  // An env reference is not a secret: it stays visible.
  auto key = pincer({"config", "get", "models.providers.openai.apiKey"});
  EXPECT_EQ(key.out, "${OPENAI_API_KEY}\n");
  auto model = pincer({"config", "get", "models.providers.openai.models[0]", "--json"});
  EXPECT_EQ(json::parse(model.out)["value"], (json{{"id", "gpt-4.1"}, {"contextWindow", 128000}, {"input", {"text"}},
                                                  {"maxTokens", 4096}, {"reasoning", false}}));
  auto missing = pincer({"config", "get", "gateway.auth.password"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "pincer: gateway.auth.password is not set in " + config().string() + " and has no default\n");
}

TEST_F(CliConfigTest, SetParsesValuesAsJson5WithAStringFallback) {
  home_.write("pincer.json", "{}\n");
  EXPECT_EQ(pincer({"config", "set", "gateway.auth.token", "1234567890123456"}).exit_code, 0);  // the key wants a string
  EXPECT_EQ(pincer({"config", "set", "agents.defaults.model", "openai/gpt-4.1"}).exit_code, 0);  // not JSON5
  EXPECT_EQ(pincer({"config", "set", "tools.allow", "[\"read\", 'exec']"}).exit_code, 0);
  EXPECT_EQ(pincer({"config", "set", "meta.note", "true", "--string"}).exit_code, 0);
  auto set = pincer({"config", "set", "gateway.auth.rateLimit.exemptLoopback", "false", "--json"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(json::parse(set.out), (json{{"ok", true},
                                        {"file", config().string()},
                                        {"path", "gateway.auth.rateLimit.exemptLoopback"},
                                        {"value", false},
                                        {"changed", true},
                                        {"created", false}}));
  auto secret = pincer({"config", "set", "gateway.auth.token", "1234567890123456", "--json"});
  EXPECT_EQ(json::parse(secret.out)["value"], "__PINCER_REDACTED__");
  EXPECT_EQ(json::parse(secret.out)["changed"], false);
  EXPECT_EQ(read_text(config()),
            "{\n"
            "  \"gateway\": {\n"
            "    \"auth\": {\n"
            "      \"token\": \"1234567890123456\",\n"
            "      \"rateLimit\": {\n"
            "        \"exemptLoopback\": false\n"
            "      }\n"
            "    }\n"
            "  },\n"
            "  \"agents\": {\n"
            "    \"defaults\": {\n"
            "      \"model\": \"openai/gpt-4.1\"\n"
            "    }\n"
            "  },\n"
            "  \"tools\": {\n"
            "    \"allow\": [\"read\", \"exec\"]\n"
            "  },\n"
            "  \"meta\": {\n"
            "    \"note\": \"true\"\n"
            "  }\n"
            "}\n");
}

TEST_F(CliConfigTest, SetOnAMissingFileCreatesAStartableConfig) {
  auto set = pincer({"config", "set", "gateway.port", "18802"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(set.out, "Created " + config().string() + " (with a new gateway token)\nSet gateway.port = 18802 in " +
                         config().string() + "\n");
  EXPECT_EQ(mode_of(config()), 0600u);
  auto validate = pincer({"config", "validate", "--json"});
  EXPECT_EQ(validate.exit_code, 0) << validate.out;
  const json v = json::parse(validate.out);
  EXPECT_EQ(v["valid"], true);
  EXPECT_EQ(v["errors"], json::array());
  EXPECT_EQ(v["warnings"], json::array({"agent \"main\" has no model: set agents.defaults.model.primary (`" +
                                        pincer_binary() + " onboard` does)"}));
}

TEST_F(CliConfigTest, ValidateReportsEveryProblem) {
  home_.write("pincer.json", "{ gateway: { port: 0, bind: 'moon' }, models: { providers: { x: { baseUrl: '${NOPE_VAR}' } } } }");
  auto text = pincer({"config", "validate"});
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_EQ(text.out, "");
  // The missing variable does not hide the other problems (its placeholder is not judged).
  EXPECT_NE(text.err.find("pincer: " + config().string() + ": missing env var \"NOPE_VAR\" referenced at config path "
                                                          "models.providers.x.baseUrl\n"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find(config().string() + ": gateway.bind: expected one of loopback|lan|custom"), std::string::npos) << text.err;
  EXPECT_EQ(text.err.find("models.providers.x.baseUrl:"), std::string::npos) << text.err;
  auto schema_errors = pincer({"config", "validate", "--json"}, {{"NOPE_VAR", "http://x"}});
  EXPECT_EQ(schema_errors.exit_code, 2);
  EXPECT_EQ(json::parse(schema_errors.out),
            (json{{"valid", false},
                  {"file", config().string()},
                  {"exists", true},
                  {"errors",
                   {config().string() + ": gateway.bind: expected one of loopback|lan|custom, got \"moon\"",
                    config().string() + ": gateway.port: expected integer 1..65535, got 0",
                    // A schema error does not hide the other checks (run on the rest of the document).
                    "gateway.auth.mode is \"token\" but no token is set: set gateway.auth.token in " + config().string() +
                        " or PINCER_GATEWAY_TOKEN, or pass --token-file"}},
                  {"warnings", {"agent \"main\" has no model: set agents.defaults.model.primary (`" + pincer_binary() +
                                " onboard` does)"}},
                  {"notes", json::array()}}));
}

// A repeated key is a warning also when the file has schema errors: text and --json carry both.
TEST_F(CliConfigTest, ValidateKeepsRepeatedKeyWarningsBesideSchemaErrors) {
  home_.write("pincer.json", "{\n  gateway: { port: 18789,\n    port: 18790, prot: 1 },\n}\n");
  const std::string repeated =
      config().string() + ":3:5: \"port\" appears again (first at line 2); the later value replaces the whole earlier one";
  const std::string unknown = config().string() + ": gateway.prot: unknown key";
  auto v = pincer({"config", "validate", "--json"});
  EXPECT_EQ(v.exit_code, 2) << v.out;
  const json doc = json::parse(v.out);
  EXPECT_EQ(doc["valid"], false);
  ASSERT_EQ(doc["errors"].size(), 2u) << v.out;  // the schema's, then the other checks' (no token)
  EXPECT_EQ(doc["errors"][0].get<std::string>().rfind(unknown, 0), 0u) << v.out;
  EXPECT_EQ(doc["errors"][1].get<std::string>().rfind("gateway.auth.mode is \"token\" but no token is set", 0), 0u) << v.out;
  ASSERT_FALSE(doc["warnings"].empty()) << v.out;
  EXPECT_EQ(doc["warnings"][0], repeated) << v.out;  // first: the load's, then the other checks' (no model)
  auto text = pincer({"config", "validate"});
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_NE(text.err.find("pincer: warning: " + repeated + "\n"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("pincer: " + unknown), std::string::npos) << text.err;
}

TEST_F(CliConfigTest, ValidateReportsTheChannelProblemsTheGatewayWouldRefuse) {
  home_.write("pincer.json", R"({ gateway: { auth: { token: 'a-gateway-token-0123456789abcdef' } },
    channels: {
      telegram: { botToken: '111:AAA', accounts: { alerts: { botToken: '111:AAA' },
                                                   hook: { botToken: '222:BBB', webhookUrl: 'https://example.org/tg' } } },
      webhook: { secret: 'a-webhook-secret-0123456789', path: '/healthz' },
    } })");
  auto v = pincer({"config", "validate", "--json"});
  EXPECT_EQ(v.exit_code, 2) << v.out;
  const json errors = json::parse(v.out)["errors"];
  ASSERT_EQ(errors.size(), 3u) << v.out;
  EXPECT_NE(errors[0].get<std::string>().find("channels.telegram.accounts.hook.webhookSecret: required with webhookUrl"),
            std::string::npos);
  EXPECT_EQ(errors[1], "channels.webhook.path: is the gateway's own /healthz endpoint");
  EXPECT_EQ(errors[2], "channels.telegram.accounts.alerts: the same bot token is already used by channels.telegram");
  // As text, each line names the file, like the schema's errors (the JSON has it in "file").
  auto text = pincer({"config", "validate"});
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_NE(text.err.find("pincer: " + config().string() + ": channels.webhook.path: is the gateway's own /healthz endpoint\n"),
            std::string::npos)
      << text.err;
  // The gateway refuses the same config with the same lines.
  auto run = pincer({"gateway", "run", "--port", "0"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("channels.webhook.path: is the gateway's own /healthz endpoint"), std::string::npos) << run.err;
}

TEST_F(CliConfigTest, SetRefusesWhatValidateWouldRejectAndLeavesTheFileAlone) {
  const std::string text = "{ gateway: { auth: { token: 'a-gateway-token-0123456789abcdef' } },\n"
                           "  channels: { telegram: { botToken: '111:AAA' } } }\n";
  home_.write("pincer.json", text);
  auto twice = pincer({"config", "set", "channels.telegram.accounts.alerts.botToken", "111:AAA"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(twice.err, "pincer: config set channels.telegram.accounts.alerts.botToken: not written, the result would be "
                       "invalid:\nchannels.telegram.accounts.alerts: the same bot token is already used by channels.telegram\n");
  auto path = pincer({"config", "set", "channels.webhook", "{secret: 'a-webhook-secret-0123456789', path: '/ready'}"});
  EXPECT_EQ(path.exit_code, 2);
  EXPECT_NE(path.err.find("channels.webhook.path: is the gateway's own /ready endpoint"), std::string::npos) << path.err;
  auto weak = pincer({"config", "set", "gateway.auth.token", "short"});
  EXPECT_EQ(weak.exit_code, 2);
  EXPECT_NE(weak.err.find("gateway.auth.token: the gateway token is 5 characters"), std::string::npos) << weak.err;
  EXPECT_EQ(read_text(config()), text);
  // What the gateway's environment may give at run time is not refused: a token left to it.
  EXPECT_EQ(pincer({"config", "unset", "gateway.auth.token"}).exit_code, 0);
  auto fine = pincer({"config", "set", "channels.telegram.accounts.alerts.botToken", "333:CCC"});
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
}

TEST_F(CliConfigTest, AMisusedCommandPrintsItsOwnUsage) {
  auto r = pincer({"agent", "--local"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("pincer: --message is required\nUsage: pincer agent [OPTIONS]", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("See pincer agent --help\n"), std::string::npos) << r.err;
  auto nested = pincer({"config", "set", "gateway.port"});
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_NE(nested.err.find("Usage: pincer config set"), std::string::npos) << nested.err;
}

TEST_F(CliConfigTest, OnboardOpenAiCompatibleThenTheGatewayAnswers) {
  MockLlm mock({"--api-key", "mock-secret"});
  auto r = pincer({"onboard", "--non-interactive", "--provider", "custom", "--base-url", mock.base_url(),
                   "--api-key-env", "MOCK_KEY", "--model", "mock-model", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json summary = json::parse(r.out);
  EXPECT_EQ(summary["created"], true);
  EXPECT_EQ(summary["provider"], "custom");
  EXPECT_EQ(summary["api"], "openai-completions");
  EXPECT_EQ(summary["apiKey"], "${MOCK_KEY}");
  EXPECT_EQ(summary["model"], "custom/mock-model");
  EXPECT_EQ(summary["port"], 18789);
  EXPECT_EQ(summary["tokenGenerated"], true);
  EXPECT_EQ(summary["workspace"], (home_.path() / "workspace").string());
  EXPECT_EQ(summary["nextSteps"].size(), 3u);
  EXPECT_NE(summary["nextSteps"][0].get<std::string>().find("pincer gateway run"), std::string::npos);
  EXPECT_NE(summary["nextSteps"][2].get<std::string>().find("pincer chat"), std::string::npos);
  EXPECT_EQ(summary["warnings"], json::array({"MOCK_KEY is not set in this shell: the gateway needs it (export "
                                              "MOCK_KEY=..., or put it in the service's environment file; see " +
                                              pincer_binary() + " gateway install)"}));
  EXPECT_TRUE(std::filesystem::exists(home_.path() / "workspace" / "AGENTS.md"));
  const std::string text = read_text(config());
  EXPECT_NE(text.find("apiKey: \"${MOCK_KEY}\""), std::string::npos) << text;
  EXPECT_EQ(text.find("mock-secret"), std::string::npos);  // the key itself is never written
  EXPECT_NE(text.find("// Model providers:"), std::string::npos) << text;
  EXPECT_EQ(mode_of(config()), 0600u);

  auto validate = pincer({"config", "validate"}, {{"MOCK_KEY", "mock-secret"}});
  EXPECT_EQ(validate.exit_code, 0) << validate.err;
  EXPECT_EQ(validate.out, config().string() + ": valid\n");

  Gateway gw(home_.path(), {}, {{"MOCK_KEY", "mock-secret"}});
  EXPECT_EQ(chat_turn(gw, "hi ECHO:onboarded"), "Hello from the mock LLM. [onboarded]");
}

TEST_F(CliConfigTest, OnboardFindsOllamaThenTheGatewayAnswers) {
  MockLlm mock;
  const std::string ollama = "http://127.0.0.1:" + std::to_string(mock.port());
  auto r = pincer({"onboard", "--non-interactive", "--ollama-url", ollama, "--port", "18803", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json summary = json::parse(r.out);
  EXPECT_EQ(summary["provider"], "ollama");
  EXPECT_EQ(summary["api"], "ollama");
  EXPECT_EQ(summary["baseUrl"], ollama);
  EXPECT_FALSE(summary.contains("apiKey")) << summary.dump();  // no key: nothing written
  EXPECT_EQ(summary["model"], "ollama/mock-model:latest");  // the first model /api/tags lists
  EXPECT_EQ(summary["port"], 18803);
  EXPECT_EQ(summary["warnings"], json::array());
  auto validate = pincer({"config", "validate", "--json"});
  EXPECT_EQ(validate.exit_code, 0) << validate.out;
  EXPECT_EQ(json::parse(validate.out)["warnings"], json::array());

  Gateway gw(home_.path());
  EXPECT_EQ(chat_turn(gw, "hello ECHO:llama"), "Hello from the mock LLM. [llama]");
}

TEST_F(CliConfigTest, OnboardPrintsThePortTheGatewayWillUse) {
  MockLlm mock;
  const std::string ollama = "http://127.0.0.1:" + std::to_string(mock.port());
  auto first = pincer({"onboard", "--non-interactive", "--ollama-url", ollama, "--port", "18803", "--json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto again = pincer({"onboard", "--non-interactive", "--ollama-url", ollama}, {{"PINCER_GATEWAY_PORT", "18804"}});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("gateway:   port 18804"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("http://127.0.0.1:18804/"), std::string::npos) << again.out;
  EXPECT_EQ(again.out.find("18789"), std::string::npos) << again.out;
  EXPECT_NE(again.err.find("PINCER_GATEWAY_PORT=18804 in this shell overrides gateway.port 18803"), std::string::npos)
      << again.err;
  auto configured = pincer({"onboard", "--non-interactive", "--ollama-url", ollama, "--json"});
  ASSERT_EQ(configured.exit_code, 0) << configured.err;
  EXPECT_EQ(json::parse(configured.out)["port"], 18803);  // gateway.port of the file
}

TEST_F(CliConfigTest, OnboardReRunEditsInPlaceAndKeepsUserComments) {
  MockLlm mock;
  const std::string ollama = "http://127.0.0.1:" + std::to_string(mock.port());
  ASSERT_EQ(pincer({"onboard", "--non-interactive", "--ollama-url", ollama}).exit_code, 0);
  // The user adds a comment and an unrelated key.
  std::string text = read_text(config());
  const std::string anchor = "  agents: {";
  ASSERT_NE(text.find(anchor), std::string::npos) << text;
  text.insert(text.find(anchor), "  // USER COMMENT: keep me\n  tools: { profile: 'full' },\n");
  home_.write("pincer.json", text);

  auto same = pincer({"onboard", "--non-interactive", "--ollama-url", ollama, "--json"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(json::parse(same.out)["changed"], json::array());
  EXPECT_EQ(read_text(config()), text);  // nothing to change: the file is untouched

  auto other = pincer({"onboard", "--non-interactive", "--provider", "openai", "--base-url", mock.base_url(),
                       "--api-key-env", "OPENAI_API_KEY", "--port", "18804", "--workspace",
                       (home_.path() / "ws2").string()},
                      {{"OPENAI_API_KEY", "k"}});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(other.out.find("Updated " + config().string() + ": gateway.port models.providers.openai.baseUrl"),
            std::string::npos)
      << other.out;
  const std::string after = read_text(config());
  EXPECT_NE(after.find("  // USER COMMENT: keep me\n  tools: { profile: 'full' },\n"), std::string::npos) << after;
  EXPECT_NE(after.find("ollama: {"), std::string::npos) << after;  // the earlier provider stays
  EXPECT_NE(after.find("primary: \"openai/gpt-4.1\""), std::string::npos) << after;
  EXPECT_NE(after.find("port: 18804,"), std::string::npos) << after;
  auto ws = pincer({"config", "get", "agents.defaults.workspace"});
  EXPECT_EQ(ws.out, (home_.path() / "ws2").string() + "\n");
  EXPECT_TRUE(std::filesystem::exists(home_.path() / "ws2" / "SOUL.md"));
}

TEST_F(CliConfigTest, OnboardRejectsBadOptions) {
  auto no_provider = pincer({"onboard", "--non-interactive", "--ollama-url", "http://127.0.0.1:9"});
  EXPECT_EQ(no_provider.exit_code, 2);
  EXPECT_EQ(no_provider.err, "pincer: onboard: --provider is required with --non-interactive "
                             "(openai|anthropic|ollama|custom); no Ollama answered at http://127.0.0.1:9\n");
  auto custom = pincer({"onboard", "--non-interactive", "--provider", "custom", "--model", "m"});
  EXPECT_EQ(custom.exit_code, 2);
  EXPECT_EQ(custom.err, "pincer: onboard: --base-url is required with --provider custom\n");
  auto env_name = pincer({"onboard", "--non-interactive", "--provider", "openai", "--api-key-env", "sk-123"});
  EXPECT_EQ(env_name.exit_code, 2);
  EXPECT_EQ(env_name.err, "pincer: onboard: --api-key-env: expected a variable name such as OPENAI_API_KEY (A-Z, 0-9, "
                          "_), got \"sk-123\"\n");
  EXPECT_FALSE(std::filesystem::exists(config()));
}

TEST_F(CliConfigTest, GatewayInstallWritesAUserUnitAndUninstallRemovesIt) {
  const auto unit = home_.path() / "xdg" / "systemd" / "user" / "pincer-gateway.service";
  auto install = pincer({"gateway", "install", "--no-start"});
  ASSERT_EQ(install.exit_code, 0) << install.err;
  EXPECT_NE(install.out.find("Wrote " + unit.string()), std::string::npos) << install.out;
  const std::string text = read_text(unit);
  EXPECT_NE(text.find("\nExecStart=" + pincer_binary() + " gateway run\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nRestart=on-failure\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nEnvironment=PINCER_HOME=" + home_.path().string() + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nEnvironmentFile=-" + (home_.path() / "gateway.env").string() + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nWantedBy=default.target\n"), std::string::npos) << text;
  // Hardening that leaves workspace commands working (issue 22 item 14; docs/security.md).
  // (PrivateTmp=yes is left out for this home under /tmp: cli_defects_test checks both cases.)
  for (const char* directive : {"NoNewPrivileges=yes", "ProtectSystem=full", "ProtectKernelTunables=yes",
                                "ProtectKernelModules=yes", "ProtectControlGroups=yes", "RestrictSUIDSGID=yes",
                                "LockPersonality=yes", "UMask=0077", "LimitNOFILE=65536"}) {
    EXPECT_NE(text.find(std::string("\n") + directive + "\n"), std::string::npos) << directive << "\n" << text;
  }
  EXPECT_EQ(text.find("\nProtectHome="), std::string::npos) << "the workspace lives in the home directory";

  auto status = pincer({"gateway", "status", "--json"}, {{"PINCER_GATEWAY_PORT", "9"}});  // nothing listens on 9
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const json s = json::parse(status.out);
  EXPECT_EQ(s["unit"]["path"], unit.string());
  EXPECT_EQ(s["unit"]["installed"], true);
  EXPECT_EQ(s["unit"]["sameBinary"], true);
  EXPECT_EQ(s["gateway"]["healthy"], false);

  auto uninstall = pincer({"gateway", "uninstall", "--no-stop"});
  ASSERT_EQ(uninstall.exit_code, 0) << uninstall.err;
  EXPECT_EQ(uninstall.out, "Removed " + unit.string() + " (not stopped: --no-stop)\n");
  EXPECT_FALSE(std::filesystem::exists(unit));
}

// EnvironmentFile= takes its value whole (systemd.exec(5)): a quoted path is "not absolute" and the
// secrets file is never read; the path is written unquoted, '%' escaped. Environment= does unquote.
TEST_F(CliConfigTest, GatewayInstallWritesPathsWithSpacesAsSystemdReadsThem) {
  const auto state = home_.path() / "my state 100%";
  std::filesystem::create_directories(state);
  const auto unit = home_.path() / "xdg" / "systemd" / "user" / "pincer-gateway.service";
  auto install = pincer({"gateway", "install", "--no-start"}, {{"PINCER_HOME", state.string()}});
  ASSERT_EQ(install.exit_code, 0) << install.err;
  const std::string text = read_text(unit);
  const std::string escaped = home_.path().string() + "/my state 100%%";
  EXPECT_NE(text.find("\nEnvironmentFile=-" + escaped + "/gateway.env\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nEnvironment=\"PINCER_HOME=" + escaped + "\"\n"), std::string::npos) << text;
  if (!std::filesystem::exists("/usr/bin/systemd-analyze")) GTEST_SKIP() << "systemd-analyze is not installed";
  Process verify({"/usr/bin/systemd-analyze", "verify", unit.string()}, {});
  const auto code = verify.wait(20s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 0) << verify.err() << verify.out();
  EXPECT_EQ(verify.err().find("EnvironmentFile"), std::string::npos) << verify.err();
  EXPECT_EQ(verify.err().find("ignoring"), std::string::npos) << verify.err();
}

TEST_F(CliConfigTest, GatewayStatusSeesARunningGateway) {
  home_.write("pincer.json", "{ gateway: { auth: { token: 'status-token-123' } } }");
  Gateway gw(home_.path());
  auto status = pincer({"gateway", "status", "--json"}, {{"PINCER_GATEWAY_PORT", std::to_string(gw.port())}});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const json s = json::parse(status.out);
  EXPECT_EQ(s["unit"]["installed"], false);
  EXPECT_EQ(s["gateway"]["url"], "http://127.0.0.1:" + std::to_string(gw.port()) + "/health");
  EXPECT_EQ(s["gateway"]["healthy"], true) << status.out;
  EXPECT_EQ(s["gateway"]["status"], 200);
}

}  // namespace
}  // namespace cli_config_test
}  // namespace pincer::test
