// A generic signed webhook as a Channel (issue #5 §5): other programs POST a message to the
// gateway's port and get the agent's reply either in the HTTP response (`mode: "sync"`) or as a
// signed POST to `callbackUrl` (`mode: "callback"`).
//
// Request: POST <path> (default /webhook), JSON {"text", "senderId"?, "senderName"?,
// "conversationId"?, "messageId"?}, headers `X-Pincer-Timestamp: <Unix seconds>` and
// `X-Pincer-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>` (checked in
// constant time; the timestamp within ±5 min; each signature once, remembered across restarts —
// webhook_signing.h). `senderId`, `conversationId` and `messageId` are strings or integers (an
// integer is taken as its decimal string). Answers: 200 {ok, conversationId, reply} (sync), 202
// {ok, accepted} (callback); a messageId seen before, also before a restart (QL-4,
// webhook_dedupe.h), is never run again: in sync mode its retry gets the reply, 200 {ok,
// duplicate:true, conversationId, reply} — the stored one, or the one of the run still going,
// waited for up to replyTimeoutSeconds (then 504 again) —, in callback mode 200 {ok,
// duplicate:true} (the reply is POSTed once); 400 {ok:false, error} for bad JSON, a blank text or an unusable id, 401 missing
// or bad timestamp or signature, or a stale timestamp, 403 refused, 405 not POST, 409 a replayed
// signature (unless the request is otherwise valid and names a messageId already taken: a retry
// re-sent within the same second signs the same bytes, and is answered as any retry is), 413 over maxBodyBytes, 429 too many requests within the window, 503 the replay
// record cannot be written, 504 no reply within replyTimeoutSeconds. Callback body:
// {"conversationId", "text"} with the same two headers, signed with the callback key
// (webhook_signing.h callback_key), never the inbound one.
//
// Loop affinity: event-loop thread only.
#pragma once

#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "channels/channel.h"
#include "channels/webhook/webhook_dedupe.h"
#include "channels/webhook/webhook_signing.h"
#include "core/event_loop.h"
#include "core/http_client.h"
#include "core/http_route.h"

namespace pincer::channels::webhook {

struct WebhookSettings {
  std::string account_id = "default";
  std::string secret;  ///< HMAC key (required)
  std::string path = "/webhook";
  bool sync = true;
  std::string callback_url;  ///< required when !sync
  std::size_t max_body_bytes = 1 << 20;
  int64_t reply_timeout_ms = 120'000;
  /// Where accepted signatures are remembered across restarts ("" = memory only).
  std::filesystem::path replay_file;
  /// Where accepted messageIds are remembered across restarts ("" = memory only; webhook_dedupe.h).
  std::filesystem::path dedupe_file;
};

/// Longest senderId / conversationId / messageId accepted, bytes (together they stay within a
/// session key's limit, store/session_keys.h).
inline constexpr std::size_t kWebhookMaxIdBytes = 128;

/// One request body, checked.
struct WebhookMessage {
  std::string text;
  std::string sender_id = "webhook";
  std::string sender_name;
  std::string conversation_id;  ///< the sender id when not given
  std::string message_id;       ///< "" = none (no dedupe)
};

/// Reads a request body: `text` a string with something besides whitespace; each id absent,
/// null, "" (its default), a string of 1..kWebhookMaxIdBytes bytes without control characters
/// and not only whitespace, or an integer (its decimal string: 42 and "42" are one
/// conversation); `senderName` a string. Errors: "INVALID_REQUEST" naming the field and why.
Result<WebhookMessage> parse_webhook_message(const nlohmann::json& body);

class WebhookChannel final : public Channel {
 public:
  WebhookChannel(EventLoop& loop, WebhookSettings settings);
  ~WebhookChannel() override;

  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return settings_.account_id; }
  ChannelCapabilities capabilities() const override;
  /// Sync mode only answers requests (""); callback mode posts to the conversation of that id.
  std::string direct_chat_id(const std::string& user_id) const override { return settings_.sync ? "" : user_id; }
  void start(ChannelHost& host, std::function<void(const std::string&)> on_failed) override;
  void stop() override;
  void send_text(const OutboundMessage& message, std::function<void(Result<std::string>)> done) override;
  nlohmann::json status() const override;

  /// The HTTP endpoint to add to the gateway.
  net::HttpRoute route();

 private:
  struct Waiting {
    net::HttpResponder respond;
    EventLoop::TimerId timer;
    std::string identity;  ///< MessageIdRecord::identity of the message ("" = no messageId)
  };
  struct Refusal {
    int status;
    std::string error;
    bool replayed = false;  ///< an authentic request whose signature was used already (409)
  };
  /// Timestamp, signature, window and replay checks (webhook_signing.h); nullopt = accepted (and
  /// its signature recorded).
  std::optional<Refusal> authenticate(const net::HttpRouteRequest& request);
  void handle(const net::HttpRouteRequest& request, net::HttpResponder respond);
  /// A sync retry of message `identity` (seen before): its stored reply, or a wait for it.
  void answer_retry(const std::string& identity, net::HttpResponder respond);
  /// In sync mode: answers the callers waiting for the message that `message` answers (its
  /// retries, then the request itself or the conversation's oldest) and keeps the reply for
  /// later retries. Returns whether anyone was answered or the reply was kept.
  bool answer_sync(const OutboundMessage& message);

  EventLoop& loop_;
  WebhookSettings settings_;
  std::string id_ = "webhook";
  ChannelHost* host_ = nullptr;
  net::HttpClient http_;
  ReplayGuard replay_;
  MessageIdRecord message_ids_;
  std::string callback_key_;
  std::map<std::string, std::deque<std::shared_ptr<Waiting>>> waiting_;  ///< by conversation (sync)
  std::map<std::string, std::vector<std::shared_ptr<Waiting>>> retries_;  ///< by message identity (sync)
  int64_t received_ = 0, rejected_ = 0, replied_ = 0;
  std::string last_error_;
};

}  // namespace pincer::channels::webhook
