// Skill commands (SPEC SK-1, UI-4; OpenClaw's user-invocable skills): every eligible skill whose
// SKILL.md does not say `user-invocable: false` can be run by the user as a slash command,
// "/<command> [input]", or through the generic "/skill <name> [input]". The message the model then
// gets is OpenClaw's rewrite:
//
//   Use the "<skill name>" skill for this request.
//
//   User input:
//   <input>
//
// (the second paragraph only when there is input). Command names follow OpenClaw's rules, so a
// user moving from it types the same words: the skill name in lower case, every run of characters
// other than a-z, 0-9 and _ replaced by one "_", leading/trailing "_" dropped, at most 32
// characters ("skill" when nothing is left); a name already taken by a built-in command or an
// earlier skill gets "_2", "_3", … (cut to stay within 32). Descriptions are cut to 100 characters
// (Discord's limit for a command description), the last one "…".
//
// Pure functions; thread-safe; never throw.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "skills/skill_loader.h"

namespace pincer::skills {

/// One skill command.
struct SkillCommand {
  std::string name;         ///< the command word, without "/" (unique, lower case, ≤ 32 chars)
  std::string skill_name;   ///< the skill's `name`
  std::string description;  ///< ≤ 100 characters (UTF-8 code points)
};

/// The commands of `report`'s eligible, user-invocable skills, in the report's (name) order.
/// `reserved`: command words already taken (the built-in commands and their aliases, lower case).
std::vector<SkillCommand> skill_commands(const SkillsReport& report, const std::set<std::string>& reserved);

/// A skill command found in a message.
struct SkillInvocation {
  SkillCommand command;
  std::string input;  ///< the rest of the message, trimmed ("" = none)
};

/// Parses `text` ("/name input" with a command word of `commands`, case-insensitive; or
/// "/skill <name> input", where <name> may be the command word or the skill's name, in any case —
/// an exact match first, then with runs of spaces and "_" read as one "-"). "/name@bot" counts only when `addressed_to_us` (a Telegram
/// group message that mentions this bot), as for the built-in commands. nullopt: no skill command
/// (including "/skill" with no name or an unknown one).
std::optional<SkillInvocation> parse_skill_command(std::string_view text, const std::vector<SkillCommand>& commands,
                                                   bool addressed_to_us = false);

/// Why "/skill <rest>" (`word` "skill") or "/<word> …" ran no skill command of `commands`, when
/// `report` (the agent's skills, eligible or not) explains it; nullopt = nothing to add (the
/// generic "no such command" reply stands):
///   - `rest` names a skill command by a name with spaces ("/skill Daily Notes", whose command
///     word is daily_notes): what to type instead (the name ends where the input starts, so
///     Pincer does not guess);
///   - the words name a skill the agent has but cannot run — disabled (skills.entries.<key>.enabled),
///     not allowed (skills.allowBundled, agents.list[].skills), missing requirements, blocked by
///     the safety scan, or `user-invocable: false` in its SKILL.md: that, with the reasons.
std::optional<std::string> skill_command_miss(std::string_view word, std::string_view rest, const SkillsReport& report,
                                              const std::vector<SkillCommand>& commands);

/// The message the model gets for `invocation` (the rewrite above).
std::string skill_command_prompt(const SkillInvocation& invocation);

}  // namespace pincer::skills
