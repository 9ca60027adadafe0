// Config-command defects a new-user tester found, with the real binary:
//   * a missing env var does not hide the file's other problems in `config validate`, `gateway run`
//     and `doctor`; an unrelated one (a webhook secret unset in this shell) does not stop
//     `tools explain` or `memory search` (warned once on stderr);
//   * a short token given by --token or PINCER_GATEWAY_TOKEN is not said to be in pincer.json;
//   * a problem inside an $include'd file names that file; `config unset` of a value an included
//     file writes says so instead of "Removed";
//   * `config get|set|unset --json` errors are JSON on stdout.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gateway_process.h"
#include "state_files.h"

namespace pincer::test {
namespace validate_config_defects_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kCfgDefectsToken = "cfg-defects-token-0123456789abcdef";

class ConfigCommandDefects : public ::testing::Test {
 protected:
  /// This home, a gateway port nobody listens on, and none of this shell's gateway settings.
  RunResult pincer(std::vector<std::string> args, std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> env{{"PINCER_HOME", home_.path().string()}, {"PINCER_GATEWAY_PORT", "1"},
                                           {"PINCER_GATEWAY_TOKEN", "\x01"}, {"PINCER_GATEWAY_URL", "\x01"},
                                           {"CFG_DEFECTS_TOKEN", "\x01"}, {"HOOK_SECRET", "\x01"}};
    for (auto& [k, v] : extra) env[k] = v;
    return run_pincer(args, env, 30s);
  }
  std::string file() const { return (home_.path() / "pincer.json").string(); }
  static std::string config(const std::string& token, const std::string& rest) {
    return std::string("{\n  gateway: { auth: { token: '") + token + "' } },\n"
           "  models: { providers: { lab: { baseUrl: 'http://127.0.0.1:9/v1', api: 'openai-completions', apiKey: 'k', "
           "models: [ { id: 'm' } ] } } },\n" + rest + "\n}\n";
  }
  TempDir home_;
};

TEST_F(ConfigCommandDefects, AMissingEnvVarDoesNotHideTheOtherProblems) {
  home_.write("pincer.json", config("${CFG_DEFECTS_TOKEN}",
                                    "  agents: { defaults: { model: { primary: 'lab/m' } },\n"
                                    "    list: [ { id: 'a' }, { id: 'a' }, { id: 'b', model: 'nope/x' } ] },"));
  const std::string missing = file() + ": missing env var \"CFG_DEFECTS_TOKEN\" referenced at config path gateway.auth.token";
  auto r = pincer({"config", "validate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(file() + ": agents.list[1].id: duplicate agent id \"a\""), std::string::npos) << r.err;
  // Named where it is written: the entry's model is a string (no `.primary` in the file).
  EXPECT_NE(r.err.find(file() + ": agents.list[2].model: \"nope/x\""), std::string::npos) << r.err;

  r = pincer({"gateway", "run"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("duplicate agent id \"a\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"nope/x\""), std::string::npos) << r.err;

  r = pincer({"doctor"});
  EXPECT_NE(r.out.find("environment variable CFG_DEFECTS_TOKEN is not set"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("token: gateway.auth.token is ${CFG_DEFECTS_TOKEN}, which is not set here: not checked"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("duplicate agent id \"a\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"nope/x\""), std::string::npos) << r.out;
}

TEST_F(ConfigCommandDefects, AnUnrelatedMissingSecretOnlyWarnsLocalCommands) {
  home_.write("pincer.json", config(kCfgDefectsToken, "  agents: { defaults: { model: { primary: 'lab/m' } } },\n"
                                                      "  hooks: { enabled: true, token: '${HOOK_SECRET}' },"));
  const std::string warning = "pincer: warning: " + file() + ": missing env var \"HOOK_SECRET\" referenced at config path hooks.token";
  auto r = pincer({"tools", "explain"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("agent main"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(warning), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(warning), r.err.rfind(warning)) << "said once: " << r.err;

  r = pincer({"memory", "search", "anything"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(warning), std::string::npos) << r.err;

  r = pincer({"doctor"});
  EXPECT_NE(r.out.find("✗ config: environment variable HOOK_SECRET is not set"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("state:"), std::string::npos) << "doctor went on: " << r.out;
}

TEST_F(ConfigCommandDefects, AShortTokenIsNamedByItsSourceNotTheFile) {
  home_.write("pincer.json", config(kCfgDefectsToken, "  agents: { defaults: { model: { primary: 'lab/m' } } },"));
  auto r = pincer({"config", "validate"}, {{"PINCER_GATEWAY_TOKEN", "short"}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pincer: PINCER_GATEWAY_TOKEN: the gateway token is 5 characters"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(file() + ": PINCER_GATEWAY_TOKEN"), std::string::npos) << r.err;

  r = pincer({"gateway", "run", "--token", "short"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pincer: --token: the gateway token is 5 characters"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(file() + ": --token"), std::string::npos) << r.err;
}

TEST_F(ConfigCommandDefects, IncludedFilesAreNamedAndUnsetDoesNotClaimTheirValues) {
  home_.write("gw.json5", "{\n  port: 19001,\n  bind: 'loopback',\n}\n");
  home_.write("agents.json5", "{\n  defaults: { model: { primary: 'lab/m' } },\n  list: [ { id: 'a', bogus: 1 } ],\n}\n");
  home_.write("pincer.json", config(kCfgDefectsToken, "  agents: { $include: 'agents.json5' },"));
  const std::string agents_file = (home_.path() / "agents.json5").string();
  auto r = pincer({"config", "validate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("pincer: " + agents_file + ":3: list[0].bogus: unknown key"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(file() + ": agents.list[0].bogus"), std::string::npos) << r.err;
  // An invalid file is still shown with its $includes.
  r = pincer({"config", "get", "agents.defaults.model.primary"});
  EXPECT_EQ(r.out, "lab/m\n") << r.err;

  // A value only the included file writes: refused, naming it; nothing changes.
  home_.write("pincer.json", "{\n  gateway: { auth: { token: '" + std::string(kCfgDefectsToken) +
                                 "' }, $include: 'gw.json5', port: 19002 },\n}\n");
  r = pincer({"config", "unset", "gateway.bind"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gateway.bind is not set in " + file() + " itself but in " + (home_.path() / "gw.json5").string() +
                       ":3 (at bind, through $include)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("Removed"), std::string::npos) << r.out;
  // Set in both: removed here, and said that the included value applies now.
  r = pincer({"config", "unset", "gateway.port", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_TRUE(out["changed"].get<bool>());
  EXPECT_EQ(out["stillSetIn"]["file"], (home_.path() / "gw.json5").string());
  EXPECT_EQ(out["stillSetIn"]["line"], 2);
  r = pincer({"config", "get", "gateway.port"});
  EXPECT_EQ(r.out, "19001\n");
}

TEST_F(ConfigCommandDefects, JsonErrorsOfGetSetAndUnsetAreJson) {
  home_.write("pincer.json", config(kCfgDefectsToken, ""));
  for (const std::vector<std::string>& args : {std::vector<std::string>{"config", "get", "gateway.nope", "--json"},
                                               std::vector<std::string>{"config", "set", "gateway.port", "abc", "--json"},
                                               std::vector<std::string>{"config", "unset", "gateway.nope", "--json"}}) {
    auto r = pincer(args);
    EXPECT_EQ(r.exit_code, 2) << args[1];
    json out;
    ASSERT_NO_THROW(out = json::parse(r.out)) << args[1] << ": " << r.out << r.err;
    EXPECT_EQ(out["ok"], false);
    EXPECT_FALSE(out["error"]["message"].get<std::string>().empty());
    EXPECT_TRUE(r.err.empty()) << r.err;
  }
}

// doctor's fix for a syntax error in an $include'd file points at that file, not pincer.json.
TEST_F(ConfigCommandDefects, DoctorSendsAnIncludedFilesSyntaxErrorToThatFile) {
  home_.write("agents.json5", "{\n  defaults: { model: { primary: 'lab/m' } \n");  // unclosed
  home_.write("pincer.json", config(kCfgDefectsToken, "  agents: { $include: 'agents.json5' },"));
  auto doctor = pincer({"doctor"});
  EXPECT_NE(doctor.out.find("agents.json5"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("fix it in the file named above"), std::string::npos) << doctor.out;
  EXPECT_EQ(doctor.out.find("fix it in " + file()), std::string::npos) << doctor.out;
}

// config set of a secret does not echo it, and says so instead of printing the placeholder
// ("= \"__PINCER_REDACTED__\"" read as if that text had been written).
TEST_F(ConfigCommandDefects, SettingASecretSaysItIsNotShown) {
  home_.write("pincer.json", config(kCfgDefectsToken, "  agents: { defaults: { model: { primary: 'lab/m' } } },"));
  auto set = pincer({"config", "set", "hooks.token", "hook-secret-value-0123456789"});
  ASSERT_EQ(set.exit_code, 0) << set.out << set.err;
  EXPECT_NE(set.out.find("Set hooks.token (a secret: not shown) in "), std::string::npos) << set.out;
  EXPECT_EQ(set.out.find("REDACTED"), std::string::npos) << set.out;
  EXPECT_EQ(set.out.find("hook-secret-value"), std::string::npos) << set.out;
  EXPECT_NE(read_file(home_.path() / "pincer.json").find("hook-secret-value-0123456789"), std::string::npos);
}

}  // namespace
}  // namespace validate_config_defects_test
}  // namespace pincer::test
