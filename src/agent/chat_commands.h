// The slash commands of every chat surface (UI-4), defined once: chat platforms
// (channels/inbound_pipeline.cpp), the gateway's `chat.send` and `agent` methods (so the web chat,
// `pincer agent -m` and OpenClaw clients get them, as OpenClaw answers commands sent through
// chat.send) and `pincer chat`, whose /help prints this table.
//
// A message is a command when it is exactly "/name" or "/name args" with a name (or alias) of the
// table, case-insensitive; "/name@bot" is one when the surface says the bot was addressed. A
// command word that names no command ("/nonsense", "/nonsense args": letters, digits, _ and -) is
// the unknown command, answered the same on every surface ("Unknown command /nonsense — /help
// lists them."); other text starting with "/" (a path) is a message for the model.
//
// Loop affinity: run_chat_command() calls AgentService, so it runs on the event loop thread;
// parsing and the table are pure.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"

namespace pincer::agent {

class AgentService;

/// The one rule for an empty chat message, on every surface (AgentService::send, chat.send,
/// `agent`, `pincer agent -m`): nothing but whitespace (space, tab, CR, LF, VT, FF).
bool is_blank_message(std::string_view text);

/// One command of the table.
struct ChatCommand {
  std::string name;                  ///< without the slash, lower case
  std::vector<std::string> aliases;  ///< other names that run it
  std::string args;                  ///< usage of its argument ("" = none), e.g. "LEVEL"
  std::string help;                  ///< one line for /help
  /// Handled by the terminal chat itself (it switches what the terminal talks to, or quits); other
  /// surfaces do not list or run it.
  bool terminal_only = false;
};

/// Every command, in /help order.
const std::vector<ChatCommand>& chat_commands();

/// A command found in a message.
struct CommandInvocation {
  const ChatCommand* command = nullptr;  ///< never null in a returned invocation
  std::string arg;                       ///< the rest of the message, trimmed
  std::string rest;                      ///< unknown_command() only: the message after the word, trimmed
};

/// The entry a command word that names no command resolves to (its invocation's `arg` is the
/// word); run_chat_command answers it with the one "Unknown command" reply.
const ChatCommand& unknown_command();

/// `text` trimmed, with OpenClaw's "/cmd: args" spelling read as "/cmd args" (a colon right after
/// the command word). Other text is only trimmed.
std::string normalize_command_text(std::string_view text);

/// Parses `text` (normalize_command_text) as a command of the table (or the unknown command, above). `addressed_to_us`: a "/name@someone" form counts only
/// when true (a Telegram group message that mentions this bot). nullopt: not a command.
std::optional<CommandInvocation> parse_chat_command(std::string_view text, bool addressed_to_us = false);

/// The /help text: one line per command (terminal-only ones only when `terminal`).
std::string chat_commands_help(bool terminal);

/// The answer of a command: text for the user (Markdown-light, one or a few lines).
struct CommandReply {
  std::string text;
  bool ok = true;  ///< false when the command failed (the text says why)
  /// The command queued work whose result comes later (/compact, /tree ID): the context's
  /// follow_up will be called once with it. Only set when the context has a follow_up.
  bool follows = false;
};

/// What a surface lends a command while it runs.
struct CommandContext {
  AgentService& agents;
  std::string session_key;  ///< the session the message belongs to (canonicalised by AgentService)
  /// `/stop`: the surface drops what it queued for the session (channels), before the abort.
  std::function<void()> drop_queued;
  /// The result of work a command queued (/compact, /tree ID), delivered where the command came
  /// from: a chat event (chat.send), the `agent` method's final answer, a channel reply, the
  /// terminal. Called exactly once per reply with `follows` set, on the loop thread, after
  /// run_chat_command returned — when the compaction or branch switch ended, failed or was
  /// stopped (the text says which; ok false for the last two). Unset: the result is only logged.
  std::function<void(const CommandReply&)> follow_up = {};
  /// The caller may change the gateway's config (/dreaming on|off): a channel sender in
  /// commands.ownerAllowFrom, a gateway client holding operator.admin.
  bool may_change_config = false;
  /// Writes an RFC 7386 merge patch to pincer.json through the config file's one writer; the
  /// gateway's config reload applies it. Unset: this surface cannot write the config.
  std::function<Status(const nlohmann::json& merge_patch)> patch_config = {};
};

/// Runs a command that is not terminal-only (a terminal-only one answers that it works only in
/// `pincer chat`). Never throws.
CommandReply run_chat_command(const CommandInvocation& invocation, CommandContext& context);

}  // namespace pincer::agent
