// Discord REST calls with Discord's rate limits (https://discord.com/developers/docs/topics/rate-limits):
// one FIFO queue per route bucket (route_key(): method + path with its major parameter, the unit
// Discord limits by), one request in flight per queue. An answer with X-RateLimit-Remaining 0 holds its
// queue for X-RateLimit-Reset-After; a 429 holds it for retry_after and sends the same request
// again — a global 429 holds every queue — so a rate-limited message is delayed, never dropped
// or reordered. Other answers go to the caller.
//
// Loop affinity: event-loop thread only; callbacks on the loop; none after the object is gone.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/event_loop.h"
#include "core/http_client.h"

namespace pincer::channels::discord {

/// The outcome of one REST call: HTTP status (0 = transport error, `transport_error` says why)
/// and the parsed JSON body (null when empty or not JSON).
struct RestAnswer {
  int status = 0;
  nlohmann::json body;
  std::string transport_error;
};

class DiscordRest {
 public:
  /// `api_root`: e.g. https://discord.com/api (no trailing slash; `/v10` is appended);
  /// `token`: the bot token (sent as `Authorization: Bot <token>`).
  DiscordRest(EventLoop& loop, std::string api_root, std::string token);
  ~DiscordRest();

  /// Queues `method` `path` (e.g. "/channels/1/messages") with a JSON `body` (null = none).
  void call(const std::string& method, const std::string& path, nlohmann::json body,
            std::function<void(const RestAnswer&)> done);
  /// Queues an upload: `body` of `content_type` as it is (a multipart/form-data message with files,
  /// core/multipart_form.h), in the same route queue and under the same limits as call().
  void call_raw(const std::string& method, const std::string& path, std::string content_type, std::string body,
                std::function<void(const RestAnswer&)> done);
  /// Drops every queued request and cancels the ones in flight (no callback runs for them).
  void cancel_all();

  /// Counters for status: {queued, rateLimited (429s seen), routes}.
  nlohmann::json stats() const;

 private:
  struct Request {
    std::string method, path;
    nlohmann::json body;
    std::function<void(const RestAnswer&)> done;
    std::string content_type = {}, raw_body = {};  ///< call_raw(): sent instead of `body`
  };
  struct Queue {
    std::deque<Request> waiting;
    bool busy = false;
    int64_t held_until_ms = 0;  ///< steady ms; 0 = free
    bool timer_set = false;
  };
  void pump(const std::string& key);
  void send(const std::string& key);

  EventLoop& loop_;
  std::string api_root_;
  std::string token_;
  net::HttpClient http_;
  std::map<std::string, Queue> queues_;  ///< by route key
  std::map<std::string, net::HttpClient::RequestId> in_flight_;  ///< by route key
  int64_t global_until_ms_ = 0;
  int64_t rate_limited_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace pincer::channels::discord
