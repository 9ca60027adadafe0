// Two places where `config validate`, `config set`, the gateway (start and reload), doctor and
// `import openclaw` judged the same config differently, with the real binary and gateway:
//   * a model fallback naming a provider that is not configured: a warning for all of them (runs
//     skip that fallback, as OpenClaw fails over past an unknown model); a primary model of such a
//     provider stays an error for validate, which config set's warning says, and the gateway starts;
//   * an mcp.servers entry the gateway cannot start ({}, an empty command, command and url, sse
//     without a url): a warning naming its path with the reason `mcp status` gives (doctor's
//     config-only finding too, which failed them with words of its own).
// Every wait is for an observable condition with a generous deadline.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "gateway_process.h"

namespace pincer::test {
namespace config_consistency_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;

constexpr const char* kCfgConsistencyToken = "cfg-consistency-token-0123456789";
const std::string kCfgConsistencyProviders =
    "models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'mock-1' } ] } } }";

class ConfigConsistency : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env(int port = 1) const {
    return {{"PINCER_HOME", home_.path().string()},
            {"XDG_CONFIG_HOME", (home_.path() / "xdg").string()},
            {"PINCER_GATEWAY_PORT", std::to_string(port)},
            {"PINCER_GATEWAY_TOKEN", kCfgConsistencyToken},
            {"PINCER_GATEWAY_URL", "\x01"},
            {"OPENCLAW_STATE_DIR", "\x01"}};
  }
  RunResult pincer(const std::vector<std::string>& args) const { return run_pincer(args, env(), 60s); }
  void write_config(const std::string& members) const {
    home_.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kCfgConsistencyToken + "' } }, " +
                                   kCfgConsistencyProviders + (members.empty() ? "" : ", " + members) + " }\n");
  }
  TempDir home_;
};

TEST_F(ConfigConsistency, AFallbackOfAProviderNotConfiguredIsAWarningEverywhere) {
  write_config("agents: { defaults: { model: { primary: 'mock/mock-1' } } }");
  const std::string said = "agents.defaults.model.fallbacks[0]: \"zzz/y\" names the provider \"zzz\", which is not configured";

  auto set = pincer({"config", "set", "agents.defaults.model.fallbacks", "[\"zzz/y\"]"});
  EXPECT_EQ(set.exit_code, 0) << set.err;
  EXPECT_NE(set.err.find("warning: " + said), std::string::npos) << set.err;
  EXPECT_NE(set.err.find("runs skip this fallback"), std::string::npos) << set.err;
  EXPECT_EQ(set.err.find("refuse"), std::string::npos) << "validate and the gateway accept it: " << set.err;

  auto validate = pincer({"config", "validate"});
  EXPECT_EQ(validate.exit_code, 0) << validate.out << validate.err;
  EXPECT_NE(validate.err.find(said), std::string::npos) << validate.err;

  auto doctor = pincer({"doctor"});
  EXPECT_EQ((doctor.out + doctor.err).find("✗ config"), std::string::npos) << doctor.out << doctor.err;
  EXPECT_NE(doctor.out.find("✓ config: "), std::string::npos) << doctor.out;

  // The gateway starts with it and reloads an edit that adds another.
  Gateway gateway(home_.path(), {}, {{"PINCER_GATEWAY_TOKEN", "\x01"}, {"PINCER_GATEWAY_URL", "\x01"}});
  write_config("agents: { defaults: { model: { primary: 'mock/mock-1', fallbacks: ['zzz/y', 'other/x'] } } }");
  EXPECT_TRUE(gateway.wait_for_stderr("config reloaded")) << gateway.process().err();

  // A primary model of a provider not configured: validate refuses it, the gateway would start,
  // and config set's warning says exactly that.
  auto primary = pincer({"config", "set", "agents.defaults.model.primary", "nope/m"});
  EXPECT_EQ(primary.exit_code, 0) << primary.err;
  EXPECT_NE(primary.err.find("`config validate` refuses the file until that is fixed (the gateway starts, but each turn "
                             "fails with this)"),
            std::string::npos)
      << primary.err;
  EXPECT_EQ(pincer({"config", "validate"}).exit_code, 2);
}

TEST_F(ConfigConsistency, AnImportedFallbackOfAnUnmappedProviderLeavesAValidConfig) {
  TempDir openclaw;
  openclaw.write("openclaw.json",
                 "{ gateway: { auth: { mode: 'token', token: 'openclaw-token-0123456789abcdef' } },\n"
                 "  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k', api: 'openai-completions',\n"
                 "                                 models: [ { id: 'mock-1' } ] } } },\n"
                 "  agents: { defaults: { model: { primary: 'mock/mock-1', fallbacks: ['anthropic/claude-opus-4-5'] } } } }\n");
  auto imported = pincer({"import", "openclaw", "--from", openclaw.path().string()});
  ASSERT_EQ(imported.exit_code, 0) << imported.out << imported.err;
  EXPECT_NE((imported.out + imported.err).find("agents.defaults.model.fallbacks[0]: \"anthropic/claude-opus-4-5\" is not "
                                               "listed under models.providers; runs skip this fallback until it is"),
            std::string::npos)
      << imported.out << imported.err;
  auto validate = pincer({"config", "validate"});
  EXPECT_EQ(validate.exit_code, 0) << validate.out << validate.err;
  EXPECT_NE(validate.err.find("agents.defaults.model.fallbacks[0]: \"anthropic/claude-opus-4-5\" names the provider"),
            std::string::npos)
      << validate.err;
  auto doctor = pincer({"doctor"});
  EXPECT_EQ((doctor.out + doctor.err).find("✗ config"), std::string::npos) << doctor.out << doctor.err;
}

TEST_F(ConfigConsistency, UnusableMcpServersAreWarnedWithTheirPathAndReason) {
  write_config("agents: { defaults: { model: { primary: 'mock/mock-1' } } }, "
               "mcp: { servers: { empty: {}, blank: { command: '' }, both: { command: 'x', url: 'http://127.0.0.1:9/mcp' }, "
               "sse: { transport: 'sse' }, off: { enabled: false } } }");
  auto validate = pincer({"config", "validate"});
  EXPECT_EQ(validate.exit_code, 0) << validate.out << validate.err;
  for (const std::string& line : {std::string("mcp.servers.empty: neither command (stdio) nor url (HTTP) is set"),
                                  std::string("mcp.servers.blank: neither command (stdio) nor url (HTTP) is set"),
                                  std::string("mcp.servers.both: both command and url are set (choose stdio or HTTP)"),
                                  std::string("mcp.servers.sse: neither command (stdio) nor url (HTTP) is set")}) {
    EXPECT_NE(validate.err.find("warning: " + line + " — the gateway does not start this server"), std::string::npos)
        << line << "\n" << validate.err;
  }
  EXPECT_EQ(validate.err.find("mcp.servers.off"), std::string::npos) << "disabled on purpose: " << validate.err;

  // doctor without a gateway: the same reason, a warning (it said "✗ … sets neither command nor url").
  auto doctor = pincer({"doctor"});
  EXPECT_NE(doctor.out.find("! mcp: MCP server both: disabled: both command and url are set (choose stdio or HTTP)"),
            std::string::npos)
      << doctor.out;
  EXPECT_EQ(doctor.out.find("✗ mcp"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("✓ config: "), std::string::npos) << doctor.out;

  // The gateway starts and says it; `mcp status` gives the same reasons (the one check).
  Gateway gateway(home_.path(), {}, {{"PINCER_GATEWAY_TOKEN", "\x01"}, {"PINCER_GATEWAY_URL", "\x01"}});
  EXPECT_TRUE(gateway.wait_for_stderr("mcp.servers.both: both command and url are set")) << gateway.process().err();
  auto status = run_pincer({"mcp", "status"}, env(gateway.port()), 60s);
  EXPECT_NE((status.out + status.err).find("both command and url are set (choose stdio or HTTP)"), std::string::npos)
      << status.out << status.err;

  // A reload that adds one says that one too.
  const std::size_t before = gateway.process().err().size();
  write_config("agents: { defaults: { model: { primary: 'mock/mock-1' } } }, mcp: { servers: { later: { command: '' } } }");
  EXPECT_TRUE(gateway.wait_for_stderr("mcp.servers.later: neither command (stdio) nor url (HTTP) is set", before))
      << gateway.process().err();
}

// A server whose url the schema refuses gets that error alone: not also "neither command nor url
// is set", which only the removal of the refused url made true.
TEST_F(ConfigConsistency, AnMcpServerWithABadUrlGetsItsErrorNotAWarningAboutTheMissingUrl) {
  write_config("agents: { defaults: { model: { primary: 'mock/mock-1' } } }, mcp: { servers: { s3: { url: 'ftp:/bad' } } }");
  auto validate = pincer({"config", "validate"});
  EXPECT_EQ(validate.exit_code, 2) << validate.out << validate.err;
  EXPECT_NE(validate.err.find("mcp.servers.s3.url"), std::string::npos) << validate.err;
  EXPECT_EQ(validate.err.find("mcp.servers.s3: neither"), std::string::npos) << validate.err;
}

}  // namespace
}  // namespace config_consistency_test
}  // namespace pincer::test
