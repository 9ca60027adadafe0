// The checks beyond the schema that `config validate`, `config set`, `doctor` and the gateway share
// (src/cli/config_checks.h, src/channels/channel_checks.h), the webhook's request reading and its
// persisted messageId record (src/channels/webhook/).
#include <filesystem>
#include <fstream>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "channels/channel_checks.h"
#include "channels/channel_manager.h"
#include "channels/webhook/webhook_channel.h"
#include "channels/webhook/webhook_dedupe.h"
#include "cli/config_checks.h"
#include "core/config.h"
#include "core/ids.h"

namespace pincer {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

config::EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

json effective(json resolved) { return config::with_defaults(resolved); }

const std::string kToken = "a-gateway-token-0123456789abcdef";

TEST(ChannelChecks, EveryProblemIsReportedWithoutALiveInstance) {
  const json cfg = effective({{"channels",
                               {{"telegram",
                                 {{"botToken", "111:AAA"},
                                  {"accounts",
                                   {{"alerts", {{"botToken", "111:AAA"}}},
                                    {"hook", {{"botToken", "222:BBB"}, {"webhookUrl", "https://example.org/tg"}}}}}}},
                                {"webhook", {{"secret", "a-webhook-secret-0123456789"}, {"path", "/health"}}}}}});
  EXPECT_THAT(channels::channel_problems(cfg),
              ElementsAre(HasSubstr("channels.telegram.accounts.hook.webhookSecret: required with webhookUrl"),
                          "channels.webhook.path: is the gateway's own /health endpoint",
                          "channels.telegram.accounts.alerts: the same bot token is already used by channels.telegram"));
  // The gateway's own check (start, reload, pre-restart) is the same function.
  auto st = channels::ChannelManager::validate(cfg);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,
            channels::channel_problems(cfg)[0] + "\n" + channels::channel_problems(cfg)[1] + "\n" +
                channels::channel_problems(cfg)[2]);
  EXPECT_TRUE(channels::channel_problems(effective(json::object())).empty());
}

// A channel's route matches by prefix, before the gateway's own endpoints: Slack's HTTP mode took
// /health (the new-user pass), as the webhook channel never could.
TEST(ChannelChecks, NoChannelRouteTakesAPathOfTheGatewaysOwn) {
  auto problems_of = [](const std::string& path) {
    return channels::channel_problems(effective(
        {{"channels",
          {{"slack", {{"mode", "http"}, {"botToken", "xoxb-1-2-abc"}, {"signingSecret", "s3cr3t"}, {"webhookPath", path}}}}}}));
  };
  EXPECT_THAT(problems_of("/health"), ElementsAre("channels.slack.webhookPath: is the gateway's own /health endpoint"));
  EXPECT_THAT(problems_of("/v1/chat/completions"),
              ElementsAre("channels.slack.webhookPath: is under the gateway's own /v1 (the OpenAI-compatible API)"));
  EXPECT_THAT(problems_of("/__openclaw__/x"),
              ElementsAre("channels.slack.webhookPath: is under the gateway's own /__openclaw__ (the Control UI)"));
  EXPECT_TRUE(problems_of("/slack/events").empty());
  EXPECT_TRUE(problems_of("/v1x").empty()) << "a prefix only at a path boundary";
}

TEST(ConfigChecks, ChannelProblemsAreConfigErrors) {
  const json cfg = effective({{"gateway", {{"auth", {{"token", kToken}}}}},
                              {"channels", {{"webhook", {{"secret", "short"}}}}}});
  auto found = cli::check_config(cfg, "/h/pincer.json", env_of({}));
  EXPECT_THAT(found.errors, ElementsAre("channels.webhook.secret: required, at least 16 characters (it signs every request)"));
}

// `roles` is in every channel's group entries but only Discord senders have roles: elsewhere a
// roles-only entry admitted nobody, without a word. validate/doctor (check_config), the gateway's
// start and a reload all say it, naming the path.
TEST(ConfigChecks, GroupRolesOutsideDiscordAreWarnedOf) {
  const json cfg = effective(
      {{"gateway", {{"auth", {{"token", kToken}}}}},
       {"channels",
        {{"telegram",
          {{"botToken", "111:AAA"},
           {"groups", {{"-100", {{"roles", {"r1"}}}}, {"-200", {{"roles", {"r1"}}, {"allowFrom", {"5"}}}}}},
           {"accounts", {{"b", {{"botToken", "222:BBB"}, {"groups", {{"-300", {{"roles", {"r2"}}}}}}}}}}}},
         {"matrix", {{"homeserver", "https://m.example.org"}, {"accessToken", "t"}, {"userId", "@bot:example.org"},
                     {"rooms", {{"!r:example.org", {{"roles", {"r3"}}}}}}}},
         {"discord", {{"token", "x.y.z"}, {"groups", {{"1", {{"roles", {"r4"}}}}}},
                      {"guilds", {{"2", {{"roles", {"r5"}}}}}}}}}}});
  const std::vector<std::string> warnings = channels::group_role_warnings(cfg);
  ASSERT_THAT(warnings,
              ElementsAre(HasSubstr("channels.matrix.rooms[\"!r:example.org\"].roles: roles are Discord's only"),
                          HasSubstr("channels.telegram.groups.-100.roles: roles are Discord's only"),
                          HasSubstr("channels.telegram.groups.-200.roles: roles are Discord's only"),
                          HasSubstr("channels.telegram.accounts.b.groups.-300.roles: roles are Discord's only")))
      << ::testing::PrintToString(warnings);
  EXPECT_THAT(warnings[1], HasSubstr("admits nobody"));
  EXPECT_THAT(warnings[2], HasSubstr("only the senders of allowFrom/users are let in"));
  const auto found = cli::check_config(cfg, "/h/pincer.json", env_of({}));
  for (const auto& w : warnings) EXPECT_THAT(found.warnings, ::testing::Contains(w));
}

TEST(ConfigChecks, HooksProblemsAreConfigErrorsAndAPathMayNotOverlapAChannelRoute) {
  const json gw = {{"auth", {{"token", kToken}}}};
  auto errors_of = [&](json hooks, json channels = json::object()) {
    return cli::check_config(effective({{"gateway", gw}, {"hooks", hooks}, {"channels", channels}}), "/h/pincer.json", env_of({}))
        .errors;
  };
  EXPECT_THAT(errors_of({{"enabled", true}}), ElementsAre("hooks.token: required when hooks.enabled is true"));
  EXPECT_THAT(errors_of({{"enabled", true}, {"token", kToken}}),
              ElementsAre(HasSubstr("hooks.token: must differ from gateway.auth.token")));
  EXPECT_THAT(errors_of({{"enabled", true}, {"token", "another-hook-token-123"}, {"path", "/health"}}),
              ElementsAre(HasSubstr("hooks.path: is the gateway's own /health endpoint")));
  const json webhook = {{"webhook", {{"secret", "0123456789abcdef0123"}, {"path", "/hooks/ci"}}}};
  EXPECT_THAT(errors_of({{"enabled", true}, {"token", "another-hook-token-123"}}, webhook),
              ElementsAre("hooks.path: '/hooks' overlaps the route '/hooks/ci' of channels.webhook"));
  EXPECT_TRUE(errors_of({{"enabled", false}, {"path", "/health"}}, webhook).empty()) << "hooks off: not checked";
  const json env_cfg = effective({{"hooks", {{"enabled", true}, {"token", kToken}}}});
  EXPECT_THAT(cli::check_config(env_cfg, "/h/pincer.json", env_of({{"PINCER_GATEWAY_TOKEN", kToken}})).errors,
              ElementsAre(HasSubstr("hooks.token: must differ from the gateway's token (PINCER_GATEWAY_TOKEN)")))
      << "the gateway's token from the environment counts too";
  EXPECT_THAT(errors_of({{"enabled", true}, {"token", "another-hook-token-123"}, {"allowedAgentIds", {"main"}},
                         {"mappings", {{{"id", "gh"}, {"messageTemplate", "m"}, {"channel", "discord"}, {"agentId", "ops"}}}}}),
              ElementsAre(HasSubstr("hooks.mappings (id gh).channel: 'discord' is not a configured channel"),
                          HasSubstr("hooks.mappings (id gh).agentId: 'ops' is not in hooks.allowedAgentIds")));
}

TEST(ConfigChecks, TheGatewaysSecretIsTheOneJudgedAndNamedByItsSource) {
  const json cfg = effective({{"gateway", {{"auth", {{"token", kToken}}}}}});
  auto env_short = cli::check_config(cfg, "/h/pincer.json", env_of({{"PINCER_GATEWAY_TOKEN", "abc"}}));
  EXPECT_THAT(env_short.errors, ElementsAre(HasSubstr("PINCER_GATEWAY_TOKEN: the gateway token is 3 characters")));
  cli::ConfigCheckOptions from_file;
  from_file.flags.token = "12345";
  from_file.flags.token_flag = "--token-file";
  auto flag_short = cli::check_config(cfg, "/h/pincer.json", env_of({{"PINCER_GATEWAY_TOKEN", kToken}}), from_file);
  EXPECT_THAT(flag_short.errors, ElementsAre(HasSubstr("--token-file: the gateway token is 5 characters")));
  // Password mode: the hint names the password's key, variable and flag, never a token's.
  const json pw = effective({{"gateway", {{"auth", {{"mode", "password"}}}}}});
  auto no_password = cli::check_config(pw, "/h/pincer.json", env_of({}));
  ASSERT_EQ(no_password.errors.size(), 1u);
  EXPECT_THAT(no_password.errors[0], HasSubstr("PINCER_GATEWAY_PASSWORD, or pass --password-file"));
  EXPECT_THAT(no_password.errors[0], ::testing::Not(HasSubstr("token")));
  // A token the environment gives is enough; unknown at `config set` time it is only a warning.
  const json none = effective(json::object());
  EXPECT_TRUE(cli::check_config(none, "/h/pincer.json", env_of({{"PINCER_GATEWAY_TOKEN", kToken}})).errors.empty());
  cli::ConfigCheckOptions later;
  later.runtime_env_known = false;
  auto at_set = cli::check_config(none, "/h/pincer.json", env_of({}), later);
  EXPECT_TRUE(at_set.errors.empty());
  EXPECT_THAT(at_set.warnings, ::testing::Contains(HasSubstr("no token is set")));
}

TEST(WebhookRequest, BadInputIsRefusedAndNumericIdsAreTheirDecimalString) {
  using channels::webhook::parse_webhook_message;
  EXPECT_EQ(parse_webhook_message({{"text", "   \n"}}).error().message, "\"text\" is only whitespace");
  EXPECT_EQ(parse_webhook_message({{"text", "hi"}, {"conversationId", "a\nb"}}).error().message,
            "\"conversationId\" contains a control character (0x0a)");
  EXPECT_EQ(parse_webhook_message({{"text", "hi"}, {"conversationId", json::object()}}).error().message,
            "\"conversationId\" must be a string or an integer, got object");
  EXPECT_EQ(parse_webhook_message({{"text", "hi"}, {"senderId", 1.5}}).error().message,
            "\"senderId\" must be a string or an integer, got number");
  EXPECT_THAT(parse_webhook_message({{"text", "hi"}, {"messageId", std::string(129, 'x')}}).error().message,
              HasSubstr("at most 128"));
  auto numeric = parse_webhook_message({{"text", "hi"}, {"senderId", 7}, {"conversationId", 42}, {"messageId", -3}});
  ASSERT_TRUE(numeric) << numeric.error().message;
  EXPECT_EQ(numeric->sender_id, "7");
  EXPECT_EQ(numeric->conversation_id, "42");
  EXPECT_EQ(numeric->message_id, "-3");
  auto defaults = parse_webhook_message({{"text", "hi"}, {"conversationId", ""}});
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->sender_id, "webhook");
  EXPECT_EQ(defaults->conversation_id, "webhook");
}

class MessageIdRecordTest : public ::testing::Test {
 protected:
  std::filesystem::path dir_ = std::filesystem::temp_directory_path() / ("pincer-dedupe-" + ids::random_token(8));
  std::filesystem::path file_ = dir_ / "default.dedupe.json";
  void TearDown() override { std::filesystem::remove_all(dir_); }
};

TEST_F(MessageIdRecordTest, ARetryAfterARestartIsSeenUntilItExpires) {
  using channels::webhook::MessageIdRecord;
  const std::string id = MessageIdRecord::identity("svc", "conv", "m-1");
  EXPECT_NE(id, MessageIdRecord::identity("svc", "conv", "m-2"));
  EXPECT_NE(MessageIdRecord::identity("a", "bc", "m"), MessageIdRecord::identity("ab", "c", "m"));
  EXPECT_EQ(MessageIdRecord::identity("svc", "conv", ""), "");
  {
    MessageIdRecord record(file_);
    EXPECT_FALSE(record.seen(id, 1000));
    ASSERT_TRUE(record.record(id, 1000));
    EXPECT_TRUE(record.seen(id, 1000));
  }
  MessageIdRecord reloaded(file_);  // the gateway restarted
  EXPECT_TRUE(reloaded.seen(id, 1000 + 20 * 60));
  EXPECT_FALSE(reloaded.seen(id, 1000 + 20 * 60 + 1)) << "20 minutes, as the inbound dedupe";
  reloaded.forget(id);
  EXPECT_FALSE(MessageIdRecord(file_).seen(id, 1001));
}

TEST_F(MessageIdRecordTest, TheRecordIsBoundedAndAFailedWriteRemembersNothing) {
  using channels::webhook::MessageIdRecord;
  MessageIdRecord record("");  // memory only: 5001 fsyncs would be slow
  for (int i = 0; i < 5001; ++i) ASSERT_TRUE(record.record(MessageIdRecord::identity("s", "c", std::to_string(i)), 2000));
  EXPECT_EQ(record.size(), 5000u);
  EXPECT_FALSE(record.seen(MessageIdRecord::identity("s", "c", "0"), 2000)) << "the oldest left first";
  EXPECT_TRUE(record.seen(MessageIdRecord::identity("s", "c", "5000"), 2000));
  MessageIdRecord unwritable("/proc/pincer-no-such-dir/x.json");
  const std::string id = MessageIdRecord::identity("s", "c", "x");
  EXPECT_FALSE(unwritable.record(id, 2000));
  EXPECT_FALSE(unwritable.seen(id, 2000));
}

}  // namespace
}  // namespace pincer
