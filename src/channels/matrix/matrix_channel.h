// Matrix as a Channel (SPEC CH-1, CH-2; issue 21 item 4): a user account on a homeserver over the
// client-server API v3 with an access token. GET /account/whoami checks the token and gives the
// bot's user id, its display name comes from /profile; then /sync long-polls (timeout 30 s, a
// filter that keeps it small: matrix_api.h) one request at a time, each answer handled on the
// loop before the next request starts. Text messages of joined rooms become InboundMessages
// (direct rooms: DMs; other rooms: group conversations whose mention gating the pipeline applies);
// invites are joined per `autoJoin` (always | allowlist | off, OpenClaw's default off).
// Encrypted rooms are not supported: the first m.room.encrypted event of a room logs a warning.
//
// Direct chats to a user (docking, RT-5): direct_chat_id() / resolve_room(), matrix_direct.cpp.
//
// Restarts: the since token and the rooms' membership are kept in `state_file` (atomic write),
// written after the pipeline journaled the batch's messages (agent/run_journal.h) and before any
// of them is answered; a crash before the write syncs the batch again and the journal knows
// the event ids, so nothing is lost or answered twice; the last 100 event ids handled per room are
// kept too, so even a sync from an older token does not answer a message again. The first sync of an account that never
// synced only learns the rooms: the history it returns is not answered.
//
// Replies: Markdown chunks (CH-4, 4000 UTF-16 units) sent as m.room.message with the plain body
// and the org.matrix.custom.html formatted_body (PUT /rooms/{room}/send/m.room.message/{txnId}),
// in the inbound's thread when it came from one; streamed previews edited with m.replace; 429
// M_LIMIT_EXCEEDED waits retry_after_ms and sends the same request again (at most 5 times).
//
// Reactions (CH-8, the message tool's react action): an m.reaction event relating to the message
// (m.annotation, key = the emoji); taking it away redacts that event, whose id is remembered per
// (room, message, emoji) in memory only (the last 10 000) — after a restart an earlier reaction
// cannot be taken away.
//
// Loop affinity: all methods on the event-loop thread (HTTP via core/http_client.h).
#pragma once

#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "channels/channel.h"
#include "channels/channel_run.h"
#include "channels/matrix/matrix_api.h"
#include "core/event_loop.h"
#include "core/http_client.h"

namespace pincer::channels::matrix {

struct MatrixSettings {
  std::string account_id = "default";
  std::string homeserver;    ///< channels.matrix.homeserver: "https://matrix.example.org" (no trailing /)
  std::string access_token;  ///< channels.matrix.accessToken
  std::string config_path = "channels.matrix";  ///< where the account's keys are, for error messages
  std::string user_id;       ///< channels.matrix.userId: checked against whoami when set ("" = whoami's)
  std::string auto_join = "off";  ///< "always" | "allowlist" | "off"
  std::vector<std::string> auto_join_allowlist;  ///< room ids, aliases (#room:server) or inviting user ids
  int64_t sync_timeout_ms = 30'000;  ///< /sync long-poll timeout
  std::filesystem::path state_file;  ///< since token + rooms ("" = memory only)
};

/// The decision for one invite under `autoJoin`: whether to join (pure; the reason for the log).
struct AutoJoinDecision {
  bool join = false;
  std::string reason;
};
AutoJoinDecision decide_auto_join(const MatrixSettings& settings, const Invite& invite);

/// The upload size Synapse allows by default (max_upload_size 50M).
inline constexpr std::size_t kMatrixMaxUploadBytes = 50'000'000;

class MatrixChannel final : public Channel {
 public:
  MatrixChannel(EventLoop& loop, MatrixSettings settings);
  ~MatrixChannel() override;

  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return settings_.account_id; }
  ChannelCapabilities capabilities() const override;
  void start(ChannelHost& host, std::function<void(const std::string&)> on_failed) override;
  void stop() override;
  /// After a failure: the homeserver refused the access token (401 M_UNKNOWN_TOKEN / M_MISSING_TOKEN).
  bool failed_permanently() const override { return run_.permanent(); }
  /// PUT /rooms/{chat_id}/send/m.room.message/{txnId} (text_content(); `thread_id` = thread
  /// root); the new event's id. 429: waits retry_after_ms and tries again (5 times, then
  /// RATE_LIMITED); 5xx / transport → UNAVAILABLE; other errors → REJECTED "matrix: <errcode>:
  /// <error> (HTTP n)".
  void send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) override;
  /// Uploads the file to the media repository, then sends an m.image / m.file event naming its
  /// mxc:// URI (matrix_send_media.cpp); at most kMatrixMaxUploadBytes. Errors as send_text's.
  void send_media(const OutboundMedia& media, std::function<void(Result<std::string>)> done) override;
  /// An m.replace edit of `message_id` (an event id send_text() returned) in room `chat_id`.
  void edit_text(const std::string& chat_id, const std::string& message_id, const std::string& text,
                 std::function<void(Status)> done) override;
  /// Adds: PUT /rooms/{chat_id}/send/m.reaction/{txnId} {"m.relates_to": {rel_type:
  /// "m.annotation", event_id: message_id, key: emoji}} (Ok at once when this run's bot already
  /// reacted so). Removes: PUT /rooms/{chat_id}/redact/{reaction event}/{txnId} — REJECTED when
  /// no such reaction of the bot is remembered (header). Errors as send_text().
  void react(const std::string& chat_id, const std::string& message_id, const std::string& emoji, bool remove,
             std::function<void(Status)> done) override;
  /// PUT /rooms/{chat_id}/typing/{user} {typing:true, timeout:30000}; best effort.
  void send_typing(const std::string& chat_id, const std::string& thread_id) override;
  /// The user id itself ("@alice:example.org"; "user:@alice:example.org" works too): a send to a
  /// user goes to the bot's direct room with them — one Pincer created before (kept in the state
  /// file), else a joined direct room (m.direct, or just the two of them) they are in, else a room
  /// created for them (POST /createRoom {is_direct, invite:[user], preset:"trusted_private_chat"})
  /// and remembered (matrix_direct.cpp). Channel docking (RT-5) uses it.
  std::string direct_chat_id(const std::string& user_id) const override { return user_id; }
  /// {channel, accountId, running, mode:"sync", userId, since, rooms, messagesSeen, messagesSent,
  /// messagesEdited, invitesJoined, rateLimited, replaysIgnored, lastError?}.
  nlohmann::json status() const override;
  /// GET /account/whoami now: {ok, bot:{id}, elapsedMs} or {ok:false, error}.
  void probe(std::function<void(nlohmann::json)> done) override;

 private:
  using Done = std::function<void(int status, const nlohmann::json& body, const std::string& transport_error,
                                  int64_t retry_after_header_s)>;
  /// One request to /_matrix/client/v3 + `path` (with the access token); `body` null = none.
  void call(const std::string& method, const std::string& path, const nlohmann::json& body, int64_t idle_timeout_ms,
            Done done);
  /// `call` with the 429 rule: on M_LIMIT_EXCEEDED waits and repeats, up to 5 times.
  void call_limited(const std::string& method, const std::string& path, const nlohmann::json& body, int attempt,
                    std::function<void(Result<nlohmann::json>)> done);
  void whoami();
  void sync();
  void schedule_sync(int64_t delay_ms);
  void handle_sync(SyncBatch batch, bool first);
  void join(const Invite& invite);
  void save_state();
  /// The room of a delivery target: a room id as it is; a user ("@u:server", "user:@u:server") →
  /// their direct room, found or created (matrix_direct.cpp). Errors as send_text().
  void resolve_room(const std::string& chat_id, std::function<void(Result<std::string>)> done);
  /// The reason a refused access token (401, M_UNKNOWN_TOKEN / M_MISSING_TOKEN) stops the account with:
  /// "the homeserver refused the access token (M_UNKNOWN_TOKEN: …): check <config_path>.accessToken".
  std::string token_refused(const ApiError& e) const;
  std::string next_txn_id();

  EventLoop& loop_;
  MatrixSettings settings_;
  std::string id_ = "matrix";
  ChannelRun run_;  ///< liveness of the current run, failure reporting, running / lastError
  net::HttpClient http_;
  ChannelHost* host_ = nullptr;
  BotIdentity bot_;
  SyncState state_;
  std::set<std::string> joining_;  ///< invites being joined (not twice)
  std::map<std::string, std::string> dm_rooms_;  ///< user id → the direct room sends to them use (state file "dmRooms")
  /// Users whose direct room is being created, and the sends waiting for it.
  std::map<std::string, std::vector<std::function<void(Result<std::string>)>>> creating_dm_;
  int sync_failures_ = 0;
  int64_t txn_counter_ = 0;
  static constexpr std::size_t kRememberedReactions = 10'000;
  /// "<room>\n<message event>\n<emoji>" → the bot's m.reaction event id, and those keys oldest first.
  std::map<std::string, std::string> reactions_;
  std::deque<std::string> reaction_order_;
  int64_t messages_seen_ = 0, messages_sent_ = 0, messages_edited_ = 0, invites_joined_ = 0, rate_limited_ = 0,
          replays_ignored_ = 0;
};

}  // namespace pincer::channels::matrix
