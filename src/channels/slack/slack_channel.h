// Slack as a Channel (SPEC CH-1, CH-2): a Slack app in Socket Mode
// (https://api.slack.com/apis/socket-mode) or, with `mode: "http"`, on the HTTP Events API (below).
// start(): auth.test with the bot token (the bot's user
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
// Reactions (CH-8): react() adds or removes the bot's reaction with reactions.add / reactions.remove.
//
// Slash commands (slack_commands.h; slack_channel_slash.cpp): a `slash_commands` envelope's command
// becomes an InboundMessage of the conversation it was typed in, acknowledged after the pipeline
// took it. With `ephemeral` (the default) the command's own replies — those of the run it started,
// OutboundMessage::reply_to naming it, for at most 30 minutes — go only to the person: POSTed to
// the command's response_url (5 times at most, Slack's limit), then with chat.postEphemeral; they
// are not streamed (an ephemeral message cannot be edited). Anything else sent to that
// conversation meanwhile (a cron or heartbeat announce, other runs' replies) is posted as usual. A command while `slashCommand.enabled` is
// false is acknowledged with an ephemeral note saying how to enable it.
//
// HTTP Events API mode (`mode: "http"`, slack_events_http.h; slack_channel_http.cpp): no Socket
// Mode connection; Slack POSTs to route() — `webhookPath` on the gateway's port — and each request
// must carry a valid signature with a timestamp within 5 minutes (else 401, nothing handled).
// `url_verification` is answered with its challenge; `event_callback` events go to the handler
// Socket Mode uses, once per event_id (Slack's retries, X-Slack-Retry-Num, are answered 200 and
// not handled again); slash commands arrive as forms (answered 200, the ack's note as the body).
//
// Files out (CH-1): send_media() uploads a reply's file with Slack's external upload (slack_files.h),
// at most 20 MB (OpenClaw's mediaMaxMb default), the caption as its message. A file answering a
// slash command whose reply is ephemeral is refused (REJECTED): Slack files cannot be private, so the
// reply says the file was not sent rather than showing it to the whole conversation.
//
// Files in (CH-2): a message's files (a file_share) are downloaded with the bot token
// (url_private_download; fetch_inbound_file: 5 MB cap, checked) and reach the agent as
// InboundMessage::media — images as images for a model that takes them —, one file at a time, the
// messages behind waiting so the pipeline sees them in order. A file that cannot be had becomes a
// line of the message's text. The event is acknowledged when it arrives: a message still waiting
// for its files when the account stops is not handed on (Slack does not send it again).
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
#include "channels/slack/slack_commands.h"
#include "channels/slack/slack_events_http.h"
#include "channels/slack/slack_web_api.h"
#include "core/event_loop.h"
#include "core/http_client.h"
#include "core/http_route.h"

namespace pincer::channels::slack {

struct SlackSettings {
  std::string account_id = "default";
  std::string bot_token;                          ///< channels.slack.botToken (xoxb-…)
  std::string app_token;                          ///< channels.slack.appToken (xapp-…, connections:write); socket mode
  bool http_mode = false;                         ///< channels.slack.mode "http" (the HTTP Events API)
  std::string signing_secret;                     ///< channels.slack.signingSecret (http mode)
  std::string webhook_path = std::string(kSlackDefaultWebhookPath);  ///< channels.slack.webhookPath (http mode)
  std::string api_root = "https://slack.com/api"; ///< Web API root (channels.slack.apiRoot)
  SlashCommandSettings slash;                     ///< channels.slack.slashCommand
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
  /// chat.postMessage {channel: chat_id, text, thread_ts: thread_id}; the new message's ts. A reply
  /// to an ephemeral slash command (reply_to = its message id, no thread): its response_url or
  /// chat.postEphemeral, and ""
  /// (an ephemeral message has no id to edit). A user
  /// id as chat_id (docking: direct_chat_id) posts in the bot's DM with that user. Errors: see
  /// slack_api.h delivery_error ({ok:false, error} names Slack's error).
  void send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) override;
  /// One file (slack_files.h, slack_channel_files.cpp): files.getUploadURLExternal → POST the bytes
  /// → files.completeUploadExternal in chat_id (a user id: their DM, conversations.open first),
  /// thread_ts = thread_id, initial_comment = caption; `done` gets Slack's file id. Errors coded as
  /// for send_text(), naming the step that failed.
  void send_media(const OutboundMedia& media, std::function<void(Result<std::string>)> done) override;
  /// chat.update {channel, ts: message_id, text}.
  void edit_text(const std::string& chat_id, const std::string& message_id, const std::string& text,
                 std::function<void(Status)> done) override;
  /// reactions.add / reactions.remove {channel, timestamp: message_id, name} (CH-8); the emoji as
  /// Slack's name (slack_reactions.h: ":eyes:", "eyes" or a common Unicode emoji, else REJECTED).
  /// Slack's already_reacted (adding) and no_reaction (removing) are Ok: the reaction is as asked.
  void react(const std::string& chat_id, const std::string& message_id, const std::string& emoji, bool remove,
             std::function<void(Status)> done) override;
  /// {channel, accountId, running, mode:"socket"|"http", bot, botId, teamId, connected, webApi:{…},
  /// http?:{path, requests, refused, retries},
  /// messagesSeen, messagesSent, messagesEdited, reactions, filesSent, slashCommands, replaysIgnored, reconnects, lastError?}.
  nlohmann::json status() const override;
  /// auth.test now — and in Socket Mode apps.connections.open with the app token, which a
  /// connection needs too: {ok, bot:{id, username}, teamId, elapsedMs} or {ok:false, error} (an
  /// app token Slack refuses: error names `<configPath>.appToken`).
  void probe(std::function<void(nlohmann::json)> done) override;

  /// HTTP mode: the Request URL's endpoint (settings.webhook_path) to add to the gateway; any body
  /// type (events are JSON, commands forms). Answers 200 ({challenge} to url_verification; a slash
  /// command: its note as {text}, else an empty body), 401 {ok:false, error} for a bad or stale signature, 400 for a
  /// body that is not a Slack request, 405 not POST, 503 while the account is not running.
  net::HttpRoute route();

 private:
  void open_connection();
  void on_frame(const std::string& text);
  /// An event_callback payload ({team_id, event, event_id}), from Socket Mode or HTTP.
  void on_event(const nlohmann::json& payload);
  /// send_media's steps after the conversation id is known (slack_channel_files.cpp).
  void upload_file(std::shared_ptr<const OutboundMedia> file, const std::string& channel,
                   std::function<void(Result<std::string>)> done);
  void handle_http(const net::HttpRouteRequest& request, net::HttpResponder respond);
  /// A slash command's payload (slack_channel_slash.cpp); the acknowledgement's payload, if any
  /// ({text}: an ephemeral note to the person).
  std::optional<nlohmann::json> on_slash(const nlohmann::json& payload);
  /// Sends `message` as the ephemeral reply to a slash command when one is pending for its chat;
  /// false (nothing done) otherwise.
  bool send_slash_reply(const OutboundMessage& message, std::function<void(Result<std::string>)>& done);
  void reconnect(const std::string& why);
  void save_state();
  /// Files in (slack_channel_files_in.cpp): hands the front messages of inbound_ to the pipeline,
  /// fetching their files first; then remembers them as handled.
  void pump_inbound();
  void fetch_next_file();
  /// Whether message `ts` of `conversation` is waiting in inbound_ for its files.
  bool waiting_inbound(const std::string& conversation, const std::string& ts) const;

  EventLoop& loop_;
  SlackSettings settings_;
  std::string id_ = "slack";
  ChannelRun run_;  ///< liveness of the current run, failure reporting, running / lastError
  std::unique_ptr<SlackWebApi> api_;
  std::unique_ptr<net::HttpClient> http_;  ///< inbound file downloads (url_private)
  struct PendingInbound {
    InboundMessage message;
    std::vector<InboundFile> files;  ///< still to fetch, in order
  };
  std::deque<PendingInbound> inbound_;
  bool fetching_ = false;
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
  /// An ephemeral slash command's reply route, per command (its InboundMessage::message_id).
  struct SlashReply {
    std::string response_url, user_id;
    int64_t expires_ms = 0;  ///< steady clock
    int uses = 0;            ///< POSTs to response_url so far
  };
  std::map<std::string, SlashReply> slash_replies_;
  SlackEventIds http_event_ids_;  ///< HTTP mode: event ids handled (Slack's retries carry them again)
  std::string bot_user_id_, bot_name_, team_id_;
  bool connected_ = false;  ///< `hello` seen on the current connection
  int failures_ = 0;
  int64_t messages_seen_ = 0, messages_sent_ = 0, messages_edited_ = 0, reactions_ = 0, files_sent_ = 0, slash_commands_ = 0, http_requests_ = 0, http_refused_ = 0, http_retries_ = 0, replays_ignored_ = 0, reconnects_ = 0;
};

}  // namespace pincer::channels::slack
