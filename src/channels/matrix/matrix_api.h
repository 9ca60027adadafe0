// Matrix client-server API v3 shapes (https://spec.matrix.org/v1.11/client-server-api/), pure:
// the /sync filter and path, reading a /sync answer into invites and InboundMessages (with the
// room membership kept between syncs, SyncState), mention detection, the m.room.message contents
// Pincer sends (a reply, an edit by m.replace, a reply in a thread), and error answers
// ({errcode, error, retry_after_ms}). The transport lives in matrix_channel.cpp.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "channels/channel.h"
#include "core/result.h"

namespace pincer::channels::matrix {

/// The longest message Pincer sends, in UTF-16 units of its Markdown (OpenClaw's
/// MATRIX_TEXT_LIMIT; the HTML rendered from it rides along in the same event).
inline constexpr std::size_t kMatrixTextLimit = 4000;

/// Percent-encodes everything but RFC 3986 unreserved characters (room ids "!a:b", event ids
/// "$x", user ids "@u:s" and aliases "#r:s" in a path or query).
std::string encode_uri_component(std::string_view text);

/// The /sync filter (inline JSON): timelines of m.room.message, m.room.member and
/// m.room.encrypted (at most 50 events a room), member state, the m.direct account data; no
/// presence, receipts, typing or room account data.
nlohmann::json sync_filter();

/// "/sync?filter=…&timeout=<ms>[&since=<token>]" (relative to /_matrix/client/v3).
std::string sync_path(const std::string& since, int64_t timeout_ms);

/// The bot's own account: its user id (whoami) and display name ("" = unknown).
struct BotIdentity {
  std::string user_id;       ///< "@pincer:example.org"
  std::string display_name;  ///< "Pincer"
};

/// What Pincer remembers of a joined room between syncs (persisted with the since token): who is
/// in it (joined or invited: user id → display name, "" when it has none).
struct RoomInfo {
  std::map<std::string, std::string> members;
  bool encrypted_warned = false;  ///< the E2EE warning was logged for it
  /// Ids of the last kRecentEvents messages handed to the pipeline, oldest first: a sync from an
  /// older token (a restored state file, a homeserver that repeats itself) is not answered twice.
  std::vector<std::string> handled;
};

/// How many handled event ids a room remembers.
inline constexpr std::size_t kRecentEvents = 100;


/// The sync position and what later syncs build on: the since token, the joined rooms, the rooms
/// the account's m.direct marks as direct chats.
struct SyncState {
  std::string since;  ///< next_batch of the last sync handled ("" = never synced)
  std::map<std::string, RoomInfo> rooms;
  std::set<std::string> direct_rooms;
};

/// Adds `event_id` to the handled ids of `room_id` (the oldest go beyond kRecentEvents).
void remember_handled(SyncState& state, const std::string& room_id, const std::string& event_id);

/// The state file's JSON: {since, rooms:{id:{members:{user:name}, handled:[…], encryptedWarned?}},
/// direct:[…]}.
nlohmann::json sync_state_to_json(const SyncState& state);
/// A state file's JSON (unknown or malformed parts are left out).
SyncState sync_state_from_json(const nlohmann::json& j);

/// An invitation of the bot into a room.
struct Invite {
  std::string room_id;
  std::string inviter;   ///< the m.room.member invite's sender ("" = unknown)
  std::string alias;     ///< the room's m.room.canonical_alias from invite_state ("" = none)
  bool is_direct = false;  ///< the invite says `is_direct`
};

/// One /sync answer, read.
struct SyncBatch {
  std::string next_batch;
  std::vector<Invite> invites;
  std::vector<InboundMessage> messages;  ///< text messages of others, in timeline order
  std::vector<std::string> encrypted_rooms;  ///< rooms whose first m.room.encrypted event this was
  std::vector<std::string> left_rooms;
  int64_t replays = 0;  ///< messages skipped because they were handled before (RoomInfo::handled)
};

/// Whether room `room_id` is a direct chat: marked in m.direct, or at most two members (the bot
/// and one person) — OpenClaw's rule.
bool is_direct_room(const SyncState& state, const std::string& room_id);

/// Reads a /sync answer and updates `state` (membership, m.direct; not `since`). Messages: events
/// of type m.room.message with msgtype m.text (also m.notice is skipped, as bots send those) and
/// a string body, from anyone but `bot.user_id`, not an edit (m.replace); in a direct room they
/// are DMs (peer: the sender), elsewhere room messages with `channel_peer` (peer kind "channel",
/// as OpenClaw keys Matrix rooms); an event in a thread (m.relates_to rel_type m.thread) carries
/// the thread root as `thread_id`; one already in its room's `handled` ids is skipped (counted in
/// `replays`). `mentions_bot`: mentions_user(). Errors: "PROTOCOL" when the
/// answer has no string next_batch.
Result<SyncBatch> parse_sync(const nlohmann::json& answer, SyncState& state, const BotIdentity& bot,
                             const std::string& account_id);

/// Whether an m.room.message content mentions the bot: `m.mentions.user_ids` holds its user id;
/// or, when the content has no `m.mentions` (older clients), the body names its user id or its
/// display name (case-insensitive, as a whole word), or formatted_body links to it
/// (https://matrix.to/#/<user id>).
bool mentions_user(const nlohmann::json& content, const BotIdentity& bot);

/// The content of a new text message: {msgtype m.text, body (plain text), format
/// org.matrix.custom.html, formatted_body (HTML)} rendered from `markdown`; with a
/// `thread_root` ("" = none) an m.thread relation to it (with the reply fallback to the root).
nlohmann::json text_content(const std::string& markdown, const std::string& thread_root);

/// The content of an edit of `event_id` to `markdown`: "* " + the body, m.new_content with the
/// full new content, m.relates_to {rel_type m.replace, event_id}.
nlohmann::json edit_content(const std::string& event_id, const std::string& markdown);

/// An error answer: the HTTP status, errcode ("" = none), error text, retry_after_ms (429 with
/// M_LIMIT_EXCEEDED; 0 = not given).
struct ApiError {
  int status = 0;
  std::string errcode;
  std::string error;
  int64_t retry_after_ms = 0;
};
/// nullopt for a 2xx answer; `retry_after_header_s` is the Retry-After header (-1 = none), used
/// when the body gives no retry_after_ms.
std::optional<ApiError> parse_error(int status, const nlohmann::json& body, int64_t retry_after_header_s = -1);
/// "M_FORBIDDEN: You are not invited to this room (HTTP 403)".
std::string error_text(const ApiError& e);

}  // namespace pincer::channels::matrix
