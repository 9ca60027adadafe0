// Config defects a new user met (h-config): a key repeated in one object (a warning naming both
// places, from the JSON5 parser up to config::load), channel blocks that accept only their own
// channel's keys, validate's severity of model references, and an empty PINCER_HOME.
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/config_checks.h"
#include "config_test_support.h"
#include "core/config.h"
#include "core/json5.h"

namespace pincer {
namespace {

using nlohmann::json;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using config::config_test_support::kNoEnv;
using config::config_test_support::TempDir;

TEST(ConfigRepeatedKey, TheParserListsEveryRepeatWithBothPlaces) {
  std::vector<json5::DuplicateKey> repeats;
  auto parsed = json5::parse("{\n  a: 1,\n  b: {x: 1, 'x': 2},\n  \"a\": 3,\n}", "f.json", &repeats);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(*parsed, json::parse(R"({"a": 3, "b": {"x": 2}})"));  // the later value wins, as JSON.parse
  ASSERT_EQ(repeats.size(), 2u);
  EXPECT_EQ(repeats[0].key, "x");
  EXPECT_EQ(repeats[0].line, 3u);
  EXPECT_EQ(repeats[0].col, 13u);
  EXPECT_EQ(repeats[0].first_line, 3u);
  EXPECT_EQ(repeats[0].first_col, 7u);
  EXPECT_EQ(repeats[1].key, "a");
  EXPECT_EQ(repeats[1].line, 4u);
  EXPECT_EQ(repeats[1].col, 3u);
  EXPECT_EQ(repeats[1].first_line, 2u);
  // The same key in different objects is no repeat; a failed parse lists nothing.
  repeats.clear();
  EXPECT_TRUE(json5::parse("[{a: 1}, {a: 2}, {b: {a: 3}}]", "", &repeats).ok());
  EXPECT_TRUE(repeats.empty());
  EXPECT_FALSE(json5::parse("{a: 1, a: 2, ", "", &repeats).ok());
  EXPECT_TRUE(repeats.empty());
}

TEST(ConfigRepeatedKey, LoadWarnsThatTheLaterValueReplacesTheEarlierOne) {
  // What onboarding writes, then `agents: {list: [...]}` appended as the docs show.
  TempDir dir;
  const auto file = dir.write("pincer.json",
                              "{\n"
                              "  agents: { defaults: { model: { primary: \"mock/mock-model\" } } },\n"
                              "  gateway: { port: 18789 },\n"
                              "  agents: { list: [ { id: \"work\" } ] },\n"
                              "}\n");
  auto loaded = config::load(file, kNoEnv);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;  // a warning: OpenClaw's JSON5.parse takes it too
  EXPECT_THAT(loaded->warnings,
              ElementsAre(file.string() +
                          ":4:3: \"agents\" appears again (first at line 2); the later value replaces the whole "
                          "earlier one"));
  EXPECT_FALSE(loaded->resolved["agents"].contains("defaults"));
}

TEST(ConfigRepeatedKey, AnIncludedFileNamesItself) {
  TempDir dir;
  dir.write("part.json5", "{port: 1, port: 2}");
  const auto file = dir.write("pincer.json", "{gateway: {$include: \"./part.json5\"}}");
  auto loaded = config::load(file, kNoEnv);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  ASSERT_EQ(loaded->warnings.size(), 1u);
  EXPECT_THAT(loaded->warnings[0], HasSubstr("part.json5:1:11: \"port\" appears again (first at line 1)"));
  auto clean = config::load(dir.write("clean.json", "{gateway: {port: 1}}"), kNoEnv);
  ASSERT_TRUE(clean.ok());
  EXPECT_TRUE(clean->warnings.empty());
}

/// The schema's verdict on `doc` (one violation a line), "" when valid.
std::string violations_of(const json& doc) {
  auto st = config::validate(doc);
  return st ? "" : st.error().message;
}

TEST(ConfigChannelKeys, EachChannelTakesOnlyItsOwnKeys) {
  // Each of these validated as "valid" while the channel ignored the value.
  EXPECT_THAT(violations_of({{"channels", {{"discord", {{"botToken", "x"}}}}}}),
              HasSubstr("channels.discord.botToken: unknown key, did you mean `token`? (expected one of enabled|name|"));
  EXPECT_THAT(violations_of({{"channels", {{"matrix", {{"botToken", "x"}}}}}}),
              HasSubstr("channels.matrix.botToken: unknown key, did you mean `accessToken`?"));
  EXPECT_THAT(violations_of({{"channels", {{"matrix", {{"password", "x"}}}}}}),
              HasSubstr("channels.matrix.password: unknown key, did you mean `accessToken`?"));
  EXPECT_THAT(violations_of({{"channels", {{"slack", {{"homeserver", "https://m.example.org"}}}}}}),
              HasSubstr("channels.slack.homeserver: unknown key (expected one of "));
  EXPECT_THAT(violations_of({{"channels", {{"email", {{"homeserver", "https://m.example.org"}}}}}}),
              HasSubstr("channels.email.homeserver: unknown key (expected one of "));
  EXPECT_THAT(violations_of({{"channels", {{"discord", {{"mode", "http"}}}}}}),
              HasSubstr("channels.discord.mode: unknown key (expected one of "));
  // Accounts take the same keys as their channel.
  EXPECT_THAT(violations_of({{"channels", {{"discord", {{"accounts", {{"work", {{"botToken", "x"}}}}}}}}}}),
              HasSubstr("channels.discord.accounts.work.botToken: unknown key, did you mean `token`?"));
  // The list names only Discord's keys.
  const std::string discord = violations_of({{"channels", {{"discord", {{"botToken", "x"}}}}}});
  EXPECT_THAT(discord, HasSubstr("|token|"));
  EXPECT_THAT(discord, ::testing::Not(HasSubstr("homeserver")));
  EXPECT_THAT(discord, ::testing::Not(HasSubstr("webhookSecret")));
  // An unknown channel id, and a misspelt one.
  EXPECT_THAT(violations_of({{"channels", {{"telgram", {{"botToken", "x"}}}}}}),
              HasSubstr("channels.telgram: unknown key, did you mean `telegram`? (expected one of "
                        "telegram|discord|slack|matrix|email|irc|webhook)"));
}

TEST(ConfigChannelKeys, SharedKeysAChannelDoesNotApplyAreRefusedThere) {
  // The webhook authenticates every sender by its signature and has no groups: its access keys did
  // nothing; e-mail has no group chats. Both still take the keys they do apply.
  const std::map<std::string, json> values = {{"dmPolicy", "open"},         {"allowFrom", json::array({"x"})},
                                              {"dm", json::object()},       {"groupPolicy", "open"},
                                              {"groupAllowFrom", json::array({"x"})}, {"groups", json::object()}};
  for (const auto& [key, value] : values) {
    EXPECT_THAT(violations_of({{"channels", {{"webhook", {{key, value}}}}}}),
                HasSubstr("channels.webhook." + key + ": unknown key"))
        << key;
    EXPECT_THAT(violations_of({{"channels", {{"webhook", {{"accounts", {{"ci", {{key, value}}}}}}}}}}),
                HasSubstr("channels.webhook.accounts.ci." + key + ": unknown key"))
        << key;
  }
  for (const char* key : {"groupPolicy", "groupAllowFrom", "groups"}) {
    EXPECT_THAT(violations_of({{"channels", {{"email", {{key, values.at(key)}}}}}}),
                HasSubstr(std::string("channels.email.") + key + ": unknown key"))
        << key;
  }
  EXPECT_EQ(violations_of({{"channels", {{"webhook", {{"secret", "0123456789abcdef"}, {"textChunkLimit", 2000}, {"streaming", "block"}}}}}}),
            "");
  EXPECT_EQ(violations_of({{"channels", {{"email", {{"address", "a@example.org"}, {"dmPolicy", "allowlist"},
                                                      {"allowFrom", json::array({"b@example.org"})}}}}}}),
            "");
}

TEST(ConfigChannelKeys, AWrongModeListsOnlyThatChannelsModes) {
  EXPECT_EQ(violations_of({{"channels", {{"webhook", {{"mode", "socket"}}}}}}),
            "channels.webhook.mode: expected one of sync|callback, got \"socket\"");
  EXPECT_EQ(violations_of({{"channels", {{"slack", {{"mode", "callback"}}}}}}),
            "channels.slack.mode: expected one of socket|http, got \"callback\"");
}

TEST(ConfigChannelKeys, EveryChannelsOwnKeysStillValidateAndNoBlockAppearsByDefault) {
  const json doc = {{"channels",
                     {{"telegram", {{"botToken", "1:A"}, {"webhookUrl", "https://x.example/tg"}, {"dmPolicy", "open"}}},
                      {"discord", {{"token", "t"}, {"guilds", json::object()}, {"commands", {{"native", false}}}}},
                      {"slack", {{"botToken", "xoxb-1"}, {"mode", "http"}, {"signingSecret", "s"}, {"channels", json::object()}}},
                      {"matrix", {{"homeserver", "https://m.example.org"}, {"accessToken", "a"}, {"rooms", json::object()}}},
                      {"email", {{"address", "a@example.org"}, {"imap", {{"host", "imap.example.org"}}}}},
                      {"irc", {{"host", "irc.example.org"}, {"nick", "p"}, {"channels", json::array({"#a"})}}},
                      {"webhook", {{"secret", "0123456789abcdef"}, {"mode", "callback"}, {"callbackUrl", "https://x.example/cb"}}}}}};
  EXPECT_EQ(violations_of(doc), "");
  EXPECT_FALSE(config::with_defaults(json::object()).contains("channels") &&
               config::with_defaults(json::object())["channels"].contains("telegram"));
  EXPECT_EQ(config::with_defaults(doc)["channels"]["telegram"]["chunkMode"], "length");  // defaults once written
}

TEST(ConfigUnknownKey, ACloseSpellingIsSuggested) {
  EXPECT_THAT(violations_of({{"gateway", {{"prot", 1}}}}), HasSubstr("gateway.prot: unknown key, did you mean `port`?"));
  EXPECT_THAT(violations_of({{"zzz", 1}}), HasSubstr("zzz: unknown key (expected one of"));
}

const std::string kNewUserToken = "a-gateway-token-0123456789abcdef";

/// A config with a gateway token, the provider "custom" listing `models` and `primary` as the model.
json custom_provider_config(json models, const std::string& primary) {
  json doc = {{"gateway", {{"auth", {{"token", kNewUserToken}}}}},
              {"models", {{"providers", {{"custom", {{"baseUrl", "http://127.0.0.1:9/v1"}, {"models", models}}}}}}},
              {"agents", {{"defaults", {{"model", {{"primary", primary}}}}}}}};
  return config::with_defaults(doc);
}

TEST(ConfigValidateSeverity, AModelTheProviderDoesNotListIsAWarningAsTheDocsSay) {
  // What `config set agents.defaults.model.primary custom/nonexistent` accepted (exit 0).
  TempDir home;
  auto found = cli::check_config(custom_provider_config(json::array({{{"id", "m1"}}}), "custom/nonexistent"),
                                 home.path() / "pincer.json", kNoEnv);
  EXPECT_TRUE(found.errors.empty()) << found.errors[0];
  EXPECT_THAT(found.warnings, Contains("agents.defaults.model.primary: \"custom/nonexistent\" (agent \"main\"): unknown "
                                       "model \"custom/nonexistent\" (configured: custom/m1)"));
  // A provider nothing configures stays an error.
  auto unknown = cli::check_config(custom_provider_config(json::array({{{"id", "m1"}}}), "nope/m1"),
                                   home.path() / "pincer.json", kNoEnv);
  EXPECT_THAT(unknown.errors, ElementsAre(HasSubstr("agents.defaults.model.primary: \"nope/m1\" names the provider "
                                                    "\"nope\", which is not configured")));
}

TEST(ConfigValidateSeverity, AProviderListingNoModelsIsSaidSoNotCalledUnconfigured) {
  // `config set models.providers.custom.models '[]'`: the block is there, its list is empty.
  TempDir home;
  auto found = cli::check_config(custom_provider_config(json::array(), "custom/m1"), home.path() / "pincer.json", kNoEnv);
  EXPECT_TRUE(found.errors.empty()) << found.errors[0];
  EXPECT_THAT(found.warnings, Contains("agents.defaults.model.primary: \"custom/m1\" names the provider \"custom\", "
                                       "whose models.providers.custom.models lists no models (add \"m1\" there)"));
  for (const auto& w : found.warnings) EXPECT_THAT(w, ::testing::Not(HasSubstr("is not configured")));
}

TEST(ConfigValidateEmptyHome, NoTokenIsANoteWhileTheFileDoesNotExist) {
  TempDir home;
  const auto file = home.path() / "pincer.json";
  auto loaded = config::load(file, kNoEnv);
  ASSERT_TRUE(loaded.ok());
  ASSERT_FALSE(loaded->exists);
  cli::ConfigCheckOptions as_validate;
  as_validate.config_exists = false;
  auto fresh = cli::check_config(loaded->effective, file, kNoEnv, as_validate);
  EXPECT_TRUE(fresh.errors.empty()) << fresh.errors[0];
  EXPECT_THAT(fresh.notes, ElementsAre("no gateway token yet: `pincer gateway run` creates " + file.string() +
                                       " with a new random gateway.auth.token on its first start (or run `pincer onboard`)"));
  // Once the file exists, the gateway no longer makes one: an error, as `gateway run` refuses.
  auto existing = cli::check_config(loaded->effective, file, kNoEnv);
  EXPECT_TRUE(existing.notes.empty());
  EXPECT_THAT(existing.errors, Contains(HasSubstr("gateway.auth.mode is \"token\" but no token is set")));
  // Password mode is never generated.
  auto password = cli::check_config(config::with_defaults({{"gateway", {{"auth", {{"mode", "password"}}}}}}), file, kNoEnv,
                                    as_validate);
  EXPECT_THAT(password.errors, ElementsAre(HasSubstr("no password is set")));
}

}  // namespace
}  // namespace pincer
