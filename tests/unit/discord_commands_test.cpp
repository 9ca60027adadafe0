// Discord slash commands, the pure parts (channels/discord/discord_commands.h): the registered
// set, its comparison with what Discord lists, and an INTERACTION_CREATE read as a message.
#include <gtest/gtest.h>

#include "channels/discord/discord_commands.h"

using namespace pincer::channels::discord;
using nlohmann::json;

namespace {

const json* command_named(const json& set, const std::string& name) {
  for (const auto& c : set) {
    if (c.value("name", "") == name) return &c;
  }
  return nullptr;
}

json guild_interaction() {
  return json::parse(R"({
    "id": "1300000000000000001", "application_id": "42", "type": 2, "token": "tok-1",
    "data": {"id": "9", "name": "model", "type": 1, "options": [{"name": "name", "type": 3, "value": "gpt-5"}]},
    "guild_id": "77", "channel_id": "555",
    "member": {"user": {"id": "1001", "username": "alice", "global_name": "Alice"}, "roles": ["r1", "r2"], "nick": null}
  })");
}

}  // namespace

TEST(DiscordCommands, TheSetHasTheChatCommandsAndDiscordsLimits) {
  const json set = native_command_set(true);
  for (const char* name : {"new", "reset", "stop", "status", "model", "think", "compact", "help", "dock", "ask"}) {
    EXPECT_NE(command_named(set, name), nullptr) << name;
  }
  EXPECT_EQ(command_named(set, "quit"), nullptr);  // terminal-only
  EXPECT_EQ(command_named(set, "agent"), nullptr);
  for (const auto& c : set) {
    const std::string name = c["name"], description = c["description"];
    EXPECT_TRUE(name.size() >= 1 && name.size() <= 32) << name;
    EXPECT_TRUE(description.size() >= 1 && description.size() <= 100) << name;
  }
  const json& think = *command_named(set, "think");
  ASSERT_EQ(think["options"].size(), 1u);
  EXPECT_EQ(think["options"][0]["name"], "level");
  EXPECT_EQ(think["options"][0]["required"], true);  // "LEVEL": required
  const json& model = *command_named(set, "model");
  EXPECT_EQ(model["options"][0]["name"], "name");
  EXPECT_EQ(model["options"][0]["required"], false);  // "[NAME[@PROFILE]]": optional
  EXPECT_TRUE(command_named(set, "status")->at("options").empty());
  EXPECT_TRUE(native_command_set(false).empty());
}

TEST(DiscordCommands, SkillCommandsJoinTheSetWithinDiscordsHundredCommands) {
  const std::size_t builtin = native_command_set(true).size();
  std::vector<pincer::skills::SkillCommand> skills;
  for (int i = 0; i < 120; ++i) skills.push_back({"skill_" + std::to_string(i), "s" + std::to_string(i), "Does thing " + std::to_string(i)});
  const json set = native_command_set(true, skills);
  EXPECT_EQ(set.size(), 100u);  // Discord's limit per application: the rest stay typed-only
  const json* first = command_named(set, "skill_0");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->at("description"), "Does thing 0");
  ASSERT_EQ(first->at("options").size(), 1u);
  EXPECT_EQ(first->at("options")[0]["name"], "input");
  EXPECT_EQ(first->at("options")[0]["required"], false);
  EXPECT_EQ(command_named(set, "skill_" + std::to_string(100 - builtin)), nullptr);  // the first left out
  EXPECT_NE(command_named(set, "status"), nullptr);                                  // built-ins always stay
  EXPECT_TRUE(native_command_set(false, skills).empty());
}

TEST(DiscordCommands, WhatDiscordListsMatchesWhenOnlyItsOwnFieldsDiffer) {
  const json wanted = native_command_set(true);
  json listed = json::array();
  for (auto it = wanted.rbegin(); it != wanted.rend(); ++it) {  // another order, Discord's extra fields
    json c = *it;
    c["id"] = "123";
    c["version"] = "456";
    c["application_id"] = "42";
    c["default_member_permissions"] = nullptr;
    listed.push_back(c);
  }
  EXPECT_TRUE(command_sets_match(listed, wanted));
  listed[0]["description"] = "changed";
  EXPECT_FALSE(command_sets_match(listed, wanted));
  EXPECT_FALSE(command_sets_match(json::array(), wanted));
  EXPECT_FALSE(command_sets_match(json::object(), wanted));
}

TEST(DiscordCommands, AnInteractionIsAMessageOfItsUserInItsChannel) {
  auto i = parse_command_interaction(guild_interaction(), "default");
  ASSERT_TRUE(i);
  EXPECT_EQ(i->id, "1300000000000000001");
  EXPECT_EQ(i->token, "tok-1");
  const auto& m = i->message;
  EXPECT_EQ(m.channel, "discord");
  EXPECT_EQ(m.chat_id, "555");
  EXPECT_EQ(m.sender_id, "1001");
  EXPECT_EQ(m.sender_name, "Alice");
  EXPECT_EQ(m.guild_id, "77");
  EXPECT_EQ(m.sender_roles, (std::vector<std::string>{"r1", "r2"}));
  EXPECT_TRUE(m.is_group);
  EXPECT_TRUE(m.channel_peer);
  EXPECT_TRUE(m.mentions_bot);
  EXPECT_EQ(m.message_id, "1300000000000000001");
  EXPECT_EQ(m.text, "/model gpt-5");
  EXPECT_GT(m.ts_ms, 0);

  json dm = guild_interaction();
  dm.erase("guild_id");
  dm.erase("member");
  dm["user"] = {{"id", "1001"}, {"username", "alice"}};
  dm["data"] = {{"name", "ask"}, {"type", 1}, {"options", {{{"name", "message"}, {"type", 3}, {"value", "hello there"}}}}};
  auto ask = parse_command_interaction(dm, "default");
  ASSERT_TRUE(ask);
  EXPECT_FALSE(ask->message.is_group);
  EXPECT_EQ(ask->message.text, "hello there");  // /ask: the text itself, an agent turn
  dm["data"] = {{"name", "dock"}, {"type", 1}, {"options", {{{"name", "channel"}, {"type", 3}, {"value", "telegram"}}}}};
  EXPECT_EQ(parse_command_interaction(dm, "default")->message.text, "/dock_telegram");
}

TEST(DiscordCommands, OtherInteractionsAndIncompleteOnesAreIgnored) {
  json component = guild_interaction();
  component["type"] = 3;  // MESSAGE_COMPONENT
  EXPECT_FALSE(parse_command_interaction(component, "default"));
  json user_command = guild_interaction();
  user_command["data"]["type"] = 2;  // a USER context-menu command
  EXPECT_FALSE(parse_command_interaction(user_command, "default"));
  json no_token = guild_interaction();
  no_token.erase("token");
  EXPECT_FALSE(parse_command_interaction(no_token, "default"));
  json from_bot = guild_interaction();
  from_bot["member"]["user"]["bot"] = true;
  EXPECT_FALSE(parse_command_interaction(from_bot, "default"));
  EXPECT_FALSE(parse_command_interaction(json::array(), "default"));
}
