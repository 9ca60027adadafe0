// Discord API shapes (https://discord.com/developers/docs, API v10), pure: Gateway opcodes and
// payloads (IDENTIFY, RESUME, HEARTBEAT), MESSAGE_CREATE → InboundMessage (SPEC CH-2), REST
// request bodies and paths, and the rate-limit headers of an answer. The transports live in
// discord_gateway.cpp (WebSocket) and discord_rest.cpp (HTTP).
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
#include "core/http_client.h"

namespace pincer::channels::discord {

/// Gateway opcodes.
enum GatewayOp : int {
  kOpDispatch = 0,
  kOpHeartbeat = 1,
  kOpIdentify = 2,
  kOpResume = 6,
  kOpReconnect = 7,
  kOpInvalidSession = 9,
  kOpHello = 10,
  kOpHeartbeatAck = 11,
};

/// Intents Pincer identifies with: GUILDS (1<<0), GUILD_MESSAGES (1<<9), DIRECT_MESSAGES (1<<12)
/// and MESSAGE_CONTENT (1<<15, privileged: enable "Message Content Intent" for the bot in the
/// Developer Portal, else guild messages arrive without text).
inline constexpr int64_t kDefaultIntents = (1 << 0) | (1 << 9) | (1 << 12) | (1 << 15);

/// Discord's epoch of snowflake timestamps (2015-01-01T00:00:00Z), ms since the Unix epoch.
inline constexpr int64_t kDiscordEpochMs = 1420070400000;

/// The wall time (ms) a snowflake was made at; 0 when `id` is not a number.
int64_t snowflake_ms(const std::string& id);
/// Snowflake order: true when `a` was made before `b` (longer decimal = later; ids of equal
/// length compare as text). Non-numbers compare as text.
bool snowflake_less(const std::string& a, const std::string& b);

/// The Gateway URL to open: `url` (from GET /gateway/bot or READY's resume_gateway_url) with
/// `?v=10&encoding=json` (no compression).
std::string gateway_connect_url(const std::string& url);

/// {op:2, d:{token, intents, properties:{os, browser, device}}}.
nlohmann::json identify_payload(const std::string& token, int64_t intents);
/// {op:6, d:{token, session_id, seq}}.
nlohmann::json resume_payload(const std::string& token, const std::string& session_id, int64_t seq);
/// {op:1, d:seq} (null before the first dispatch: seq < 0).
nlohmann::json heartbeat_payload(int64_t seq);

/// Close codes after which reconnecting cannot help (4004 authentication failed, 4010 invalid
/// shard, 4011 sharding required, 4012 invalid API version, 4013 invalid intents, 4014
/// disallowed intents): a message naming the cause, else nullopt.
std::optional<std::string> fatal_close(int code);
/// Close codes after which the session cannot be resumed (4007 invalid seq, 4009 session timed
/// out; and the fatal ones): identify anew.
bool close_forgets_session(int code);
/// Whether Gateway close `code` means Discord refuses the bot token (4004): retrying cannot help.
bool close_refuses_token(int code);

/// A MESSAGE_CREATE's `d` as an InboundMessage, or nullopt for messages to ignore (from a bot —
/// Pincer's own included —, from a webhook, system messages, no text). chat_id = channel_id;
/// is_group = channel_peer = the message has a guild_id (a guild channel or thread: peer kind
/// "channel"; else a DM); guild_id and sender_roles
/// (member.roles) for bindings (SPEC RT-3); sender_name = member.nick, else author.global_name,
/// else author.username; sender_username is left empty (Discord names can be changed: allowFrom
/// matches ids). mentions_bot: the bot's user id in `mentions`, a `<@id>`/`<@!id>` token in the
/// text, or a reply to one of the bot's
/// messages (referenced_message.author.id). The bot's own `<@id>` tokens are removed from the
/// text (which is trimmed); a message with no text left is ignored unless it has attachments
/// (message_files()). ts_ms from the snowflake.
std::optional<InboundMessage> parse_message_create(const nlohmann::json& d, const std::string& account_id,
                                                   const std::string& bot_user_id);

/// The threads a Gateway event announces, as {thread id, parent channel id} pairs: GUILD_CREATE
/// and THREAD_LIST_SYNC (`threads[]`), THREAD_CREATE / THREAD_UPDATE (the thread itself).
std::vector<std::pair<std::string, std::string>> announced_threads(const std::string& type, const nlohmann::json& d);

/// One attachment of a message (MESSAGE_CREATE `attachments[]`), to download from `url`.
struct DiscordFile {
  std::string url;           ///< Discord's CDN URL of the file
  std::string filename;
  std::string content_type;  ///< "" = not given
  int64_t size = 0;          ///< bytes as Discord reports them
};
/// The attachments of a MESSAGE_CREATE's `d` (entries without a url are skipped).
std::vector<DiscordFile> message_files(const nlohmann::json& d);

/// POST /channels/{id}/messages body: {content, allowed_mentions:{parse:["users"]}} — a reply
/// never pings @everyone, @here or roles.
nlohmann::json create_message_body(const std::string& content);
/// PATCH /channels/{id}/messages/{id} body: {content, allowed_mentions}.
nlohmann::json edit_message_body(const std::string& content);

/// Percent-encodes an emoji (or `name:id` of a custom emoji) for the reactions path.
std::string encode_path_segment(const std::string& text);

/// What one REST answer says about its rate limit (https://discord.com/developers/docs/topics/rate-limits).
struct RateLimitInfo {
  std::string bucket;         ///< X-RateLimit-Bucket ("" = none)
  int remaining = -1;         ///< X-RateLimit-Remaining (-1 = absent)
  int64_t reset_after_ms = 0; ///< X-RateLimit-Reset-After, ms
  bool limited = false;       ///< HTTP 429
  bool global = false;        ///< a global limit (X-RateLimit-Global or the body's `global`)
  int64_t retry_after_ms = 0; ///< 429: the body's retry_after (seconds, fractional), else Retry-After
};
RateLimitInfo parse_rate_limit(int http_status, const net::HttpResponseHead& head, const nlohmann::json& body);

/// The route a REST request is limited by before its bucket hash is known: method + path with
/// every id after the major parameter (channels/{id}, guilds/{id}, webhooks/{id}) replaced by
/// ":id", e.g. "POST /channels/123/messages" or "PATCH /channels/123/messages/:id". Reactions
/// share one route per channel.
std::string route_key(const std::string& method, const std::string& path);

/// A delivery target as OpenClaw writes Discord targets: `channel:<id>` and bare ids are channels,
/// `user:<id>` and mentions `<@id>` / `<@!id>` are users (their DM). `id` is "" when the rest is
/// not a snowflake (digits only).
struct DeliveryTarget {
  std::string id;
  bool user = false;
};
DeliveryTarget parse_delivery_target(std::string_view target);

}  // namespace pincer::channels::discord
