// Findings of a second new user's pass over the CLI: what `memory promote --apply`, `import
// openclaw --dry-run`, `cron` and `config validate` print. The real binary with a temp
// PINCER_HOME; no gateway is needed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include "gateway_process.h"
#include "mock_config.h"

namespace pincer::test {
namespace cli_new_user_fixes_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kGatewayAuth = "gateway: { auth: { token: 'a-gateway-token-0123456789abcdef' } }";

class CliNewUserFixesTest : public ::testing::Test {
 protected:
  RunResult pincer(const std::vector<std::string>& args) const {
    return run_pincer(args,
                      {{"PINCER_HOME", home_.path().string()},
                       {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()},
                       {"PINCER_GATEWAY_TOKEN", "\x01"},
                       {"PINCER_GATEWAY_URL", "\x01"},
                       {"PINCER_GATEWAY_PORT", "\x01"}},
                      60s);
  }
  void write_config(const std::string& members) const {
    home_.write("pincer.json", std::string("{ ") + kGatewayAuth + (members.empty() ? "" : ", " + members) + " }\n");
  }
  TempDir home_;
};

TEST_F(CliNewUserFixesTest, PromoteApplyWithNothingToPromoteNamesNoFileAndSaysWhy) {
  write_config("");
  auto r = pincer({"memory", "promote", "--apply"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nothing promoted: dreaming is off"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("MEMORY.md"), std::string::npos) << "no file was written: " << r.out;
  EXPECT_EQ(r.out.find("promoted 0"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(home_.path() / "workspace" / "MEMORY.md"));

  write_config("plugins: { entries: { 'memory-core': { config: { dreaming: { enabled: true } } } } }");
  auto on = pincer({"memory", "promote", "--apply"});
  EXPECT_EQ(on.exit_code, 0) << on.err;
  EXPECT_NE(on.out.find("nothing promoted: no recalled snippet is waiting for promotion"), std::string::npos) << on.out;
  EXPECT_EQ(on.out.find("MEMORY.md"), std::string::npos) << on.out;
}

TEST_F(CliNewUserFixesTest, CompactOnASingleTurnSaysSoOnce) {
  MockLlm mock;
  write_config(mock_models_block({.base_url = mock.base_url(), .models = "{ id: 'mock-model' }"}) +
               ", agents: { defaults: { model: { primary: 'mock/mock-model' } } }");
  auto turn = pincer({"agent", "--local", "-m", "hello ECHO:one"});
  ASSERT_EQ(turn.exit_code, 0) << turn.out << turn.err;
  auto r = pincer({"agent", "--local", "-m", "/compact"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string said = "Nothing to compact yet: this session has one turn since its last summary";
  const auto first = r.out.find(said);
  EXPECT_NE(first, std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.out.find(said, first + 1), std::string::npos) << "said twice: " << r.out;
  EXPECT_EQ((r.out + r.err).find("Nothing was compacted: nothing to compact"), std::string::npos) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("failed"), std::string::npos) << r.out << r.err;

  auto second = pincer({"agent", "--local", "-m", "again ECHO:two"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  auto compacted = pincer({"agent", "--local", "-m", "/compact"});
  // Two turns: the engine is asked (whether a summary of so little saves room is its call).
  EXPECT_NE(compacted.out.find("Compacting the session"), std::string::npos) << compacted.out << compacted.err;
  // A summary of two short turns saves nothing: the engine declines, which is an answer, not a failure.
  EXPECT_EQ(compacted.exit_code, 0) << compacted.out << compacted.err;
  EXPECT_NE(compacted.out.find("Nothing was compacted: the summary would not make the context smaller"), std::string::npos)
      << compacted.out << compacted.err;
  EXPECT_EQ((compacted.out + compacted.err).find("failed"), std::string::npos) << compacted.out << compacted.err;
}

TEST_F(CliNewUserFixesTest, ValidateRejectsAModelOfAProviderThatIsNotConfigured) {
  const std::string providers =
      "models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'mock-1' } ] } } }";
  write_config(providers + ", agents: { defaults: { model: { primary: 'nope/mock-1', fallbacks: ['mock/mock-1'] } }, "
                           "list: [ { id: 'main' }, { id: 'helper', model: { primary: 'mock/mock-1', fallbacks: ['gone/x'] } } ] }");
  auto r = pincer({"config", "validate"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("agents.defaults.model.primary: \"nope/mock-1\" names the provider \"nope\", which is not configured"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("agents.list[1].model.fallbacks[0]: \"gone/x\" names the provider \"gone\""), std::string::npos) << r.err;

  // A configured provider with a model it does not list: a warning, as docs/cli.md says and as
  // `config set` accepted it (the provider may serve more than the config lists; each run says
  // the same); a CLI backend is known.
  write_config(providers + ", agents: { defaults: { model: { primary: 'mock/other', fallbacks: ['claude-cli/opus'] } } }");
  auto typo = pincer({"config", "validate"});
  EXPECT_EQ(typo.exit_code, 0) << typo.out << typo.err;
  EXPECT_NE(typo.err.find("warning: agents.defaults.model.primary: \"mock/other\" (agent \"main\"): unknown model \"mock/other\" "
                          "(configured: mock/mock-1)"),
            std::string::npos)
      << typo.err;
  EXPECT_EQ(typo.err.find("claude-cli"), std::string::npos) << typo.err;

  // Named only by an auth profile: still an error (a profile gives credentials, not models: runs
  // resolve models from models.providers only, so every turn would fail), saying so.
  write_config(providers + ", agents: { defaults: { model: { primary: 'nope/mock-1' } } }");
  home_.write("agents/main/agent/auth-profiles.json",
              R"({"version":1,"profiles":{"nope:a":{"type":"api_key","provider":"nope","key":"k-0123456789"}}})");
  auto profiled = pincer({"config", "validate"});
  EXPECT_EQ(profiled.exit_code, 2) << profiled.err;
  EXPECT_EQ(profiled.err.find("warning: agents.defaults.model.primary: \"nope/mock-1\""), std::string::npos) << profiled.err;
  EXPECT_NE(profiled.err.find("agents.defaults.model.primary: \"nope/mock-1\" names the provider \"nope\""),
            std::string::npos)
      << profiled.err;
  EXPECT_NE(profiled.err.find("an auth profile names that provider"), std::string::npos) << profiled.err;
}

TEST_F(CliNewUserFixesTest, AuthAddRefusesAnExpiryThatIsNotMillisecondsAndAnEmptyId) {
  write_config("models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'mock-1' } ] } } }");
  home_.write("t.key", "TokenValue0123456789abcdef\n");
  const std::string key = (home_.path() / "t.key").string();
  // A negative expiry was stored as none (the token listed as usable); seconds as expired at once.
  for (const std::string expires : {"-5", "1767225600"}) {
    auto r = pincer({"models", "auth", "add", "--provider", "mock", "--type", "token", "--expires", expires, "--key-file", key});
    EXPECT_EQ(r.exit_code, 2) << expires << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("--expires " + expires + ": expected the expiry in milliseconds since the epoch"), std::string::npos)
        << r.err;
  }
  EXPECT_NE(pincer({"models", "auth", "add", "--provider", "mock", "--type", "token", "--expires", "1767225600",
                    "--key-file", key}).err.find("this looks like seconds"),
            std::string::npos);
  auto empty_id = pincer({"models", "auth", "add", "--provider", "mock", "--id", "", "--key-file", key});
  EXPECT_EQ(empty_id.exit_code, 2) << empty_id.out << empty_id.err;
  EXPECT_NE(empty_id.err.find("--id is empty"), std::string::npos) << empty_id.err;
  // Nothing was stored by any of them; a valid one is.
  EXPECT_FALSE(std::filesystem::exists(home_.path() / "agents" / "main" / "agent" / "auth-profiles.json"));
  auto ok = pincer({"models", "auth", "add", "--provider", "mock", "--type", "token", "--expires", "4102444800000", "--key-file", key});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  auto listed = pincer({"models", "auth", "list", "--json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const json rows = json::parse(listed.out)["profiles"];
  ASSERT_EQ(rows.size(), 1u) << listed.out;
  EXPECT_EQ(rows[0]["id"], "mock:default");
  EXPECT_EQ(rows[0]["expires"], 4102444800000LL) << listed.out;
}

TEST_F(CliNewUserFixesTest, MisusedArgumentsAreNamedInOurWords) {
  auto bogus = pincer({"--bogus"});
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_NE(bogus.err.find("pincer: unknown option \"--bogus\": a command comes first"), std::string::npos) << bogus.err;
  EXPECT_EQ(bogus.err.find("A subcommand is required"), std::string::npos) << bogus.err;

  auto port = pincer({"gateway", "run", "--port", "abc"});
  EXPECT_EQ(port.exit_code, 2);
  EXPECT_NE(port.err.find("pincer: --port: \"abc\" is not a whole number"), std::string::npos) << port.err;
  EXPECT_NE(port.err.find("See pincer gateway run --help"), std::string::npos) << port.err;
}

TEST_F(CliNewUserFixesTest, DoctorGivesNoChmodAdviceForAConfigPathThatIsADirectory) {
  std::filesystem::create_directories(home_.path() / "pincer.json");
  ::chmod((home_.path() / "pincer.json").c_str(), 0755);
  auto r = pincer({"doctor"});
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE((r.out + r.err).find("not a regular file"), std::string::npos) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("chmod 700 " + (home_.path() / "pincer.json").string()), std::string::npos) << r.out << r.err;
}

TEST_F(CliNewUserFixesTest, ABindingToAnAgentThatDoesNotExistIsWarnedAbout) {
  const std::string binding = "bindings: [ { agentId: 'work', match: { channel: 'telegram' } } ]";
  write_config(binding);
  auto r = pincer({"config", "validate"});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // OpenClaw accepts it too: routing falls back to the default agent
  EXPECT_NE(r.err.find("warning: bindings[0].agentId: no agent \"work\" in agents.list: the messages it matches go to "
                       "the default agent \"main\""),
            std::string::npos)
      << r.err;
  write_config(binding + ", agents: { list: [ { id: 'main', default: true }, { id: 'work' } ] }");
  auto fixed = pincer({"config", "validate"});
  EXPECT_EQ(fixed.err.find("bindings[0]"), std::string::npos) << fixed.err;
}

}  // namespace
}  // namespace cli_new_user_fixes_test
}  // namespace pincer::test
