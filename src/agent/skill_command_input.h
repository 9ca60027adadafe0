// Skill commands on every chat surface (skills/skill_commands.h): "/<skill command> [input]" and
// "/skill <name> [input]" become the message the model gets for that skill — on chat platforms
// (channels/inbound_pipeline.cpp), the gateway's `chat.send` and `agent` methods and `pincer agent`
// (local), the same places the built-in commands are answered (agent/chat_commands.h). A built-in
// command always wins: skill command words never take a built-in name or alias.
//
// Loop affinity: none (reads the skills from disk, like `/skills`; only for a message whose first
// word is a command word that is not built in, so ordinary messages cost nothing).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "skills/skill_commands.h"

namespace pincer::agent {

/// The command words the built-in commands take (names and aliases, lower case), and "skill".
std::set<std::string> builtin_command_words();

/// The skill commands of `agent_id` ("" = the default agent), from pincer.json and the skills on
/// disk. Errors: as load_skills_view_from_disk (CONFIG_INVALID, AGENT_UNKNOWN).
Result<std::vector<skills::SkillCommand>> skill_commands_of(const std::string& agent_id);

/// The skill commands of every agent, for a platform's command menu (Discord's application
/// commands): each command word once (an agent's own command decides what it runs in its
/// sessions), in agent order. Errors are logged and give what could be read.
std::vector<skills::SkillCommand> skill_commands_of_all_agents();

/// When `text` runs a skill command of the agent of `session_key` (a canonical "agent:<id>:…"
/// key), the message for the model (skills::skill_command_prompt); nullopt for anything else — a
/// built-in command, an unknown command word (answered as today), text. `addressed_to_us`: as for
/// parse_chat_command ("/name@bot"). A failure to read the skills is logged and gives nullopt.
std::optional<std::string> expand_skill_command(std::string_view text, const std::string& session_key,
                                                bool addressed_to_us = false);

/// The answer to an unknown "/<word> <rest>" when the skills of the agent of `session_key` explain
/// it (skills::skill_command_miss: a skill named with spaces, or one the agent cannot run);
/// nullopt otherwise, or when the skills cannot be read (logged).
std::optional<std::string> skill_command_hint(const std::string& word, const std::string& rest, const std::string& session_key);

}  // namespace pincer::agent
