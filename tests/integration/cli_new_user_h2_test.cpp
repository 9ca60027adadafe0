// A new user's findings about the CLI's wording and results (config validate, config get, onboard,
// agents add, the slash commands of skills, health while the gateway drains): the real binary with
// a temp PINCER_HOME; no gateway unless a test starts one.
#include <signal.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gateway_process.h"
#include "mock_config.h"
#include "state_files.h"
#include "ws_client.h"

namespace pincer::test {
namespace cli_new_user_h2_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kGatewayAuth = "gateway: { auth: { token: 'a-gateway-token-0123456789abcdef' } }";

class CliNewUserH2Test : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env() const { return isolated_cli_env(home_.path()); }
  RunResult pincer(const std::vector<std::string>& args) const { return run_pincer(args, env(), 60s); }
  /// `pincer <args>` run in the folder `cwd`.
  RunResult pincer_in(const std::filesystem::path& cwd, const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {"/bin/sh", "-c", "cd \"$1\" && shift && exec \"$@\"", "sh", cwd.string(), pincer_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    Process p(argv, env());
    RunResult r;
    r.exit_code = p.wait(60s).value_or(-1);
    r.out = p.out();
    r.err = p.err();
    return r;
  }
  void write_config(const std::string& members) const {
    home_.write("pincer.json", std::string("{ ") + kGatewayAuth + (members.empty() ? "" : ", " + members) + " }\n");
  }
  TempDir home_;
};

TEST_F(CliNewUserH2Test, ValidateWarnsOfAProviderThatListsNoModels) {
  write_config("models: { providers: { empty: { baseUrl: 'http://127.0.0.1:9/v1', models: [] }, "
               "bare: { baseUrl: 'http://127.0.0.1:9/v1' }, "
               "ok: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'm' } ] } } }, "
               "agents: { defaults: { model: { primary: 'ok/m' } } }");
  auto r = pincer({"config", "validate"});
  EXPECT_EQ(r.exit_code, 0) << "a warning, not an error (OpenClaw accepts the file): " << r.out << r.err;
  EXPECT_NE(r.err.find("warning: models.providers.empty.models: empty: no agent can use a model of the provider \"empty\""),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("models.providers.bare"), std::string::npos) << "no models key: left alone " << r.err;
  EXPECT_EQ(r.err.find("models.providers.ok"), std::string::npos) << r.err;
  auto j = pincer({"config", "validate", "--json"});
  const json doc = json::parse(j.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << j.out << j.err;
  EXPECT_EQ(doc["valid"], true);
  EXPECT_NE(doc["warnings"].dump().find("models.providers.empty.models: empty"), std::string::npos) << doc.dump();

  // An agent's model naming that provider: one warning (the reference's), not two.
  write_config("models: { providers: { empty: { baseUrl: 'http://127.0.0.1:9/v1', models: [] } } }, "
               "agents: { defaults: { model: { primary: 'empty/m' } } }");
  auto ref = pincer({"config", "validate"});
  EXPECT_NE(ref.err.find("agents.defaults.model.primary: \"empty/m\" names the provider \"empty\", whose "
                         "models.providers.empty.models lists no models"),
            std::string::npos)
      << ref.err;
  EXPECT_EQ(ref.err.find("models.providers.empty.models: empty"), std::string::npos) << ref.err;
}

TEST_F(CliNewUserH2Test, OnboardSaysWhereARelativeWorkspaceIsAsAnAbsolutePath) {
  TempDir outside;  // the current directory, not the home
  std::filesystem::create_directories(outside.path() / "a" / "b");
  const std::vector<std::string> args = {"onboard", "--non-interactive", "--provider", "openai", "--api-key",
                                         "sk-test-0123456789", "--model", "gpt-4o", "--workspace", "../../rel/ws"};
  auto r = pincer_in(outside.path() / "a" / "b", args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // As OpenClaw's resolveUserPath: from the current directory.
  const std::filesystem::path ws = outside.path() / "rel" / "ws";
  EXPECT_TRUE(std::filesystem::is_directory(ws));
  EXPECT_NE(r.out.find("  workspace: " + ws.string() + " (created"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(../../rel/ws is relative: resolved from the current directory " + (outside.path() / "a" / "b").string() +
                       "; agents.defaults.workspace holds the absolute path)"),
            std::string::npos)
      << r.out;
  auto got = pincer({"config", "get", "agents.defaults.workspace"});
  EXPECT_EQ(got.out, ws.string() + "\n") << got.err;

  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  auto j = pincer_in(outside.path() / "a" / "b", json_args);
  const json doc = json::parse(j.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << j.out << j.err;
  EXPECT_EQ(doc["workspace"], ws.string());
  EXPECT_EQ(doc["workspaceGiven"], json({{"path", "../../rel/ws"}, {"relativeTo", (outside.path() / "a" / "b").string()}}));

  // An absolute one needs no note.
  auto abs = pincer_in(outside.path(), {"onboard", "--non-interactive", "--provider", "openai", "--api-key", "sk-test-0123456789",
                                        "--model", "gpt-4o", "--workspace", ws.string()});
  ASSERT_EQ(abs.exit_code, 0) << abs.err;
  EXPECT_EQ(abs.out.find("is relative"), std::string::npos) << abs.out;
}

TEST_F(CliNewUserH2Test, AgentsAddNamesTheStateDirectoryAWorkspaceIsIn) {
  write_config("");
  const std::filesystem::path state = home_.path();
  const std::string rule = " (in the state directory only " + (state / "workspace").string() + " and " +
                           (state / "workspace-<id>").string() + " folders may be workspaces)";
  auto top = pincer({"agents", "add", "ops", "--workspace", (state / "ops").string()});
  EXPECT_EQ(top.exit_code, 2) << top.out;
  EXPECT_NE(top.err.find("workspace " + (state / "ops").string() + " is inside Pincer's state directory " + state.string() + rule),
            std::string::npos)
      << top.err;
  auto deep = pincer({"agents", "add", "ops", "--workspace", (state / "agents" / "ops").string()});
  EXPECT_EQ(deep.exit_code, 2) << deep.out;
  EXPECT_NE(deep.err.find("workspace " + (state / "agents" / "ops").string() + " is inside Pincer's folder " +
                          (state / "agents").string() + " of its state directory " + state.string() + rule),
            std::string::npos)
      << deep.err;
  EXPECT_EQ(pincer({"agents", "list", "--json"}).out.find("\"ops\""), std::string::npos) << "nothing was added";
}

TEST_F(CliNewUserH2Test, ConfigGetSaysWhenDefaultsCompleteTheValue) {
  write_config("");
  auto source_of = [&](const std::string& path, bool secrets = false) {
    std::vector<std::string> args = {"config", "get", path, "--json"};
    if (secrets) args.push_back("--show-secrets");
    auto r = pincer(args);
    EXPECT_EQ(r.exit_code, 0) << path << ": " << r.err;
    const json doc = json::parse(r.out, nullptr, false);
    EXPECT_TRUE(doc.is_object()) << r.out;
    return doc.is_object() ? doc : json::object();
  };
  // The file writes gateway.auth.token only: gateway and gateway.auth are completed by defaults.
  for (const char* path : {"gateway", "gateway.auth"}) {
    const json doc = source_of(path);
    EXPECT_EQ(doc["source"], "file+default") << doc.dump();
  }
  const json gateway = source_of("gateway");
  EXPECT_EQ(gateway["value"]["port"], 18789) << gateway.dump();
  EXPECT_EQ(gateway["value"]["auth"]["token"], "__PINCER_REDACTED__") << gateway.dump();
  // --show-secrets shows the same value, unmasked (it showed the file's object, without the defaults).
  const json shown = source_of("gateway", true);
  EXPECT_EQ(shown["source"], "file+default");
  EXPECT_EQ(shown["value"]["port"], 18789) << shown.dump();
  EXPECT_EQ(shown["value"]["auth"]["token"], "a-gateway-token-0123456789abcdef");
  EXPECT_EQ(source_of("gateway.port")["source"], "default");
  EXPECT_EQ(source_of("gateway.auth.token")["source"], "file");
  EXPECT_EQ(source_of("gateway.auth.token")["value"], "__PINCER_REDACTED__");
  write_config("models: { providers: { m: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'x', contextWindow: 1000 } ] } } }");
  EXPECT_EQ(source_of("models.providers.m.models[0].contextWindow")["source"], "file");
  EXPECT_EQ(source_of("models.providers.m.models[0]")["source"], "file+default");  // its maxTokens, input …
}

TEST_F(CliNewUserH2Test, SkillCommandMissesSayWhatToTypeOrThatTheSkillIsDisabled) {
  write_config("models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k', models: [ { id: 'm' } ] } } }, "
               "agents: { defaults: { model: { primary: 'mock/m' } } }, "
               "skills: { entries: { blocked: { enabled: false } } }");
  home_.write("workspace/skills/my-skill/SKILL.md", "---\nname: My Skill\ndescription: Two words.\n---\nBody.\n");
  home_.write("workspace/skills/blocked/SKILL.md", "---\nname: blocked\ndescription: Turned off.\n---\nBody.\n");
  auto spaced = pincer({"agent", "--local", "-m", "/skill My Skill"});
  EXPECT_NE(spaced.out.find("\"My Skill\" is the skill \"My Skill\": type its command word, /my_skill [input] "
                            "(or /skill my_skill [input])"),
            std::string::npos)
      << spaced.out << spaced.err;
  EXPECT_EQ(spaced.out.find("No such skill command"), std::string::npos) << spaced.out;
  auto blocked = pincer({"agent", "--local", "-m", "/skill blocked"});
  EXPECT_NE(blocked.out.find("The skill \"blocked\" is not available to this agent: disabled in skills.entries.blocked.enabled. "
                             "To run it, set skills.entries.blocked.enabled to true in pincer.json."),
            std::string::npos)
      << blocked.out << blocked.err;
  EXPECT_EQ(blocked.out.find("No such skill command"), std::string::npos) << blocked.out;
  auto own_word = pincer({"agent", "--local", "-m", "/blocked"});
  EXPECT_NE(own_word.out.find("is not available to this agent"), std::string::npos) << own_word.out << own_word.err;
  // Still the usage for a name that is no skill.
  auto unknown = pincer({"agent", "--local", "-m", "/skill nosuch"});
  EXPECT_NE(unknown.out.find("No such skill command. Usage: /skill NAME [input]"), std::string::npos) << unknown.out;
}

TEST_F(CliNewUserH2Test, AgentsAddRefusesAModelOfAProviderThatIsNotConfiguredAndWritesNothing) {
  const std::string members = "models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'm' } ] } } }, "
                              "agents: { defaults: { model: { primary: 'mock/m' } } }";
  write_config(members);
  const std::string before = read_file(home_.path() / "pincer.json");
  auto r = pincer({"agents", "add", "ops", "--model", "nosuch/x"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  const std::string validate_line = "agents.list[1].model: \"nosuch/x\" names the provider \"nosuch\", which is not configured";
  EXPECT_NE(r.err.find("agents add: not written, " + (home_.path() / "pincer.json").string() + " would not validate:"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(validate_line), std::string::npos) << r.err;
  EXPECT_EQ(read_file(home_.path() / "pincer.json"), before) << "nothing written";
  EXPECT_FALSE(std::filesystem::exists(home_.path() / "workspace-ops")) << "no workspace made";
  auto validate = pincer({"config", "validate"});
  EXPECT_EQ(validate.exit_code, 0) << validate.err;
  auto j = pincer({"agents", "add", "ops", "--model", "nosuch/x", "--json"});
  EXPECT_EQ(j.exit_code, 2);
  const json doc = json::parse(j.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << j.out;
  EXPECT_EQ(doc["error"]["code"], "INVALID_MODEL") << doc.dump();

  // No config yet: the same (the file is not created).
  std::filesystem::remove(home_.path() / "pincer.json");
  auto fresh = pincer({"agents", "add", "ops", "--model", "nosuch/x"});
  EXPECT_EQ(fresh.exit_code, 2) << fresh.out;
  EXPECT_FALSE(std::filesystem::exists(home_.path() / "pincer.json"));

  // A model its configured provider does not list: still a warning (validate's too), written.
  write_config(members);
  auto unlisted = pincer({"agents", "add", "ops", "--model", "mock/other"});
  EXPECT_EQ(unlisted.exit_code, 0) << unlisted.err;
  EXPECT_NE(unlisted.err.find("warning: "), std::string::npos) << unlisted.err;
  EXPECT_EQ(pincer({"config", "validate"}).exit_code, 0);
}

TEST_F(CliNewUserH2Test, HealthDuringTheShutdownDrainSaysTheGatewayIsStopping) {
  MockLlm mock;
  const std::string token = "a-gateway-token-0123456789abcdef";
  home_.write("pincer.json", mock_config({.token = token, .provider = {.base_url = mock.base_url(), .models = "{ id: 'mock-model' }"}}));
  Gateway gateway(home_.path());
  auto cli_env = env();
  cli_env["PINCER_GATEWAY_PORT"] = std::to_string(gateway.port());
  WsClient client(gateway.port());
  ASSERT_TRUE(handshake(client, connect_params(token)));
  auto ack = client.request("chat.send", {{"sessionKey", "main"}, {"message", "hold on MOCK_HOLD:h2drain"}, {"idempotencyKey", "h2-drain"}});
  ASSERT_EQ(ack["ok"], true) << ack.dump();
  ASSERT_TRUE(wait_for_held(mock, "h2drain"));
  gateway.process().signal(SIGTERM);
  bool told = false;  // the drain has begun: the socket accepts no connection, the turn still runs
  for (int i = 0; i < 200 && !told; ++i) {
    auto f = client.recv(20s);
    if (!f) break;
    told = (*f)["event"] == "shutdown";
  }
  ASSERT_TRUE(told) << "no shutdown event";
  auto r = run_pincer({"health"}, cli_env, 60s);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("is shutting down: it accepts no connection while it finishes its running turns and replies"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("Start it with"), std::string::npos) << r.err;
  http_request(mock.port(), "POST", "/__mock/release?name=h2drain");
  ASSERT_TRUE(gateway.process().wait(60s));
  // Stopped: the usual advice again.
  auto after = run_pincer({"health"}, cli_env, 60s);
  EXPECT_NE(after.err.find("Start it with"), std::string::npos) << after.err;
  EXPECT_EQ(after.err.find("shutting down"), std::string::npos) << after.err;
}

}  // namespace
}  // namespace cli_new_user_h2_test
}  // namespace pincer::test
