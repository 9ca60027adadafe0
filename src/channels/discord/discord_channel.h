// Discord as a Channel (SPEC CH-1, CH-2): a bot account over the Gateway WebSocket
// (discord_gateway.h; GET /gateway/bot first) and REST v10 (discord_rest.h: per-route queues that
// honour Discord's rate limits). MESSAGE_CREATE in DMs and guild channels becomes an
// InboundMessage (discord_api.h parse_message_create: guild id and the member's roles ride along
// for bindings); replies are Discord Markdown within 2000 UTF-16 units (CH-4), sent with
// POST /channels/{id}/messages, streamed previews edited with PATCH, typing with
// POST /channels/{id}/typing, an optional acknowledgement reaction with PUT …/reactions/{emoji}/@me.
// Attachments are downloaded from their URL (discord_media.cpp) before the message goes on; messages
// reach the pipeline in the order Discord sent them. A thread is a conversation of its own (peer:
// the thread id) whose parent channel's bindings and `groups` entry apply (parent_chat_id, from
// the threads GUILD_CREATE / THREAD_CREATE announce).
//
// Slash commands (UI-4, discord_commands.h): registered on READY; an invocation is deferred and
// runs as a message of its user; the replies of its own run edit the interaction's response (other
// messages to that conversation are ordinary channel messages).
//
// Restarts: the Gateway session (session_id, seq, resume URL) and the newest message id handled
// per Discord channel are kept in `state_file`, written after each message was handed to the
// pipeline (the seq kept stays before a message still downloading its attachments); the next process resumes the session (Discord replays what it missed) and ignores
// any MESSAGE_CREATE not newer than the one recorded for its channel, so nothing is answered twice.
//
// Loop affinity: all methods on the event-loop thread.
#pragma once

#include <deque>
#include <filesystem>
#include <map>
#include <memory>

#include "channels/channel.h"
#include "channels/channel_run.h"
#include "channels/discord/discord_api.h"
#include "channels/discord/discord_commands.h"
#include "channels/discord/discord_gateway.h"
#include "channels/discord/discord_rest.h"
#include "core/event_loop.h"
#include "core/http_client.h"

namespace pincer::channels::discord {

struct DiscordSettings {
  std::string account_id = "default";
  std::string token;                                ///< channels.discord.token (the bot token)
  std::string api_root = "https://discord.com/api"; ///< REST root; `/v10` is appended
  int64_t intents = 0;                              ///< 0 = kDefaultIntents
  std::filesystem::path state_file;                 ///< "" = memory only
  std::string ack_reaction;                         ///< emoji added to each accepted message ("" = none)
  std::string config_path = "channels.discord";     ///< where the account's keys are, for error messages
  bool native_commands = true;     ///< commands.native: register the slash commands (discord_commands.h)
  bool ephemeral_commands = true;  ///< slashCommand.ephemeral: command replies only the invoker sees
};

/// Discord's upload limit for a bot without server boosts (10 MiB per message).
inline constexpr std::size_t kDiscordMaxUploadBytes = 10u << 20;

class DiscordChannel final : public Channel {
 public:
  DiscordChannel(EventLoop& loop, DiscordSettings settings);
  ~DiscordChannel() override;

  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return settings_.account_id; }
  ChannelCapabilities capabilities() const override;
  void start(ChannelHost& host, std::function<void(const std::string&)> on_failed) override;
  void stop() override;
  /// After a failure: the token was refused (GET /gateway/bot 401, Gateway close 4004).
  bool failed_permanently() const override { return run_.permanent(); }
  /// POST /channels/{chat_id}/messages; the new message's id. `chat_id` is a target as OpenClaw
  /// writes them (discord_api.h parse_delivery_target): `channel:<id>`, a bare id (a channel),
  /// `user:<id>` or a mention `<@id>` (a DM, opened first with POST /users/@me/channels and
  /// remembered). 429s wait inside the REST queue; other answers: 5xx / transport → UNAVAILABLE,
  /// 4xx → REJECTED (with Discord's message).
  void send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) override;
  /// One message with the file: POST /channels/{id}/messages as multipart/form-data (payload_json +
  /// files[0]), within kDiscordMaxUploadBytes (discord_send_media.cpp). Errors as send_text's.
  void send_media(const OutboundMedia& media, std::function<void(Result<std::string>)> done) override;
  /// PATCH /channels/{chat_id}/messages/{message_id} {content}.
  void edit_text(const std::string& chat_id, const std::string& message_id, const std::string& text,
                 std::function<void(Status)> done) override;
  void send_typing(const std::string& chat_id, const std::string& thread_id) override;
  /// "user:<id>": the DM channel is opened on first use (POST /users/@me/channels).
  std::string direct_chat_id(const std::string& user_id) const override { return "user:" + user_id; }
  /// PUT (DELETE to remove) /channels/{channel}/messages/{message_id}/reactions/{emoji}/@me, the
  /// channel resolved from `chat_id` as for send_text(); `emoji` unicode or `name:id` (custom).
  void react(const std::string& chat_id, const std::string& message_id, const std::string& emoji, bool remove,
             std::function<void(Status)> done) override;
  /// {channel, accountId, running, mode:"gateway", bot (user name), botId, connected, gateway:{…},
  /// rest:{…}, messagesSeen, messagesSent, messagesEdited, replaysIgnored, lastError?}.
  nlohmann::json status() const override;
  /// GET /users/@me now: {ok, bot:{id, username}, elapsedMs} or {ok:false, error}.
  void probe(std::function<void(nlohmann::json)> done) override;

 private:
  /// The Discord channel id of a delivery target (a DM channel is opened for a user).
  void resolve_target(const std::string& target, std::function<void(Result<std::string>)> done);
  void on_dispatch(const std::string& type, const nlohmann::json& d, int64_t seq);
  /// Hands the waiting messages to the pipeline in order, each once its attachments are fetched.
  void pump_inbound();
  /// A resumed session (no READY): the slash commands get the application id known from the
  /// state file, else from GET /applications/@me.
  void commands_on_resume();
  /// Downloads the first file of `inbound_.front()` into its media (or a notice line), then
  /// pump_inbound() again (discord_media.cpp).
  void fetch_next_file();
  void save_state();

  EventLoop& loop_;
  DiscordSettings settings_;
  std::string id_ = "discord";
  ChannelRun run_;  ///< liveness of the current run, failure reporting, running / lastError
  std::unique_ptr<DiscordRest> rest_;
  std::unique_ptr<DiscordGateway> gateway_;
  std::unique_ptr<DiscordCommands> commands_;  ///< slash commands; lives with rest_
  ChannelHost* host_ = nullptr;
  GatewaySession session_;
  /// A message waiting for its attachments (and the ones behind it, to keep the order).
  struct PendingInbound {
    InboundMessage message;
    std::vector<DiscordFile> files;
    int64_t seq = -1;  ///< its dispatch's sequence number
  };
  std::deque<PendingInbound> inbound_;
  bool fetching_ = false;
  std::unique_ptr<net::HttpClient> http_;  ///< attachment downloads
  std::map<std::string, std::string> thread_parent_;  ///< thread id → its parent channel id
  std::map<std::string, std::string> last_message_;  ///< Discord channel id → newest message id handled
  std::map<std::string, std::string> dm_channels_;   ///< user id → the DM channel opened with them
  std::string bot_user_id_, bot_username_;
  std::string application_id_;  ///< READY's application.id (state file "applicationId"), for the slash commands
  int64_t messages_seen_ = 0, messages_sent_ = 0, messages_edited_ = 0, replays_ignored_ = 0;
};

}  // namespace pincer::channels::discord
