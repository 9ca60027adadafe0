// Channel docking (SPEC RT-5; channels/session_docks.h, routing/identity_links.h): the command
// words, the identity-link lookup of the sender's account on another channel (OpenClaw
// commands-dock.ts resolveLinkedTargetPeerId), every refusal, undocking, which senders a dock
// applies to, and the docks file across a restart.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "channels/session_docks.h"
#include "routing/identity_links.h"
#include <unistd.h>

namespace pincer::channels {
namespace {

using routing::IdentityLinks;

const IdentityLinks kLinks = {
    {"alice", {"telegram:123", "Discord:456", "irc:Alice"}},
    {"bob", {"telegram:777"}},        // no other channel
    {"carol", {"900", "discord:901"}},  // a bare id matches any channel
};

TEST(DockCommand, ParsesBothFormsOfEveryChannelWord) {
  EXPECT_EQ(parse_dock_command("/dock_discord", false), "discord");
  EXPECT_EQ(parse_dock_command("/dock-telegram", false), "telegram");
  EXPECT_EQ(parse_dock_command("  /DOCK_Irc \n", false), "irc");
  EXPECT_EQ(parse_dock_command("/dock_my-chan_2", false), "my-chan_2");  // any configured id, no fixed list
  EXPECT_EQ(parse_dock_command("/dock_discord@pincer_bot", true), "discord");
  EXPECT_EQ(parse_dock_command("/dock_discord@other_bot", false), std::nullopt);
  EXPECT_EQ(parse_dock_command("/dock", false), std::nullopt);
  EXPECT_EQ(parse_dock_command("/dock_", false), std::nullopt);
  EXPECT_EQ(parse_dock_command("/dock_discord now", false), std::nullopt);
  EXPECT_EQ(parse_dock_command("/docker", false), std::nullopt);
  EXPECT_EQ(parse_dock_command("dock_discord", false), std::nullopt);
  EXPECT_EQ(parse_dock_command("/dock_dis/cord", false), std::nullopt);
}

TEST(IdentityLinks, LinkedAccountOnAnotherChannel) {
  auto a = routing::linked_account_on(kLinks, "telegram", "123", "discord");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->identity, "alice");
  EXPECT_EQ(a->peer_id, "456");  // the target prefix compares case-insensitively
  a = routing::linked_account_on(kLinks, "Discord", " 456 ", "irc");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->peer_id, "Alice");  // case kept
  a = routing::linked_account_on(kLinks, "webhook", "900", "discord");  // the bare id
  ASSERT_TRUE(a);
  EXPECT_EQ(a->identity, "carol");
  EXPECT_EQ(a->peer_id, "901");
  EXPECT_FALSE(routing::linked_account_on(kLinks, "telegram", "777", "discord"));  // linked, not to discord
  EXPECT_FALSE(routing::linked_account_on(kLinks, "telegram", "555", "discord"));  // not linked
  EXPECT_FALSE(routing::linked_account_on(kLinks, "discord", "123", "telegram"));  // 123 is a telegram id
  EXPECT_FALSE(routing::linked_account_on(kLinks, "telegram", "123", ""));
  EXPECT_FALSE(routing::linked_account_on({}, "telegram", "123", "discord"));
}

std::string direct_chat(const DockAccount& a, const std::string& peer) {
  if (a.channel == "discord") return "user:" + peer;
  if (a.channel == "webhook") return "";  // a sync webhook cannot start a chat
  return peer;
}

const std::vector<DockAccount> kAccounts = {
    {"telegram", "default", true}, {"discord", "default", true}, {"irc", "default", false}, {"webhook", "default", true}};

Result<DockPlan> plan(const std::string& target, const std::string& channel, const std::string& sender,
                      bool group = false, std::optional<SessionDock> current = std::nullopt) {
  return plan_dock({target, channel, sender, group, std::move(current)}, kLinks, kAccounts, direct_chat, 42);
}

TEST(DockPlan, MovesRepliesToTheLinkedAccount) {
  auto p = plan("discord", "telegram", "123");
  ASSERT_TRUE(p) << p.error().message;
  ASSERT_TRUE(p->dock);
  EXPECT_EQ(p->dock->channel, "discord");
  EXPECT_EQ(p->dock->account_id, "default");
  EXPECT_EQ(p->dock->to, "user:456");
  EXPECT_EQ(p->dock->peer_id, "456");
  EXPECT_EQ(p->dock->identity, "alice");
  EXPECT_EQ(p->dock->from_channel, "telegram");
  EXPECT_EQ(p->dock->at_ms, 42);
  EXPECT_NE(p->reply.find("Replies now go to discord"), std::string::npos) << p->reply;
  EXPECT_NE(p->reply.find("/dock_telegram"), std::string::npos) << p->reply;
}

TEST(DockPlan, Refusals) {
  auto expect_refused = [](const Result<DockPlan>& p, const std::string& needle) {
    ASSERT_FALSE(p) << "not refused";
    EXPECT_EQ(p.error().code, "DOCK_REFUSED");
    EXPECT_NE(p.error().message.find(needle), std::string::npos) << p.error().message;
  };
  expect_refused(plan("discord", "telegram", "123", /*group=*/true), "direct chat");
  expect_refused(plan("slack", "telegram", "123"), "no slack account is configured here (configured: telegram, discord, irc, webhook)");
  expect_refused(plan("telegram", "telegram", "123"), "Replies already go to telegram");
  expect_refused(plan("discord", "telegram", "555"), "your telegram account (555) is not linked to a discord account");
  expect_refused(plan("discord", "telegram", "777"), "session.identityLinks, e.g. {\"you\": [\"telegram:777\", \"discord:YOUR-DISCORD-ID\"]}");
  expect_refused(plan("irc", "telegram", "123"), "not running");
  expect_refused(plan_dock({"webhook", "telegram", "123", false, std::nullopt},
                           {{"alice", {"telegram:123", "webhook:a"}}}, kAccounts, direct_chat, 0),
                 "cannot start a chat");
}

TEST(DockPlan, DockingBackClearsTheDock) {
  auto docked = plan("discord", "telegram", "123");
  ASSERT_TRUE(docked && docked->dock);
  // From Telegram again: /dock_telegram brings the replies back.
  auto back = plan("telegram", "telegram", "123", false, docked->dock);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(back->dock);
  EXPECT_NE(back->reply.find("again"), std::string::npos);
  // From Discord, where they go already.
  auto again = plan("discord", "discord", "456", false, docked->dock);
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("already go to discord"), std::string::npos);
  // Someone else sharing the session (dmScope main) cannot move them.
  auto other = plan("telegram", "telegram", "777", false, docked->dock);
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("Someone else"), std::string::npos);
}

TEST(DockPlan, AppliesOnlyToTheDockingPerson) {
  const SessionDock dock{"discord", "default", "user:456", "456", "alice", "telegram", 1};
  EXPECT_TRUE(dock_applies(dock, kLinks, "telegram", "123", false));
  EXPECT_TRUE(dock_applies(dock, kLinks, "irc", "alice", false));  // ids compare lowercased
  EXPECT_FALSE(dock_applies(dock, kLinks, "telegram", "777", false));
  EXPECT_FALSE(dock_applies(dock, kLinks, "telegram", "123", true));  // a group message
  EXPECT_FALSE(dock_applies(dock, {}, "telegram", "123", false));     // the link was removed
}

TEST(SessionDocks, KeptAcrossARestartAndCleared) {
  const auto dir = std::filesystem::temp_directory_path() / ("pincer-docks-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const auto file = dir / "channels" / "docks.json";
  {
    SessionDocks docks(file);
    EXPECT_FALSE(docks.get("agent:main:direct:alice"));
    ASSERT_TRUE(docks.set("agent:main:direct:alice", SessionDock{"discord", "default", "user:456", "456", "alice", "telegram", 7}));
  }
  SessionDocks reread(file);
  auto d = reread.get("agent:main:direct:alice");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->to, "user:456");
  EXPECT_EQ(d->identity, "alice");
  EXPECT_EQ(d->at_ms, 7);
  ASSERT_TRUE(reread.set("agent:main:direct:alice", std::nullopt));
  EXPECT_FALSE(SessionDocks(file).get("agent:main:direct:alice"));
  // A broken file is no dock, not a crash.
  std::ofstream(file) << "{not json";
  EXPECT_FALSE(SessionDocks(file).get("agent:main:direct:alice"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pincer::channels
