// cli::check_config_file (src/cli/config_checks.h): the one report of a config file that `config
// validate` prints and `gateway run` refuses with — a schema error does not hide the other checks —
// and cli::references_left_by_removal (src/cli/config_file.h), what `config unset` refuses.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/config_checks.h"
#include "cli/config_file.h"
#include "core/ids.h"

namespace pincer {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

/// A private directory for one test's pincer.json, removed afterwards.
class ConfigFileReportTest : public ::testing::Test {
 protected:
  ConfigFileReportTest()
      : dir_(fs::temp_directory_path() / ("pincer-report-test-" + std::to_string(::getpid()) + "-" + ids::random_token(6))) {
    fs::create_directories(dir_);
  }
  ~ConfigFileReportTest() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& text) const {
    const fs::path file = dir_ / "pincer.json";
    std::ofstream(file) << text;
    return file;
  }
  static config::EnvLookup no_env() {
    return [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  }
  fs::path dir_;
};

constexpr const char* kAuth = "gateway: { auth: { token: 'a-gateway-token-0123456789abcdef' } }";

TEST_F(ConfigFileReportTest, ASchemaErrorDoesNotHideTheOtherChecks) {
  const fs::path file = write(std::string("{ ") + kAuth +
                              ", agents: { list: [ { id: 'a', bogus: 1 } ], defaults: { userTimezone: 'Mars/Base' } },\n"
                              "  channels: { telegram: { enabled: true } } }");
  const auto report = cli::check_config_file(file, no_env());
  EXPECT_FALSE(report.loaded);
  EXPECT_TRUE(report.exists);
  const auto& errors = report.problems.errors;
  EXPECT_THAT(errors, Contains(HasSubstr(file.string() + ": agents.list[0].bogus: unknown key")));
  EXPECT_THAT(errors, Contains(HasSubstr("channels.telegram.botToken: required")));
  EXPECT_THAT(errors, Contains(HasSubstr("agents.defaults.userTimezone: \"Mars/Base\"")));
}

TEST_F(ConfigFileReportTest, AProblemAboutARemovedValueIsLeftToTheSchemasLine) {
  // A token of the wrong type: the schema says so; "no token is set" would say it again.
  const fs::path file = write("{ gateway: { auth: { mode: 'token', token: 12345 } } }");
  const auto report = cli::check_config_file(file, no_env());
  ASSERT_EQ(report.problems.errors.size(), 1u) << ::testing::PrintToString(report.problems.errors);
  EXPECT_THAT(report.problems.errors[0], HasSubstr("gateway.auth.token: expected string"));

  // A missing required key: its object goes, the rest is still checked.
  const fs::path proxy = write("{ channels: { telegram: { enabled: true } }, gateway: { trustedProxies: ['127.0.0.1'],\n"
                               "  auth: { mode: 'trusted-proxy', trustedProxy: { requiredHeaders: ['x'] } } } }");
  const auto second = cli::check_config_file(proxy, no_env());
  EXPECT_THAT(second.problems.errors, Contains(HasSubstr("userHeader: missing required key")));
  EXPECT_THAT(second.problems.errors, Contains(HasSubstr("channels.telegram.botToken")));
}

TEST_F(ConfigFileReportTest, AnUnreadableDocumentIsOnlyItsLoadError) {
  const fs::path file = write("{ gateway: { port: 'abc', ");
  const auto report = cli::check_config_file(file, no_env());
  ASSERT_EQ(report.problems.errors.size(), 1u) << ::testing::PrintToString(report.problems.errors);
  EXPECT_THAT(report.problems.errors[0], HasSubstr(file.string() + ":1:"));
}

TEST_F(ConfigFileReportTest, ARemovalThatLeavesAModelReferenceIsFoundWithThePathAsTyped) {
  const std::string with = std::string("{ ") + kAuth +
                           ", models: { providers: { 'my.lab': { baseUrl: 'http://127.0.0.1:9/v1', "
                           "api: 'openai-completions', apiKey: 'k', models: [ { id: 'x' } ] } } },\n"
                           "  agents: { defaults: { model: { primary: 'my.lab/x' } } } }";
  const std::string without = std::string("{ ") + kAuth +
                              ", models: { providers: {} },\n  agents: { defaults: { model: { primary: 'my.lab/x' } } } }";
  const fs::path file = write(with);
  const cli::ConfigText original{file, true, with};
  const auto left = cli::references_left_by_removal(original, without);
  ASSERT_EQ(left.size(), 1u) << ::testing::PrintToString(left);
  EXPECT_THAT(left[0], HasSubstr("agents.defaults.model.primary: \"my.lab/x\" names the provider \"my.lab\""));
  EXPECT_THAT(left[0], HasSubstr("models.providers[\"my.lab\"]"));
  EXPECT_THAT(left[0], Not(HasSubstr("models.providers.my.lab")));
  // Nothing left when nothing names it.
  const std::string unreferenced = std::string("{ ") + kAuth + ", models: { providers: {} } }";
  EXPECT_TRUE(cli::references_left_by_removal(original, unreferenced).empty());
}

// A fallback naming a removed provider is skipped by runs (a warning everywhere): it does not keep
// the provider. An unrelated problem the file had already hides no primary reference.
TEST_F(ConfigFileReportTest, ARemovalIsHeldOnlyByAPrimaryReferenceWhateverTheFileHadBefore) {
  const std::string providers = "models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'm' } ] }, "
                                "other: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'x' } ] } } }";
  const std::string rest = ",\n  agents: { defaults: { model: { primary: 'mock/m', fallbacks: ['other/x'] } } },\n"
                           "  mcp: { servers: { s: { url: 'ftp:/bad' } } } }";
  const std::string with = std::string("{ ") + kAuth + ", " + providers + rest;
  const fs::path file = write(with);
  const cli::ConfigText original{file, true, with};
  const std::string without_other = std::string("{ ") + kAuth +
                                    ", models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'm' } ] } } }" +
                                    rest;
  EXPECT_TRUE(cli::references_left_by_removal(original, without_other).empty())
      << ::testing::PrintToString(cli::references_left_by_removal(original, without_other));
  const std::string without_mock = std::string("{ ") + kAuth +
                                   ", models: { providers: { other: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'x' } ] } } }" +
                                   rest;
  const auto left = cli::references_left_by_removal(original, without_mock);
  ASSERT_EQ(left.size(), 1u) << ::testing::PrintToString(left);
  EXPECT_THAT(left[0], HasSubstr("agents.defaults.model.primary: \"mock/m\" names the provider \"mock\""));
}

// A model reference is named where the file writes it: a fallback inherited from the defaults by
// an agent that sets its own primary is agents.defaults.model.fallbacks[N], said once with every
// agent using it; an agent's own list keeps the file's index (a blank entry counts).
TEST_F(ConfigFileReportTest, AModelReferenceIsNamedWhereItIsWritten) {
  const fs::path file = write(std::string("{ ") + kAuth +
                              ", models: { providers: { mock: { baseUrl: 'http://127.0.0.1:9/v1', models: [ { id: 'm' } ] } } },\n"
                              "  agents: { defaults: { model: { primary: 'mock/m', fallbacks: ['mock/nope'] } },\n"
                              "    list: [ { id: 'main' }, { id: 'a', model: { primary: 'mock/m' } }, { id: 'b', model: 'mock/bad' },\n"
                              "            { id: 'c', model: { primary: 'mock/m', fallbacks: [' ', 'mock/gone'] } } ] } }");
  const auto warnings = cli::check_config_file(file, no_env()).problems.warnings;
  EXPECT_THAT(warnings, Contains(HasSubstr("agents.defaults.model.fallbacks[0]: \"mock/nope\" (agents \"main\", \"a\", \"b\"): ")));
  EXPECT_THAT(warnings, Contains(HasSubstr("agents.list[2].model: \"mock/bad\" (agent \"b\"): ")));
  EXPECT_THAT(warnings, Contains(HasSubstr("agents.list[3].model.fallbacks[1]: \"mock/gone\" (agent \"c\"): ")));
  for (const std::string absent : {"agents.list[1].model.fallbacks", "agents.list[2].model.primary", "agents.list[2].model.fallbacks",
                                   "agents.list[3].model.fallbacks[0]"}) {
    EXPECT_THAT(warnings, Not(Contains(HasSubstr(absent))));
  }
}

}  // namespace
}  // namespace pincer
