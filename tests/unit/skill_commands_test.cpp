// Skill commands (skills/skill_commands.h): names, parsing and the model's message, as OpenClaw
// makes them for user-invocable skills.
#include <gtest/gtest.h>

#include "agent/chat_commands.h"
#include "agent/skill_command_input.h"
#include "skills/front_matter.h"
#include "skills/skill_commands.h"

namespace pincer::skills {
namespace {

SkillEntry skill_cmd_entry(const std::string& name, const std::string& description, bool eligible = true,
                           bool user_invocable = true) {
  SkillEntry e;
  e.manifest.name = name;
  e.manifest.description = description;
  e.manifest.user_invocable = user_invocable;
  e.eligible = eligible;
  return e;
}

std::vector<SkillCommand> commands_of(std::vector<SkillEntry> entries,
                                      const std::set<std::string>& reserved = agent::builtin_command_words()) {
  SkillsReport report;
  report.skills = std::move(entries);
  return skill_commands(report, reserved);
}

TEST(SkillCommands, NamesFollowOpenClawsRules) {
  const auto commands = commands_of({skill_cmd_entry("Daily Notes", "Keeps notes."),
                                     skill_cmd_entry("--weird--name!!", "d"),
                                     skill_cmd_entry("日本語", "only non-ASCII"),
                                     skill_cmd_entry("a-very-long-skill-name-that-goes-on-and-on", "d")});
  ASSERT_EQ(commands.size(), 4u);
  EXPECT_EQ(commands[0].name, "daily_notes");
  EXPECT_EQ(commands[0].skill_name, "Daily Notes");
  EXPECT_EQ(commands[1].name, "weird_name");
  EXPECT_EQ(commands[2].name, "skill_2");  // "skill" is /skill NAME itself
  EXPECT_EQ(commands[3].name, "a_very_long_skill_name_that_goes");  // 32 characters
  EXPECT_EQ(commands[3].name.size(), 32u);
}

TEST(SkillCommands, BuiltInCommandsAndEarlierSkillsKeepTheirWords) {
  const auto commands = commands_of({skill_cmd_entry("status", "a skill called status"), skill_cmd_entry("notes", "one"),
                                     skill_cmd_entry("Notes", "two")});
  ASSERT_EQ(commands.size(), 3u);
  EXPECT_EQ(commands[0].name, "status_2");  // /status is built in
  EXPECT_EQ(commands[1].name, "notes");
  EXPECT_EQ(commands[2].name, "notes_2");
  // A long name gets its suffix within the 32 characters.
  const auto long_ones = commands_of({skill_cmd_entry(std::string(40, 'x'), "a"), skill_cmd_entry(std::string(41, 'x'), "b")}, {});
  ASSERT_EQ(long_ones.size(), 2u);
  EXPECT_EQ(long_ones[1].name, std::string(30, 'x') + "_2");
}

TEST(SkillCommands, ASkillCalledSkillDoesNotTakeTheGenericCommand) {
  const auto commands = commands_of({skill_cmd_entry("skill", "a skill named skill")});
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0].name, "skill_2");
  auto generic = parse_skill_command("/skill skill go", commands);
  ASSERT_TRUE(generic);
  EXPECT_EQ(generic->input, "go");
}

TEST(SkillCommands, AnExactNameWinsOverALooseMatch) {
  const auto commands = commands_of({skill_cmd_entry("dash--x", "two hyphens"), skill_cmd_entry("dash-x", "one")});
  auto one = parse_skill_command("/skill dash-x a", commands);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->command.skill_name, "dash-x");
  auto two = parse_skill_command("/skill DASH--X a", commands);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->command.skill_name, "dash--x");
}

TEST(SkillCommands, OnlyEligibleUserInvocableSkillsAreCommands) {
  const auto commands = commands_of({skill_cmd_entry("ready", "d"), skill_cmd_entry("missing-bin", "d", /*eligible=*/false),
                                     skill_cmd_entry("model-only", "d", true, /*user_invocable=*/false)});
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0].name, "ready");
}

TEST(SkillCommands, DescriptionsAreCutToAHundredCharacters) {
  std::string long_text;
  for (int i = 0; i < 60; ++i) long_text += "é";  // two bytes each
  long_text += std::string(60, 'a');
  const auto commands = commands_of({skill_cmd_entry("x", long_text), skill_cmd_entry("y", std::string(100, 'b'))});
  ASSERT_EQ(commands.size(), 2u);
  std::size_t points = 0;
  for (unsigned char c : commands[0].description) points += (c & 0xC0) != 0x80;
  EXPECT_EQ(points, 100u);
  EXPECT_EQ(commands[0].description.substr(commands[0].description.size() - 3), "\u2026");
  EXPECT_EQ(commands[1].description, std::string(100, 'b'));  // exactly the limit: kept whole
}

TEST(SkillCommands, ParsesBothFormsAndBuildsTheModelsMessage) {
  const auto commands = commands_of({skill_cmd_entry("daily-notes", "Keeps notes.")});
  auto direct = parse_skill_command("  /Daily_Notes  what I did today\nand more ", commands);
  ASSERT_TRUE(direct);
  EXPECT_EQ(direct->command.skill_name, "daily-notes");
  EXPECT_EQ(direct->input, "what I did today\nand more");
  EXPECT_EQ(skill_command_prompt(*direct),
            "Use the \"daily-notes\" skill for this request.\n\nUser input:\nwhat I did today\nand more");

  for (const char* text : {"/skill daily-notes", "/skill Daily_Notes", "/SKILL daily_notes", "/skill daily notes"}) {
    auto generic = parse_skill_command(text, commands);
    if (std::string(text) == "/skill daily notes") {  // "notes" is the input of a skill called "daily"
      EXPECT_FALSE(generic) << text;
      continue;
    }
    ASSERT_TRUE(generic) << text;
    EXPECT_EQ(generic->input, "");
    EXPECT_EQ(skill_command_prompt(*generic), "Use the \"daily-notes\" skill for this request.");
  }
  EXPECT_FALSE(parse_skill_command("/skill", commands));
  EXPECT_FALSE(parse_skill_command("/skill nope input", commands));
  EXPECT_FALSE(parse_skill_command("/daily-notes", commands));  // the command word is daily_notes
  EXPECT_FALSE(parse_skill_command("daily_notes", commands));
  EXPECT_FALSE(parse_skill_command("/daily_notes@SomeBot hi", commands));  // another bot's command in a group
  ASSERT_TRUE(parse_skill_command("/daily_notes@MyBot hi", commands, /*addressed_to_us=*/true));
  EXPECT_EQ(parse_skill_command("/daily_notes@MyBot hi", commands, true)->input, "hi");
}

TEST(SkillCommands, AMissSaysWhatToTypeOrWhyTheSkillCannotRun) {
  SkillsReport report;
  report.skills = {skill_cmd_entry("My Skill", "two words"), skill_cmd_entry("blocked", "off", false),
                   skill_cmd_entry("quiet", "not a command", true, false), skill_cmd_entry("notes", "one word")};
  report.skills[1].disabled = true;
  report.skills[1].manifest.skill_key = "blocked";
  report.skills[1].reasons = {"disabled in skills.entries.blocked.enabled"};
  report.skills[2].file = "/ws/skills/quiet/SKILL.md";
  const auto commands = skill_commands(report, agent::builtin_command_words());
  // Before: "/skill My Skill" answered "No such skill command" with no hint.
  ASSERT_FALSE(parse_skill_command("/skill My Skill summarize this", commands));
  EXPECT_EQ(skill_command_miss("skill", "My Skill summarize this", report, commands).value_or(""),
            "\"My Skill\" is the skill \"My Skill\": type its command word, /my_skill [input] (or /skill my_skill [input]); "
            "a name with spaces is not read as one, since the input follows it.");
  EXPECT_EQ(skill_command_miss("skill", "blocked now", report, commands).value_or(""),
            "The skill \"blocked\" is not available to this agent: disabled in skills.entries.blocked.enabled. To run it, set "
            "skills.entries.blocked.enabled to true in pincer.json. (`pincer skills list` shows each skill and why.)");
  EXPECT_EQ(skill_command_miss("blocked", "now", report, commands), skill_command_miss("skill", "blocked", report, commands))
      << "its own command word says the same";
  EXPECT_NE(skill_command_miss("skill", "quiet", report, commands).value_or("").find("sets user-invocable: false"),
            std::string::npos);
  EXPECT_NE(skill_command_miss("skill", "quiet", report, commands).value_or("").find("/ws/skills/quiet/SKILL.md"),
            std::string::npos);
  // Nothing to add: an unknown name, or a word that is no skill.
  EXPECT_FALSE(skill_command_miss("skill", "nosuch thing", report, commands));
  EXPECT_FALSE(skill_command_miss("skill", "", report, commands));
  EXPECT_FALSE(skill_command_miss("bogus", "", report, commands));
}

TEST(SkillCommands, TheColonSpellingOfACommandIsReadAsOpenClawReadsIt) {
  EXPECT_EQ(agent::normalize_command_text("  /status: now "), "/status now");
  EXPECT_EQ(agent::normalize_command_text("/summarize :the text"), "/summarize the text");
  EXPECT_EQ(agent::normalize_command_text("/status:"), "/status");
  EXPECT_EQ(agent::normalize_command_text("/status now: later"), "/status now: later");  // a colon in the input stays
  EXPECT_EQ(agent::normalize_command_text("note: /status"), "note: /status");            // not a command
  auto status = agent::parse_chat_command("/status: please");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->command->name, "status");
  const auto commands = commands_of({skill_cmd_entry("release", "Releases.")});
  auto skill = parse_skill_command(agent::normalize_command_text("/release: v2"), commands);
  ASSERT_TRUE(skill);
  EXPECT_EQ(skill->input, "v2");
}

TEST(SkillCommands, FrontMatterFlagsAreReadAsOpenClawReadsThem) {
  auto parse = [](const std::string& extra) {
    auto r = parse_skill_md("---\nname: n\ndescription: d\n" + extra + "---\nBody\n");
    EXPECT_TRUE(r.manifest) << extra;
    return r.manifest ? *r.manifest : SkillManifest{};
  };
  EXPECT_TRUE(parse("").user_invocable);
  EXPECT_FALSE(parse("user-invocable: false\n").user_invocable);
  EXPECT_FALSE(parse("user-invocable: \"no\"\n").user_invocable);
  EXPECT_TRUE(parse("user-invocable: maybe\n").user_invocable);  // not a flag: the default
  EXPECT_FALSE(parse("disable-model-invocation: \"true\"\n").model_invocable);
  EXPECT_TRUE(parse("disable-model-invocation: off-ish\n").model_invocable);
  EXPECT_EQ(parse("command-dispatch: tool\ncommand-tool: exec\n").dispatch_tool, "exec");
  EXPECT_EQ(parse("command-tool: exec\n").dispatch_tool, "");  // no dispatch: the model decides
}

}  // namespace
}  // namespace pincer::skills
