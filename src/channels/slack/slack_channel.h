// Slack as a Channel (SPEC CH-1, CH-2): a Slack app in Socket Mode
// (https://api.slack.com/apis/socket-mode). start(): auth.test with the bot token (the bot's user
// id for mention gating, the team) → apps.connections.open with the app token → the WebSocket URL,
// opened with the Discord channel's WebSocketClient. Slack sends `hello`, then envelopes:
// `events_api` envelopes carrying `message` / `app_mention` events become InboundMessages
// (slack_api.h parse_message_event) and each envelope is acknowledged ({"envelope_id"}) only after
// the pipeline took the message — by then it is in the run journal (inbound_journal.h), so a
// redelivery is recognised as answered, also after a restart. `disconnect` (Slack refreshes its
// connections every few hours) and a lost connection open a fresh URL (backoff 1 s, 2 s … 30 s).
// Replies are Slack mrkdwn (delivery/slack_mrkdwn.h) within 4000 UTF-16 units, sent with
// chat.postMessage (in the thread of a message that came from one: thread_ts) and streamed
// previews edited with chat.update; Web API calls wait out rate limits (slack_web_api.h).
//
// Restarts: the newest message ts handled per Slack conversation (the last 200) are kept in
// `state_file`, written after each message was handed to the pipeline; an event for one of them —
// or older than all of them — is acknowledged and ignored (this also removes the second of the
// `message` + `app_mention` pair a mention produces). A redelivered message older than a newer one
// already handled is still answered.
//
// Not implemented: the HTTP Events API mode, slash commands, files, reactions.
//
// Loop affinity: all methods on the event-loop thread.
#pragma once

#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "channels/channel.h"
#include "channels/channel_run.h"
#include "channels/discord/websocket_client.h"
#include "channels/slack/slack_api.h"
#include "channels/slack/slack_web_api.h"
#include "core/event_loop.h"

namespace pincer::channels::slack {

struct SlackSettings {
  std::string account_id = "default";
  std::string bot_token;                          ///< channels.slack.botToken (xoxb-…)
  std::string app_token;                          ///< channels.slack.appToken (xapp-…, connections:write)
  std::string api_root = "https://slack.com/api"; ///< Web API root (channels.slack.apiRoot)
  std::string config_path = "channels.slack";     ///< where the account's keys are, for error messages
  std::filesystem::path state_file;               ///< "" = memory only
};

class SlackChannel final : public Channel {
 public:
  SlackChannel(EventLoop& loop, SlackSettings settings);
  ~SlackChannel() override;

  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return settings_.account_id; }
  ChannelCapabilities capabilities() const override;
  void start(ChannelHost& host, std::function<void(const std::string&)> on_failed) override;
  void stop() override;
  /// After a failure: Slack refused the bot or app token (invalid_auth, not_authed, token_revoked,
  /// account_inactive, not_allowed_token_type).
  bool failed_permanently() const override { return run_.permanent(); }
  /// chat.postMessage {channel: chat_id, text, thread_ts: thread_id}; the new message's ts. A user
  /// id as chat_id (docking: direct_chat_id) posts in the bot's DM with that user. Errors: see
  /// slack_api.h delivery_error ({ok:false, error} names Slack's error).
  void send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) override;
  /// chat.update {channel, ts: message_id, text}.
  void edit_text(const std::string& chat_id, const std::string& message_id, const std::string& text,
                 std::function<void(Status)> done) override;
  /// {channel, accountId, running, mode:"socket", bot, botId, teamId, connected, webApi:{…},
  /// messagesSeen, messagesSent, messagesEdited, replaysIgnored, reconnects, lastError?}.
  nlohmann::json status() const override;
  /// auth.test now: {ok, bot:{id, username}, teamId, elapsedMs} or {ok:false, error}.
  void probe(std::function<void(nlohmann::json)> done) override;

 private:
  void open_connection();
  void on_frame(const std::string& text);
  void on_event(const SocketEnvelope& e);
  void reconnect(const std::string& why);
  void save_state();

  EventLoop& loop_;
  SlackSettings settings_;
  std::string id_ = "slack";
  ChannelRun run_;  ///< liveness of the current run, failure reporting, running / lastError
  std::unique_ptr<SlackWebApi> api_;
  std::unique_ptr<discord::WebSocketClient> ws_;
  ChannelHost* host_ = nullptr;
  std::optional<EventLoop::TimerId> reconnect_timer_;
  /// Whether message `ts` of `conversation` was handed to the pipeline already (kept across restarts).
  bool already_handled(const std::string& conversation, const std::string& ts) const;
  void remember_handled(const std::string& conversation, const std::string& ts);
  static constexpr std::size_t kHandledPerConversation = 200;
  /// conversation id → the newest message ts handled there, oldest first (at most kHandledPerConversation).
  std::map<std::string, std::deque<std::string>> handled_;
  std::map<std::string, std::string> dm_channels_;  ///< user id → the DM channel a post to them went to
  std::string bot_user_id_, bot_name_, team_id_;
  bool connected_ = false;  ///< `hello` seen on the current connection
  int failures_ = 0;
  int64_t messages_seen_ = 0, messages_sent_ = 0, messages_edited_ = 0, replays_ignored_ = 0, reconnects_ = 0;
};

}  // namespace pincer::channels::slack
