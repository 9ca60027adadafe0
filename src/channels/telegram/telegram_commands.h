// The Telegram bot's command menu (UI-4; OpenClaw's native commands): on connect the chat commands
// that every surface has (agent/chat_commands.h, terminal-only ones left out) and the skill
// commands (skills/skill_commands.h) are set with setMyCommands, unless getMyCommands already lists
// exactly them; `channels.telegram.commands.native: false` clears a menu set before
// (deleteMyCommands). Typed commands work either way: the menu only offers them.
//
// The Bot API's limits, as OpenClaw applies them: at most 100 commands; a command is 1–32
// characters of a–z, 0–9 and _ (others are left out); a description is 1–256 characters; and all
// commands and descriptions together stay within 5 700 characters (Telegram refuses longer menus
// with BOT_COMMANDS_TOO_MUCH) — descriptions are shortened evenly ("…") to fit, and the last
// commands are dropped only when even one character each would not fit.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "skills/skill_commands.h"

namespace pincer::channels::telegram {

/// The menu: [{command, description}], built-in commands first (in /help order), then
/// `skill_commands` whose word no built-in command has. Pure.
nlohmann::json telegram_command_menu(const std::vector<skills::SkillCommand>& skill_commands);

/// Whether getMyCommands' `listed` result is `wanted` (same commands, descriptions, order).
bool telegram_menus_match(const nlohmann::json& listed, const nlohmann::json& wanted);

}  // namespace pincer::channels::telegram
