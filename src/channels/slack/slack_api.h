// Slack API shapes (https://api.slack.com/apis/socket-mode, https://api.slack.com/methods), pure:
// Socket Mode envelopes, Events API `message` / `app_mention` events → InboundMessage (SPEC CH-2),
// Web API request bodies and answers ({ok, error}), Retry-After. The transports live in
// slack_web_api.cpp (HTTP) and slack_channel.cpp (the Socket Mode WebSocket).
//
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "channels/channel.h"
#include "channels/inbound_file_fetch.h"
#include "core/http_client.h"

namespace pincer::channels::slack {

/// OpenClaw's Slack text chunk limit (extensions/slack: SLACK_TEXT_LIMIT), in UTF-16 units.
inline constexpr std::size_t kSlackMessageLimit = 4000;

/// One Socket Mode frame from Slack, by `type`.
struct SocketEnvelope {
  enum class Kind { Hello, Disconnect, EventsApi, SlashCommands, Other, Invalid };
  Kind kind = Kind::Invalid;
  std::string type;         ///< the frame's `type` as sent ("hello", "events_api", "slash_commands" …)
  std::string envelope_id;  ///< "" when the frame needs no acknowledgement
  std::string reason;       ///< disconnect: `reason` ("refresh_requested", "link_disabled", …)
  /// events_api: the event_callback ({team_id, event:{…}, event_id}); slash_commands: the command
  /// (slack_commands.h); others: their payload as sent (or {}).
  nlohmann::json payload;
  int retry_attempt = 0;    ///< Slack's redelivery count of this envelope (0 = first delivery)
};
/// Parses one WebSocket text frame; Kind::Invalid for text that is not a JSON object with a type.
SocketEnvelope parse_socket_envelope(std::string_view text);
/// The acknowledgement Slack waits for (within 3 s, else it redelivers): {"envelope_id": id}.
std::string envelope_ack(const std::string& envelope_id);

/// An events_api payload's event as an InboundMessage, or nullopt for events to ignore: not a
/// `message` / `app_mention`; a subtype other than `thread_broadcast` and `file_share`
/// (message_changed, message_deleted, bot_message, channel_join …); from a bot (`bot_id`) or from
/// the bot's own user `bot_user_id`; no user, channel or ts; no text after the bot's mention is removed.
/// chat_id = event.channel; message_id = the message's ts (Slack's id of a message in its channel);
/// is_group for every channel_type but "im"; channel_peer for "channel" and "group" (public and
/// private channels: peer kind "channel", as OpenClaw keys them), "mpim" stays a group; team_id from
/// the payload (else event.team); thread_id = thread_ts when the message is in a thread (replies
/// go there; the session key gets the thread suffix). mentions_bot: an app_mention, or `<@BOT>`
/// in the text (removed from it, the text trimmed). ts_ms from ts (seconds with a fraction).
/// The files of a message event's `event.files[]` (Slack file objects; a file_share message): the
/// URL url_private_download, else url_private; name, mimetype, size. Entries without a URL (a
/// deleted file's tombstone, one hidden by the workspace's plan) are left out. The caller adds
/// the bot token as Authorization: Bearer (Slack serves private files only so).
std::vector<InboundFile> message_files(const nlohmann::json& payload);

std::optional<InboundMessage> parse_message_event(const nlohmann::json& payload, const std::string& account_id,
                                                  const std::string& bot_user_id);

/// Order of message timestamps "1700000000.000100": true when `a` was sent before `b` (compared as
/// numbers: seconds, then the fraction). Text that is not a ts compares as text.
bool slack_ts_less(const std::string& a, const std::string& b);

/// The outcome of one Web API call: HTTP status (0 = transport error, `transport_error` says why)
/// and the parsed body (null when not JSON).
struct WebApiAnswer {
  int status = 0;
  nlohmann::json body;
  std::string transport_error;
  /// Slack's {ok:true}.
  bool ok() const { return status == 200 && body.is_object() && body.value("ok", false); }
  /// Slack's `error` ("invalid_auth", "channel_not_found" …), "HTTP <status>" or the transport
  /// error when there is none.
  std::string error() const;
};
/// How long to wait before the same call again (ms), or nullopt when it is not rate limited: HTTP
/// 429 or {ok:false, error:"ratelimited"}; Retry-After in seconds (absent or unreadable: 1 s).
std::optional<int64_t> retry_after_ms(const WebApiAnswer& answer, const net::HttpResponseHead& head);
/// The error code the delivery layer retries by (channel.h send_text): transport errors, 5xx,
/// "internal_error", "fatal_error", "service_unavailable", "request_timeout" → UNAVAILABLE; the
/// rest (invalid_auth, channel_not_found, msg_too_long, …) → REJECTED. The message names the method.
Error delivery_error(const std::string& method, const WebApiAnswer& answer);

/// chat.postMessage {channel, text, thread_ts?, mrkdwn:true, unfurl_links:false}.
nlohmann::json post_message_body(const std::string& channel, const std::string& text, const std::string& thread_ts);
/// chat.update {channel, ts, text}.
nlohmann::json update_message_body(const std::string& channel, const std::string& ts, const std::string& text);

}  // namespace pincer::channels::slack
