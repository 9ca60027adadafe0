// Slack slash commands (https://api.slack.com/interactivity/slash-commands), pure: a command's
// payload — a Socket Mode `slash_commands` envelope's payload, or the form fields Slack POSTs in
// HTTP mode (the same keys) — → the InboundMessage the pipeline takes, and where its replies go.
//
// OpenClaw's facts (channels.slack.slashCommand): one configured command, `/<name>` (default
// disabled; OpenClaw's name is `openclaw`, Pincer's `pincer`), whose text is the message: `/pincer
// /new` runs Pincer's `/new`, `/pincer what is up?` is a prompt; replies are ephemeral (seen only
// by the person, through the command's response_url) unless `ephemeral: false`. A command the app
// receives under any other name is one the owner registered in the Slack app as a native command
// (`/new`, `/status` …): it becomes "<command> <text>". Pincer runs both in the conversation's own
// session (OpenClaw runs prompts in `<sessionPrefix>:<user>`, an isolated session; commands such
// as /new in the conversation's, as here).
//
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "channels/channel.h"

namespace pincer::channels::slack {

/// channels.slack.slashCommand.
struct SlashCommandSettings {
  bool enabled = false;          ///< `enabled` (OpenClaw's default: off)
  std::string name = "pincer";   ///< `name`, without the slash
  bool ephemeral = true;         ///< `ephemeral`: replies only the person sees (response_url)
};

/// One invocation as Slack sends it (the keys of the payload / form).
struct SlashCommand {
  std::string command;       ///< "/pincer"
  std::string text;          ///< what follows the command
  std::string user_id, user_name;
  std::string channel_id;    ///< where it was typed ("D…" a DM, "C…" a channel, "G…" private / group DM)
  std::string channel_name;  ///< "directmessage", "privategroup", "mpdm-…" or the channel's name
  std::string team_id;
  std::string response_url;  ///< replies for 30 minutes, at most 5 posts (Slack's limits)
  std::string trigger_id;    ///< unique per invocation: the message id (dedupe, QL-4)
};

/// Reads a payload (JSON object of strings). Errors: "INVALID_REQUEST" naming the missing field
/// (command, user_id, channel_id or trigger_id).
Result<SlashCommand> parse_slash_command(const nlohmann::json& payload);

/// The message text the command stands for: `/<settings.name> <text>` → the text trimmed
/// ("" → "/help"); any other command (a native one) → "<command> <text>" trimmed.
std::string slash_command_text(const SlashCommand& c, const SlashCommandSettings& settings);

/// The InboundMessage of a command: chat_id = channel_id; a "D…" channel is a direct message,
/// "G…" named "mpdm-…" a group, other channels channel peers (as slack_api.h keys events);
/// message_id = "slash:<trigger_id>"; mentions_bot (a command is addressed to the bot); ts_ms = now_ms.
InboundMessage slash_inbound(const SlashCommand& c, const std::string& account_id, std::string text, int64_t now_ms);

/// The body POSTed to a response_url for a reply only the person sees: {response_type: "ephemeral", text}.
nlohmann::json response_url_body(const std::string& text);
/// chat.postEphemeral {channel, user, text}: an ephemeral reply once the response_url is used up.
nlohmann::json post_ephemeral_body(const std::string& channel, const std::string& user, const std::string& text);

/// Slack's limits of a response_url.
inline constexpr int64_t kResponseUrlLifetimeMs = 30 * 60 * 1000;
inline constexpr int kResponseUrlUses = 5;

}  // namespace pincer::channels::slack
