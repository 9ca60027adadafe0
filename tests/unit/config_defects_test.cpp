// Config-check defects a new-user tester found (cli::check_config_file, src/cli/config_checks.h;
// config::value_origins and load_keeping_missing_env, src/core/config.h; json5::line_of):
//   * a missing env var does not hide the file's other problems;
//   * a duplicate agent id does not hide a later dangling model reference;
//   * a short gateway token from a flag or the environment is named by that source, not the file;
//   * a problem inside an $include'd file names that file, its line and the path there;
//   * a binding to a channel Pincer does not run, and two agents marked default, are warned of.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/config_checks.h"
#include "cli/config_file.h"
#include "core/config.h"
#include "core/ids.h"
#include "core/json5_edit.h"

namespace pincer {
namespace config_defects_test {  // named: the unity build puts several test files in one unit
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

/// A private directory for one test's config files, removed afterwards.
class ConfigDefects : public ::testing::Test {
 protected:
  ConfigDefects()
      : dir_(fs::temp_directory_path() / ("pincer-cfg-defects-" + std::to_string(::getpid()) + "-" + ids::random_token(6))) {
    fs::create_directories(dir_);
  }
  ~ConfigDefects() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path file = dir_ / name;
    std::ofstream(file) << text;
    return file;
  }
  static config::EnvLookup env_of(std::map<std::string, std::string> vars) {
    return [vars](const std::string& name) -> std::optional<std::string> {
      auto it = vars.find(name);
      return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  }
  fs::path dir_;
};

constexpr const char* kDefectsToken = "a-gateway-token-0123456789abcdef";
constexpr const char* kDefectsProvider =
    "models: { providers: { openai: { baseUrl: 'https://api.openai.com/v1', apiKey: 'k', models: [ { id: 'gpt-4o' } ] } } }";

std::string defects_config(const std::string& token, const std::string& rest) {
  return std::string("{ gateway: { auth: { token: '") + token + "' } }, " + kDefectsProvider + ",\n" + rest + " }";
}

TEST_F(ConfigDefects, AMissingEnvVarDoesNotHideTheOtherProblems) {
  const fs::path file = write("pincer.json", defects_config("${DEFECTS_TOKEN}",
      "agents: { defaults: { model: { primary: 'openai/gpt-4o' } },\n"
      "  list: [ { id: 'a' }, { id: 'a' }, { id: 'b', model: 'nope/x' } ] },\n"
      "hooks: { enabled: true, token: '${DEFECTS_HOOK_SECRET}' }"));
  const auto report = cli::check_config_file(file, env_of({}));
  const auto& errors = report.problems.errors;
  EXPECT_FALSE(report.loaded) << "the gateway must not start without the variables";
  EXPECT_THAT(errors, Contains(file.string() + ": missing env var \"DEFECTS_TOKEN\" referenced at config path gateway.auth.token"));
  EXPECT_THAT(errors, Contains(file.string() + ": missing env var \"DEFECTS_HOOK_SECRET\" referenced at config path hooks.token"));
  // The rest, checked with the references as placeholders.
  EXPECT_THAT(errors, Contains(HasSubstr("agents.list[1].id: duplicate agent id \"a\" (also agents.list[0])")));
  EXPECT_THAT(errors, Contains(HasSubstr("agents.list[2].model: \"nope/x\" names the provider \"nope\"")));
  // A placeholder's value is not judged (the missing variable says it).
  EXPECT_THAT(errors, Not(Contains(HasSubstr("hooks.token:"))));
  EXPECT_THAT(errors, Not(Contains(HasSubstr("gateway.auth.token:"))));

  // With the variables set, the same file has only its own problems.
  const auto set = cli::check_config_file(file, env_of({{"DEFECTS_TOKEN", kDefectsToken}, {"DEFECTS_HOOK_SECRET", "a-hook-secret-0123456789"}}));
  EXPECT_THAT(set.problems.errors, Not(Contains(HasSubstr("missing env var"))));
  EXPECT_THAT(set.problems.errors, Contains(HasSubstr("duplicate agent id")));

  // A local command reads the file with the placeholders and names what is missing.
  auto kept = config::load_keeping_missing_env(write("ok.json", defects_config("${DEFECTS_TOKEN}", "hooks: { token: '${DEFECTS_HOOK_SECRET}' }")),
                                               env_of({{"DEFECTS_TOKEN", kDefectsToken}}));
  ASSERT_TRUE(kept) << kept.error().message;
  ASSERT_EQ(kept->missing_env.size(), 1u);
  EXPECT_EQ(kept->missing_env[0].name, "DEFECTS_HOOK_SECRET");
  EXPECT_EQ(kept->missing_env[0].path, "hooks.token");
  EXPECT_EQ(kept->effective["hooks"]["token"], "${DEFECTS_HOOK_SECRET}");
  EXPECT_EQ(kept->effective["gateway"]["auth"]["token"], kDefectsToken);
}

TEST_F(ConfigDefects, ADuplicateAgentIdDoesNotHideALaterDanglingModel) {
  const fs::path file = write("pincer.json", defects_config(kDefectsToken,
      "agents: { defaults: { model: { primary: 'openai/gpt-4o' } },\n"
      "  list: [ { id: 'a' }, { id: 'a' }, { id: 'b', model: 'nope/x' } ] }"));
  const auto& errors = cli::check_config_file(file, env_of({})).problems.errors;
  EXPECT_THAT(errors, Contains("agents.list[1].id: duplicate agent id \"a\" (also agents.list[0])"));
  EXPECT_THAT(errors, Contains(HasSubstr("agents.list[2].model: \"nope/x\" names the provider \"nope\", which is not configured")));
}

TEST_F(ConfigDefects, AShortTokenIsNamedByItsSourceNotTheFile) {
  const fs::path file = write("pincer.json", defects_config(kDefectsToken, "agents: { defaults: { model: { primary: 'openai/gpt-4o' } } }"));
  const auto by_env = cli::check_config_file(file, env_of({{"PINCER_GATEWAY_TOKEN", "short"}}));
  ASSERT_EQ(by_env.problems.errors.size(), 1u) << ::testing::PrintToString(by_env.problems.errors);
  const std::string env_line = cli::naming_file(by_env.problems.errors[0], file);
  EXPECT_THAT(env_line, HasSubstr("PINCER_GATEWAY_TOKEN: the gateway token is 5 characters"));
  EXPECT_THAT(env_line, HasSubstr("PINCER_GATEWAY_TOKEN is set in this environment and overrides gateway.auth.token"));
  EXPECT_THAT(env_line, Not(HasSubstr(file.string())));

  cli::ConfigCheckOptions flag;
  flag.flags.token = "short";
  const auto by_flag = cli::check_config_file(file, env_of({}), flag);
  ASSERT_EQ(by_flag.problems.errors.size(), 1u) << ::testing::PrintToString(by_flag.problems.errors);
  const std::string flag_line = cli::naming_file(by_flag.problems.errors[0], file);
  EXPECT_THAT(flag_line, HasSubstr("--token: the gateway token is 5 characters"));
  EXPECT_THAT(flag_line, Not(HasSubstr(file.string())));

  // The file's own short token is still the file's.
  const fs::path own = write("own.json", defects_config("short", ""));
  const auto by_file = cli::check_config_file(own, env_of({}));
  ASSERT_FALSE(by_file.problems.errors.empty());
  EXPECT_THAT(cli::naming_file(by_file.problems.errors[0], own), HasSubstr(own.string() + ": gateway.auth.token: the gateway token is 5"));
}

TEST_F(ConfigDefects, AProblemInAnIncludedFileNamesThatFileAndLine) {
  write("agents.json5", "{\n  defaults: { model: { primary: 'openai/gpt-4o' } },\n  list: [\n    { id: 'a' },\n"
                        "    { id: 'b', bogus: 1 },\n    { id: 'a' },\n  ]\n}\n");
  const fs::path file = write("pincer.json", defects_config(kDefectsToken, "agents: { $include: 'agents.json5' }"));
  const fs::path included = dir_ / "agents.json5";
  const auto& errors = cli::check_config_file(file, env_of({})).problems.errors;
  EXPECT_THAT(errors, Contains(HasSubstr(included.string() + ":5: list[1].bogus: unknown key")));
  EXPECT_THAT(errors, Contains(HasSubstr("(agents.list[1].bogus of " + file.string() + ", through $include)")));
  EXPECT_THAT(errors, Contains(HasSubstr(included.string() + ":6: list[2].id: duplicate agent id \"a\"")));
  EXPECT_THAT(errors, Not(Contains(HasSubstr(file.string() + ": agents.list"))));

  // value_origins: a sibling key wins over the included one; a missing key names the object above.
  write("gw.json5", "{\n  port: 19001,\n  bind: 'loopback',\n}\n");
  const fs::path top = write("top.json", "{\n  gateway: {\n    $include: 'gw.json5',\n    port: 19002,\n  },\n}\n");
  const auto o = config::value_origins(top, {"gateway.port", "gateway.bind", "gateway.auth.token", "nope["});
  EXPECT_EQ(o[0].file, top);
  EXPECT_EQ(o[0].line, 4u);
  EXPECT_FALSE(o[0].included);
  EXPECT_EQ(o[1].file, dir_ / "gw.json5");
  EXPECT_EQ(o[1].path, "bind");
  EXPECT_EQ(o[1].line, 3u);
  EXPECT_TRUE(o[1].included && o[1].present);
  EXPECT_FALSE(o[2].present);
  EXPECT_EQ(o[2].path, "gateway.auth.token");
  EXPECT_TRUE(o[3].file.empty());
  // json5::line_of: the later of a repeated key, 0 for what is not there.
  EXPECT_EQ(json5::line_of("{\n a: 1,\n b: { c: [1,\n 2] },\n a: 3 }", {std::string("a")}), 5u);
  EXPECT_EQ(json5::line_of("{\n a: 1,\n b: { c: [1,\n 2] },\n a: 3 }", {std::string("b"), std::string("c"), std::size_t{1}}), 4u);
  EXPECT_EQ(json5::line_of("{ a: 1 }", {std::string("z")}), 0u);
}

TEST_F(ConfigDefects, AnUnknownBindingChannelAndTwoDefaultAgentsAreWarnedOf) {
  const fs::path file = write("pincer.json", defects_config(kDefectsToken,
      "agents: { defaults: { model: { primary: 'openai/gpt-4o' } },\n"
      "  list: [ { id: 'a' }, { id: 'b', default: true }, { id: 'c', default: true } ] },\n"
      "bindings: [ { agentId: 'a', match: { channel: 'tg' } }, { agentId: 'b', match: { channel: ' Telegram ' } } ]"));
  const auto report = cli::check_config_file(file, env_of({}));
  EXPECT_TRUE(report.problems.errors.empty()) << ::testing::PrintToString(report.problems.errors);
  const auto& warnings = report.problems.warnings;
  EXPECT_THAT(warnings, Contains(HasSubstr("bindings[0].match.channel: \"tg\" is not a channel Pincer runs (known: telegram, discord")));
  EXPECT_THAT(warnings, Not(Contains(HasSubstr("bindings[1]"))));
  EXPECT_THAT(warnings, Contains("agents.list[2].default: 2 agents are marked default (agents.list[1] \"b\", agents.list[2] \"c\"): "
                                 "the first, \"b\", is the default agent (remove default: true from the others)"));
}

}  // namespace
}  // namespace config_defects_test
}  // namespace pincer
