// The access settings a channel account's config gives (channels/channel_access.h), in Pincer's
// spelling and OpenClaw's: dm.*, Slack's channels, Matrix's rooms, Discord's guilds with their
// channels, `allow` for `enabled` and `users` for `allowFrom` — and which spelling wins.
#include <gtest/gtest.h>

#include "channels/channel_access.h"

namespace pincer::channels {
namespace channel_access_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

TEST(ChannelAccess, PincerSpellingAndDefaults) {
  auto a = access_config_from_json(json::object(), "discord");
  EXPECT_EQ(a.dm_policy, routing::DmPolicy::Pairing);
  EXPECT_EQ(a.group_policy, routing::GroupPolicy::Allowlist);
  EXPECT_TRUE(a.groups.empty());
  EXPECT_EQ(a.id_prefixes, std::vector<std::string>{"discord"});
  a = access_config_from_json({{"dmPolicy", "allowlist"}, {"allowFrom", {"1", 2}},
                               {"groups", {{"9", {{"requireMention", false}, {"enabled", true}, {"allowFrom", {"1"}}}}}}},
                              "telegram");
  EXPECT_EQ(a.dm_policy, routing::DmPolicy::Allowlist);
  EXPECT_EQ(a.allow_from, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(a.groups.at("9").require_mention, false);
  EXPECT_EQ(a.groups.at("9").enabled, true);
  EXPECT_EQ(a.groups.at("9").allow_from, std::vector<std::string>{"1"});
  EXPECT_EQ(a.id_prefixes, (std::vector<std::string>{"telegram", "tg"}));
}

TEST(ChannelAccess, OpenClawDmKeysTheFlatKeysWin) {
  auto a = access_config_from_json({{"dm", {{"policy", "open"}, {"allowFrom", {"*"}}}}}, "discord");
  EXPECT_EQ(a.dm_policy, routing::DmPolicy::Open);
  EXPECT_EQ(a.allow_from, std::vector<std::string>{"*"});
  a = access_config_from_json({{"dmPolicy", "allowlist"}, {"allowFrom", {"7"}}, {"dm", {{"policy", "open"}, {"allowFrom", {"*"}}}}},
                              "discord");
  EXPECT_EQ(a.dm_policy, routing::DmPolicy::Allowlist);
  EXPECT_EQ(a.allow_from, std::vector<std::string>{"7"});
  a = access_config_from_json({{"dm", {{"enabled", false}}}}, "discord");
  EXPECT_EQ(a.dm_policy, routing::DmPolicy::Disabled);
}

TEST(ChannelAccess, DiscordGuildsBecomeGroupEntriesOfTheGuildAndItsChannels) {
  const json c = {{"groupPolicy", "allowlist"},
                  {"guilds",
                   {{"100", {{"slug", "home"}, {"requireMention", false}, {"users", {"5", 6}},
                             {"channels", {{"200", {{"allow", true}, {"requireMention", true}}},
                                           {"201", {{"allow", false}}},
                                           {"202", {{"allow", true}, {"users", {"9"}}, {"allowFrom", {"8"}}}}}}}}}},
                  {"groups", {{"202", {{"requireMention", false}}}}}};
  const auto a = access_config_from_json(c, "discord");
  ASSERT_EQ(a.groups.size(), 4u);
  // The guild: its channels without an entry of their own.
  EXPECT_EQ(a.groups.at("100").require_mention, false);
  EXPECT_EQ(a.groups.at("100").allow_from, (std::vector<std::string>{"5", "6"}));
  EXPECT_FALSE(a.groups.at("100").enabled.has_value());
  // Its channels: allow → enabled.
  EXPECT_EQ(a.groups.at("200").enabled, true);
  EXPECT_EQ(a.groups.at("200").require_mention, true);
  // Without users of its own a channel takes its guild's (OpenClaw: channel.users ?? guild.users).
  EXPECT_EQ(a.groups.at("200").allow_from, (std::vector<std::string>{"5", "6"}));
  EXPECT_EQ(a.groups.at("201").enabled, false);
  // An entry in groups wins over the guild's channel entry, whole.
  EXPECT_EQ(a.groups.at("202").require_mention, false);
  EXPECT_FALSE(a.groups.at("202").enabled.has_value());
  EXPECT_FALSE(a.groups.at("202").allow_from.has_value());
}

TEST(ChannelAccess, DiscordRolesOfAGuildAndOfAChannel) {
  const auto a = access_config_from_json(
      {{"guilds", {{"100", {{"roles", {"r1", 2}}, {"channels", {{"200", {{"allow", true}, {"roles", {"r3"}}}}}}}}}}}, "discord");
  EXPECT_EQ(a.groups.at("100").allow_roles, (std::vector<std::string>{"r1", "2"}));
  EXPECT_EQ(a.groups.at("200").allow_roles, std::vector<std::string>{"r3"});
  // Roles are inherited on their own: a channel with users only keeps its guild's roles; one that
  // sets `roles: []` has none.
  const auto b = access_config_from_json(
      {{"guilds", {{"100", {{"roles", {"r1"}}, {"requireMention", false},
                             {"channels", {{"200", {{"users", {"u"}}}}, {"201", {{"roles", json::array()}}}}}}}}}},
      "discord");
  EXPECT_EQ(b.groups.at("200").allow_roles, std::vector<std::string>{"r1"});
  EXPECT_EQ(b.groups.at("200").allow_from, std::vector<std::string>{"u"});
  EXPECT_EQ(b.groups.at("201").allow_roles, std::vector<std::string>{});
  EXPECT_FALSE(b.groups.at("200").require_mention.has_value()) << "other keys are not inherited";
  EXPECT_FALSE(access_config_from_json({{"groups", {{"g", {{"users", {"u"}}}}}}}, "discord").groups.at("g").allow_roles);
}

TEST(ChannelAccess, AllowFromAndEnabledWinOverUsersAndAllow) {
  const auto a = access_config_from_json(
      {{"channels", {{"C1", {{"allow", false}, {"enabled", true}, {"users", {"U1"}}, {"allowFrom", {"U2"}}}}}},
       {"rooms", {{"!r:x", {{"allow", true}}}}}},
      "slack");
  EXPECT_EQ(a.groups.at("C1").enabled, true);
  EXPECT_EQ(a.groups.at("C1").allow_from, std::vector<std::string>{"U2"});
  EXPECT_EQ(a.groups.at("!r:x").enabled, true);
}

}  // namespace
}  // namespace channel_access_test
}  // namespace pincer::channels
