// Discord guild and channel `roles` in access control (routing/access_policy.h): members of a
// listed role are let in besides the listed users, as OpenClaw's guild/channel `roles`.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace pincer::routing
