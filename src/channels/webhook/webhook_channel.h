// A generic signed webhook as a Channel (issue #5 §5): other programs POST a message to the
// gateway's port and get the agent's reply either in the HTTP response (`mode: "sync"`) or as a
// signed POST to `callbackUrl` (`mode: "callback"`).
//
// Request: POST <path> (default /webhook), JSON {"text", "senderId"?, "senderName"?,
// "conversationId"?, "messageId"?}, header `X-Pincer-Signature: sha256=<hex HMAC-SHA256 of the raw
// body with channels.webhook.secret>` (checked in constant time). Answers: 200 {ok, reply} (sync),
// 202 {ok, accepted} (callback), 200 {ok, duplicate:true} for a messageId seen before (QL-4),
// 400 bad JSON / no text, 401 bad signature, 403 refused, 405 not POST, 413 over maxBodyBytes,
// 504 no reply within replyTimeoutSeconds. Callback body: {"conversationId", "text"} with the same
// signature header.
//
// Loop affinity: event-loop thread only.
#pragma once

#include <deque>
#include <map>
#include <memory>

#include "channels/channel.h"
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
};

/// "sha256=<hex>" of HMAC-SHA256(secret, body).
std::string signature(const std::string& secret, const std::string& body);
/// Constant-time check of a signature header value against the body.
bool signature_valid(const std::string& secret, const std::string& body, const std::string& header_value);

class WebhookChannel final : public Channel {
 public:
  WebhookChannel(EventLoop& loop, WebhookSettings settings);
  ~WebhookChannel() override;

  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return settings_.account_id; }
  ChannelCapabilities capabilities() const override;
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
  };
  void handle(const net::HttpRouteRequest& request, net::HttpResponder respond);

  EventLoop& loop_;
  WebhookSettings settings_;
  std::string id_ = "webhook";
  ChannelHost* host_ = nullptr;
  net::HttpClient http_;
  std::map<std::string, std::deque<std::shared_ptr<Waiting>>> waiting_;  ///< by conversation (sync)
  int64_t received_ = 0, rejected_ = 0, replied_ = 0;
  std::string last_error_;
};

}  // namespace pincer::channels::webhook
