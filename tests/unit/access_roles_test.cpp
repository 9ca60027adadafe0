// Discord guild and channel `roles` in access control (routing/access_policy.h): members of a
// listed role are let in besides the listed users, as OpenClaw's guild/channel `roles`.
#include <gtest/gtest.h>

#include "channels/channel_access.h"
#include "routing/access_policy.h"

namespace pincer::routing {
namespace {

TEST(AccessPolicy, DiscordRolesLetMembersOfThoseRolesIn) {
  ChannelAccessConfig config;
  config.group_policy = GroupPolicy::Allowlist;
  config.allow_from = {"1"};
  config.groups["guild-1"] = GroupSettings{false, std::nullopt, std::vector<std::string>{"7"}, std::vector<std::string>{"r-team"}};
  config.groups["guild-2"] = GroupSettings{false, std::nullopt, std::nullopt, std::vector<std::string>{"r-team"}};
  auto from = [](const std::string& space, const std::string& sender, std::vector<std::string> roles) {
    AccessRequest r;
    r.is_group = true;
    r.group_id = "chan-x";
    r.sender = SenderIdentity{sender, ""};
    r.was_mentioned = true;
    r.space_id = space;
    r.sender_roles = std::move(roles);
    return r;
  };
  EXPECT_EQ(decide_access(config, from("guild-1", "7", {})).reason, AccessReason::GroupPolicyAllowed) << "a listed user";
  EXPECT_EQ(decide_access(config, from("guild-1", "8", {"r-other", "r-team"})).reason, AccessReason::GroupPolicyAllowed)
      << "a member of a listed role";
  EXPECT_EQ(decide_access(config, from("guild-1", "9", {"r-other"})).reason, AccessReason::GroupPolicyNotAllowlisted);
  // Roles alone are the chat's own list: the channel-wide allowFrom does not apply there.
  EXPECT_EQ(decide_access(config, from("guild-2", "1", {})).reason, AccessReason::GroupPolicyNotAllowlisted);
  EXPECT_EQ(decide_access(config, from("guild-2", "8", {"r-team"})).reason, AccessReason::GroupPolicyAllowed);
  config.group_policy = GroupPolicy::Open;
  EXPECT_EQ(decide_access(config, from("guild-2", "9", {})).reason, AccessReason::GroupPolicyNotAllowlisted);
  EXPECT_EQ(decide_access(config, from("guild-2", "9", {"r-team"})).reason, AccessReason::GroupPolicyAllowed);
}

// A guild's channel entry that sets no users/roles of its own takes its guild's (OpenClaw:
// `channel.users ?? guild.users`, `channel.roles ?? guild.roles`), each list on its own.
TEST(AccessPolicy, DiscordChannelEntriesInheritTheirGuildsUsersAndRoles) {
  const nlohmann::json c = {
      {"groupPolicy", "allowlist"},
      {"guilds",
       {{"100",
         {{"users", {"7"}},
          {"roles", {"r-team"}},
          {"channels",
           {{"200", {{"allow", true}, {"requireMention", false}}},
            {"201", {{"allow", true}, {"requireMention", false}, {"users", {"8"}}}},
            {"202", {{"allow", true}, {"requireMention", false}, {"roles", {"r-ops"}}}}}}}}}}};
  const ChannelAccessConfig config = channels::access_config_from_json(c, "discord");
  auto in = [&](const std::string& chat, const std::string& sender, std::vector<std::string> roles) {
    AccessRequest r;
    r.is_group = true;
    r.group_id = chat;
    r.space_id = "100";
    r.sender = SenderIdentity{sender, ""};
    r.sender_roles = std::move(roles);
    return decide_access(config, r).reason;
  };
  // 200 sets neither: the guild's users and roles apply, not "every member of the guild".
  EXPECT_EQ(in("200", "9", {}), AccessReason::GroupPolicyNotAllowlisted);
  EXPECT_EQ(in("200", "7", {}), AccessReason::GroupPolicyAllowed);
  EXPECT_EQ(in("200", "9", {"r-team"}), AccessReason::GroupPolicyAllowed);
  // 201 sets users: its own users, the guild's roles.
  EXPECT_EQ(in("201", "7", {}), AccessReason::GroupPolicyNotAllowlisted);
  EXPECT_EQ(in("201", "8", {}), AccessReason::GroupPolicyAllowed);
  EXPECT_EQ(in("201", "9", {"r-team"}), AccessReason::GroupPolicyAllowed);
  // 202 sets roles: the guild's users, its own roles.
  EXPECT_EQ(in("202", "7", {}), AccessReason::GroupPolicyAllowed);
  EXPECT_EQ(in("202", "9", {"r-team"}), AccessReason::GroupPolicyNotAllowlisted);
  EXPECT_EQ(in("202", "9", {"r-ops"}), AccessReason::GroupPolicyAllowed);
}

}  // namespace
}  // namespace pincer::routing
