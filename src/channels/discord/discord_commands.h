// Discord slash commands (SPEC UI-4; https://discord.com/developers/docs/interactions): the chat
// commands of agent/chat_commands.h as the bot's global application commands, and their
// invocations (INTERACTION_CREATE type 2, APPLICATION_COMMAND) as inbound messages.
//
// Registration: on READY (or, for a session resumed by a new process, which sees no READY, with
// the application id kept in the state file, else GET /applications/@me) the wanted set (native_command_set()) is compared with
// GET /applications/{application.id}/commands and written with one bulk overwrite
// (PUT …/commands) only when it differs; `commands.native: false` registers the empty set, which
// removes commands an earlier run registered (as OpenClaw does).
//
// An invocation is answered within Discord's 3 s with a deferred response (POST
// /interactions/{id}/{token}/callback type 5, ephemeral unless `slashCommand.ephemeral: false`,
// OpenClaw's default), then handed to the pipeline as the message "/name args" from that user in
// that channel/guild — the same access policy, pairing, bindings and session as a typed message.
// The replies of the command's own run (or of the command itself) then go to the interaction —
// those whose OutboundMessage::reply_to names the interaction id —: the first send_text edits the
// deferred response (PATCH /webhooks/{application.id}/{token}/messages/@original), later ones are
// follow-ups (POST /webhooks/{application.id}/{token}), and edits of those messages (streaming
// previews) use PATCH …/messages/{id}, while the token lives (15 minutes). Everything else sent to
// that conversation meanwhile — a cron or heartbeat announce, the replies of other messages' runs,
// the `message` tool — is an ordinary channel message, seen by everyone there. A sender the
// access policy drops sees the deferred response replaced by a refusal and no run starts; a
// replayed (already handled) interaction's deferred response is deleted.
//
// Loop affinity: event-loop thread only; callbacks on the loop; none after the object is gone
// (they ride on DiscordRest, which must outlive it).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "channels/channel.h"
#include "channels/discord/discord_rest.h"
#include "core/multipart_form.h"
#include "skills/skill_commands.h"

namespace pincer::channels::discord {

/// How long an interaction token can edit its response and send follow-ups (Discord: 15 minutes).
inline constexpr int64_t kInteractionTokenLifeMs = 15 * 60 * 1000;

/// The application commands Pincer registers (CHAT_INPUT, type 1): every chat command that is not
/// terminal-only (names lower case, ≤ 32 characters; descriptions cut to Discord's 100), one
/// optional string option `args` for a command that takes an argument (its usage as the
/// option's description), `dock` with a required `channel` option (runs `/dock_<channel>`, RT-5)
/// and `ask` with a required `message` option (a message for the agent: one agent turn); then
/// each skill command (skills/skill_commands.h) with an optional `input` option, as long as the
/// set stays within Discord's 100 commands per application (the rest are logged and left out).
/// Sorted by name. Empty when `enabled` is false.
nlohmann::json native_command_set(bool enabled, const std::vector<skills::SkillCommand>& skill_commands = {});

/// Whether the registered commands (GET …/commands: objects with ids, versions and defaults
/// Discord adds) already match `wanted` by name, description and options (name, type,
/// description, required) — order of the commands ignored.
bool command_sets_match(const nlohmann::json& registered, const nlohmann::json& wanted);

/// One application-command invocation.
struct CommandInteraction {
  std::string id;     ///< the interaction's snowflake
  std::string token;  ///< its token (responses, follow-ups), valid kInteractionTokenLifeMs
  InboundMessage message;
};

/// An INTERACTION_CREATE's `d` as an invocation, or nullopt when it is not an APPLICATION_COMMAND
/// (type 2) of a chat-input command, lacks id, token, channel or user, or comes from a bot.
/// chat_id = channel_id; the user is member.user in a guild (roles from member.roles) else `user`;
/// is_group = channel_peer = a guild_id is present; mentions_bot = true (a slash command
/// addresses the bot); message_id = the interaction id; text "/<name> <options' values>" ("dock"
/// → "/dock_<channel>", "ask" → the message itself); ts_ms from the snowflake.
std::optional<CommandInteraction> parse_command_interaction(const nlohmann::json& d, const std::string& account_id);

/// The registration and the interactions in flight of one Discord account.
class DiscordCommands {
 public:
  struct Options {
    bool native = true;     ///< channels.discord.commands.native
    bool ephemeral = true;  ///< channels.discord.slashCommand.ephemeral
    std::string account_id = "default";
    /// Every agent's skill commands (agent::skill_commands_of_all_agents), registered too.
    std::vector<skills::SkillCommand> skill_commands = {};
  };
  /// `rest` outlives this object. `now_ms`: the wall clock (ms) token lifetimes are measured by.
  DiscordCommands(DiscordRest& rest, Options options, std::function<int64_t()> now_ms);

  /// READY: `application_id` (READY's application.id) for the command and webhook routes; syncs
  /// the registration (GET, then PUT when it differs). Failures are logged and kept in status().
  void on_ready(const std::string& application_id);
  /// The application id on_ready() was given ("" = none yet: a resumed session sees no READY).
  const std::string& application_id() const { return application_id_; }

  /// INTERACTION_CREATE: a command invocation is deferred, then `hand_on` gets its message (the
  /// pipeline's outcome decides what the deferred response becomes, see above). Other
  /// interactions (components, autocomplete) are ignored.
  void on_interaction(const nlohmann::json& d, std::function<InboundOutcome(InboundMessage)> hand_on);

  /// When `reply_to` (OutboundMessage::reply_to) is a live interaction's id: sends `content` as
  /// its response (first) or a follow-up and returns true; `done` gets the message id or an error
  /// coded as send_text's. False (nothing sent) for any other message: it goes to the channel.
  bool send(const std::string& reply_to, const std::string& content, std::function<void(Result<std::string>)> done);
  /// A file for the same interaction (OutboundMedia::reply_to): `payload` is the message JSON
  /// (content?, attachments), `file` its files[0] part, sent as multipart/form-data where send()
  /// would send text — the deferred response or an (ephemeral, as configured) follow-up — so a
  /// private command's file stays as private as its text. False (nothing sent) when `reply_to`
  /// is no live interaction.
  bool send_media(const std::string& reply_to, nlohmann::json payload, net::FormPart file,
                  std::function<void(Result<std::string>)> done);
  /// When `message_id` is an interaction's response or follow-up (token still valid): edits it and
  /// returns true.
  bool edit(const std::string& message_id, const std::string& content, std::function<void(Status)> done);

  /// {registration: "unchanged"|"updated"|"failed: …"|"pending", native, ephemeral, interactions}.
  nlohmann::json status() const;

 private:
  struct Live {
    std::string token;
    int64_t created_ms = 0;
    bool original_claimed = false;  ///< a send went (or goes) to @original
  };
  std::string webhook_path(const std::string& token) const;
  /// Where the next reply to `live` goes: PATCH of @original (the first; claims it) or a POST
  /// follow-up; `body` gets the ephemeral flag a follow-up needs. Null when `reply_to` is no
  /// live interaction.
  struct Route {
    std::string method, path, token;
    int64_t created_ms = 0;
  };
  std::optional<Route> route_reply(const std::string& reply_to, nlohmann::json& body);
  /// Keeps a response/follow-up id for edit() and hands `done` the id (or the error).
  void answered(const Route& route, const RestAnswer& a, const std::function<void(Result<std::string>)>& done);
  void forget_expired();

  DiscordRest& rest_;
  Options options_;
  std::function<int64_t()> now_ms_;
  std::string application_id_;
  std::string registration_ = "pending";
  std::map<std::string, Live> live_;  ///< interaction id → its token, for the replies that answer it
  /// message id → {token, created_ms}: responses and follow-ups, editable through the webhook.
  std::map<std::string, std::pair<std::string, int64_t>> messages_;
  int64_t interactions_ = 0;
};

}  // namespace pincer::channels::discord
